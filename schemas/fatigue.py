"""Per-session fatigue: how three signals move with turns, context size and loop steps.

The signals (`Signal`): the unsupported-claim rate, citation precision (precise citations / all
citations), and internal contradictions (claims that contradict one the same session made
earlier / claims). Answers that could not be checked (`unavailable`) are counted beside them by
reason and never enter them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from hallmon.schemas.common import SCHEMA_VERSION, Contract, Version
from hallmon.schemas.results import State
from pydantic import Field

Signal = Literal["unsupported_rate", "citation_precision", "contradictions"]
SIGNALS: tuple[Signal, ...] = ("unsupported_rate", "citation_precision", "contradictions")
Measure = Literal["level", "turn_slope", "context_slope", "loop_slope"]


class FatiguePoint(Contract):
    """One answer of a session."""

    response_id: str
    turn: int
    context_tokens: int
    claims: int
    unsupported: int
    contradicted: int
    loop_step: int | None = None
    state: State = "checked"
    unavailable_reason: str | None = None
    citations: int = 0
    precise_citations: int = 0
    conflicts: int | None = Field(
        None, description="Claims contradicting an earlier answer; None: the check did not run"
    )

    @property
    def checked(self) -> bool:
        return self.state != "unavailable"

    @property
    def unsupported_rate(self) -> float:
        return self.unsupported / self.claims if self.claims else 0.0

    @property
    def citation_precision(self) -> float | None:
        return self.precise_citations / self.citations if self.citations else None

    @property
    def contradiction_rate(self) -> float | None:
        if self.conflicts is None or not self.claims:
            return None
        return self.conflicts / self.claims


class SignalTrend(Contract):
    """One signal over the session's recent window, in the signal's own terms (citation
    precision falls when a session degrades; the other two rise)."""

    signal: Signal
    points: int = Field(0, description="Recent answers that carry this signal")
    level: float | None = Field(None, description="Pooled value over the recent window")
    slope_per_turn: float | None = None
    slope_per_1k_tokens: float | None = None
    slope_per_loop_step: float | None = None


class FatigueSnapshot(Contract):
    session_id: str
    agent_id: str
    responses: int = 0
    claims: int = 0
    unsupported: int = 0
    contradicted: int = 0
    unsupported_rate: float = 0.0
    recent_rate: float = Field(0.0, description="Unsupported rate over the recent window")
    slope_per_turn: float | None = Field(None, description="Change of rate per turn")
    slope_per_1k_tokens: float | None = Field(None, description="Change of rate per 1k tokens")
    last_turn: int | None = None
    last_context_tokens: int | None = None
    series: list[FatiguePoint] = Field(default_factory=list)
    updated_at: datetime | None = None
    slope_per_loop_step: float | None = Field(None, description="Change of rate per loop step")
    last_loop_step: int | None = None
    citations: int = 0
    precise_citations: int = 0
    citation_precision: float | None = Field(None, description="None: no citation yet")
    conflicts: int = Field(0, description="Claims contradicting an earlier answer")
    signals: dict[Signal, SignalTrend] = Field(default_factory=dict)
    unchecked: dict[str, int] = Field(
        default_factory=dict, description="Answers that could not be checked, by reason"
    )
    unchecked_share: float = Field(0.0, description="Share of the answers not checked")
    alerted: dict[Signal, str] = Field(
        default_factory=dict, description="Signals in alert, with the response that raised it"
    )


AlertKind = Signal


class FatigueAlert(Contract):
    """Published on `hallmon.fatigue` once per crossing of a threshold, per signal."""

    schema_version: Version = SCHEMA_VERSION
    alert_id: str
    session_id: str
    agent_id: str
    kind: AlertKind
    value: float
    threshold: float
    at: datetime
    snapshot: FatigueSnapshot
    enforcement: Literal["not_enforced_streaming"] = "not_enforced_streaming"
    measure: Measure = Field(
        "level", description="What crossed: the recent level or its slope against an axis"
    )
    response_id: str | None = Field(None, description="The answer that tipped the session")
