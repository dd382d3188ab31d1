"""Citation precision: a citation is precise when it names a given source that supports the
claim it is attached to; an answer without citations has no precision."""

from __future__ import annotations

import pytest
from hallmon.schemas.results import CitationCheck

from hallmon.verification.citations import citation_precision
from hallmon.verification.verifier import Verifier

from .test_verifier import POLICY, WordOverlapNLI, response

OTHER = "Our stores open at 9am on weekdays and at 10am on Saturdays."


@pytest.fixture
def verifier() -> Verifier:
    return Verifier(WordOverlapNLI())


def test_a_citation_of_the_supporting_source_is_precise(verifier: Verifier) -> None:
    result = verifier.verify(response("Returns are accepted within 14 days of delivery [doc-0]."))
    assert [(c.marker, c.source_id, c.supports) for c in result.citations] == [
        ("doc-0", "doc-0", True)
    ]
    assert result.citation_precision == 1.0


def test_spoofed_and_misattributed_citations_are_imprecise(verifier: Verifier) -> None:
    text = (
        "Returns are accepted within 14 days of delivery [doc-7]. "
        "Returns are accepted within 14 days of delivery [2]."
    )
    result = verifier.verify(response(text, documents=(POLICY, OTHER)))
    by_marker = {c.marker: c for c in result.citations}
    assert by_marker["doc-7"].source_id is None  # never given: spoofed
    assert by_marker["2"].source_id == "doc-1" and not by_marker["2"].supports  # wrong source
    assert result.citation_precision == 0.0


def test_an_answer_without_citations_has_no_precision(verifier: Verifier) -> None:
    result = verifier.verify(response("Returns are accepted within 14 days of delivery."))
    assert result.citations == [] and result.citation_precision is None


def test_precision_is_the_share_of_precise_citations() -> None:
    def c(source: str | None, supports: bool) -> CitationCheck:
        return CitationCheck(claim_id="c", marker="[1]", source_id=source, supports=supports)

    assert citation_precision([]) is None
    assert citation_precision([c("a", True), c(None, False), c("b", False), c("a", True)]) == 0.5
    assert not c(None, True).precise  # a source never given cannot be precise


def test_a_numbered_citation_is_not_a_number_the_evidence_must_state(verifier: Verifier) -> None:
    result = verifier.verify(response("Returns are accepted within 14 days of delivery [1]."))
    assert result.claims[0].status == "supported", result.claims[0].reason
    assert result.citation_precision == 1.0


def test_markers_are_blanked_and_bracketed_prose_kept() -> None:
    from hallmon.verification.checks import without_citation_markers

    assert without_citation_markers("Costs 5 EUR [1] [doc-3]【2】.").split() == [
        "Costs",
        "5",
        "EUR",
        ".",
    ]
    assert "[5 million]" in without_citation_markers("Sales were [5 million] in 2020.")
    long = "[" + "1" * 10_000 + "] " + "a [b] " * 5_000
    assert len(without_citation_markers(long)) <= len(long)
