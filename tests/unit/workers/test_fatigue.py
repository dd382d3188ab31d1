"""Fatigue maths of the three signals and the once-per-crossing alert rule (the reference the
store's Lua script is pinned to)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hallmon.schemas import (
    ClaimCounts,
    FatiguePoint,
    MonitorResult,
    State,
    VerdictEvent,
    VerdictTimings,
)
from hallmon.schemas.fatigue import Signal
from hallmon.schemas.results import CitationCheck, SessionConflict, Span
from hallmon.workers.fatigue.trend import (
    FatigueThresholds,
    SessionTotals,
    SignalThresholds,
    alert_id_for,
    bad_trend,
    badness,
    decide,
    make_alert,
    point_of,
    recent,
    slope,
    snapshot,
    sparkline,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def pt(
    turn: int,
    claims: int,
    unsupported: int,
    tokens: int = 1000,
    *,
    loop: int | None = None,
    citations: int = 0,
    precise: int = 0,
    conflicts: int | None = None,
    state: State = "checked",
) -> FatiguePoint:
    return FatiguePoint(
        response_id=f"r{turn}",
        turn=turn,
        context_tokens=tokens,
        claims=claims,
        unsupported=unsupported,
        contradicted=0,
        loop_step=loop,
        citations=citations,
        precise_citations=precise,
        conflicts=conflicts,
        state=state,
    )


TH = FatigueThresholds()


def snap(points: list[FatiguePoint], th: FatigueThresholds = TH):  # type: ignore[no-untyped-def]
    totals = SessionTotals(
        session_id="s",
        agent_id="a",
        responses=len(points),
        claims=sum(p.claims for p in points),
        unsupported=sum(p.unsupported for p in points),
    )
    return snapshot(totals, points, th)


def replay(points: list[FatiguePoint], signal: Signal, th: FatigueThresholds = TH) -> list[int]:
    """Turns at which the signal alerts, applying the re-arm rule as the store does."""
    alerted, out, seen = False, [], []
    for p in points:
        seen.append(p)
        d = decide(seen, signal, th, alerted=alerted)
        if d.alert is not None:
            out.append(p.turn)
            alerted = True
        elif d.rearm:
            alerted = False
    return out


def test_slope_is_least_squares() -> None:
    assert slope([0, 1, 2, 3], [0, 2, 4, 6]) == pytest.approx(2.0)
    assert slope([1, 1, 1], [0, 1, 2]) is None
    assert slope([1], [1]) is None
    with pytest.raises(ValueError, match="as many"):
        slope([1, 2], [1])


def test_badness_of_each_signal() -> None:
    p = pt(0, 4, 1, citations=4, precise=3, conflicts=2)
    assert badness(p, "unsupported_rate") == (1, 4)
    assert badness(p, "citation_precision") == (1, 4)  # one imprecise citation of four
    assert badness(p, "contradictions") == (2, 4)
    # no citation: no value (not a precision of 0); conflict check not run: no value
    assert badness(pt(0, 4, 1), "citation_precision") is None
    assert badness(pt(0, 4, 1), "contradictions") is None
    # an unchecked answer carries no signal at all
    unchecked = pt(0, 4, 4, citations=2, conflicts=1, state="unavailable")
    assert all(badness(unchecked, s) is None for s in ("unsupported_rate", "citation_precision"))


def test_recent_keeps_the_window_of_answers_that_carry_the_signal() -> None:
    points = [pt(i, 0 if i % 2 else 2, 0) for i in range(20)]
    assert [p.turn for p in recent(points, 4, "unsupported_rate")] == [12, 14, 16, 18]
    cited = [pt(i, 2, 0, citations=1 if i < 3 else 0) for i in range(10)]
    assert [p.turn for p in recent(cited, 8, "citation_precision")] == [0, 1, 2]


def test_snapshot_of_a_degrading_session() -> None:
    points = [pt(i, 4, min(4, i // 2), tokens=1000 * (i + 1), loop=i) for i in range(8)]
    s = snap(points)
    assert s.responses == 8 and s.claims == 32
    assert s.slope_per_turn is not None and s.slope_per_turn > 0.1
    assert s.slope_per_1k_tokens == pytest.approx(s.slope_per_turn)
    assert s.slope_per_loop_step == pytest.approx(s.slope_per_turn)
    assert s.last_turn == 7 and s.last_context_tokens == 8000 and s.last_loop_step == 7
    assert s.signals["unsupported_rate"].level == pytest.approx(s.recent_rate)
    assert s.signals["citation_precision"].level is None  # no citation at all
    assert s.signals["contradictions"].points == 0


def test_loop_slope_needs_enough_answers_with_a_loop_step() -> None:
    points = [pt(i, 4, i % 4, loop=i if i < 2 else None) for i in range(8)]
    t = bad_trend(points, "unsupported_rate", TH)
    assert t.slopes["turn_slope"] is not None and t.slopes["loop_slope"] is None


def test_citation_precision_is_reported_in_its_own_terms() -> None:
    # precision falls 1.0, 1.0, 0.5, 0.5, 0.0, 0.0 over the turns
    points = [pt(i, 2, 0, citations=2, precise=[2, 2, 1, 1, 0, 0][i]) for i in range(6)]
    trend = snap(points).signals["citation_precision"]
    assert trend.level == pytest.approx(0.5)
    assert trend.slope_per_turn is not None and trend.slope_per_turn < 0
    d = decide(points, "citation_precision", TH, alerted=False)
    assert d.alert is not None
    alert = make_alert(snap(points), d.alert, response_id="r5", at=NOW)
    assert alert.kind == "citation_precision"
    assert alert.value <= alert.threshold  # a falling precision under its floor


def test_flat_session_has_no_alert() -> None:
    points = [pt(i, 5, 1, tokens=1000 + 100 * i, citations=2, precise=2) for i in range(10)]
    assert snap(points).slope_per_turn == pytest.approx(0.0)
    for signal in ("unsupported_rate", "citation_precision", "contradictions"):
        assert decide(points, signal, TH, alerted=False).alert is None  # type: ignore[arg-type]


def test_too_few_points_never_alert() -> None:
    points = [pt(0, 2, 2), pt(1, 2, 2)]
    assert snap(points).slope_per_turn is None
    assert decide(points, "unsupported_rate", TH, alerted=False).alert is None


def test_alert_once_per_crossing_then_rearm() -> None:
    rates = [0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4] + [0] * 18  # unsupported of 4 claims
    points = [pt(t, 4, bad, tokens=500 * (t + 1) if t < 12 else 500) for t, bad in enumerate(rates)]
    assert len(replay(points, "unsupported_rate")) == 1
    # after the clean run has re-armed it, the next degradation alerts again
    again = points + [pt(30 + i, 4, 4) for i in range(6)]
    assert len(replay(again, "unsupported_rate")) == 2


def test_contradictions_alert_and_slope_gate() -> None:
    rising = [pt(i, 5, 0, conflicts=[0, 0, 0, 1, 2, 2][i]) for i in range(6)]
    assert replay(rising, "contradictions") == [4]
    # one conflicting claim after a clean run: steep, but under the gate; no alert
    single = [pt(i, 10, 0, conflicts=0) for i in range(5)] + [pt(5, 10, 0, conflicts=1)]
    assert bad_trend(single, "contradictions", TH).slopes["turn_slope"] is not None
    assert replay(single, "contradictions") == []


def test_late_clean_answer_does_not_rearm_while_the_slope_is_high() -> None:
    """Verdicts finish out of order: turn 3 (clean) lands after turn 6 has alerted. It pulls the
    recent rate under the slope gate, but the slope is still steep, so no re-arm, no 2nd alert."""
    arrivals = [(0, 0), (1, 0), (2, 0), (4, 1), (5, 2), (6, 3), (3, 0), (7, 4), (8, 4)]
    points = [pt(turn, 4, bad, tokens=400 * (turn + 1)) for turn, bad in arrivals]
    assert len(replay(points, "unsupported_rate")) == 1


def test_alert_ids_are_deterministic_per_signal() -> None:
    points = [pt(i, 2, min(2, i)) for i in range(6)]
    d = decide(points, "unsupported_rate", TH, alerted=False)
    assert d.alert is not None
    alert = make_alert(snap(points), d.alert, response_id="r5", at=NOW)
    assert alert.alert_id == alert_id_for("s", "r5", "unsupported_rate")
    assert alert.alert_id != alert_id_for("s", "r5", "contradictions")
    assert alert.enforcement == "not_enforced_streaming" and alert.response_id == "r5"
    assert alert.value >= alert.threshold


def verdict(state: State = "checked", turn: int | None = 4) -> VerdictEvent:
    base = MonitorResult(
        state=state,
        unavailable_reason="stream_incomplete" if state == "unavailable" else None,
        counts=ClaimCounts(total=5, supported=2, contradicted=1, not_found=1, unclear=1),
        context_size_tokens=1234,
        citations=[
            CitationCheck(claim_id="c1", marker="[1]", source_id="d", supports=True),
            CitationCheck(claim_id="c2", marker="[9]", source_id=None, supports=False),
        ],
    )
    span = Span(start=0, end=3)
    conflict = SessionConflict(
        claim_id="c1",
        claim="a",
        span=span,
        earlier_response_id="r0",
        earlier_claim="b",
        earlier_span=span,
        contradiction=0.9,
    )
    return VerdictEvent(
        **base.model_dump(),
        verdict_id="v",
        response_id="r",
        session_id="s",
        agent_id="a",
        turn=turn,
        timings=VerdictTimings(verdict_at=NOW),
        loop_step=3,
        session_conflicts=[conflict, conflict],  # two earlier claims, one conflicting claim
        conflict_check="done",
    )


def test_point_of_verdict() -> None:
    p = point_of(verdict(), turn_fallback=99)
    assert (p.turn, p.claims, p.unsupported, p.contradicted, p.context_tokens) == (4, 5, 3, 1, 1234)
    assert (p.loop_step, p.citations, p.precise_citations, p.conflicts) == (3, 2, 1, 1)
    assert p.citation_precision == 0.5 and p.contradiction_rate == pytest.approx(0.2)
    assert point_of(verdict(turn=None), turn_fallback=7).turn == 7
    unchecked = point_of(verdict("unavailable"), turn_fallback=0)
    assert unchecked.state == "unavailable" and unchecked.unavailable_reason == "stream_incomplete"
    assert (unchecked.claims, unchecked.unsupported, unchecked.citations) == (0, 0, 0)
    failed = verdict().model_copy(update={"conflict_check": "failed", "session_conflicts": []})
    assert point_of(failed, turn_fallback=0).conflicts is None  # unknown, not zero


def test_thresholds_validate() -> None:
    with pytest.raises(ValueError, match="MIN_POINTS"):
        FatigueThresholds(min_points=1)
    with pytest.raises(ValueError, match="REARM"):
        FatigueThresholds(rearm_fraction=0)
    with pytest.raises(ValueError, match="level"):
        SignalThresholds(level=0, turn_slope=1, context_slope=1, loop_slope=1, slope_gate=0)


def test_sparkline() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert sparkline([0.0, None, 1.0]) == "▁ █"
    assert sparkline([]) == ""


def test_one_bad_answer_after_a_clean_run_is_not_a_trend() -> None:
    points = [pt(i, 1, 0) for i in range(4)] + [pt(4, 1, 1)]
    t = bad_trend(points, "unsupported_rate", TH)
    assert t.slopes["turn_slope"] is not None and t.slopes["turn_slope"] > TH.unsupported.turn_slope
    assert decide(points, "unsupported_rate", TH, alerted=False).alert is None


def test_no_slope_against_an_axis_that_barely_moves() -> None:
    # The same documents every turn: context differs by the question's few tokens only.
    points = [pt(i, 4, i % 4 if i > 3 else 0, tokens=5000 + 7 * i, loop=0) for i in range(8)]
    t = bad_trend(points, "unsupported_rate", TH)
    assert t.slopes["turn_slope"] is not None
    assert t.slopes["context_slope"] is None and t.slopes["loop_slope"] is None
    assert slope([0.0, 0.5], [0.0, 1.0], min_spread=1.0) is None
