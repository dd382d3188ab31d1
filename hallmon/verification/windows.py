"""A window said to be met between two dates the answer states.

"You paid on 15 November and we lowered the price on 1 December, so the drop came within 14
days of your order": both dates are grounded, and so is the 14-day rule, yet 15 November to 1
December is 16 days. No passage holds the count, so neither the number check nor the model sees
it; this check counts the days between the two dates the claim's sentence and the one before it
state, and fails a window they overrun.
"""

from __future__ import annotations

import re
from datetime import date

from hallmon.schemas import CheckResult, Claim
from hallmon.verification.numbers import extract_quantities
from hallmon.verification.sentences import sentence_around, sentence_before
from hallmon.verification.text import NUMBER_WORDS

__all__ = ["check_window_end", "check_window_said"]

# "came within 14 days of your order", "is within 30 days of delivery" (calendar days only:
# working days need a calendar the answer does not give)
_WITHIN = re.compile(
    r"\bwithin\s+(?:the\s+)?(?P<n>\d{1,3}|[a-z]+)[\s-]+(?:calendar\s+)?days?\s+(?:of|from|after)\b",
    re.I,
)
# "not within", "isn't within", "outside": the window is said to be missed, which is no claim
# that it is met
_DENIED = re.compile(
    r"(?:\bnot|n['’]t|\bnever|\boutside|\bbeyond|\bmore\s+than)\s+(?:\w+\s+)?$", re.I
)
# "the drop came within", "you registered within": an event said to have happened in it (not
# "must be submitted within", "will be made within": a rule or a promise)
_PAST = re.compile(r"\b(?:came|fell|went|was|were|got|arrived|\w+ed)\s+(?:\w+\s+)?$", re.I)
_MODAL = re.compile(
    r"\b(?:to|be|been|being|must|should|can|could|will|would|may|might|needs?|required?)\s+"
    r"(?:\w+\s+){0,2}$",
    re.I,
)
# "if it's within 14 days of delivery": a rule, not the user's case
_RULE = re.compile(r"\b(?:if|as\s+long\s+as|provided|when|unless|only)\b[^.;:]*$", re.I)


def _days(dates: frozenset[str], year: int) -> date | None:
    """The one day a date quantity names ("2026-11-15", or "--11-15" in `year`)."""
    if len(dates) != 1:
        return None
    (text,) = dates
    try:
        return date.fromisoformat(text if not text.startswith("--") else f"{year}{text[1:]}")
    except ValueError:
        return None


def check_window_said(
    claim: Claim, answer_text: str, today: date | None = None
) -> CheckResult | None:
    """A failed number check when the claim says an event came within a window of N days and
    the two dates its sentence and the one before state (both on or before `today`, the
    answer's day) lie more than N days apart; None otherwise."""
    m = _WITHIN.search(claim.text)
    if m is None or not answer_text:
        return None
    word = m.group("n").lower()
    n = int(word) if word.isdigit() else NUMBER_WORDS.get(word)
    before = claim.text[: m.start()]
    if n is None or _DENIED.search(before[-30:]) or _RULE.search(before[-300:]):
        return None
    if not _PAST.search(before[-40:]) or _MODAL.search(before[-40:]):
        return None
    start, end = claim.span.start, claim.span.end
    if answer_text[start:end] != claim.text:
        return None  # (a claim not cut from this answer: nothing to read around it)
    context = (
        sentence_before(answer_text, start) + " " + sentence_around(answer_text, start, end)
    )[:2000]
    year = today.year if today else date.today().year
    found = [
        d
        for q in extract_quantities(context, True)
        if q.kind == "date"
        and (d := _days(q.dates, year)) is not None
        # (the window's ends are behind the answer's day: a cover end in 2029 is no end)
        and (today is None or d <= today)
    ]
    days = sorted(set(found))
    if len(days) != 2:
        return None  # (no two dates, or more than two: which pair is meant is unknown)
    gap = (days[1] - days[0]).days
    if gap <= n:
        return None
    first, last = (f"{d.day} {d.strftime('%B')}" for d in days)
    return CheckResult(
        name="number",
        passed=False,
        detail=f"'{m.group(0)}' but {first} to {last} is {gap} days (window overrun)",
    )


# "the 14-day claim window runs through December 11", "your 30-day return period ends on 9 May"
_WINDOW_END = re.compile(
    r"\b(?P<n>\d{1,3})[\s-]+(?:calendar[\s-]+)?days?\s+(?:[a-z]+\s+){0,2}?"
    r"(?:window|period|deadline|limit|grace\s+period)\s+(?:\w+\s+)?"
    r"(?:runs|lasts|ends|closes|expires|is\s+open|stays\s+open|goes)\s+"
    r"(?:(?:through|until|till|to|on|up\s+to)\s+)?",
    re.I,
)


def check_window_end(claim_text: str, today: date | None = None) -> CheckResult | None:
    """A failed number check when the claim says an N-day window from a date it states ends
    on a date N days off ("completed on November 26, so the 14-day claim window runs through
    December 11": the 10th, or the 9th counted inclusively); None otherwise."""
    m = _WINDOW_END.search(claim_text)
    if m is None:
        return None
    n = int(m.group("n"))
    year = today.year if today else date.today().year
    figures = [q for q in extract_quantities(claim_text[:2000], True) if q.kind == "date"]
    before = [d for q in figures if q.end <= m.start() and (d := _days(q.dates, year))]
    after = [d for q in figures if q.start >= m.end() and (d := _days(q.dates, year))]
    if len(before) != 1 or not after:
        return None
    start, end = before[0], after[0]
    if end < start:
        end = end.replace(year=end.year + 1)  # (a window across the new year, no year said)
    gap = (end - start).days
    if gap in (n - 1, n):
        return None
    first, last = (f"{d.day} {d.strftime('%B')}" for d in (start, end))
    return CheckResult(
        name="number",
        passed=False,
        detail=f"a {n}-day window from {first} ends on the {n}th day, not {last} "
        f"({gap} days later)",
    )
