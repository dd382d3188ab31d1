"""Hard cases: minimal alterations of an entailed (premise, hypothesis) pair.

One set of alterations serves two places: the contrast set (``contrast.py``, built from the NLI
dev rows) measures them, and the training mix (``data.py``, built from the NLI train rows)
teaches them. The sentences an alteration adds come from two disjoint template sets,
``HELD_OUT`` for the contrast set and ``TRAINING`` for the mix, so the contrast set measures
whether the model learnt the kind of alteration, not the template's words.

| kind | alteration | the altered claim is |
|---|---|---|
| ``negation`` | an inserted "not" / "does not" | contradiction |
| ``no_longer`` | "is" -> "is no longer", "are" -> "are no longer" | not entailed |
| ``not_covered`` | an appended "... is not covered" exception | not entailed |
| ``number`` | a number the premise states, changed | contradiction |
| ``date`` | a month or year the premise states, changed | contradiction |
| ``entity_swap`` | two names the premise states, swapped across a verb | not entailed |
| ``added_clause`` | ", and"/", but"/", which" + an unsupported clause | not entailed |
| ``commitment`` | an appended promise or exception | not entailed |
| ``unrelated_number`` | a sentence with a number on an unrelated topic | neutral |
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from hallmon.onnx_models.training.data import (
    _MONTH,
    COMMITMENTS,
    CONTRADICTION,
    ENTAILMENT,
    MONTHS,
    NEUTRAL,
    NOT_ENTAILED,
    Example,
    _change_number,
    _negate,
)

KINDS = (
    "negation",
    "no_longer",
    "not_covered",
    "number",
    "date",
    "entity_swap",
    "added_clause",
    "commitment",
    "unrelated_number",
)
# The training target of each kind (``NOT_ENTAILED`` where the alteration may be neutral or
# contradiction depending on the premise: the binary loss does not pick one).
TARGET = {
    "negation": CONTRADICTION,
    "no_longer": NOT_ENTAILED,
    "not_covered": NOT_ENTAILED,
    "number": CONTRADICTION,
    "date": CONTRADICTION,
    "entity_swap": NOT_ENTAILED,
    "added_clause": NOT_ENTAILED,
    "commitment": NOT_ENTAILED,
    "unrelated_number": NEUTRAL,
}


@dataclass(frozen=True)
class Templates:
    unrelated: tuple[str, ...]
    clauses: tuple[str, ...]
    exceptions: tuple[str, ...]
    commitments: tuple[str, ...]


HELD_OUT = Templates(
    unrelated=(
        "The company behind it was founded in {year}.",
        "The nearest train station is {n} kilometres away.",
        "Its headquarters employ {n} people.",
        "The building has {n} floors.",
        "Membership costs {n} dollars a year.",
        "The annual report lists {n} branches worldwide.",
    ),
    clauses=(
        ", and it is free for members",
        ", and this was confirmed by the manager",
        ", but only on weekends",
        ", which was the first time in a decade",
        ", and the offer ends tomorrow",
        ", but it was later cancelled",
        ", which doubled the price",
        ", and everyone received a refund",
    ),
    exceptions=(
        "{hyp} This is not covered by any warranty.",
        "{hyp} Damage of this kind is not covered.",
        "{hyp} Such cases are excluded from the policy.",
    ),
    commitments=COMMITMENTS,
)

TRAINING = Templates(
    unrelated=(
        "The museum opened {n} new rooms last year.",
        "About {n} volunteers helped organise the festival.",
        "The river nearby is {n} kilometres long.",
        "Tickets cost {n} euros at the door.",
        "The local school was built in {year}.",
        "The club has won {n} regional titles.",
        "The airport handles {n} flights a day.",
        "Its website had {n} thousand visitors in {year}.",
        "The park covers {n} hectares.",
        "A new bridge opened there in {year}.",
    ),
    clauses=(
        ", and shipping is included at no charge",
        ", but the store closes early on Sundays",
        ", which made it the most popular choice",
        ", and the fee was waived",
        ", but the results were never published",
        ", which took three weeks to approve",
        ", and all participants were paid",
        ", and it won an award the following year",
        ", but the manager later denied it",
        ", which is why prices rose sharply",
    ),
    exceptions=(
        "{hyp} Repairs of this sort are not included.",
        "{hyp} Claims like this are not eligible for compensation.",
        "{hyp} The guarantee does not apply in this case.",
        "{hyp} Returns are no longer accepted for such items.",
    ),
    commitments=(
        "We have upgraded you to the premium plan free of charge.",
        "Your late fee has been waived.",
        "The return window has been extended to 90 days for you.",
        "You will receive a replacement by tomorrow morning.",
        "I've issued a voucher for your next order.",
        "Our manager has approved a full refund.",
        "We will cover the shipping costs this time.",
        "Your warranty has been extended by another year.",
    ),
)

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_IS_ARE = re.compile(r"\b(is|are)\b(?! (?:not|no)\b)")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
# Sentence starters, not names.
_STARTERS = frozenset(
    {"The", "A", "An", "This", "That", "These", "Those", "It", "He", "She", "They", "We", "I"}
    | {"In", "On", "At"}
)


def _strip_end(hyp: str) -> str:
    return hyp.rstrip().rstrip(".!?")


def _no_longer(hyp: str, _premise: str, _rng: random.Random, _t: Templates) -> str | None:
    m = _IS_ARE.search(hyp)
    return hyp[: m.end()] + " no longer" + hyp[m.end() :] if m else None


def _not_covered(hyp: str, _premise: str, rng: random.Random, t: Templates) -> str | None:
    return rng.choice(t.exceptions).format(hyp=_strip_end(hyp) + ".")


def _date(hyp: str, premise: str, rng: random.Random, _t: Templates) -> str | None:
    years = [m for m in _YEAR.finditer(hyp) if m.group(1) in premise]
    if years:
        m = rng.choice(years)
        new = str(int(m.group(1)) + rng.choice([-7, -3, -1, 1, 2, 4]))
        return hyp[: m.start(1)] + new + hyp[m.end(1) :]
    # "March" or "May" alone is rarely a date: change a month only next to a number.
    months = [
        m
        for m in _MONTH.finditer(hyp)
        if m.group(1) in premise and re.search(r"\d", hyp[max(0, m.start() - 6) : m.end() + 6])
    ]
    if not months:
        return None
    m = rng.choice(months)
    new = rng.choice([x for x in MONTHS if x != m.group(1)])
    return hyp[: m.start(1)] + new + hyp[m.end(1) :]


def _entity_swap(hyp: str, premise: str, _rng: random.Random, _t: Templates) -> str | None:
    names: list[re.Match[str]] = []
    for m in _NAME.finditer(hyp):
        word = m.group(0)
        if word not in _STARTERS and word in premise and all(n.group(0) != word for n in names):
            names.append(m)
    if len(names) < 2:
        return None
    a, b = names[0], names[1]
    between = hyp[a.end() : b.start()]
    # "Anna and Ben met" stays true when swapped: only swap across a verb-like gap.
    if not between.strip() or re.search(r"\b(and|or|&)\b|,", between):
        return None
    return hyp[: a.start()] + b.group(0) + between + a.group(0) + hyp[b.end() :]


def _added_clause(hyp: str, _premise: str, rng: random.Random, t: Templates) -> str | None:
    return _strip_end(hyp) + rng.choice(t.clauses) + "."


def _commitment(hyp: str, _premise: str, rng: random.Random, t: Templates) -> str | None:
    return f"{_strip_end(hyp)}. {rng.choice(t.commitments)}"


def _unrelated_number(_hyp: str, premise: str, rng: random.Random, t: Templates) -> str | None:
    if re.search(r"\d", premise):
        return None  # a premise with numbers could make the sentence contradicted, not neutral
    template = rng.choice(t.unrelated)
    return template.format(year=rng.randint(1900, 2015), n=rng.randint(3, 900))


ALTER: dict[str, Callable[[str, str, random.Random, Templates], str | None]] = {
    "negation": lambda h, p, r, t: _negate(h),
    "no_longer": _no_longer,
    "not_covered": _not_covered,
    "number": lambda h, p, r, t: _change_number(h, p, r),
    "date": _date,
    "entity_swap": _entity_swap,
    "added_clause": _added_clause,
    "commitment": _commitment,
    "unrelated_number": _unrelated_number,
}


def alter(kind: str, hyp: str, premise: str, rng: random.Random, t: Templates) -> str | None:
    """The altered hypothesis, or None where this kind does not apply to the pair."""
    new = ALTER[kind](hyp, premise, rng, t)
    return new if new and new != hyp else None


def training_hard_cases(
    entailed: list[Example], per_kind: dict[str, int], seed: int
) -> list[Example]:
    """Up to ``per_kind[kind]`` altered pairs of each kind from entailed training pairs, with the
    ``TRAINING`` templates; each source pair is altered at most once."""
    rng = random.Random(seed)
    pool = [
        e
        for e in entailed
        if e.target == ENTAILMENT
        and len(e.hypothesis.split()) <= 30
        and len(e.premise.split()) <= 120
    ]
    rng.shuffle(pool)
    used: set[int] = set()
    out: list[Example] = []
    # Scarce kinds first, so common pairs are not used up by the kinds that apply everywhere.
    for kind in sorted(per_kind, key=lambda k: (k not in ("entity_swap", "date", "number"), k)):
        made = 0
        for i, ex in enumerate(pool):
            if made >= per_kind[kind]:
                break
            if i in used:
                continue
            new = alter(kind, ex.hypothesis, ex.premise, rng, TRAINING)
            if new is None:
                continue
            used.add(i)
            made += 1
            out.append(Example(ex.premise, new, TARGET[kind], f"hard_{kind}"))
    return out
