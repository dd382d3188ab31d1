"""Risk and action of one answer from its claim verdicts.

The reference rule of the seed specification: each claim adds `weight[status] × confidence`
(contradicted 0.45, not_found 0.25, unclear 0.15, supported 0), the sum is capped at 1, and the
action is `block` from 0.70, `warn` from 0.35, else `allow`. Here every number of that rule is
configuration (`RiskConfig`, loaded from the calibration file), and a claim's contribution is
also scaled by its severity, so that an unsupported promise weighs more than an unsupported
remark about a restaurant's decor. With the defaults below (all severity multipliers 1.0) the
rule is exactly the seed's.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hallmon.schemas import Action, ClaimVerdict


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

    @model_validator(mode="after")
    def _ordered(self) -> RiskConfig:
        if self.block < self.warn:
            raise ValueError(
                f"risk.block={self.block} is below risk.warn={self.warn}; block must be at least "
                "warn (set both in the calibration file)"
            )
        return self


def claim_risk(verdict: ClaimVerdict, config: RiskConfig) -> float:
    """What one claim adds to the answer's risk."""
    weight: float = getattr(config.weights, verdict.status)
    multiplier: float = getattr(config.severity, verdict.claim.severity)
    return weight * multiplier * verdict.confidence


def answer_risk(verdicts: Sequence[ClaimVerdict], config: RiskConfig) -> float:
    """The summed claim risks, capped at 1."""
    return min(1.0, sum(claim_risk(v, config) for v in verdicts))


def action_for(risk: float, config: RiskConfig) -> Action:
    if risk >= config.block:
        return "block"
    if risk >= config.warn:
        return "warn"
    return "allow"


def assess(verdicts: Sequence[ClaimVerdict], config: RiskConfig) -> tuple[float, Action]:
    """Risk and action of one answer."""
    risk = answer_risk(verdicts, config)
    return risk, action_for(risk, config)
