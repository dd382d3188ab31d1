"""Which (passage, claim) pairs an answer sends to the NLI model: no more than the verdict needs.

The model is the cost of verification, so the verifier asks it only what can change a verdict:

- a claim that a failed deterministic check already decides (an action without its tool call,
  a number the evidence states differently, a spoofed citation) gets its verdict from the
  check whatever the model says (`verdicts.forced_outcome`), so its pairs are skipped;
- a claim's passages are cut where the retrieval score falls below `retrieval_ratio` × the
  claim's best score (a margin, not a fixed k: one clear match is judged alone, several close
  ones all are); `top_k` stays the upper bound, and the best passage always goes;
- early stop: the model first judges each claim's best-retrieved passage; a claim that
  passage entails with probability >= `early_stop_entailment` is settled (support found) and
  its other passages are not judged (`rounds`);
- the same (passage, claim) pair twice in one answer (a claim repeated, two sources with one
  passage) is judged once (`dedupe`); the stream's batcher also dedupes across answers.

A passage that is not judged stays in the claim's evidence without NLI scores, as retrieved.
`PairBudget.full()` judges every retrieved pair (what `hallmon calibrate` fits on).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from hallmon.schemas import CheckResult, Evidence
from hallmon.topology.settings import VerifierSettings
from hallmon.verification.verdicts import forced_outcome

Pair = tuple[str, str]
Probs = npt.NDArray[np.float32]
# A round-by-round plan: yields the pairs of a round, is sent their probabilities, returns
# each answer's probabilities for its (narrowed) pairs.
Rounds = Generator[list[Pair], Probs, list[Probs]]


class PairsOfAnswer(Protocol):
    """The part of `verifier.PreparedAnswer` the rounds read and narrow."""

    pairs: list[Pair]
    pair_of: list[tuple[int, int]]


@dataclass(frozen=True)
class PairBudget:
    skip_decided: bool = True
    retrieval_ratio: float = 0.0
    early_stop_entailment: float | None = None

    @classmethod
    def from_settings(cls, settings: VerifierSettings) -> PairBudget:
        return cls(
            skip_decided=settings.skip_decided_claims,
            retrieval_ratio=settings.retrieval_ratio,
            early_stop_entailment=settings.early_stop_entailment or None,
        )

    @classmethod
    def full(cls) -> PairBudget:
        """Every retrieved passage of every claim."""
        return cls(skip_decided=False, retrieval_ratio=0.0, early_stop_entailment=None)

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


def rounds(answers: Sequence[PairsOfAnswer], budget: PairBudget) -> Rounds:
    """Judge the answers' pairs in at most two rounds, narrowing each answer's `pairs`.

    Round one: every claim's first pair (its best passage). Round two: the other pairs of the
    claims round one did not settle. Without early stop, one round with every pair. Drive it
    with `drive` (a plain function) or `drive_async` (the stream's batcher); each answer's
    `pairs`/`pair_of` keep only the judged pairs, in step with the returned probabilities.
    """
    threshold = budget.early_stop_entailment
    if threshold is None:
        probs = yield [pair for a in answers for pair in a.pairs]
        return _split(probs, [len(a.pairs) for a in answers])
    firsts = [_first_rows(a) for a in answers]
    probs = yield [a.pairs[r] for a, rows in zip(answers, firsts, strict=True) for r in rows]
    first_probs = _split(probs, [len(rows) for rows in firsts])
    rests = []
    for a, rows, p in zip(answers, firsts, first_probs, strict=True):
        settled = {a.pair_of[r][0] for r, row in zip(rows, p, strict=True) if row[0] >= threshold}
        taken = set(rows)
        rests.append(
            [r for r in range(len(a.pairs)) if r not in taken and a.pair_of[r][0] not in settled]
        )
    probs = yield [a.pairs[r] for a, rows in zip(answers, rests, strict=True) for r in rows]
    rest_probs = _split(probs, [len(rows) for rows in rests])
    out = []
    for a, rows, rest, p1, p2 in zip(answers, firsts, rests, first_probs, rest_probs, strict=True):
        kept = rows + rest
        a.pairs = [a.pairs[r] for r in kept]
        a.pair_of = [a.pair_of[r] for r in kept]
        out.append(np.concatenate([p1, p2], axis=0).astype(np.float32, copy=False))
    return out


def drive(plan: Rounds, predict: Callable[[list[Pair]], Probs]) -> list[Probs]:
    """Run a `rounds` plan with a synchronous model call."""
    try:
        pairs = next(plan)
        while True:
            pairs = plan.send(_predict_or_empty(pairs, predict(pairs) if pairs else None))
    except StopIteration as done:
        result: list[Probs] = done.value
        return result


async def drive_async(
    plan: Rounds, predict: Callable[[list[Pair]], Awaitable[Probs]]
) -> list[Probs]:
    """Run a `rounds` plan with an awaitable model call (the stream's batcher)."""
    try:
        pairs = next(plan)
        while True:
            pairs = plan.send(_predict_or_empty(pairs, await predict(pairs) if pairs else None))
    except StopIteration as done:
        result: list[Probs] = done.value
        return result


def _predict_or_empty(pairs: Sequence[Pair], probs: Probs | None) -> Probs:
    return np.zeros((0, 3), dtype=np.float32) if probs is None or not pairs else probs


def _first_rows(answer: PairsOfAnswer) -> list[int]:
    seen: set[int] = set()
    rows = []
    for row, (claim, _) in enumerate(answer.pair_of):
        if claim not in seen:
            seen.add(claim)
            rows.append(row)
    return rows


def _split(probs: Probs, sizes: Sequence[int]) -> list[Probs]:
    probs = np.asarray(probs, dtype=np.float32)
    if probs.shape != (sum(sizes), 3):
        raise ValueError(
            f"NLI probabilities have shape {probs.shape}, expected ({sum(sizes)}, 3) for the "
            "pairs of this round; the model returned the wrong number of rows or classes"
        )
    if not sizes:
        return []
    return list(np.split(probs, np.cumsum(sizes)[:-1]))


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


__all__ = ["Pair", "PairBudget", "drive", "drive_async", "pair_key", "rounds", "unique_pairs"]
