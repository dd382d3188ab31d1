"""`flagged_spans`: where a verdict places the unsupported text, coherent with its action."""

from __future__ import annotations

import pytest
from hallmon.schemas import Claim, ClaimVerdict, MonitorResult, Span
from pydantic import ValidationError

from hallmon.verification.risk import flagged_spans


def verdict(start: int, end: int, status: str, p: float | None) -> ClaimVerdict:
    return ClaimVerdict(
        claim=Claim(id=f"c{start}", text="x" * (end - start), span=Span(start=start, end=end)),
        status=status,  # type: ignore[arg-type]
        confidence=p or 0.0,
        p_unsupported=p,
        reason="test",
    )


def test_only_likely_unsupported_claims_of_a_flagged_answer() -> None:
    verdicts = [
        verdict(0, 10, "supported", 0.05),
        verdict(11, 20, "not_found", 0.83),
        verdict(21, 30, "unclear", 0.04),  # a check left it open at a low probability
        verdict(31, 40, "unclear", 0.30),
        verdict(41, 50, "unclear", None),  # not judged
        verdict(11, 20, "not_found", 0.83),  # the same span twice (a coordinated predicate)
    ]
    spans = flagged_spans(verdicts, "warn", lambda v: 0.25)
    assert [(s.start, s.end) for s in spans] == [(11, 20), (31, 40)]
    assert flagged_spans(verdicts, "allow", lambda v: 0.25) == []


def test_an_allow_verdict_with_flagged_spans_is_refused() -> None:
    with pytest.raises(ValidationError, match="allow verdict flags no span"):
        MonitorResult(state="checked", action="allow", flagged_spans=[Span(start=0, end=3)])
