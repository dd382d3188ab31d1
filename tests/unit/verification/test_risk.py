"""The risk rule: the seed's numbers by default, every number configurable."""

from __future__ import annotations

import pytest
from hallmon.schemas import Claim, ClaimStatus, ClaimVerdict, Severity, Span

from hallmon.verification.risk import RiskConfig, SeverityMultipliers, StatusWeights, assess


def verdict(status: ClaimStatus, confidence: float, severity: Severity = "medium") -> ClaimVerdict:
    claim = Claim(id="c1", text="x", span=Span(start=0, end=1), severity=severity)
    return ClaimVerdict(claim=claim, status=status, confidence=confidence, reason="test")


def test_seed_rule_weights_and_thresholds() -> None:
    config = RiskConfig(floor_statuses=())  # the seed's rule alone, without hallmon's floor
    assert assess([verdict("contradicted", 1.0)], config) == (0.45, "warn")
    assert assess([verdict("not_found", 1.0)], config) == (0.25, "allow")
    assert assess([verdict("not_found", 1.0)], RiskConfig()) == (0.25, "warn")
    risk, action = assess([verdict("unclear", 0.5)], config)
    assert risk == pytest.approx(0.075)
    assert action == "allow"
    assert assess([verdict("supported", 1.0)], config) == (0.0, "allow")


def test_sum_is_capped_and_blocks() -> None:
    risk, action = assess([verdict("contradicted", 1.0)] * 3, RiskConfig())
    assert risk == 1.0
    assert action == "block"
    risk, action = assess([verdict("contradicted", 0.9), verdict("not_found", 0.9)], RiskConfig())
    assert risk == pytest.approx(0.63)
    assert action == "warn"


def test_severity_and_weights_are_configurable() -> None:
    config = RiskConfig(
        weights=StatusWeights(not_found=0.3),
        severity=SeverityMultipliers(high=2.0, low=0.0),
        warn=0.5,
        block=0.9,
        floor_statuses=(),
    )
    assert assess([verdict("not_found", 1.0, "high")], config) == (0.6, "warn")
    assert assess([verdict("not_found", 1.0, "low")], config) == (0.0, "allow")


def test_block_below_warn_is_rejected_with_the_fix() -> None:
    with pytest.raises(ValueError, match="block must be at least warn"):
        RiskConfig(warn=0.6, block=0.5)


def test_a_confident_contradiction_makes_the_answer_at_least_warn() -> None:
    config = RiskConfig(warn=0.5)
    # 0.45 x 0.8 = 0.36 is below warn, but a claim contradicted at >= 0.8 is never allowed.
    assert assess([verdict("contradicted", 0.8)], config) == (pytest.approx(0.36), "warn")
    assert assess([verdict("contradicted", 0.79)], config)[1] == "allow"
    assert assess([verdict("not_found", 0.95)], config)[1] == "warn"
    assert assess([verdict("not_found", 0.95)], RiskConfig(floor_statuses=()))[1] == "allow"
    assert assess([verdict("unclear", 0.95)], config)[1] == "allow"


def test_moved_names_what_differs_from_the_seed() -> None:
    assert RiskConfig().moved() is None
    assert RiskConfig(warn=0.2).moved() == "warn=0.2"
