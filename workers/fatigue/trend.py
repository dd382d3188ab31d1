"""Session fatigue maths: three signals, each against turn, context size and loop step.

Transport-free. The Redis store records one `FatiguePoint` per answer (exactly once per
response id); this module turns a session's series into a `FatigueSnapshot` and holds the
reference of the alert rule. The rule is *applied* inside the store's Lua script (so that
counting, deciding and arming happen in one atomic step and a redelivered verdict can never
alert twice); `tests/integration/test_fatigue_redis.py` pins the script to this module.

Every signal is handled as a "badness" that rises when the session degrades:

| signal | per answer | badness | weight |
|---|---|---|---|
| `unsupported_rate` | unsupported / claims | the rate | claims |
| `citation_precision` | precise / citations | 1 - precision | citations |
| `contradictions` | conflicting claims / claims | the rate | claims |

Over the last `window` answers that carry the signal (in turn order) the level is the pooled
badness (sum of bad / sum of weight) and the slopes are least-squares slopes of the per-answer
badness against turn, context size (per 1k tokens) and loop step. Answers that could not be
checked (`unavailable`) never enter a signal; they are counted beside them by reason.

Alerting is a small state machine per session *and signal*: *armed* → a measure crosses its
threshold → one alert, *alerted* → every measure below `rearm_fraction` × its threshold → armed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

from hallmon.schemas.fatigue import (
    SIGNALS,
    FatigueAlert,
    FatiguePoint,
    FatigueSnapshot,
    Measure,
    Signal,
    SignalTrend,
)
from hallmon.schemas.results import VerdictEvent


@dataclass(frozen=True)
class SignalThresholds:
    """When one signal counts as degraded, in badness terms (all positive, rising is worse)."""

    level: float
    turn_slope: float
    context_slope: float
    """Per 1,000 context tokens."""
    loop_slope: float
    slope_gate: float
    """Slopes alert only from this recent badness up: one bad answer after a clean run is a
    steep but meaningless slope."""

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value <= 0 and name != "slope_gate":
                raise ValueError(
                    f"fatigue threshold {name}={value} must be > 0; fix HALLMON_FATIGUE__*"
                )


@dataclass(frozen=True)
class FatigueThresholds:
    """When a session counts as fatigued. Configured as `HALLMON_FATIGUE__*`."""

    window: int = 8
    """Recent answers (carrying the signal) the level and the slopes are computed over."""
    min_points: int = 4
    """Fewer recent answers than this: no slope, no alert (too little to call a trend)."""
    rearm_fraction: float = 0.8
    """An alerted signal re-arms once every measure is below this share of its threshold."""
    unsupported: SignalThresholds = field(
        default_factory=lambda: SignalThresholds(0.5, 0.05, 0.05, 0.05, 0.25)
    )
    citation: SignalThresholds = field(
        # precision at or under 0.5 alerts; slopes count once precision is under 0.75
        default_factory=lambda: SignalThresholds(0.5, 0.05, 0.05, 0.05, 0.25)
    )
    contradictions: SignalThresholds = field(
        default_factory=lambda: SignalThresholds(0.2, 0.03, 0.03, 0.03, 0.1)
    )

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

    def of(self, signal: Signal) -> SignalThresholds:
        return {
            "unsupported_rate": self.unsupported,
            "citation_precision": self.citation,
            "contradictions": self.contradictions,
        }[signal]

    def for_script(self) -> dict[str, object]:
        """The thresholds as the store's Lua script reads them (JSON)."""
        return {
            "window": self.window,
            "min_points": self.min_points,
            "rearm_fraction": self.rearm_fraction,
            "signals": {s: asdict(self.of(s)) for s in SIGNALS},
            "min_spread": MIN_SPREAD,
        }


# --- per answer -----------------------------------------------------------------------------

Badness = tuple[int, int]
"""(bad, weight) of one answer for one signal."""


