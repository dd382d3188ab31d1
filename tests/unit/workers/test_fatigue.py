"""Fatigue series math and the once-per-crossing alert state machine."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hallmon.schemas import (
    ClaimCounts,
    FatiguePoint,
    FatigueSnapshot,
    MonitorResult,
    State,
    VerdictEvent,
    VerdictTimings,
)
from hallmon.workers.fatigue.trend import (
    FatigueThresholds,
    SessionTotals,
    alert_id_for,
    counts_towards_fatigue,
    decide,
    make_alert,
    point_of,
    recent,
    slope,
    snapshot,
    sparkline,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def pt(turn: int, claims: int, unsupported: int, tokens: int = 1000) -> FatiguePoint:
    return FatiguePoint(
        response_id=f"r{turn}",
        turn=turn,
        context_tokens=tokens,
        claims=claims,
        unsupported=unsupported,
        contradicted=0,
    )


TH = FatigueThresholds()


def snap(points: list[FatiguePoint], th: FatigueThresholds = TH) -> FatigueSnapshot:
    totals = SessionTotals(
        session_id="s",
        agent_id="a",
        responses=len(points),
        claims=sum(p.claims for p in points),
        unsupported=sum(p.unsupported for p in points),
    )
    return snapshot(totals, points, th)


def test_slope_is_least_squares() -> None:
    assert slope([0, 1, 2, 3], [0, 2, 4, 6]) == pytest.approx(2.0)
    assert slope([1, 1, 1], [0, 1, 2]) is None
    assert slope([1], [1]) is None
    with pytest.raises(ValueError, match="as many"):
        slope([1, 2], [1])


def test_recent_skips_claimless_answers_and_keeps_window() -> None:
    points = [pt(i, 0 if i % 2 else 2, 0) for i in range(20)]
    window = recent(points, 4)
    assert [p.turn for p in window] == [12, 14, 16, 18]


def test_snapshot_of_a_degrading_session() -> None:
    # turn i, context grows 1k tokens a turn, unsupported rises 1 in 4 claims per 2 turns
    points = [pt(i, 4, min(4, i // 2), tokens=1000 * (i + 1)) for i in range(8)]
    s = snap(points)
    assert s.responses == 8 and s.claims == 32
    assert s.slope_per_turn is not None and s.slope_per_turn > 0.1
    assert s.slope_per_1k_tokens == pytest.approx(s.slope_per_turn)
    assert s.last_turn == 7 and s.last_context_tokens == 8000
    assert s.unsupported_rate == pytest.approx(sum(p.unsupported for p in points) / 32)


def test_flat_session_has_no_alert() -> None:
    s = snap([pt(i, 5, 1, tokens=1000 + 100 * i) for i in range(10)])
    assert s.slope_per_turn == pytest.approx(0.0)
    assert decide(s, FatigueThresholds(), alerted=False).alert is None


def test_too_few_points_never_alert() -> None:
    s = snap([pt(0, 2, 2), pt(1, 2, 2)])
    assert s.slope_per_turn is None
    assert decide(s, FatigueThresholds(), alerted=False).alert is None


def test_alert_once_per_crossing_then_rearm() -> None:
    th = FatigueThresholds()
    alerted = False
    alerts = []
    rates = [0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4]  # unsupported of 4 claims
    points: list[FatiguePoint] = []
    for turn, bad in enumerate(rates):
        points.append(pt(turn, 4, bad, tokens=500 * (turn + 1)))
        d = decide(snap(points), th, alerted=alerted)
        if d.alert:
            alerts.append((turn, d.alert.kind))
            alerted = True
        if d.rearm:
            alerted = False
    assert len(alerts) == 1, alerts
    # recovery: a run of clean answers re-arms, the next degradation alerts again
    for turn in range(12, 30):
        points.append(pt(turn, 4, 0, tokens=500))
        d = decide(snap(points), th, alerted=alerted)
        assert d.alert is None
        if d.rearm:
            alerted = False
    assert not alerted


def test_late_clean_answer_does_not_rearm_while_the_slope_is_high() -> None:
    """Verdicts finish out of order: turn 3 (clean) lands after turn 6 has alerted. It pulls the
    recent rate under the slope gate, but the slope is still steep, so no re-arm, no 2nd alert."""
    th = FatigueThresholds()
    arrivals = [(0, 0), (1, 0), (2, 0), (4, 1), (5, 2), (6, 3), (3, 0), (7, 4), (8, 4)]
    points: list[FatiguePoint] = []
    alerted, alerts = False, 0
    for turn, bad in arrivals:
        points = sorted([*points, pt(turn, 4, bad, tokens=400 * (turn + 1))], key=lambda p: p.turn)
        d = decide(snap(points), th, alerted=alerted)
        alerts += d.alert is not None
        alerted = (alerted or d.alert is not None) and not d.rearm
    assert alerts == 1


def test_alert_carries_deterministic_id_and_snapshot() -> None:
    s = snap([pt(i, 2, min(2, i)) for i in range(6)])
    d = decide(s, FatigueThresholds(), alerted=False)
    assert d.alert is not None
    alert = make_alert(s, d.alert, response_id="r5", at=NOW)
    assert (
        alert.alert_id
        == alert_id_for("s", "r5")
        == make_alert(s, d.alert, response_id="r5", at=NOW).alert_id
    )
    assert alert.enforcement == "not_enforced_streaming"
    assert alert.value >= alert.threshold


def verdict(state: State = "checked", turn: int | None = 4) -> VerdictEvent:
    base = MonitorResult(
        state=state,
        unavailable_reason="stream_incomplete" if state == "unavailable" else None,
        counts=ClaimCounts(total=5, supported=2, contradicted=1, not_found=1, unclear=1),
        context_size_tokens=1234,
    )
    return VerdictEvent(
        **base.model_dump(),
        verdict_id="v",
        response_id="r",
        session_id="s",
        agent_id="a",
        turn=turn,
        timings=VerdictTimings(verdict_at=NOW),
    )


def test_point_of_verdict() -> None:
    p = point_of(verdict(), turn_fallback=99)
    assert (p.turn, p.claims, p.unsupported, p.contradicted, p.context_tokens) == (4, 5, 3, 1, 1234)
    assert point_of(verdict(turn=None), turn_fallback=7).turn == 7
    assert counts_towards_fatigue(verdict())
    assert not counts_towards_fatigue(verdict("unavailable"))


def test_thresholds_validate() -> None:
    with pytest.raises(ValueError, match="MIN_POINTS"):
        FatigueThresholds(min_points=1)
    with pytest.raises(ValueError, match="REARM"):
        FatigueThresholds(rearm_fraction=0)


def test_sparkline() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert sparkline([]) == ""


def test_one_bad_answer_after_a_clean_run_is_not_a_trend() -> None:
    s = snap([pt(i, 1, 0) for i in range(4)] + [pt(4, 1, 1)])
    assert s.slope_per_turn is not None and s.slope_per_turn > FatigueThresholds().turn_slope
    assert decide(s, FatigueThresholds(), alerted=False).alert is None
