"""`hallmon.guard`: block → refusal, warn → notice appended, allow → unchanged; an answer that
could not be checked is never passed off as verified."""

from __future__ import annotations

import pytest
from hallmon.schemas import MonitorResult
from hallmon.schemas.results import Action

from hallmon.guard import AgentReply, Guard, GuardTexts
from hallmon.serve.contracts import SeedCheckRequest

ANSWER = "You can return worn shoes within 90 days."


class FixedChecker:
    def __init__(self, result: MonitorResult | Exception) -> None:
        self.result = result
        self.requests: list[SeedCheckRequest] = []

    def __call__(self, request: SeedCheckRequest) -> MonitorResult:
        self.requests.append(request)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def result(action: Action, risk: float) -> MonitorResult:
    return MonitorResult(state="checked", action=action, risk=risk)


TEXTS = GuardTexts(refusal="REFUSED", notice=" [unverified]")


@pytest.mark.parametrize(
    ("action", "shown"),
    [("block", "REFUSED"), ("warn", ANSWER + " [unverified]"), ("allow", ANSWER)],
)
def test_actions_are_applied(action: Action, shown: str) -> None:
    checker = FixedChecker(result(action, 0.8 if action == "block" else 0.4))
    guard = Guard(checker, TEXTS)
    out = guard.check(AgentReply(output=ANSWER, input="Can I?", context=["policy text"]))
    assert out.text == shown and out.action == action
    assert out.original == ANSWER and out.result is checker.result
    assert out.changed == (action != "allow")
    [sent] = checker.requests
    assert (sent.output, sent.input, sent.context) == (ANSWER, "Can I?", ["policy text"])


def test_default_texts_are_used_when_none_are_given() -> None:
    out = Guard(FixedChecker(result("block", 0.9))).check(AgentReply(output=ANSWER))
    assert out.text == GuardTexts().refusal


def test_wrap_guards_an_agent_call() -> None:
    guard = Guard(FixedChecker(result("warn", 0.5)), TEXTS)

    @guard.wrap
    def agent(question: str) -> AgentReply:
        return AgentReply(output=f"echo {question}", input=question)

    out = agent("hi")
    assert out.text == "echo hi [unverified]" and agent.__name__ == "agent"


def test_a_failed_check_gets_on_unchecked_with_the_error() -> None:
    guard = Guard(FixedChecker(ConnectionError("refused")), TEXTS, on_unchecked="block")
    out = guard.check(AgentReply(output=ANSWER))
    assert out.text == "REFUSED" and out.result is None
    assert out.error == "ConnectionError: refused"


def test_an_unavailable_result_is_not_passed_off_as_verified() -> None:
    unchecked = MonitorResult(state="unavailable", unavailable_reason="context_unavailable")
    out = Guard(FixedChecker(unchecked), TEXTS).check(AgentReply(output=ANSWER))
    assert out.action == "warn" and out.text.endswith("[unverified]")