def _unsupported(p: FatiguePoint) -> Badness | None:
    return (p.unsupported, p.claims) if p.claims > 0 else None


def _citation(p: FatiguePoint) -> Badness | None:
    return (p.citations - p.precise_citations, p.citations) if p.citations > 0 else None


def _contradictions(p: FatiguePoint) -> Badness | None:
    return (p.conflicts, p.claims) if p.claims > 0 and p.conflicts is not None else None


BADNESS: dict[Signal, Callable[[FatiguePoint], Badness | None]] = {
    "unsupported_rate": _unsupported,
    "citation_precision": _citation,
    "contradictions": _contradictions,
}
FALLING_IS_WORSE: frozenset[Signal] = frozenset({"citation_precision"})


def badness(p: FatiguePoint, signal: Signal) -> Badness | None:
    """The answer's (bad, weight) for the signal; None when it does not carry it (not checked,
    no claim, no citation, conflict check not run)."""
    return BADNESS[signal](p) if p.checked else None


def point_of(verdict: VerdictEvent, turn_fallback: int) -> FatiguePoint:
    """The fatigue measurement of one verdict. `turn_fallback` is used when no turn was sent."""
    counts = verdict.counts
    checked = verdict.state != "unavailable"
    done = verdict.conflict_check == "done"
    return FatiguePoint(
        response_id=verdict.response_id,
        turn=verdict.turn if verdict.turn is not None else turn_fallback,
        context_tokens=verdict.context_size_tokens,
        claims=counts.total if checked else 0,
        unsupported=counts.unsupported if checked else 0,
        contradicted=counts.contradicted if checked else 0,
        loop_step=verdict.loop_step,
        state=verdict.state,
        unavailable_reason=verdict.unavailable_reason,
        citations=len(verdict.citations) if checked else 0,
        precise_citations=sum(c.precise for c in verdict.citations) if checked else 0,
        conflicts=len({c.claim_id for c in verdict.session_conflicts}) if done else None,
    )


# --- trends ---------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float:
    total = 0.0
    for v in values:  # plain left-to-right sum, as the Lua script adds
        total += v
    return total / len(values)


MIN_SPREAD: dict[str, float] = {"turn_slope": 1.0, "context_slope": 1.0, "loop_slope": 1.0}
"""Least range of an axis over the window for a slope against it: 1 turn, 1k context tokens,
1 loop step. Answers whose context differs by a few tokens (the user's question) would give a
slope of hundreds per 1k tokens out of noise."""


def slope(xs: Sequence[float], ys: Sequence[float], min_spread: float = 0.0) -> float | None:
    """Ordinary least-squares slope of ys on xs; None when xs vary by less than `min_spread`
    (or not at all)."""
    n = len(xs)
    if n != len(ys):
        raise ValueError(f"slope needs as many xs as ys, got {n} and {len(ys)}")
    if n < 2 or max(xs) - min(xs) < min_spread:
        return None
    mx, my = _mean(xs), _mean(ys)
    sxx = sxy = 0.0
    for x, y in zip(xs, ys, strict=True):
        sxx += (x - mx) * (x - mx)
        sxy += (x - mx) * (y - my)
    if sxx <= 1e-12:
        return None
    return sxy / sxx


def recent(series: Sequence[FatiguePoint], window: int, signal: Signal) -> list[FatiguePoint]:
    """The last `window` answers that carry the signal, in turn order."""
    carrying = [p for p in series if badness(p, signal) is not None]
    ordered = sorted(carrying, key=lambda p: (p.turn, p.context_tokens, p.response_id))
    return ordered[-window:]


@dataclass(frozen=True)
class BadTrend:
    """One signal over the recent window, in badness terms."""

    points: int
    level: float
    slopes: dict[str, float | None]
    """"turn_slope", "context_slope", "loop_slope" -> slope, None when not computable."""


