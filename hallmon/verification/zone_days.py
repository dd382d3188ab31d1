"""The day of a moment said in two time zones.

"1:40 a.m. Eastern on Tuesday, December 8, which is 10:40 p.m. Pacific on Tuesday, December
8": the times convert, but 1:40 a.m. Eastern is 10:40 p.m. Pacific the evening before. The
number check finds both dates in the evidence (the tool's date, and the UTC day of either
time), so a day that did not move with the clock passes it; this check reads the two
(time, zone, date) triples a conversion joins and fails a date the zones' offsets contradict.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from itertools import pairwise

from hallmon.schemas import CheckResult
from hallmon.verification.numbers import Quantity, claim_quantities, extract_quantities

__all__ = ["check_zone_day"]

# between a time and its date: "1:40 a.m. Eastern on Tuesday, December 8"
_ON_DATE = re.compile(r"^\s*(?:[A-Za-z]+\s+){0,2}?(?:on\s+)?(?:[A-Za-z]+day,?\s+)?$")
# between the two: ", which is", "(that's", " or ", " – i.e."
_CONVERSION = re.compile(
    r"^[\s,(–—-]*(?:which\s+is|which['’]s|that['’]s|that\s+is|i\.e\.|meaning|or|so)\s*$", re.I
)
_PAIRS_MAX = 16
"""Time-and-date pairs read per claim (hostile input holds thousands)."""


def _local_day(q: Quantity) -> tuple[int, int] | None:
    """(month, day) of a date as written ("December 8"), without the other zones' readings."""
    plain = [d for p in extract_quantities(q.text, True) for d in p.dates]
    if len(plain) != 1:
        return None
    m = re.fullmatch(r"(?:\d{4}|-)-(\d{2})-(\d{2})", plain[0])
    return (int(m.group(1)), int(m.group(2))) if m else None


def _shifted(day: tuple[int, int], k: int) -> tuple[int, int]:
    # (a leap year, so 29 February is a day; the shift is a day at most either way)
    moved = date(2028, *day) + timedelta(days=k)
    return moved.month, moved.day


# between two times a conversion joins: "3:00 p.m. Eastern, which is 11:00 a.m. Pacific",
# "3:00 pm ET (12:00 pm PT)", "… on Tuesday, December 8, which is 10:40 p.m."
_BETWEEN_TIMES = re.compile(
    r"^[^.;:!?]{0,60}?(?:[\s,(–—-](?:which\s+is|which['’]s|that['’]s|that\s+is|i\.e\.|meaning)\s*"
    r"|\s*\(\s*)$",
    re.I,
)


# between the two ends of a range or pair of times: " to ", "–", " and LOS at "
_SAME_CLAUSE = re.compile(r"^[^.;:!?()]{0,40}$")


def _converted_time(figures: tuple[Quantity, ...], claim_text: str) -> CheckResult | None:
    """Two zoned times a conversion joins that are not one moment ("3:00 p.m. Eastern, which
    is 11:00 a.m. Pacific" in December: 20:00 and 19:00 UTC)."""
    clock = [q for q in figures if q.kind == "time"][: 2 * _PAIRS_MAX]
    for i, (t1, t2) in enumerate(pairwise(clock)):
        if not (t1.utc and t2.utc) or not _BETWEEN_TIMES.match(claim_text[t1.end : t2.start]):
            continue
        # (of a range or pair said before, "10:00 a.m. to 12:00 p.m. Eastern, which is 7:00
        # to 9:00 a.m. Pacific", the first converts to the first; one whose zone is not known
        # leaves the pair unjudged)
        before = clock[i - 1] if i > 0 else None
        if before is not None and not _SAME_CLAUSE.match(claim_text[before.end : t1.start]):
            before = None
        if before is not None and not before.utc:
            continue
        if not t1.utc & t2.utc and not (before is not None and before.utc & t2.utc):
            return CheckResult(
                name="number",
                passed=False,
                detail=f"'{t2.text}' is not the moment '{t1.text}' converted: the zones put "
                "them at different times (wrong time-zone conversion)",
            )
    return None


def check_zone_day(
    claim_text: str, answer_text: str = "", today: date | None = None
) -> CheckResult | None:
    """A failed number check when a moment said in one zone is said in another at another
    time, or as a time and date on a day the offsets contradict; None when the claim says no
    such pair. `answer_text`, else `today`, gives the season when the claim names no date
    (summer time)."""
    figures = claim_quantities(claim_text, answer_text, today)
    converted = _converted_time(figures, claim_text)
    if converted is not None:
        return converted
    pairs: list[tuple[Quantity, Quantity]] = []
    for t, d in pairwise(figures):
        if (
            t.kind == "time"
            and d.kind == "date"
            and len(t.values) == 1
            and len(t.utc) == 1
            and _ON_DATE.match(claim_text[t.end : d.start])
        ):
            pairs.append((t, d))
            if len(pairs) >= _PAIRS_MAX:
                break
    for (t1, d1), (t2, d2) in pairwise(pairs):
        if not _CONVERSION.match(claim_text[d1.end : t2.start]) or t1.utc != t2.utc:
            continue  # (not one moment said twice)
        day1, day2 = _local_day(d1), _local_day(d2)
        if day1 is None or day2 is None:
            continue
        (v1,), (v2,), (u,) = t1.values, t2.values, t1.utc
        off1 = (v1 - u + 720) % 1440 - 720
        off2 = (v2 - u + 720) % 1440 - 720
        k = int((v1 + off2 - off1) // 1440)
        want = _shifted(day1, k)
        if day2 != want:
            when = "the day before" if k < 0 else "the day after" if k > 0 else "the same day"
            return CheckResult(
                name="number",
                passed=False,
                detail=f"'{t2.text}' on '{d2.text}' is the moment '{t1.text}' on '{d1.text}', "
                f"which falls {when} there (wrong day across time zones)",
            )
    return None
