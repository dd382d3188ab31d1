"""One answer in, one verdict event out: the verifier's two phases around the shared batcher.

`prepare` (claims, evidence, checks) runs on the event loop; the NLI pairs go to the
`NLIBatcher`, which batches them with other answers' pairs and runs the model in a thread pool;
`finish` turns the probabilities into the result. The verdict's id derives from the response
id, so a redelivered answer yields the same `verdict_id`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from hallmon.schemas import (
    Action,
    AssembledResponse,
    MonitorResult,
    VerdictEvent,
    VerdictTimings,
    encode,
    verdict_id_for,
)
from hallmon.workers.verifier.batching import NLIBatcher
from hallmon.workers.verifier.session_conflicts import SessionConflictCheck

from hallmon.verification.pair_budget import Rounds, drive_async


class PreparedLike(Protocol):
    @property
    def pairs(self) -> Sequence[tuple[str, str]]: ...


class TwoPhaseVerifier(Protocol):
    """What `hallmon.verification.verifier.Verifier` offers for cross-answer batching."""

    def prepare(self, response: AssembledResponse) -> Any: ...

    def finish(self, prepared: Any, probs: npt.NDArray[np.float32]) -> MonitorResult: ...

    def model_versions(self) -> dict[str, str]: ...

    def pair_rounds(self, answers: Sequence[Any]) -> Rounds: ...


def timings_of(
    response: AssembledResponse, *, verification_ms: float, now: datetime | None = None
) -> VerdictTimings:
    now = now or datetime.now(UTC)
    ended = response.stream_ended_at
    latency_ms = (now - ended).total_seconds() * 1000.0 if ended is not None else None
    return VerdictTimings(
        stream_ended_at=ended,
        verdict_at=now,
        latency_ms=max(latency_ms, 0.0) if latency_ms is not None else None,
        verification_ms=round(verification_ms, 3),
    )


def verdict_event(
    response: AssembledResponse,
    result: MonitorResult,
    *,
    verification_ms: float,
    now: datetime | None = None,
) -> VerdictEvent:
    return VerdictEvent(
        **result.model_dump(),
        verdict_id=verdict_id_for(response.response_id),
        response_id=response.response_id,
        session_id=response.session_id,
        agent_id=response.agent_id,
        model=response.model,
        turn=response.turn,
        loop_step=response.loop_step,
        timings=timings_of(response, verification_ms=verification_ms, now=now),
    )


def failed_verdict(response: AssembledResponse, error: str) -> VerdictEvent:
    """The smallest honest verdict for an answer whose verification or publish failed."""
    result = MonitorResult(
        state="unavailable",
        unavailable_reason="evaluation_failed",
        error=error[:2000],
        context_items=response.context.item_count,
        notes=["verification failed; no claim was judged"],
    )
    return verdict_event(response, result, verification_ms=0.0)


Preparer = Callable[[AssembledResponse], Awaitable[Any]]
"""Runs `prepare` elsewhere, e.g. `ProcessPreparer` under the answer's time budget."""


def in_executor(pool: Executor, prepare: Callable[[AssembledResponse], Any]) -> Preparer:
    """A preparer that runs `prepare` in `pool`, off the event loop."""

    async def run(response: AssembledResponse) -> Any:
        return await asyncio.get_running_loop().run_in_executor(pool, prepare, response)

    return run


_ACTION_RANK = {"allow": 0, "warn": 1, "block": 2}


def cap_action(result: MonitorResult, max_action: Action) -> MonitorResult:
    """Safe mode: never publish an action stronger than `max_action`, and say so."""
    if _ACTION_RANK[result.action] <= _ACTION_RANK[max_action]:
        return result
    note = (
        f"safe mode: action {result.action} published as {max_action} "
        f"(HALLMON_VERIFIER__MAX_ACTION={max_action})"
    )
    update: dict[str, Any] = {"action": max_action, "notes": [*result.notes, note]}
    if max_action == "allow":
        update["flagged_spans"] = []  # an allow verdict flags nothing (the note says why)
    return result.model_copy(update=update)


_CUT_CHARS = 200
_MAX_SKIPPED = 500


