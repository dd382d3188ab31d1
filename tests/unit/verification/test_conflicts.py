"""Session conflicts: candidate pairs by shared words (bounded), conflicts by NLI score."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hallmon.schemas.results import Claim, Span

from hallmon.verification.conflicts import (
    MAX_CLAIM_CHARS,
    ConflictConfig,
    EarlierClaim,
    candidate_pairs,
    conflicts_of,
    nli_pairs,
)


def claim(cid: str, text: str, start: int = 0) -> Claim:
    return Claim(id=cid, text=text, span=Span(start=start, end=start + len(text)))


EARLIER = [
    EarlierClaim("r1", "c1", "Returns are accepted within 30 days of delivery.", 0, 49),
    EarlierClaim("r1", "c2", "Gift cards never expire.", 50, 74),
    EarlierClaim("r2", "c1", "Shipping is free for all orders.", 0, 32),
]


def test_pairs_share_words_most_first_and_skip_unrelated_claims() -> None:
    new = [
        claim("n1", "Returns are accepted within 14 days of delivery [doc-1]."),
        claim("n2", "Shipping costs 5 dollars for every order."),
        claim("n3", "Have a nice day."),
    ]
    pairs = candidate_pairs(new, EARLIER, ConflictConfig(min_shared=2))
    assert [(p.earlier.claim_id, p.earlier.response_id, p.claim.id) for p in pairs] == [
        ("c1", "r1", "n1"),
        ("c1", "r2", "n2"),
    ]
    assert nli_pairs(pairs[:1]) == [  # both ways, the marker left out
        (EARLIER[0].text, "Returns are accepted within 14 days of delivery."),
        ("Returns are accepted within 14 days of delivery.", EARLIER[0].text),
    ]


def test_pairs_are_capped_and_a_repeated_claim_is_not_compared_with_itself() -> None:
    earlier = [
        EarlierClaim(f"r{i}", "c", f"Refunds take {i} business days.", 0, 9) for i in range(50)
    ]
    new = [claim("n", "Refunds take 3 business days.")]
    pairs = candidate_pairs(new, earlier, ConflictConfig(max_pairs=8))
    assert len(pairs) == 4 and len(nli_pairs(pairs)) == 8  # max_pairs counts model pairs
    assert all(p.earlier.text != "Refunds take 3 business days." for p in pairs)
    assert pairs[0].earlier.response_id == "r49"  # equal overlap: the most recent first


def test_conflicts_are_the_candidates_contradicting_both_ways() -> None:
    new = [claim("n1", "Returns are accepted within 14 days of delivery.", 10)]
    pairs = candidate_pairs(new, EARLIER, ConflictConfig())
    probs = np.array([[0.02, 0.01, 0.97], [0.1, 0.1, 0.8]], dtype=np.float32)
    (conflict,) = conflicts_of(pairs, probs, ConflictConfig(threshold=0.7))
    assert conflict.earlier_response_id == "r1" and conflict.claim_id == "n1"
    assert conflict.earlier_span == Span(start=0, end=49) and conflict.span.start == 10
    assert conflict.contradiction == pytest.approx(0.885)  # the mean of the two directions
    one_way = np.array([[0.02, 0.01, 0.97], [0.7, 0.2, 0.1]], dtype=np.float32)  # a paraphrase
    assert conflicts_of(pairs, one_way, ConflictConfig(threshold=0.7)) == []
    with pytest.raises(ValueError, match="expected \\(2, 3\\)"):
        conflicts_of(pairs, np.zeros((1, 3), dtype=np.float32), ConflictConfig())


def test_long_adversarial_claims_stay_bounded() -> None:
    long_text = "refund " * 20_000
    earlier = [
        EarlierClaim(f"r{i}", "c", f"order {i} " + long_text[:MAX_CLAIM_CHARS], 0, 9)
        for i in range(640)
    ]
    new = [claim(f"n{i}", long_text + str(i)) for i in range(64)]
    t0 = time.perf_counter()
    pairs = candidate_pairs(new, earlier, ConflictConfig(max_pairs=16, min_shared=1))
    assert time.perf_counter() - t0 < 5.0
    assert len(pairs) == 8 and all(len(p.hypothesis) <= MAX_CLAIM_CHARS for p in pairs)
