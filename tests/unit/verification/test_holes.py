"""An answer with missing chunks is never a clean `checked`: the holes are named and weigh in."""

from __future__ import annotations

from hallmon.verification.verifier import Verifier, _ranges

from .test_verifier import POLICY, WordOverlapNLI, response


def test_missing_chunks_make_the_answer_unavailable_and_risky() -> None:
    verifier = Verifier(WordOverlapNLI())
    whole = verifier.verify(response(POLICY))
    holed = verifier.verify(response(POLICY).model_copy(update={"missing_seqs": [1, 4, 5]}))
    assert whole.state == "checked"
    assert (holed.state, holed.unavailable_reason) == ("unavailable", "stream_incomplete")
    assert any("1, 4-5" in note and "2 hole(s)" in note for note in holed.notes), holed.notes
    assert holed.risk >= whole.risk + 2 * 0.15 - 1e-9
    assert [c.status for c in holed.claims] == [c.status for c in whole.claims]


def test_a_hole_in_an_answer_without_claims_is_not_not_applicable() -> None:
    result = Verifier(WordOverlapNLI()).verify(
        response("Thanks!").model_copy(update={"missing_seqs": [0]})
    )
    assert (result.state, result.unavailable_reason) == ("unavailable", "stream_incomplete")


def test_ranges() -> None:
    assert _ranges([7, 1, 2, 3, 5]) == ["1-3", "5", "7"] and _ranges([]) == []
