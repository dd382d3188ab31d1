"""Which (passage, claim) pairs an answer sends to the NLI model: no more than the verdict needs.

The model is the cost of verification, so the verifier asks it only what can change a verdict:

- a claim that a failed deterministic check already decides (an action without its tool call,
  a number the evidence states differently, a spoofed citation) gets its verdict from the
  check whatever the model says (`verdicts.forced_outcome`), so its pairs are skipped;
- a claim's passages are cut where the retrieval score falls below `retrieval_ratio` × the
  claim's best score (a margin, not a fixed k: one clear match is judged alone, several close
  ones all are); `top_k` stays the upper bound, and the best passage always goes;
- the same (passage, claim) pair twice in one answer (a claim repeated, two sources with one
  passage) is judged once (`dedupe`); the stream's batcher also dedupes across answers.

A passage that is not judged stays in the claim's evidence without NLI scores, as retrieved.
`PairBudget.full()` judges every retrieved pair (what `hallmon calibrate` fits on).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hallmon.schemas import CheckResult, Evidence
from hallmon.topology.settings import VerifierSettings
from hallmon.verification.verdicts import forced_outcome

Pair = tuple[str, str]


@dataclass(frozen=True)
class PairBudget:
    skip_decided: bool = True
    retrieval_ratio: float = 0.0

    @classmethod
    def from_settings(cls, settings: VerifierSettings) -> PairBudget:
        return cls(
            skip_decided=settings.skip_decided_claims,
            retrieval_ratio=settings.retrieval_ratio,
        )

    @classmethod
    def full(cls) -> PairBudget:
        """Every retrieved passage of every claim."""
        return cls(skip_decided=False, retrieval_ratio=0.0)

    def passages(self, evidence: Sequence[Evidence], checks: Sequence[CheckResult]) -> list[int]:
        """Indices into `evidence` (best first, as retrieved) whose pair the model should judge."""
        if not evidence or (self.skip_decided and forced_outcome(checks) is not None):
            return []
        best = evidence[0].retrieval_score
        if self.retrieval_ratio <= 0 or best is None or best <= 0:
            return list(range(len(evidence)))
        floor = best * self.retrieval_ratio
        return [0] + [
            j
            for j, ev in enumerate(evidence[1:], start=1)
            if ev.retrieval_score is not None and ev.retrieval_score >= floor
        ]


def pair_key(pair: Pair) -> bytes:
    """A 16-byte digest of a (premise, hypothesis) pair: the key of the dedupe caches."""
    h = hashlib.blake2b(digest_size=16)
    premise, hypothesis = pair
    h.update(premise.encode("utf-8", "surrogatepass"))
    h.update(b"\x00")  # keeps ("ab", "c") apart from ("a", "bc")
    h.update(hypothesis.encode("utf-8", "surrogatepass"))
    return h.digest()


def unique_pairs(pairs: Sequence[Pair]) -> tuple[list[Pair], npt.NDArray[np.intp]]:
    """The distinct pairs in first-seen order and, per input pair, its row among them."""
    rows: dict[bytes, int] = {}
    unique: list[Pair] = []
    inverse = np.empty(len(pairs), dtype=np.intp)
    for i, pair in enumerate(pairs):
        key = pair_key(pair)
        row = rows.get(key)
        if row is None:
            row = rows[key] = len(unique)
            unique.append(pair)
        inverse[i] = row
    return unique, inverse


__all__ = ["Pair", "PairBudget", "pair_key", "unique_pairs"]
