"""Risk and action of one answer from its claim verdicts.

The reference rule of the seed specification: each claim adds `weight[status] ×
p_unsupported` (contradicted 0.45, not_found 0.25, unclear 0.15, supported 0; `p_unsupported`
is the claim's calibrated probability of being unsupported, which is its `confidence` for every
status but `supported`), the sum is capped at 1, and the action is `block` from 0.70, `warn`
from 0.35, else `allow`. On top of the sum, one floor: a claim `contradicted` or `not_found`
with confidence at or above `floor_confidence` (0.8) makes the answer at least `warn`, so a
confident contradiction never sits in an `allow` answer, and neither does a claim that is
very probably unbacked (an action no tool call backs: 0.25 x 0.95 alone stays below 0.35).
Every number here is configuration (`RiskConfig`, loaded from the calibration file, which says
when it moved one: see `RiskConfig.moved`); severity multipliers default to 1.0, as the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hallmon.schemas import Action, ClaimStatus, ClaimVerdict, Span


class StatusWeights(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    contradicted: float = Field(0.45, ge=0.0)
    not_found: float = Field(0.25, ge=0.0)
    unclear: float = Field(0.15, ge=0.0)
    supported: float = Field(0.0, ge=0.0)


class SeverityMultipliers(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    low: float = Field(1.0, ge=0.0)
    medium: float = Field(1.0, ge=0.0)
    high: float = Field(1.0, ge=0.0)


class RiskConfig(BaseModel):
    """The numbers of the risk rule; the defaults are the seed's reference rule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    weights: StatusWeights = Field(default_factory=StatusWeights)
    severity: SeverityMultipliers = Field(default_factory=SeverityMultipliers)
    warn: float = Field(0.35, gt=0.0, le=1.0, description="Risk from which the action is warn")
    block: float = Field(0.70, gt=0.0, le=1.0, description="Risk from which the action is block")
    agent_warn: float | None = Field(
        None,
        gt=0.0,
        le=1.0,
        description="Risk from which the action is warn for an answer whose context holds tool "
        "results, fitted on those answers alone (an agent's claims restate tool fields, and its "
        "risks sit on another scale than RAG prose's); None: `warn` for every answer",
    )
    floor_confidence: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="A claim contradicted or not found with at least this confidence makes the "
        "answer warn",
    )
    floor_statuses: tuple[ClaimStatus, ...] = Field(
        ("contradicted", "not_found"), description="Statuses the warn floor applies to"
    )

    @model_validator(mode="after")
    def _ordered(self) -> RiskConfig:
        for name in ("warn", "agent_warn"):
            value = getattr(self, name)
            if value is not None and self.block < value:
                raise ValueError(
                    f"risk.block={self.block} is below risk.{name}={value}; block must be at "
                    f"least {name} (set both in the calibration file)"
                )
        return self

    def for_answer(self, *, tools: bool) -> RiskConfig:
        """The rule for one answer: `agent_warn` as its warn when its context holds tool
        results and the calibration fitted one."""
        if tools and self.agent_warn is not None and self.agent_warn != self.warn:
            return self.model_copy(update={"warn": self.agent_warn, "agent_warn": None})
        return self

    def moved(self) -> str | None:
        """What this config changes of the seed's rule, or None when it is the seed's rule
        (reported in a verdict's `model_versions["risk"]`)."""
        seed = RiskConfig()
        changed = [
            f"{name}={getattr(self, name)}"
            for name in ("warn", "agent_warn", "block", "floor_confidence")
            if getattr(self, name) != getattr(seed, name)
        ]
        if self.weights != seed.weights:
            changed.append(f"weights={self.weights.model_dump()}")
        if self.severity != seed.severity:
            changed.append(f"severity={self.severity.model_dump()}")
        if self.floor_statuses != seed.floor_statuses:
            changed.append(f"floor_statuses={list(self.floor_statuses)}")
        return ", ".join(changed) or None


def p_unsupported(verdict: ClaimVerdict) -> float:
    """The claim's calibrated probability of being unsupported.

    Verdicts built before `p_unsupported` existed carry only `confidence`; for them it is read
    back from the status (confidence is P(supported) for `supported`, P(unsupported) else).
    """
    if verdict.p_unsupported is not None:
        return verdict.p_unsupported
    return 1.0 - verdict.confidence if verdict.status == "supported" else verdict.confidence


def claim_risk(verdict: ClaimVerdict, config: RiskConfig) -> float:
    """What one claim adds to the answer's risk."""
    weight: float = getattr(config.weights, verdict.status)
    multiplier: float = getattr(config.severity, verdict.claim.severity)
    return weight * multiplier * p_unsupported(verdict)


def floor_applies(verdict: ClaimVerdict, config: RiskConfig) -> bool:
    """Whether this claim alone makes the answer at least `warn`."""
    return verdict.status in config.floor_statuses and verdict.confidence >= config.floor_confidence


def answer_risk(verdicts: Sequence[ClaimVerdict], config: RiskConfig) -> float:
    """The summed claim risks, capped at 1."""
    return min(1.0, sum(claim_risk(v, config) for v in verdicts))


def action_for(risk: float, config: RiskConfig) -> Action:
    if risk >= config.block:
        return "block"
    if risk >= config.warn:
        return "warn"
    return "allow"


def action_of(risk: float, verdicts: Sequence[ClaimVerdict], config: RiskConfig) -> Action:
    """The action for `risk`, raised to `warn` when a claim's floor applies."""
    action = action_for(risk, config)
    if action == "allow" and any(floor_applies(v, config) for v in verdicts):
        return "warn"
    return action


def flagged_spans(
    verdicts: Sequence[ClaimVerdict], action: Action, threshold: Callable[[ClaimVerdict], float]
) -> list[Span]:
    """The spans a verdict with `action` flags: claims not supported whose p_unsupported
    reaches `threshold` (the calibration's `unclear` cut for the claim's type); none when the
    answer is allowed. A claim the checks or the model left `unclear` at a low probability is
    not called unsupported text."""
    if action == "allow":
        return []
    spans = {
        (v.claim.span.start, v.claim.span.end)
        for v in verdicts
        if v.status != "supported"
        and v.p_unsupported is not None
        and v.p_unsupported >= threshold(v)
    }
    return [Span(start=s, end=e) for s, e in sorted(spans)]


def assess(verdicts: Sequence[ClaimVerdict], config: RiskConfig) -> tuple[float, Action]:
    """Risk and action of one answer."""
    risk = answer_risk(verdicts, config)
    return risk, action_of(risk, verdicts, config)
