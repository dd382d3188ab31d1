"""Session fatigue: how the unsupported-claim rate moves with turns and context size.

Transport-free. The Redis store records one `FatiguePoint` per verified answer (exactly once
per response id) and hands back the session's totals and recent series; this module turns them
into a `FatigueSnapshot` (rates and least-squares slopes) and decides, against the configured
thresholds and the session's alert flag, whether to publish a `FatigueAlert`.

Alerting is a small state machine per session, so an operator gets one alert per episode:
*armed* → a measure crosses its threshold → alert, *alerted* → every measure falls below
`rearm_fraction` × its threshold → *armed* again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from hallmon.schemas import ClaimCounts, FatigueAlert, FatiguePoint, FatigueSnapshot, VerdictEvent
from hallmon.schemas.fatigue import AlertKind


@dataclass(frozen=True)
class FatigueThresholds:
    """When a session counts as fatigued. Configured as `HALLMON_FATIGUE__*`."""

    window: int = 8
    """Recent answers (with at least one claim) the rate and the slopes are computed over."""
    min_points: int = 4
    """Fewer recent answers than this: no slope, no alert (too little to call a trend)."""
    recent_rate: float = 0.5
    """Unsupported share of the recent claims that alerts by itself."""
    turn_slope: float = 0.05
    """Rise of the unsupported rate per turn (0.05 = +5 points a turn)."""
    context_slope: float = 0.05
    """Rise of the unsupported rate per 1,000 context tokens."""
    rearm_fraction: float = 0.8
    """An alerted session re-arms once every measure is below this share of its threshold."""
    slope_min_rate: float = 0.25
    """A rising slope alerts only when the recent rate is at least this: one bad answer after
    a clean run is a steep but meaningless slope."""

    def __post_init__(self) -> None:
        if self.min_points < 2 or self.window < self.min_points:
            raise ValueError(
                f"fatigue window={self.window}, min_points={self.min_points}: a slope needs at "
                "least 2 points and window >= min_points; fix HALLMON_FATIGUE__WINDOW/MIN_POINTS"
            )
        if not 0.0 < self.rearm_fraction <= 1.0:
            raise ValueError(
                f"rearm_fraction={self.rearm_fraction} must be in (0, 1]; "
                "fix HALLMON_FATIGUE__REARM_FRACTION"
            )


def point_of(verdict: VerdictEvent, turn_fallback: int) -> FatiguePoint:
    """The fatigue measurement of one verdict. `turn_fallback` is used when no turn was sent."""
    counts: ClaimCounts = verdict.counts
    return FatiguePoint(
        response_id=verdict.response_id,
        turn=verdict.turn if verdict.turn is not None else turn_fallback,
        context_tokens=verdict.context_size_tokens,
        claims=counts.total,
        unsupported=counts.unsupported,
        contradicted=counts.contradicted,
    )


def counts_towards_fatigue(verdict: VerdictEvent) -> bool:
    # An answer that could not be checked says nothing about the agent's grounding; counting it
    # as clean would hide fatigue, counting it as unsupported would invent it.
    return verdict.state != "unavailable"


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Ordinary least-squares slope of ys on xs; None when xs do not vary."""
    n = len(xs)
    if n != len(ys):
        raise ValueError(f"slope needs as many xs as ys, got {n} and {len(ys)}")
    if n < 2:
        return None
    mx = sum(xs) / n
    my = sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx <= 1e-12:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def recent(series: Sequence[FatiguePoint], window: int) -> list[FatiguePoint]:
    """The last `window` points that made a claim, in turn order."""
    with_claims = [p for p in series if p.claims > 0]
    return sorted(with_claims, key=lambda p: (p.turn, p.context_tokens))[-window:]


@dataclass(frozen=True)
class SessionTotals:
    """The counters the store keeps per session."""

    session_id: str
    agent_id: str
    responses: int = 0
    claims: int = 0
    unsupported: int = 0
    contradicted: int = 0
    updated_at: datetime | None = None


