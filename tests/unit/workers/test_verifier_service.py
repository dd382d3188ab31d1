"""Verdict events built from a result: ids, timings; telemetry without a collector."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hallmon.schemas import AssembledResponse, MonitorResult, verdict_id_for
from hallmon.workers.telemetry import Telemetry, headers_dict
from hallmon.workers.verifier.service import verdict_event


def test_verdict_event_carries_ids_and_timings() -> None:
    ended = datetime(2026, 1, 1, tzinfo=UTC)
    response = AssembledResponse(
        response_id="r-9", session_id="s-9", agent_id="bot", turn=2, text="x", stream_ended_at=ended
    )
    result = MonitorResult(state="not_applicable")
    v = verdict_event(
        response, result, verification_ms=3.2, now=ended + timedelta(milliseconds=250)
    )
    assert v.verdict_id == verdict_id_for("r-9")
    assert (v.session_id, v.agent_id, v.turn, v.enforcement) == (
        "s-9",
        "bot",
        2,
        "not_enforced_streaming",
    )
    assert v.timings.latency_ms == 250.0 and v.timings.verification_ms == 3.2


def test_headers_and_counts_without_a_collector() -> None:
    assert headers_dict([("traceparent", b"00-1-2-01"), ("x", None)]) == {
        "traceparent": "00-1-2-01"
    }
    t = Telemetry("test")
    with t.span("hallmon.verify", "00-" + "a" * 32 + "-" + "b" * 16 + "-01", n=1):
        t.dead_letter("malformed_json")
        t.verdict("checked", 3, 1, 12.0)
    assert t.counts["dead_letters"] == 1 and t.counts["claims"] == 3


def test_the_conflict_check_runs_before_the_verdict_time_is_taken() -> None:
    import asyncio
    from typing import Any

    from hallmon.schemas import VerdictEvent
    from hallmon.workers.verifier.service import VerificationService

    class Prepared:
        def __init__(self) -> None:
            self.pairs: list[tuple[str, str]] = []
            self.result = MonitorResult(state="not_applicable")

    class FakeVerifier:
        def prepare(self, response: AssembledResponse) -> Any:
            return Prepared()

        def finish(self, prepared: Any, probs: Any) -> MonitorResult:
            return prepared.result  # type: ignore[no-any-return]

        def model_versions(self) -> dict[str, str]:
            return {"nli": "fake"}

    class SlowCheck:
        async def check(self, verdict: VerdictEvent) -> VerdictEvent:
            await asyncio.sleep(0.05)
            return verdict.model_copy(update={"conflict_check": "not_applicable"})

    service = VerificationService(FakeVerifier(), None, conflicts=SlowCheck())  # type: ignore[arg-type]
    response = AssembledResponse(
        response_id="r", session_id="s", agent_id="a", text="Hi.", loop_step=2
    )
    verdict = asyncio.run(service.verify(response))
    assert verdict.conflict_check == "not_applicable" and verdict.loop_step == 2
    assert verdict.timings.verification_ms >= 50.0


def test_safe_mode_caps_the_published_action_and_says_so() -> None:
    from hallmon.workers.verifier.service import cap_action

    blocked = MonitorResult(state="checked", risk=0.9, action="block")
    capped = cap_action(blocked, "warn")
    assert capped.action == "warn" and capped.risk == 0.9
    assert "HALLMON_VERIFIER__MAX_ACTION=warn" in capped.notes[-1]
    assert cap_action(blocked, "block") is blocked
    assert cap_action(MonitorResult(state="checked", action="allow"), "warn").notes == []


def test_safe_mode_allow_keeps_the_verdict_coherent() -> None:
    from hallmon.schemas import Span
    from hallmon.workers.verifier.service import cap_action

    blocked = MonitorResult(
        state="checked", risk=0.9, action="block", flagged_spans=[Span(start=0, end=4)]
    )
    allowed = cap_action(blocked, "allow")
    assert allowed.action == "allow" and allowed.flagged_spans == []
    MonitorResult.model_validate(allowed.model_dump())  # an allow verdict flags no span