def bad_trend(series: Sequence[FatiguePoint], signal: Signal, th: FatigueThresholds) -> BadTrend:
    window = recent(series, th.window, signal)
    pairs = [b for b in (badness(p, signal) for p in window) if b is not None]
    bad = sum(b for b, _ in pairs)
    weight = sum(w for _, w in pairs)
    level = bad / weight if weight else 0.0
    slopes: dict[str, float | None] = {
        "turn_slope": None,
        "context_slope": None,
        "loop_slope": None,
    }
    if len(window) >= th.min_points:
        ys = [b / w for b, w in pairs]
        turns = [float(p.turn) for p in window]
        slopes["turn_slope"] = slope(turns, ys, MIN_SPREAD["turn_slope"])
        tokens = [p.context_tokens / 1000.0 for p in window]
        slopes["context_slope"] = slope(tokens, ys, MIN_SPREAD["context_slope"])
        looped = [
            (float(p.loop_step), y)
            for p, y in zip(window, ys, strict=True)
            if p.loop_step is not None
        ]
        if len(looped) >= th.min_points:
            xs = [x for x, _ in looped]
            slopes["loop_slope"] = slope(xs, [y for _, y in looped], MIN_SPREAD["loop_slope"])
    return BadTrend(points=len(window), level=level, slopes=slopes)


def signal_trend(signal: Signal, t: BadTrend) -> SignalTrend:
    """The trend in the signal's own terms (precision = 1 - badness, its slopes negated)."""
    flip = signal in FALLING_IS_WORSE

    def own(slope_value: float | None) -> float | None:
        # 0.0 - x rather than -x: a flat precision reads +0.000, not -0.000
        return None if slope_value is None else (0.0 - slope_value if flip else slope_value)

    level = None if t.points == 0 else (1.0 - t.level if flip else t.level)
    return SignalTrend(
        signal=signal,
        points=t.points,
        level=level,
        slope_per_turn=own(t.slopes["turn_slope"]),
        slope_per_1k_tokens=own(t.slopes["context_slope"]),
        slope_per_loop_step=own(t.slopes["loop_slope"]),
    )


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
    citations: int = 0
    precise_citations: int = 0
    conflicts: int = 0
    unchecked: Mapping[str, int] = field(default_factory=dict)


def snapshot(
    totals: SessionTotals,
    series: Sequence[FatiguePoint],
    thresholds: FatigueThresholds,
    alerted: Mapping[Signal, str] | None = None,
) -> FatigueSnapshot:
    trends = {s: bad_trend(series, s, thresholds) for s in SIGNALS}
    signals = {s: signal_trend(s, t) for s, t in trends.items()}
    unsupported = trends["unsupported_rate"]
    last = max(series, key=lambda p: p.turn) if series else None
    unchecked = sum(totals.unchecked.values())
    return FatigueSnapshot(
        session_id=totals.session_id,
        agent_id=totals.agent_id,
        responses=totals.responses,
        claims=totals.claims,
        unsupported=totals.unsupported,
        contradicted=totals.contradicted,
        unsupported_rate=totals.unsupported / totals.claims if totals.claims else 0.0,
        recent_rate=unsupported.level,
        slope_per_turn=unsupported.slopes["turn_slope"],
        slope_per_1k_tokens=unsupported.slopes["context_slope"],
        last_turn=last.turn if last else None,
        last_context_tokens=last.context_tokens if last else None,
        series=sorted(series, key=lambda p: p.turn),
        updated_at=totals.updated_at,
        slope_per_loop_step=unsupported.slopes["loop_slope"],
        last_loop_step=last.loop_step if last else None,
        citations=totals.citations,
        precise_citations=totals.precise_citations,
        citation_precision=(
            totals.precise_citations / totals.citations if totals.citations else None
        ),
        conflicts=totals.conflicts,
        signals=signals,
        unchecked=dict(totals.unchecked),
        unchecked_share=unchecked / totals.responses if totals.responses else 0.0,
        alerted=dict(alerted or {}),
    )