def snapshot(
    totals: SessionTotals, series: Sequence[FatiguePoint], thresholds: FatigueThresholds
) -> FatigueSnapshot:
    window = recent(series, thresholds.window)
    recent_claims = sum(p.claims for p in window)
    recent_rate = sum(p.unsupported for p in window) / recent_claims if recent_claims else 0.0
    per_turn = per_1k = None
    if len(window) >= thresholds.min_points:
        rates = [p.unsupported_rate for p in window]
        per_turn = slope([float(p.turn) for p in window], rates)
        per_1k = slope([p.context_tokens / 1000.0 for p in window], rates)
    last = max(series, key=lambda p: p.turn) if series else None
    return FatigueSnapshot(
        session_id=totals.session_id,
        agent_id=totals.agent_id,
        responses=totals.responses,
        claims=totals.claims,
        unsupported=totals.unsupported,
        contradicted=totals.contradicted,
        unsupported_rate=totals.unsupported / totals.claims if totals.claims else 0.0,
        recent_rate=recent_rate,
        slope_per_turn=per_turn,
        slope_per_1k_tokens=per_1k,
        last_turn=last.turn if last else None,
        last_context_tokens=last.context_tokens if last else None,
        series=sorted(series, key=lambda p: p.turn),
        updated_at=totals.updated_at,
    )


@dataclass(frozen=True)
class Crossing:
    kind: AlertKind
    value: float
    threshold: float


def measures(
    snap: FatigueSnapshot, thresholds: FatigueThresholds, *, gate_slopes: bool = True
) -> list[Crossing]:
    """Each measure with its threshold, strongest signal first; None-valued slopes left out.

    With `gate_slopes`, slopes count only from `slope_min_rate` up (a clean session with one
    bad answer is no trend); re-arming looks at every measure, ungated, so a late, clean answer
    that dips the recent rate under the gate does not re-arm a session whose slope is still high.
    """
    enough = len(recent(snap.series, thresholds.window)) >= thresholds.min_points
    out = []
    if enough:
        out.append(Crossing("recent_rate", snap.recent_rate, thresholds.recent_rate))
    if gate_slopes and snap.recent_rate < thresholds.slope_min_rate:
        return out
    if snap.slope_per_turn is not None:
        out.append(Crossing("turn_slope", snap.slope_per_turn, thresholds.turn_slope))
    if snap.slope_per_1k_tokens is not None:
        out.append(Crossing("context_slope", snap.slope_per_1k_tokens, thresholds.context_slope))
    return sorted(out, key=lambda c: c.value / c.threshold, reverse=True)


@dataclass(frozen=True)
class AlertDecision:
    """What to do with the session's alert flag after this verdict."""

    alert: Crossing | None = None
    rearm: bool = False


def decide(snap: FatigueSnapshot, thresholds: FatigueThresholds, *, alerted: bool) -> AlertDecision:
    if not alerted:
        over = [m for m in measures(snap, thresholds) if m.value >= m.threshold]
        return AlertDecision(alert=over[0] if over else None)
    every = measures(snap, thresholds, gate_slopes=False)
    if all(m.value < m.threshold * thresholds.rearm_fraction for m in every):
        return AlertDecision(rearm=True)
    return AlertDecision()


def alert_id_for(session_id: str, response_id: str) -> str:
    """Deterministic: the verdict that tipped the session names the alert, so a redelivery
    publishes the same id and consumers can deduplicate."""
    digest = hashlib.sha256(f"{session_id}\x00{response_id}".encode()).hexdigest()[:24]
    return "fa-" + digest


def make_alert(
    snap: FatigueSnapshot, crossing: Crossing, *, response_id: str, at: datetime
) -> FatigueAlert:
    return FatigueAlert(
        alert_id=alert_id_for(snap.session_id, response_id),
        session_id=snap.session_id,
        agent_id=snap.agent_id,
        kind=crossing.kind,
        value=crossing.value,
        threshold=crossing.threshold,
        at=at,
        snapshot=snap,
    )


BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], lo: float = 0.0, hi: float = 1.0) -> str:
    """Unicode sparkline of values in [lo, hi] (rates by default)."""
    if not values:
        return ""
    span = hi - lo or 1.0
    out = []
    for v in values:
        level = round((min(max(v, lo), hi) - lo) / span * (len(BLOCKS) - 1))
        out.append(BLOCKS[level])
    return "".join(out)
