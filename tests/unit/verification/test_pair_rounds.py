"""Early stop: a claim its best passage entails is settled after round one."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import numpy as np
import pytest

from hallmon.verification.pair_budget import Pair, PairBudget, Probs, drive, drive_async, rounds


@dataclass
class Answer:
    pairs: list[Pair] = field(default_factory=list)
    pair_of: list[tuple[int, int]] = field(default_factory=list)


def answer(*claims: list[float]) -> Answer:
    """Claim n's passages score these entailments (the premise text carries the number)."""
    a = Answer()
    for n, ents in enumerate(claims):
        for j, ent in enumerate(ents):
            a.pairs.append((f"{ent}", f"claim {n}"))
            a.pair_of.append((n, j))
    return a


class Model:
    def __init__(self) -> None:
        self.calls: list[list[Pair]] = []

    def __call__(self, pairs: list[Pair]) -> Probs:
        self.calls.append(list(pairs))
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        out[:, 0] = [float(premise) for premise, _ in pairs]
        out[:, 1] = 1 - out[:, 0]
        return out


def test_a_claim_entailed_by_its_best_passage_skips_the_rest() -> None:
    a = answer([0.95, 0.1, 0.2], [0.3, 0.97], [0.5])
    b = answer([0.1, 0.92])
    model = Model()
    probs = drive(rounds([a, b], PairBudget(early_stop_entailment=0.9)), model)
    # Round one: the best passage of every claim of both answers, in one call.
    first = [("0.95", "claim 0"), ("0.3", "claim 1"), ("0.5", "claim 2"), ("0.1", "claim 0")]
    assert model.calls[0] == first
    # Round two: the other passages of the unsettled claims only.
    assert model.calls[1] == [("0.97", "claim 1"), ("0.92", "claim 0")]
    # Each answer keeps exactly the judged pairs, in step with its probabilities.
    assert a.pair_of == [(0, 0), (1, 0), (2, 0), (1, 1)]
    assert [round(float(x), 2) for x in probs[0][:, 0]] == [0.95, 0.3, 0.5, 0.97]
    assert b.pair_of == [(0, 0), (0, 1)] and [round(float(x), 2) for x in probs[1][:, 0]] == [
        0.1,
        0.92,
    ]


def test_without_early_stop_one_round_judges_every_pair() -> None:
    a = answer([0.95, 0.1])
    model = Model()
    (probs,) = drive(rounds([a], PairBudget()), model)
    assert len(model.calls) == 1 and len(probs) == 2 and a.pair_of == [(0, 0), (0, 1)]


def test_empty_rounds_do_not_call_the_model_and_async_matches_sync() -> None:
    model = Model()
    assert drive(rounds([Answer()], PairBudget(early_stop_entailment=0.9)), model)[0].shape == (
        0,
        3,
    )
    assert model.calls == []

    async def predict(pairs: list[Pair]) -> Probs:
        return model(pairs)

    a, b = answer([0.95, 0.1], [0.2, 0.3]), answer([0.95, 0.1], [0.2, 0.3])
    sync = drive(rounds([a], PairBudget(early_stop_entailment=0.9)), model)
    asyn = asyncio.run(drive_async(rounds([b], PairBudget(early_stop_entailment=0.9)), predict))
    np.testing.assert_array_equal(sync[0], asyn[0])
    assert a.pair_of == b.pair_of == [(0, 0), (1, 0), (1, 1)]


def test_a_model_returning_the_wrong_shape_is_an_error_naming_it() -> None:
    def short(pairs: list[Pair]) -> Probs:
        return np.zeros((len(pairs) - 1, 3), dtype=np.float32)

    with pytest.raises(ValueError, match="wrong number of rows"):
        drive(rounds([answer([0.5, 0.5])], PairBudget()), short)