def _cut(text: str, limit: int = _CUT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def fit_to_budget(verdict: VerdictEvent, max_bytes: int) -> VerdictEvent:
    """The verdict, trimmed to `max_bytes` of JSON so that it can always be published.

    Over the budget (a long answer with hundreds of claims or skipped segments), the texts of
    claims, evidence, checks and skipped segments are cut to a few hundred characters (their
    spans still point into the answer and the sources) and skipped segments past the first
    500 are left out, with a note; when even that does not fit, an `unavailable` /
    `evaluation_failed` verdict names the budget.
    """
    if len(encode(verdict)) <= max_bytes:
        return verdict
    claims = [
        c.model_copy(
            update={
                "claim": c.claim.model_copy(update={"text": _cut(c.claim.text)}),
                "evidence": [e.model_copy(update={"text": _cut(e.text)}) for e in c.evidence],
                "checks": [k.model_copy(update={"detail": _cut(k.detail)}) for k in c.checks],
                "reason": _cut(c.reason),
            }
        )
        for c in verdict.claims
    ]
    skipped = [s.model_copy(update={"text": _cut(s.text, 80)}) for s in verdict.skipped]
    left_out = max(0, len(skipped) - _MAX_SKIPPED)
    note = (
        f"verdict trimmed to the byte budget of {max_bytes} bytes "
        f"(HALLMON_LIMITS__MAX_EVENT_BYTES): texts cut to {_CUT_CHARS} characters, {left_out} "
        "skipped segments left out; spans still point into the answer and the sources"
    )
    fitted = verdict.model_copy(
        update={
            "claims": claims,
            "skipped": skipped[:_MAX_SKIPPED],
            "notes": [*verdict.notes, note],
        }
    )
    if len(encode(fitted)) <= max_bytes:
        return fitted
    response = AssembledResponse(
        response_id=verdict.response_id,
        session_id=verdict.session_id,
        agent_id=verdict.agent_id,
        model=verdict.model,
        turn=verdict.turn,
        text="",
        stream_ended_at=verdict.timings.stream_ended_at,
    )
    failed = failed_verdict(
        response,
        f"the verdict is over the byte budget of {max_bytes} bytes even trimmed "
        f"({len(verdict.claims)} claims); shorten the answer or raise "
        "HALLMON_LIMITS__MAX_EVENT_BYTES",
    )
    return failed.model_copy(
        update={"model_versions": verdict.model_versions, "counts": verdict.counts}
    )


class VerificationService:
    def __init__(
        self,
        verifier: TwoPhaseVerifier,
        batcher: NLIBatcher,
        *,
        preparer: Preparer | None = None,
        conflicts: SessionConflictCheck | None = None,
        offload: Executor | None = None,
        max_action: Action = "block",
    ) -> None:
        self.verifier = verifier
        self.batcher = batcher
        self.conflicts = conflicts
        self.max_action = max_action
        if preparer is None and offload is not None:
            # The HTTP server runs `prepare` in a (bounded) pool so that probes and other
            # requests are answered, and time budgets can fire, while an answer is prepared.
            preparer = in_executor(offload, verifier.prepare)
        self.preparer = preparer

    async def verify(self, response: AssembledResponse) -> VerdictEvent:
        t0 = time.perf_counter()
        verdict = await self._verify(response)
        if self.conflicts is not None:
            verdict = await self.conflicts.check(verdict)
            # The verdict is ready only now: its time and latency include the conflict check.
            timings = timings_of(response, verification_ms=_ms(t0))
            verdict = verdict.model_copy(update={"timings": timings})
        return verdict

    async def _verify(self, response: AssembledResponse) -> VerdictEvent:
        t0 = time.perf_counter()
        if self.preparer is None:
            prepared = self.verifier.prepare(response)
        else:
            try:
                prepared = await self.preparer(response)
            except Exception as exc:  # over budget, or the process died: never a clean verdict
                verdict = failed_verdict(response, f"{type(exc).__name__}: {exc}")
                return verdict.model_copy(update={"model_versions": self.verifier.model_versions()})
        pairs = getattr(prepared, "pairs", [])
        if getattr(prepared, "result", None) is None and pairs:
            try:
                rounds = self.verifier.pair_rounds([prepared])
                (probs,) = await drive_async(rounds, self.batcher.predict)
            except Exception as exc:
                # The verifier turns a bad probability array into evaluation_failed; an empty
                # one of the wrong shape carries the model's error into that path.
                probs = np.full((0, 3), np.nan, dtype=np.float32)
                result = self.verifier.finish(prepared, probs)
                result = result.model_copy(
                    update={"error": f"nli failed: {type(exc).__name__}: {exc}"}
                )
                return verdict_event(response, result, verification_ms=_ms(t0))
        else:
            probs = np.zeros((0, 3), dtype=np.float32)
        result = self.verifier.finish(prepared, probs)
        # Always this process's versions: a prepare run elsewhere had no model loaded.
        result = result.model_copy(update={"model_versions": self.verifier.model_versions()})
        result = cap_action(result, self.max_action)
        return verdict_event(response, result, verification_ms=_ms(t0))


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
