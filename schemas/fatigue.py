"""Per-session fatigue: how the unsupported-claim rate moves with turns and context size."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from hallmon.schemas.common import SCHEMA_VERSION, Contract, Version
from pydantic import Field


class FatiguePoint(Contract):
    """One verified answer of a session."""

    response_id: str
    turn: int
    context_tokens: int
    claims: int
    unsupported: int
    contradicted: int

    @property
    def unsupported_rate(self) -> float:
        return self.unsupported / self.claims if self.claims else 0.0


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


AlertKind = Literal["recent_rate", "turn_slope", "context_slope"]


class FatigueAlert(Contract):
    """Published on `hallmon.fatigue` once per crossing of a threshold."""

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
