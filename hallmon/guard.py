"""A guarded agent call for non-streaming use: check the answer before the user sees it.

    from hallmon.guard import AgentReply, Guard

    guard = Guard.in_process()                      # or Guard.over_http("http://hallmon:8080")

    @guard.wrap
    def answer(question: str) -> AgentReply:
        docs = retrieve(question)
        return AgentReply(output=llm(question, docs), input=question, context=docs)

    shown = answer("Can I return worn shoes?")      # a GuardedAnswer
    shown.text       # what to show: the answer, the answer + a notice (warn), or a refusal (block)
    shown.result     # the full check result (risk, action, claims, evidence)

Unlike the stream, where verdicts are advice after the fact, here the seed's actions are applied:
`block` → the refusal text, `warn` → the answer with a notice appended, `allow` → the answer.
An answer that could not be checked (the check failed, the server was unreachable or over its
budget) gets `on_unchecked` (default `warn`): failing open or closed is the operator's choice.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol

from hallmon.schemas import MonitorResult
from hallmon.schemas.results import Action
from hallmon.serve.contracts import SeedCheckRequest, SeedDocument, SeedMemory, SeedToolLog

P = ParamSpec("P")


@dataclass(frozen=True)
class GuardTexts:
    """What the user sees instead of (block) or after (warn) a risky answer."""

    refusal: str = (
        "I'm sorry, I can't give a reliable answer to that right now. "
        "Please contact a member of our team."
    )
    notice: str = (
        "\n\nNote: parts of this answer could not be verified against our sources; "
        "please double-check before relying on it."
    )


@dataclass(frozen=True)
class AgentReply:
    """An agent's answer with what it had when it answered (the seed's request fields)."""

    output: str
    input: str | None = None
    context: Sequence[str | SeedDocument] = ()
    tool_logs: Sequence[str | SeedToolLog] = ()
    memory_refs: Sequence[str | SeedMemory] = ()
    agent_id: str = "guard"
    session_id: str | None = None
    turn: int | None = None

    def request(self) -> SeedCheckRequest:
        return SeedCheckRequest(
            agent_id=self.agent_id,
            session_id=self.session_id,
            turn=self.turn,
            input=self.input,
            output=self.output,
            context=list(self.context),
            tool_logs=list(self.tool_logs),
            memory_refs=list(self.memory_refs),
        )


@dataclass(frozen=True)
class GuardedAnswer:
    text: str
    """What to show the user."""
    action: Action
    """The action applied."""
    original: str
    result: MonitorResult | None
    """The check's result; None when the check itself failed (see `error`)."""
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original


class Checker(Protocol):
    """Checks one answer; raises on failure (the guard turns that into `on_unchecked`)."""

    def __call__(self, request: SeedCheckRequest) -> MonitorResult: ...


class InProcessChecker:
    """The verification pipeline in this process; the model loads once, on first use."""

    def __init__(self, verifier: Any = None) -> None:
        self._verifier = verifier

    def __call__(self, request: SeedCheckRequest) -> MonitorResult:
        from hallmon.schemas import AssembledResponse
        from hallmon.verification.verifier import Verifier, load_model

        if self._verifier is None:
            self._verifier = Verifier(load_model())
        response = AssembledResponse.model_validate(request.assembled_fields())
        result: MonitorResult = self._verifier.verify(response)
        return result


class HttpChecker:
    """`POST /monitor/check` of a `hallmon serve`."""

    def __init__(self, base_url: str, *, token: str | None = None, timeout_s: float = 20.0) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout_s)

    def __call__(self, request: SeedCheckRequest) -> MonitorResult:
        r = self._client.post(
            "/monitor/check",
            content=request.model_dump_json(),
            headers={"Content-Type": "application/json"},
        )
        if r.status_code != 200:
            raise RuntimeError(f"hallmon serve answered {r.status_code}: {r.text[:500]}")
        from hallmon.serve.contracts import CheckResponse

        return CheckResponse.model_validate_json(r.content)

    def close(self) -> None:
        self._client.close()


class Guard:
    def __init__(
        self,
        checker: Checker,
        texts: GuardTexts | None = None,
        *,
        on_unchecked: Action = "warn",
    ) -> None:
        self.checker = checker
        self.texts = texts or GuardTexts()
        self.on_unchecked = on_unchecked

    @classmethod
    def in_process(cls, texts: GuardTexts | None = None, **kwargs: Any) -> Guard:
        return cls(InProcessChecker(), texts, **kwargs)

    @classmethod
    def over_http(
        cls, base_url: str, *, token: str | None = None, texts: GuardTexts | None = None
    ) -> Guard:
        return cls(HttpChecker(base_url, token=token), texts)

    def apply(self, output: str, action: Action) -> str:
        if action == "block":
            return self.texts.refusal
        if action == "warn":
            return output + self.texts.notice
        return output

    def check(self, reply: AgentReply) -> GuardedAnswer:
        try:
            result = self.checker(reply.request())
        except Exception as exc:  # any failure to check: the answer is unchecked, not clean
            error = f"{type(exc).__name__}: {exc}"
            return GuardedAnswer(
                text=self.apply(reply.output, self.on_unchecked),
                action=self.on_unchecked,
                original=reply.output,
                result=None,
                error=error,
                notes=["the answer could not be checked"],
            )
        action = result.action
        if result.state == "unavailable" and action == "allow":
            # Not checked (no context, failed evaluation): never passed off as verified.
            action = self.on_unchecked
        return GuardedAnswer(
            text=self.apply(reply.output, action),
            action=action,
            original=reply.output,
            result=result,
            notes=list(result.notes),
        )

    def wrap(self, agent: Callable[P, AgentReply]) -> Callable[P, GuardedAnswer]:
        """Decorate an agent call that returns an `AgentReply`; it then returns the guarded
        answer."""

        @functools.wraps(agent)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> GuardedAnswer:
            return self.check(agent(*args, **kwargs))

        return guarded


__all__ = [
    "AgentReply",
    "Checker",
    "Guard",
    "GuardTexts",
    "GuardedAnswer",
    "HttpChecker",
    "InProcessChecker",
]
