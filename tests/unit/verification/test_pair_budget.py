"""Which pairs reach the model: decided claims skipped, passages cut by a retrieval margin."""

from __future__ import annotations

import numpy as np
from hallmon.schemas import CheckResult, Evidence, Span

from hallmon.verification.pair_budget import PairBudget, pair_key, unique_pairs


def evidence(*scores: float | None) -> list[Evidence]:
    return [
        Evidence(
            source_id=f"doc-{i}",
            kind="document",
            content_hash="0" * 64,
            text=f"passage {i}",
            span=Span(start=0, end=9),
            retrieval_score=score,
        )
        for i, score in enumerate(scores)
    ]


FAILED_NUMBER = CheckResult(name="number", passed=False, detail="12 differs from 15 in evidence")
PASSED_NUMBER = CheckResult(name="number", passed=True, detail="12 found")


def test_a_claim_a_failed_check_decides_needs_no_pair() -> None:
    ev = evidence(3.0, 2.0)
    assert PairBudget().passages(ev, [FAILED_NUMBER]) == []
    assert PairBudget().passages(ev, [PASSED_NUMBER]) == [0, 1]
    assert PairBudget.full().passages(ev, [FAILED_NUMBER]) == [0, 1]


def test_passages_are_cut_at_a_share_of_the_best_score() -> None:
    ev = evidence(10.0, 6.0, 4.9, None, 0.0)
    assert PairBudget(retrieval_ratio=0.5).passages(ev, []) == [0, 1]
    assert PairBudget(retrieval_ratio=0.0).passages(ev, []) == [0, 1, 2, 3, 4]
    # The best passage always goes; with no lexical match at all every passage does.
    assert PairBudget(retrieval_ratio=0.99).passages(ev, []) == [0]
    assert PairBudget(retrieval_ratio=0.5).passages(evidence(0.0, 0.0), []) == [0, 1]
    assert PairBudget(retrieval_ratio=0.5).passages([], []) == []


def test_repeated_pairs_are_judged_once_and_mapped_back() -> None:
    pairs = [("a", "x"), ("b", "x"), ("a", "x"), ("ab", ""), ("a", "bx")]
    unique, inverse = unique_pairs(pairs)
    assert unique == [("a", "x"), ("b", "x"), ("ab", ""), ("a", "bx")]
    assert inverse.tolist() == [0, 1, 0, 2, 3]
    assert pair_key(("ab", "c")) != pair_key(("a", "bc"))
    assert len(pair_key(("x" * 100_000, "y"))) == 16
    assert np.asarray(unique, dtype=object)[inverse].tolist() == [list(p) for p in pairs]
