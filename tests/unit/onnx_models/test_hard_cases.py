"""Hard cases and the contrast set: alterations are minimal and deterministic, the training
templates never leak into the contrast set, and the committed manifest rebuilds."""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hallmon.onnx_models.training import contrast, hard_cases
from hallmon.onnx_models.training.data import ENTAILMENT, Example
from hallmon.onnx_models.training.hard_cases import HELD_OUT, TRAINING


def _alter(kind: str, hyp: str, premise: str) -> str | None:
    return hard_cases.alter(kind, hyp, premise, random.Random(0), HELD_OUT)


def test_alterations_change_one_thing() -> None:
    assert _alter("no_longer", "The shop is open on Sundays.", "") == (
        "The shop is no longer open on Sundays."
    )
    swapped = _alter("entity_swap", "Alice hired Bob in Paris.", "Alice hired Bob in Paris.")
    assert swapped == "Bob hired Alice in Paris."
    # Names joined by "and" stay true when swapped: no pair is made.
    assert _alter("entity_swap", "Alice and Bob met.", "Alice and Bob met.") is None
    # A month without a number next to it is not changed ("the Long March").
    assert _alter("date", "The Long March ended.", "The Long March ended.") is None
    assert _alter("date", "It ended in 1936.", "It ended in 1936.") not in (
        None,
        "It ended in 1936.",
    )
    assert _alter("unrelated_number", "x", "A premise with 3 numbers.") is None


def test_training_templates_are_disjoint_from_the_contrast_set() -> None:
    for field in ("unrelated", "clauses", "exceptions", "commitments"):
        held, train = set(getattr(HELD_OUT, field)), set(getattr(TRAINING, field))
        assert held and train and not held & train, field


def test_training_hard_cases_cover_every_kind_with_its_target() -> None:
    entailed = [
        Example(
            "Alice hired Bob in Paris in 2019. The office is open on Sundays.",
            "Alice hired Bob in Paris in 2019.",
            ENTAILMENT,
            "t",
        ),
        Example("The office is open daily.", "The office is open daily.", ENTAILMENT, "t"),
    ] * 30
    out = hard_cases.training_hard_cases(entailed, dict.fromkeys(hard_cases.KINDS, 2), seed=1)
    kinds = Counter(e.source for e in out)
    assert set(kinds) == {f"hard_{k}" for k in hard_cases.KINDS}
    assert all(n <= 2 for n in kinds.values())
    for e in out:
        kind = e.source.removeprefix("hard_")
        assert e.target == hard_cases.TARGET[kind]
        assert not any(t in e.hypothesis for t in HELD_OUT.clauses + HELD_OUT.commitments)
    again = hard_cases.training_hard_cases(entailed, dict.fromkeys(hard_cases.KINDS, 2), seed=1)
    assert again == out


def test_items_are_deterministic_per_row_and_kind() -> None:
    row = {"premise": "Anna paid 40 dollars in 2019.", "hypothesis": "Anna paid 40 dollars."}
    a = contrast.make_pair(7, row, "number", contrast.SEED)
    b = contrast.make_pair(7, row, "number", contrast.SEED)
    assert a is not None and a == b and a.altered != a.supported


def test_committed_manifest_rebuilds_every_kind() -> None:
    if not contrast.NLI_DEV.is_file():
        reason = f"the shared NLI dev file is absent ({contrast.NLI_DEV})"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    pairs = contrast.load()
    kinds = Counter(p.kind for p in pairs)
    assert len(pairs) >= 400
    assert set(kinds) == set(contrast.KINDS)
    assert all(p.altered != p.supported for p in pairs)