# --- the alert rule (reference; applied in the store's Lua script) --------------------------


@dataclass(frozen=True)
class Crossing:
    """A measure of a signal against its threshold, both in badness terms."""

    kind: Signal
    measure: Measure
    value: float
    threshold: float

    def own_terms(self) -> tuple[float, float]:
        """(value, threshold) as the signal reads: precision 0.3 under a 0.5 floor, a slope
        of -0.08 under -0.05."""
        if self.kind not in FALLING_IS_WORSE:
            return self.value, self.threshold
        if self.measure == "level":
            return 1.0 - self.value, 1.0 - self.threshold
        return 0.0 - self.value, 0.0 - self.threshold


def measures(
    t: BadTrend, signal: Signal, th: FatigueThresholds, *, gate_slopes: bool = True
) -> list[Crossing]:
    """Each measure of the signal with its threshold, in this order: level, turn, context,
    loop; slopes that could not be computed left out.

    With `gate_slopes`, slopes count only from the signal's `slope_gate` up; re-arming looks at
    every measure, ungated, so a late clean answer that dips the level under the gate does not
    re-arm a session whose slope is still steep.
    """
    st = th.of(signal)
    out = []
    if t.points >= th.min_points:
        out.append(Crossing(signal, "level", t.level, st.level))
    if gate_slopes and t.level < st.slope_gate:
        return out
    limits: tuple[tuple[Measure, float], ...] = (
        ("turn_slope", st.turn_slope),
        ("context_slope", st.context_slope),
        ("loop_slope", st.loop_slope),
    )
    for name, limit in limits:
        value = t.slopes[name]
        if value is not None:
            out.append(Crossing(signal, name, value, limit))
    return out


@dataclass(frozen=True)
class AlertDecision:
    """What to do with one signal's alert flag after this answer."""

    alert: Crossing | None = None
    rearm: bool = False


def decide(
    series: Sequence[FatiguePoint], signal: Signal, th: FatigueThresholds, *, alerted: bool
) -> AlertDecision:
    t = bad_trend(series, signal, th)
    if not alerted:
        best: Crossing | None = None
        for m in measures(t, signal, th):
            if m.value >= m.threshold and (
                best is None or m.value / m.threshold > best.value / best.threshold
            ):
                best = m
        return AlertDecision(alert=best)
    every = measures(t, signal, th, gate_slopes=False)
    if all(m.value < m.threshold * th.rearm_fraction for m in every):
        return AlertDecision(rearm=True)
    return AlertDecision()


def alert_id_for(session_id: str, response_id: str, kind: Signal) -> str:
    """Deterministic: the answer that tipped the signal names the alert, so a republished alert
    carries the same id and consumers can deduplicate."""
    digest = hashlib.sha256(f"{session_id}\x00{response_id}\x00{kind}".encode()).hexdigest()[:24]
    return "fa-" + digest


def make_alert(
    snap: FatigueSnapshot, crossing: Crossing, *, response_id: str, at: datetime
) -> FatigueAlert:
    value, threshold = crossing.own_terms()
    return FatigueAlert(
        alert_id=alert_id_for(snap.session_id, response_id, crossing.kind),
        session_id=snap.session_id,
        agent_id=snap.agent_id,
        kind=crossing.kind,
        measure=crossing.measure,
        value=value,
        threshold=threshold,
        at=at,
        snapshot=snap,
        response_id=response_id,
    )


BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float | None], lo: float = 0.0, hi: float = 1.0) -> str:
    """Unicode sparkline of values in [lo, hi] (rates by default); None is a blank."""
    if not values:
        return ""
    span = hi - lo or 1.0
    out = []
    for v in values:
        if v is None:
            out.append(" ")
            continue
        level = round((min(max(v, lo), hi) - lo) / span * (len(BLOCKS) - 1))
        out.append(BLOCKS[level])
    return "".join(out)
