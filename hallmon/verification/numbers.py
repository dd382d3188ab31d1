"""Numbers, amounts, percentages, durations, times and dates in text, normalised for comparison.

"4.2 million" = "4,200,000", "12%" = "12 percent" = "12 per cent", "$1,200" = "1200 dollars"
(currency kept as its own aspect), "fourteen days" = "14 days" = "two weeks", "March 3, 2024"
= "3 March 2024" = "2024-03-03", "2:00 pm" = "14:00".

`extract_quantities(text, claim=True)` is strict about what counts as a number in a claim
(no "one" as in "one of the best", no digits glued to letters as in "MP3" or "COVID-19");
`claim=False` is lenient, for the evidence side. `find_match(q, pool)` says whether a claim
quantity is backed by any quantity in the pool, honouring the claim's precision ("4.2 million"
is backed by 4,213,000) and hedges ("about 30" is backed by 28).
"""

from __future__ import annotations

import bisect
import datetime
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import islice, permutations
from typing import Literal

from hallmon.verification.text import NUMBER_WORDS

__all__ = [
    "FigureIndex",
    "Quantity",
    "QuantityKind",
    "closest",
    "counts_in",
    "day_across_zones",
    "extract_quantities",
    "figure_index",
    "find_in",
    "find_match",
    "same_time",
    "shown_arithmetic",
]

QuantityKind = Literal["number", "percent", "money", "date", "time"]


@dataclass(frozen=True, slots=True)
class Quantity:
    """One quantity found in text, with the span of the words that state it."""

    kind: QuantityKind
    text: str
    start: int
    end: int
    values: frozenset[float] = frozenset()
    """Numeric readings (a time "7:00" without am/pm reads as 07:00 and 19:00, in minutes)."""
    dates: frozenset[str] = frozenset()
    """ISO readings: "2024-03-03", "2024-03" (month), "--03-03" (no year)."""
    currency: str | None = None
    duration_days: float | None = None
    """For day/week durations, the length in days ("two weeks" -> 14)."""
    tolerance: float = 0.0
    """How far a backing value may be: half the claim's last stated unit, or 10% if hedged."""
    approximate: bool = False
    years: frozenset[float] = field(default_factory=frozenset)
    """Years a date offers as plain numbers on the evidence side ("in 2024")."""
    unit: str | None = None
    """The word after a number ("days", "stars"), for messages and durations."""
    utc: frozenset[float] = field(default_factory=frozenset)
    """For a time whose zone is known ("6:02 pm ET", "…T23:02:00+00:00"), its readings in
    minutes of the UTC day: "6:02 pm ET" is "23:02" (EST) or "22:02" (EDT)."""
    shifted: frozenset[str] = field(default_factory=frozenset)
    """Of `dates`, the readings a zoned time beside the date adds across midnight (the UTC day
    of "11:59 pm Pacific on December 9" is December 10): not the day as written."""

    def describe(self) -> str:
        if self.unit and self.unit.startswith(LIST_UNIT):
            return f"'{self.text}' ({self.unit[len(LIST_UNIT) :]} listed)"
        if self.unit and self.kind in ("number", "percent") and not self.text.endswith(self.unit):
            return f"'{self.text} {self.unit}'"
        return f"'{self.text}'"


_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "mio": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "tn": 1e12,
}
_CURRENCY_SYMBOLS = {"$": "USD", "us$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_CURRENCY_WORDS = {
    "dollar": "USD",
    "dollars": "USD",
    "usd": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "gbp": "GBP",
    "yen": "JPY",
    "jpy": "JPY",
    "rupee": "INR",
    "rupees": "INR",
    "inr": "INR",
}
# ISO codes said before an amount; other dollars map to None (see `extract_quantities`).
_CODES = {
    "USD": "USD", "EUR": "EUR", "GBP": "GBP", "JPY": "JPY", "INR": "INR", "CHF": "CHF",
    "SEK": "SEK", "NOK": "NOK", "DKK": "DKK", "ZAR": "ZAR", "PLN": "PLN", "CZK": "CZK",
    "CAD": None, "AUD": None, "NZD": None, "SGD": None, "HKD": None, "MXN": None,
    # kronor and kroner of four countries: money, in no one currency
    "kr": None, "Kr": None,
}  # fmt: skip
_DOLLAR_CODES = frozenset({"USD", "CAD", "AUD", "NZD", "SGD", "HKD"})
_BARE_DOLLAR = re.compile(r"(?<![A-Za-z])\$")


def is_money(q: Quantity) -> bool:
    """An amount of money, in a currency we compare or another ("S$480", "2 244 kr")."""
    return q.kind == "money" or q.currency is not None


def currency_agrees(q: Quantity, code: str | None) -> bool:
    """Whether a field in currency `code` may hold the amount `q` says: a bare "$" is any
    dollar's ("$412.50" of a CAD invoice), "US$" and "USD" the US one's only."""
    if code is None or q.currency is None or code == q.currency:
        return True
    return q.currency == "USD" and code in _DOLLAR_CODES and bool(_BARE_DOLLAR.search(q.text))


_CODE_BEFORE_AMOUNT = re.compile(r"\b(" + "|".join(_CODES) + r") ?$")
_DURATION_DAYS = {
    "day": 1.0, "days": 1.0, "week": 7.0, "weeks": 7.0, "fortnight": 14.0,
    "month": 30.4375, "months": 30.4375, "year": 365.25, "years": 365.25,
    # "672 hours" is four weeks (a reservation from 7 December to 4 January)
    "hour": 1 / 24, "hours": 1 / 24, "hrs": 1 / 24,
}  # fmt: skip
_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS = [
    # ("3 Dec 22:00": the 22 is the hour, not the day)
    re.compile(
        rf"\b{_MONTH}\s+(?P<day>\d{{1,2}}){_ORD}(?:,?\s+(?P<year>\d{{4}}))?\b(?![:.]\d)", re.I
    ),
    re.compile(
        rf"\b(?P<day>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+(?P<year>\d{{4}}))?\b", re.I
    ),
    re.compile(rf"\b{_MONTH},?\s+(?P<year>\d{{4}})\b", re.I),
    # (not inside an id: "snap-2026-11-26-0300")
    re.compile(r"(?<![A-Za-z]-)\b(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})\b(?!-\d)"),
    # A tool's year-month ("entry": "2027-09") is that month, as "September 2027" is.
    re.compile(r"(?<![\w-])(?P<year>(?:19|20)\d\d)-(?P<mnum>0[1-9]|1[0-2])(?![\w-])"),
]
_RANGE_WORD = r"\s*(?:-|–|—|to|and|or|until|till|through)\s*"
# "Friday 19 and Wednesday 24 June": each day of the range may carry its weekday
_WEEKDAY_BEFORE = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?"
_DAY_RANGES = [
    re.compile(
        rf"\b(?P<d1>\d{{1,2}}){_ORD}{_RANGE_WORD}{_WEEKDAY_BEFORE}(?P<day>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}"
        r"(?:,?\s+(?P<year>\d{4}))?\b",
        re.I,
    ),
    re.compile(
        rf"\b{_MONTH}\s+(?P<d1>\d{{1,2}}){_ORD}{_RANGE_WORD}(?P<day>\d{{1,2}}){_ORD}"
        r"(?:,?\s+(?P<year>\d{4}))?\b(?!:)",
        re.I,
    ),
]
# "the weeks of 7, 14 and 21 December", "December 7, 14, and 21": every day of the list
# takes the month (two days around "and" are a range above, which reads both days too; at
# most 12 days, so that a long run of numbers costs no more than a short one).
_DAY_ITEM = rf"\d{{1,2}}{_ORD}"
_DAY_LISTS = [
    re.compile(
        rf"\b(?P<days>{_DAY_ITEM}(?:\s*,\s*{_DAY_ITEM}){{1,11}},?\s+(?:and|&|or)\s+{_DAY_ITEM})"
        rf"\s+(?:of\s+)?{_MONTH}(?:,?\s+(?P<year>\d{{4}}))?\b",
        re.I,
    ),
    re.compile(
        rf"\b{_MONTH}\s+(?P<days>{_DAY_ITEM}(?:\s*,\s*{_DAY_ITEM}){{1,11}},?\s+(?:and|&|or)\s+"
        rf"{_DAY_ITEM})\b(?![:.]\d)(?:,?\s+(?P<year>\d{{4}}))?",
        re.I,
    ),
]
_DAY_OF_LIST = re.compile(r"\d{1,2}")
# "2026-12-02T16:00:00+01:00": a date and its local time as written; the UTC offset is neither.
_ISO_DATETIME = re.compile(
    r"\b(?P<year>\d{4})-(?P<mnum>\d{2})-(?P<day>\d{2})[T ](?P<h>\d{2}):(?P<m>\d{2})"
    r"(?::\d{2}(?:\.\d+)?)?(?P<zone>Z|(?P<sign>[+-])(?P<oh>\d{2}):?(?P<om>\d{2}))?(?![\d:])"
)
# "on 11/30", "by 12/5": a month and day without a year, after a word that takes a date (a
# bare "3/4" is a fraction, "24/7" a phrase, also after a word that takes a date: "for 24/7
# recording")
_SHORT_NUMERIC_DATE = re.compile(
    # ("the housing arrives, currently 12/11", "ETA 12/9")
    r"\b(?:on|by|from|until|till|through|thru|before|after|since|due|starting|ending|"
    r"currently|eta|expected|arrives|arriving|delivered|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:mon|tue|wed|thu|fri|sat|sun)\.?)\s+"
    r"(?!24/7(?!\d))(?P<a>\d{1,2})/(?P<b>\d{1,2})(?![\d/]|\.\d)"
    # "your 12/09 appointment": after "your"/"the" only with a two-digit part ("the 3/4
    # mark" is a fraction)
    r"|\b(?:your|the|this|next|that|for)\s+(?!24/7(?!\d))(?=\d{1,2}/\d{2}(?!\d)|\d{2}/\d)"
    r"(?P<a2>\d{1,2})/(?P<b2>\d{1,2})(?![\d/]|\.\d)",
    re.I,
)
# "(11/29 to 12/01)": two month/day dates around "to" are a range of dates, whatever is before
_SHORT_DATE_RANGE = re.compile(
    r"(?<![\d/.])(?P<a>\d{1,2})/(?P<b>\d{1,2})\s*(?:to|-|–|through|thru|until)\s*"
    r"(?P<c>\d{1,2})/(?P<d>\d{1,2})(?![\d/]|\.\d)",
    re.I,
)
# "19/12/2026", "12/19/2026." (a full stop after it ends the sentence, not the date)
_NUMERIC_DATE = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\d/]|\.\d)")
_TIME = re.compile(
    # "9.30am": a full stop between hour and minute is British usage when am/pm follows
    r"(?<![\d:.£$€])(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<ampm>[ap]\.?\s?m\b\.?)"
    # "09:47:12 UTC": the seconds belong to the time (the minute is what is compared)
    r"|(?<![\d:.])(?P<h24>\d{1,2}):(?P<m24>\d{2})(?::[0-5]\d(?:\.\d+)?)?(?![\d:])",
    re.I,
)
# The zone after a time ("6:02 pm ET", "22:14 UTC", "10 pm (Eastern)"): UTC offsets in hours,
# both of a zone that has summer time when the abbreviation does not say which.
_ZONES: dict[str, tuple[float, ...]] = {
    "utc": (0,), "gmt": (0,), "z": (0,), "zulu": (0,),
    "et": (-5, -4), "eastern": (-5, -4), "est": (-5,), "edt": (-4,),
    "ct": (-6, -5), "central": (-6, -5), "cst": (-6,), "cdt": (-5,),
    "mt": (-7, -6), "mountain": (-7, -6), "mst": (-7,), "mdt": (-6,),
    "pt": (-8, -7), "pacific": (-8, -7), "pst": (-8,), "pdt": (-7,),
    "cet": (1,), "cest": (2,), "bst": (1,), "eet": (2,), "eest": (3,),
    "jst": (9,), "sgt": (8,), "hkt": (8,), "aest": (10,), "aedt": (11,), "nzdt": (13,),
    "hst": (-10,), "akst": (-9,), "sast": (2,), "msk": (3,), "wet": (0,),
    "awst": (8,), "acst": (9.5,), "acdt": (10.5,), "aet": (11, 10), "nzst": (12,),
    "nzt": (13, 12), "akdt": (-8,), "nst": (-3.5,), "ndt": (-2.5,), "wib": (7,), "ict": (7,),
    "pht": (8,), "kst": (9,), "cat": (2,), "eat": (3,), "wat": (1,), "gst": (4,),
    "brt": (-3,),
    # Places people name a zone by ("11:00 pm Singapore time", "9:59 pm Pacific"); two
    # offsets: December-February first, June-August second (the south has summer in December)
    "uk": (0, 1), "london": (0, 1), "dublin": (0, 1), "lisbon": (0, 1),
    "manchester": (0, 1), "birmingham": (0, 1), "glasgow": (0, 1), "edinburgh": (0, 1),
    "leeds": (0, 1), "liverpool": (0, 1), "bristol": (0, 1), "cardiff": (0, 1),
    "belfast": (0, 1), "newcastle": (0, 1), "sheffield": (0, 1), "nottingham": (0, 1),
    "paris": (1, 2), "berlin": (1, 2), "madrid": (1, 2), "rome": (1, 2), "amsterdam": (1, 2),
    "brussels": (1, 2), "vienna": (1, 2), "zurich": (1, 2), "geneva": (1, 2),
    "stockholm": (1, 2), "oslo": (1, 2), "copenhagen": (1, 2), "warsaw": (1, 2),
    "prague": (1, 2), "frankfurt": (1, 2), "munich": (1, 2), "milan": (1, 2),
    "helsinki": (2, 3), "athens": (2, 3), "kyiv": (2, 3), "istanbul": (3,), "moscow": (3,),
    "dubai": (4,), "delhi": (5.5,), "new delhi": (5.5,), "mumbai": (5.5,), "india": (5.5,),
    "singapore": (8,), "hong kong": (8,), "beijing": (8,), "shanghai": (8,), "manila": (8,),
    "perth": (8,), "tokyo": (9,), "japan": (9,), "seoul": (9,), "korea": (9,),
    "sydney": (11, 10), "melbourne": (11, 10), "canberra": (11, 10), "brisbane": (10,),
    "auckland": (13, 12), "new zealand": (13, 12), "johannesburg": (2,), "cape town": (2,),
    "new york": (-5, -4), "toronto": (-5, -4), "boston": (-5, -4), "miami": (-5, -4),
    "chicago": (-6, -5), "dallas": (-6, -5), "houston": (-6, -5), "mexico city": (-6,),
    "denver": (-7, -6), "phoenix": (-7,), "arizona": (-7,), "los angeles": (-8, -7),
    "san francisco": (-8, -7), "seattle": (-8, -7), "vancouver": (-8, -7),
    "anchorage": (-9, -8), "alaska": (-9, -8), "honolulu": (-10,), "hawaii": (-10,),
    "halifax": (-4, -3), "atlantic": (-4, -3), "sao paulo": (-3,), "são paulo": (-3,),
    "buenos aires": (-3,), "adelaide": (10.5, 9.5), "darwin": (9.5,), "hobart": (11, 10),
    "wellington": (13, 12), "bangkok": (7,), "jakarta": (7,), "kuala lumpur": (8,),
    "taipei": (8,), "nairobi": (3,), "lagos": (1,), "riyadh": (3,), "karachi": (5,),
    "dhaka": (6,), "lima": (-5,), "bogota": (-5,), "bogotá": (-5,), "montreal": (-5, -4),
    "calgary": (-7, -6), "edmonton": (-7, -6), "winnipeg": (-6, -5), "atlanta": (-5, -4),
    # countries with one zone, by name and adjective ("3:30pm Italian time")
    "italy": (1, 2), "italian": (1, 2), "france": (1, 2), "french": (1, 2), "spain": (1, 2),
    "spanish": (1, 2), "germany": (1, 2), "german": (1, 2), "netherlands": (1, 2),
    "dutch": (1, 2), "belgium": (1, 2), "belgian": (1, 2), "switzerland": (1, 2),
    "swiss": (1, 2), "austria": (1, 2), "austrian": (1, 2), "sweden": (1, 2),
    "swedish": (1, 2), "norway": (1, 2), "norwegian": (1, 2), "denmark": (1, 2),
    "danish": (1, 2), "poland": (1, 2), "polish": (1, 2), "czech": (1, 2), "croatia": (1, 2),
    "croatian": (1, 2), "ireland": (0, 1), "irish": (0, 1), "british": (0, 1),
    "portugal": (0, 1), "greece": (2, 3), "greek": (2, 3), "finland": (2, 3),
    "finnish": (2, 3), "cyprus": (2, 3), "turkey": (3,), "turkish": (3,), "japanese": (9,),
    "korean": (9,), "thailand": (7,), "thai": (7,), "vietnam": (7,), "indian": (5.5,),
    "philippines": (8,), "malaysia": (8,), "uae": (4,), "egypt": (2, 3), "kenya": (3,),
}  # fmt: skip
ZONE_NAMES = frozenset(_ZONES)
"""Names of time zones and of the places that name one ("Mountain", "Singapore")."""


def _alternation(names: Iterable[str]) -> str:
    """`names` as a regex alternation, longest first, any run of spaces inside a name."""
    return "|".join(n.replace(" ", r"\s+") for n in sorted(names, key=len, reverse=True))


# Places (not zone words) may follow "in": "2:45 pm in New York", "at 18:15 in London".
_PLACES = _alternation(
    n
    for n in _ZONES
    if len(n) > 3 and n not in ("eastern", "central", "mountain", "pacific", "atlantic", "zulu")
)
_ZONE_AFTER = re.compile(
    # a hyphen after the name only as an offset's sign ("UTC-5", not "ET-based")
    # the day may come between ("00:14 on Friday 10 July UK time")
    r"(?:\s+on\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+"
    r"[A-Za-z]{3,9}\.?|[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?)(?:,?\s+\d{4})?(?=\s+\S+\s+time\b|"
    r"\s+(?:UTC|GMT)\b))?"
    # or the part of the day ("10:12 this morning UK time")
    r"(?:\s+(?:this\s+(?:morning|afternoon|evening)|tonight|today|tomorrow(?:\s+(?:morning|"
    r"afternoon|evening))?)(?=\s+\S+\s+time\b|\s+(?:UTC|GMT)\b))?"
    # ("11:00 for you in London")
    r"\s*\(?\s*(?:(?:for\s+(?:you|them|him|her|us)\s+)?in\s+(?=(?:"
    + _PLACES
    + r")\b))?(?:(?P<name>"
    + _alternation(_ZONES)
    + r")\b(?!-\D)"
    # the sign is "+", "-" or "−" (a class "[+-−]" would be the range from "+" to "−", which
    # holds every letter and digit: "22:14 UTC 12 pallets" read as UTC+2)
    r"(?:\s*(?:time\b|(?P<sign>[+\-−])(?P<oh>\d{1,2})(?::?(?P<om>\d{2}))?))?)",
    re.I,
)


def _zone_after(text: str, end: int) -> tuple[float, ...]:
    """UTC offsets (hours) of the zone written right after a time ending at `end`, or ()."""
    m = _ZONE_AFTER.match(text, end)
    if m is None:
        return ()
    name = m.group("name")
    if name == "Z" or name.lower() == "z":
        # only a "Z" glued to the time is Zulu ("09:30Z"), not "at 9 Z-Road"
        return (0.0,) if m.start("name") == end else ()
    if m.group("sign"):
        if name.lower() not in ("utc", "gmt"):
            return ()
        hours = int(m.group("oh")) + int(m.group("om") or 0) / 60
        return (-hours if m.group("sign") in "-−" else hours,)
    offsets = tuple(float(h) for h in _ZONES[" ".join(name.lower().split())])
    if len(offsets) == 2:
        # "6:00 pm Eastern on 3 December" is EST: a zone with summer time takes the offset of
        # the season the text's dates are all in (northern zones: December to February
        # standard, June to August summer), both when they say nothing or disagree
        rule = "" if offsets[0] > offsets[1] else "eu" if offsets[0] >= -1 else "us"
        season = _season(text, rule)
        if season is not None:
            return (offsets[season],)
    return offsets


_MONTH_NAME = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?!\d)|"
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\b\d{4}-(\d{2})-(\d{2})",
    re.I,
)
_WINTER, _SUMMER = frozenset({12, 1, 2}), frozenset({6, 7, 8})


def _dst(month: int, day: int | None, rule: str) -> int | None:
    """1 when a date is in summer time under `rule`, 0 when not, None when the month alone
    cannot tell (the changeover weeks, or a rule this knows no dates of). Europe changes on the
    last Sundays of March and October (days 25-31), North America on the second Sunday of
    March (8-14) and the first of November (1-7)."""
    if rule == "eu":
        if 4 <= month <= 9:
            return 1
        if month in (11, 12, 1, 2):
            return 0
        if day is None or day >= 25:
            return None
        return 0 if month == 3 else 1
    if rule == "us":
        if 4 <= month <= 10:
            return 1
        if month in (12, 1, 2):
            return 0
        if day is None:
            return None
        if month == 3:
            return 0 if day <= 7 else 1 if day >= 15 else None
        return 0 if day >= 8 else None  # November
    return 0 if month in _WINTER else 1 if month in _SUMMER else None


@lru_cache(maxsize=1024)
def _season(text: str, rule: str = "") -> int | None:
    """0 when every date the text names is in standard time, 1 when every one is in summer
    time, else None. Without a `rule` (southern zones, whose two offsets are listed
    December-February first): December to February 0, June to August 1."""
    states = set()
    for m in islice(_MONTH_NAME.finditer(text), 64):
        name = m.group(1) or m.group(4)
        month = _MONTHS[name.lower()[:3]] if name else int(m.group(5))
        raw = m.group(2) or m.group(3) or m.group(6)
        day = int(raw) if raw and 1 <= int(raw) <= 31 else None
        states.add(_dst(month, day, rule))
    if len(states) == 1:
        return next(iter(states))
    return None


_DAYPART = re.compile(r"\s+(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+night)\b", re.I)

_VULGAR = {"½": 0.5, "¼": 0.25, "¾": 0.75}
_OFFSET_KEY = re.compile(
    r"\b(?:offset|delta|change|diff|difference|shift)\b[\w ]{0,20}:\s*[-−]?$", re.I
)
_ZONE_OFFSET_BEFORE = re.compile(r"(?:UTC|GMT)\s?[+\-−]?$", re.I)

_RANGE_TO_TIME = re.compile(
    r"\s*(?:to|-|–|until|till|and)\s*\d{1,2}(?:[:.]\d{2})?(?::\d{2})?\s*(?:[ap]\.?\s?m\b\.?)?", re.I
)


# "For you in London that's 15:00 to 16:30": the zone said before the time
_ZONE_BEFORE = re.compile(
    r"\b(?P<in>in\s+(?:" + _PLACES + r"))\s*,?\s+(?:that['’]s|that\s+is|it['’]s|it\s+is|"
    r"which\s+is|that['’]ll\s+be|it['’]ll\s+be|(?:that|it)\s+will\s+be)\s+"
    r"(?:(?:from\s+)?\d{1,2}(?::\d{2})?\s*(?:[ap]\.?\s?m\.?)?\s*(?:to|-|–|until|till)\s*)?$",
    re.I,
)


def _zone_before(text: str, start: int) -> tuple[float, ...]:
    """UTC offsets (hours) of a place named right before a time ("in London that's 15:00")."""
    window = max(0, start - 80)
    m = _ZONE_BEFORE.search(text, window, start)
    return _zone_after(text, m.start("in")) if m else ()


def _range_zone(text: str, end: int) -> tuple[float, ...]:
    m = _RANGE_TO_TIME.match(text, end)
    return _zone_after(text, m.end()) if m else ()


def _in_utc(minutes: frozenset[float], offsets: Sequence[float]) -> frozenset[float]:
    return frozenset((v - h * 60) % 1440 for v in minutes for h in offsets)


# ("at 12 noon": the 12 is the noon's)
_NOON = re.compile(r"\b(?:12\s+)?(?:noon|midday|midnight)\b", re.I)
_TIME_RANGE = re.compile(
    r"(?<![\d:.£$€])(?P<h1m>(?P<h1>\d{1,2})(?:[:.](?P<m1>\d{2}))?)\s*(?:to|-|–|until|till|and)\s*"
    # "9 to 11 in the morning": the part of the day is the range's am or pm
    r"(?P<h2>\d{1,2})(?:[:.](?P<m2>\d{2}))?(?:\s*(?P<ampm>[ap]\.?\s?m\b\.?)|"
    r"\s+in\s+the\s+(?P<part>morning|afternoon|evening)\b)",
    re.I,
)
# a currency written after its amount, where a space or a comma groups the figure's digits
_CURRENCY_AFTER = (
    r"(?=[ \u00a0]?(?:kr\b|SEK\b|NOK\b|DKK\b|EUR\b|€|zł|PLN\b|Kč|CZK\b|CHF\b|Ft\b|HUF\b))"
)
# (an apostrophe groups thousands in Switzerland: "CHF 1'200.00"; a space only before a
# currency that is written so: "1 295 kr")
_NUM = (
    # a card or account number in blocks of four ("0421 7788 3106"): one number
    r"\d{4}(?: \d{4}){2,4}(?!\d|[,.]\d)|"
    r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:['’]\d{3})+(?:\.\d+)?|"
    r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d{2})?" + _CURRENCY_AFTER +
    # a decimal comma after "kr " or "€", or before such a currency ("kr 187,50", "189,00 €")
    r"|(?:(?<=kr )|(?<=€ )|(?<=€))\d{1,3}(?:\.\d{3})*,\d{2}(?!\d|,\d)"
    r"|\d{1,3}(?:\.\d{3})*,\d{2}(?!\d|,\d)" + _CURRENCY_AFTER +
    r"|\d+(?:\.\d+)?"
)  # fmt: skip
_NUMBER = re.compile(
    # (not after a word and a hyphen, an id's "ID-65"; but "over-65s" is an age group)
    r"(?:(?<![A-Za-z0-9_.,])(?<![A-Za-z]-)|(?:(?<=\bover-)|(?<=\bunder-))(?=\d{1,3}s\b))(?P<sym>(?:US|NZ|AU|CA|HK|[ACS])\$|[$€£¥₹])?\s?(?P<neg>[-−])?(?P<num>"
    + _NUM
    + r")"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mio|mn|bn|tn)\b|(?P<scale1>[kmb])\b)?"
    r"(?P<glued>[A-Za-z]\w*)?"
    r"(?:\s?(?P<pct>%|percent\b|per\s?cent\b|pct\b))?",
    re.I,
)
_WORD_NUMBER = re.compile(
    r"\b(?P<word>" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
    r"(?:[-\s](?P<unit_word>one|two|three|four|five|six|seven|eight|nine))?\b"
    r"(?:\s(?P<scale>thousand|million|billion|trillion)\b)?"
    r"(?:\s(?P<pct>percent|per\s?cent)\b)?",
    re.I,
)
# The unit after a number: "14 days", "3 business days", "2-year" (hyphenated).
_AFTER = re.compile(
    # ("14 or more days": the unit after the bound)
    r"\s*(?:-\s*)?(?:(?:or|and)\s+(?:more|fewer|less|longer|over|above)\s+)?"
    # ("4 more days", "2 extra nights": the unit after the word that adds to it)
    r"(?:(?:more|extra|further|additional)\s+(?=[a-z]+s\b))?"
    r"(?:(?:business|calendar|working|banking|clear|school)\s+)?([A-Za-z]+)"
)
_HEDGE = re.compile(
    r"(?:about|around|approximately|approx\.?|roughly|nearly|almost|some|circa|~|over|"
    r"more than|less than|under|up to|at least|at most|close to|upwards of)\s*[$€£¥₹]?\s*$",
    re.I,
)
_HALF_DURATION = re.compile(
    r"\b(?:(?P<n>an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?:extra\s+|more\s+|additional\s+|further\s+)?(?P<unit>hour|day|week|"
    r"month|year|minute)s?\s+and\s+a\s+half|(?P<n2>an?|one|two|three|four|five|six)\s+and\s+a\s+"
    r"half\s+(?P<unit2>hour|day|week|month|year|minute)s?|half\s+an?\s+(?P<half_unit>hour|day|"
    r"week|month|year|minute))\b",
    re.I,
)
_VERSION = re.compile(r"\d+\.\d+\.\d+")
_UNIT_KEY = re.compile(
    r"\b(seconds|minutes|hours|days|weeks|months|years|s|secs?|mins?|hrs?)\s*:\s*[-−]?$", re.I
)
# units written against their number ("5GB", "20kg", "250ml"): a quantity, not an id (not
# hours: "Standard 48h" names a service)
_GLUED_UNITS = frozenset(
    {"gb", "mb", "tb", "kb", "kg", "km", "ml", "mm", "cm", "kwh", "mbps", "gbps", "kw", "mw",
     "gw", "lbs", "oz", "ft", "mph", "kph"}
)  # fmt: skip
_BYTES_KEY = re.compile(r"\bbytes\b[^.:;\d]{0,24}:?\s*$", re.I)
# ("unit rate p per kwh 24.86": a field in pence per unit too)
_PENCE_KEY = re.compile(r"\b(?:pence|cents|p\s+per\s+\w+)\b[^.:;\d]{0,24}:?\s*$", re.I)
# lengths of time glued to their number on the evidence side ("last_90d", "avg_24h")
_GLUED_SPANS = {
    "d": "days", "h": "hours", "w": "weeks", "hr": "hours", "hrs": "hours", "wk": "weeks",
    "wks": "weeks", "mo": "months", "yr": "years", "yrs": "years",
}  # fmt: skip
_KEY_UNITS = {"s": "seconds", "sec": "seconds", "secs": "seconds", "min": "minutes",
              "mins": "minutes", "h": "hours", "hr": "hours", "hrs": "hours"}  # fmt: skip
_REFERENCE = re.compile(
    r"\b(?:passages?|paragraphs?|documents?|docs?|sources?|contexts?|references?|options?|"
    r"methods?|steps?|items?|points?|answers?|questions?|parts?|sections?|chapters?|tips?|"
    r"examples?|ways?|figures?|fig\.|tables?|pages?|p\.|no\.|#)\s*"
    r"(?:\d+\s*(?:,|and|&|or|-|–|to)\s*)*$",
    re.I,
)
# a rendered tool output's list element, at the start of its line ("Line items 2: ")
_LIST_LABEL = re.compile(r"(?:^|\n)([A-Z][a-z]+(?: [a-z]+){0,3}) $")
LIST_UNIT = "#"
"""The unit of the number of a list's last element ("Services 2:" is "2 #services")."""
_LOOKBACK = 64  # characters before a number that _REFERENCE and _OUT_OF may read
_META_UNITS = frozenset({"words", "characters", "sentences", "paragraphs", "bullet", "tokens"})
_OUT_OF = re.compile(r"\bout of\s*$", re.I)
_PER_WEEK = re.compile(r"\s+(?:days|times|hours|nights)\s+(?:a|per)\s+(?:week|day|month)\b", re.I)
_VAGUE = re.compile(r"\b(?:several|a few|few|many|some|dozens of|hundreds of)\s+$", re.I)
# Units after a number word that make it a figure a source would state.
_STATED_UNITS = frozenset(
    {"percent", "per", "times", "dollars", "dollar", "euros", "euro", "pounds", "people",
     "persons", "employees", "users", "customers", "children", "years", "year", "months",
     "month", "weeks", "week", "days", "day", "hours", "hour", "minutes", "minute", "seconds",
     "nights", "stars", "star", "miles", "kilometres", "kilometers", "km", "kg",
     "points", "goals", "games", "floors", "rooms", "members", "deaths", "injured",
     "killed", "victims", "fortnight", "business", "working", "calendar"}
)  # fmt: skip


def _month(name: str) -> int:
    return _MONTHS[name.lower()[:3]]


def _valid(year: int | None, month: int, day: int | None) -> bool:
    if not 1 <= month <= 12:
        return False
    if day is None:
        return True
    limit = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return 1 <= day <= limit


def _iso(year: int | None, month: int, day: int | None) -> str:
    if day is None:
        return f"{year:04d}-{month:02d}"
    if year is None:
        return f"--{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}-{day:02d}"


def _month_day(a: int, b: int) -> set[str]:
    """A month and day written "a/b" without a year, read either way round ("12/03" is 3
    December or 12 March) where the reading is a date."""
    return {f"--{mo:02d}-{d:02d}" for mo, d in ((a, b), (b, a)) if _valid(None, mo, d)}


def _number(literal: str) -> float:
    literal = literal.replace("'", "").replace("’", "")
    if _DECIMAL_COMMA.search(literal) or any(c in literal for c in " \u00a0\u202f"):
        # "1 295,50 kr", "kr 187,50", "1.234,50 €": spaces and dots group, a comma ends
        return float(re.sub(r"[ .\u00a0\u202f]", "", literal).replace(",", "."))
    return float(literal.replace(",", ""))


_DECIMAL_COMMA = re.compile(r",\d{2}$")


def _half_unit(literal: str, scale: float) -> float:
    """Half of the last stated unit: "4.2 million" -> 50,000; "3.5" -> 0.05; "15" -> 0."""
    decimals = len(literal.split(".", 1)[1]) if "." in literal else 0
    if decimals == 0 and scale == 1.0:
        return 0.0
    return 0.5 * scale * 10.0 ** (-decimals)


_ZONE_WORD = re.compile(r"\b(?:" + _alternation(_ZONES) + r")\b", re.I)


@lru_cache(maxsize=64)
def _season_dates(text: str) -> str:
    """The first dates a text names, joined: what fixes a zone's summer time for a claim of
    it (read once per answer, not once per claim)."""
    return "; ".join(m.group(0) for m in islice(_MONTH_NAME.finditer(text[:20_000]), 8))


# "Delivery windows … are given to customers in UK local time": the zone an answer's times
# are in, as a policy declares it
_DECLARED_ZONE = re.compile(
    r"\b(?:given|shown|displayed|quoted|stated|listed|are|appear)\s+(?:\w+\s+){0,3}?in\s+"
    r"(?:the\s+)?(?P<name>" + _alternation(_ZONES) + r")\s+(?:local\s+)?time\b",
    re.I,
)


@lru_cache(maxsize=64)
def declared_zone(source_texts: tuple[str, ...], answer_text: str) -> tuple[float, ...]:
    """The UTC offsets (hours) of the zone a source says times are given in, in the season
    of the answer's dates (of the sources' dates when the answer names none: a tracking
    window's own date); () when no source says one, or two say different ones."""
    names = {
        " ".join(m.group("name").lower().split())
        for t in source_texts
        for m in islice(_DECLARED_ZONE.finditer(t[:20_000]), 4)
    }
    if len(names) != 1:
        return ()
    season = _season_dates(answer_text) or _season_dates(" ".join(t[:20_000] for t in source_texts))
    return _zone_after(f"{next(iter(names))} time {season}", 0)


def in_zone(q: Quantity, offsets: Sequence[float]) -> Quantity:
    """A time said without its zone, read in the zone of `offsets`."""
    if q.kind != "time" or q.utc or not q.values or len(offsets) != 1:
        return q
    return replace(q, utc=_in_utc(q.values, offsets))


@lru_cache(maxsize=64)
def named_zone_offsets(text: str) -> frozenset[float]:
    """UTC offsets (hours) of the places and zones a text names ("Berlin is an hour ahead of
    London in May": 2 and 1), UTC itself left out; a zone with summer time only where the
    text's dates say which."""
    out: set[float] = set()
    for m in islice(_ZONE_WORD.finditer(text[:20_000]), 16):
        offsets = _zone_after(text, m.start()) if len(m.group(0)) > 3 else ()
        if len(offsets) == 1:  # (a place's, or a zone word's, in a season the text names)
            out.add(float(offsets[0]))
    return frozenset(out - {0.0})


def claim_quantities(
    claim_text: str, answer_text: str = "", today: datetime.date | None = None
) -> tuple[Quantity, ...]:
    """The claim's quantities, a zone with summer time read in the season of the answer's
    dates when the claim names none ("That's 2:00 pm Chicago time" after "on Wednesday 20
    January" is CST), else of the answer's day (`today`: "6:35 p.m. Central tonight" in
    December is CST)."""
    if (
        (answer_text or today)
        and _MONTH_NAME.search(claim_text) is None
        and _TIME.search(claim_text) is not None
        and _ZONE_WORD.search(claim_text) is not None
    ):
        dates = _season_dates(answer_text) or (
            f"{today.day} {today.strftime('%B')} {today.year}" if today else ""
        )
        if dates:
            # (the dates after a break that no pattern reads across, then dropped)
            padded = extract_quantities(f"{claim_text}\n\n\n{dates}", True)
            return tuple(q for q in padded if q.end <= len(claim_text))
    return extract_quantities(claim_text, True)


@lru_cache(maxsize=4096)
def extract_quantities(text: str, claim: bool = True) -> tuple[Quantity, ...]:
    """Every quantity in `text`, in order. Cached: evidence texts recur across claims."""
    taken = bytearray(len(text))
    found: list[Quantity] = []

    def free(s: int, e: int) -> bool:
        return not any(taken[s:e])

    def take(q: Quantity) -> None:
        taken[q.start : q.end] = b"\x01" * (q.end - q.start)
        found.append(q)

    for m in _ISO_DATETIME.finditer(text):
        y, mo, d = int(m.group("year")), int(m.group("mnum")), int(m.group("day"))
        hour, minute = int(m.group("h")), int(m.group("m"))
        if not (_valid(y, mo, d) and hour <= 24 and minute < 60):
            continue
        take(
            Quantity(
                "date",
                m.group(0)[:10],
                m.start(),
                m.end(),
                dates=frozenset({_iso(y, mo, d)}),
                years=frozenset({float(y)}),
            )
        )
        local = frozenset({float(hour * 60 + minute)})
        offset = (
            (1 if m.group("sign") == "+" else -1) * (int(m.group("oh")) + int(m.group("om")) / 60)
            if m.group("sign")
            else 0.0
        )
        found.append(
            Quantity(
                "time", m.group(0)[11:16], m.start("h"), m.end("m"), values=local,
                utc=_in_utc(local, (offset,)) if m.group("zone") else frozenset(),
            )
        )  # fmt: skip
    for pattern in _DAY_LISTS:
        for m in pattern.finditer(text):
            if not free(m.start(), m.end()) or (
                m.group("month").lower() == "may" and m.group("month")[0] != "M"
            ):
                continue
            month = _month(m.group("month"))
            year = int(m.group("year")) if m.group("year") else None
            items = [
                (int(d.group(0)), m.start("days") + d.start(), m.start("days") + d.end())
                for d in _DAY_OF_LIST.finditer(m.group("days"))
            ]
            if not all(_valid(year, month, d) for d, _, _ in items):
                continue
            years = frozenset({float(year)}) if year is not None else frozenset()
            if year is not None:  # the year is read with the last day
                items[-1] = (items[-1][0], items[-1][1], m.end())
            for d, a, b in items:
                take(Quantity("date", text[a:b], a, b, dates=frozenset({_iso(year, month, d)}),
                              years=years))  # fmt: skip
    for pattern in _DAY_RANGES:
        # "from 25 to 29 November", "December 3-5": the first day takes the month after it.
        for m in pattern.finditer(text):
            if not free(m.start(), m.end()):
                continue
            if m.group("month").lower() == "may" and m.group("month")[0] != "M":
                continue  # "you may 3 to 5 times" is not May
            month = _month(m.group("month"))
            year = int(m.group("year")) if m.group("year") else None
            days = [int(m.group("d1")), int(m.group("day"))]
            if not all(_valid(year, month, d) for d in days) or days[0] >= days[1]:
                continue
            years = frozenset({float(year)}) if year is not None else frozenset()
            for d, (a, b) in zip(days, (m.span("d1"), (m.start("day"), m.end())), strict=True):
                if d == days[1] and m.start("month") < m.start("d1"):
                    a = m.start("day")
                if d == days[0] and m.start("month") < m.start("d1"):
                    a = m.start("month")
                    b = m.end("d1")
                take(
                    Quantity(
                        "date",
                        text[a:b],
                        a,
                        b,
                        dates=frozenset({_iso(year, month, d)}),
                        years=years,
                    )
                )
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if not free(m.start(), m.end()):
                continue
            groups = m.groupdict()
            if (
                groups.get("month")
                and groups["month"].lower() == "may"
                and m.group("month")[0] != "M"
            ):
                continue  # "you may 3 times" is not May 3rd
            month = int(groups["mnum"]) if groups.get("mnum") else _month(groups["month"])
            day = int(groups["day"]) if groups.get("day") else None
            year = int(groups["year"]) if groups.get("year") else None
            if not _valid(year, month, day):
                continue
            iso = {_iso(year, month, day)}
            years = frozenset({float(year)}) if year is not None else frozenset()
            take(
                Quantity("date", m.group(0), m.start(), m.end(), dates=frozenset(iso), years=years)
            )
    for m in _NUMERIC_DATE.finditer(text):
        if not free(m.start(), m.end()):
            continue
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        year = y + 2000 if y < 100 else y
        readings = {_iso(year, mo, d) for mo, d in ((a, b), (b, a)) if _valid(year, mo, d)}
        if readings:
            take(
                Quantity(
                    "date",
                    m.group(0),
                    m.start(),
                    m.end(),
                    dates=frozenset(readings),
                    years=frozenset({float(year)}),
                )
            )
    for m in _SHORT_DATE_RANGE.finditer(text):
        ends = [
            (m.start(one), m.end(two), _month_day(int(m.group(one)), int(m.group(two))))
            for one, two in (("a", "b"), ("c", "d"))
        ]
        if all(r for _, _, r in ends) and free(m.start(), m.end()):
            for s0, e0, readings in ends:
                take(Quantity("date", text[s0:e0], s0, e0, dates=frozenset(readings)))
    for m in _SHORT_NUMERIC_DATE.finditer(text):
        first = "a" if m.group("a") is not None else "a2"
        start = m.start(first)
        if not free(start, m.end()):
            continue
        readings = _month_day(int(m.group(first)), int(m.group("b" if first == "a" else "b2")))
        if readings:
            take(Quantity("date", text[start : m.end()], start, m.end(), dates=frozenset(readings)))
    for m in _TIME_RANGE.finditer(text):
        # "from 8 to 10am": the first hour takes the range's am/pm, or the other half of the day
        h1, m1 = int(m.group("h1")), int(m.group("m1") or 0)
        h2, m2 = int(m.group("h2")), int(m.group("m2") or 0)
        if not (1 <= h1 <= 12 and 1 <= h2 <= 12 and m1 < 60 and m2 < 60):
            continue
        if not free(m.start(), m.end()):
            continue
        pm = (
            m.group("ampm").lower().startswith("p")
            if m.group("ampm")
            else m.group("part").lower() != "morning"
        )
        second = float((h2 % 12 + (12 if pm else 0)) * 60 + m2)
        opening = {float((h1 % 12) * 60 + m1), float((h1 % 12 + 12) * 60 + m1)}
        zone = _zone_after(text, m.end()) or _zone_before(text, m.start())
        take(Quantity("time", text[m.start() : m.end("h1m")], m.start(), m.end("h1m"),
                      values=frozenset(opening),
                      utc=_in_utc(frozenset(opening), zone)))  # fmt: skip
        take(Quantity("time", text[m.start("h2") : m.end()].strip(), m.start("h2"), m.end(),
                      values=frozenset({second}),
                      utc=_in_utc(frozenset({second}), zone)))  # fmt: skip
    for m in _TIME.finditer(text):
        if not free(m.start(), m.end()):
            continue
        if m.group("h") is not None:
            hour, minute = int(m.group("h")), int(m.group("m") or 0)
            if not (1 <= hour <= 12 and minute < 60):
                continue
            pm = m.group("ampm").lower().startswith("p")
            minutes = {float((hour % 12 + (12 if pm else 0)) * 60 + minute)}
        else:
            hour, minute = int(m.group("h24")), int(m.group("m24"))
            if not (hour <= 24 and minute < 60):
                continue
            minutes = {float(hour * 60 + minute)}
            if 1 <= hour <= 12:  # "7:00" may be morning or evening
                minutes.add(float((hour % 12 + 12) * 60 + minute))
        end = m.end()
        part = _DAYPART.match(text, end)
        if part is not None and m.group("h24") is not None and 1 <= hour <= 12:
            # "11:00 in the morning", "5:30 in the evening": the words are its am or pm
            pm = part.group("part") is None or part.group("part").lower() != "morning"
            minutes = {float((hour % 12 + (12 if pm else 0)) * 60 + minute)}
            end = part.end()
        # "03:00 to 04:00 UTC": the zone after the range's second time is the first's too
        zone = _zone_after(text, end) or _range_zone(text, end) or _zone_before(text, m.start())
        take(Quantity("time", m.group(0).strip(), m.start(), m.end(), values=frozenset(minutes),
                      utc=_in_utc(frozenset(minutes), zone)))  # fmt: skip

    for m in _NOON.finditer(text):
        # "your noon deadline", "by midnight": times in words
        if free(m.start(), m.end()):
            at = 0.0 if m.group(0).lower().endswith("midnight") else 720.0
            take(Quantity("time", m.group(0), m.start(), m.end(), values=frozenset({at})))

    for m in _NUMBER.finditer(text):
        start = m.start("num") if not m.group("sym") else m.start()
        if not free(start, m.end()):
            continue
        literal = m.group("num")
        if _VERSION.match(text, m.start("num")):
            continue  # "2.0.1" is a version, not a number
        if _ZONE_OFFSET_BEFORE.search(text, max(0, m.start() - 5), m.start()):
            continue  # "Singapore time (UTC+8)": a zone's offset, read with its time
        glued = m.group("glued")
        # One-letter scales only when glued ("4.2m", "$5k"): "819 B State St" is an address.
        scale_word = (m.group("scale") or m.group("scale1") or "").lower()
        pence = glued == "p" and not m.group("sym") and not m.group("pct")
        if pence:
            # "a 73p fee", "9p a mile": pence are money, £0.73
            pounds = _number(literal) / 100
            take(_make(text, "money", start, m.end(), pounds, literal, 1.0, "GBP", ""))
            continue
        if glued and claim and glued.lower() not in _GLUED_UNITS:
            continue  # "MP3"-style ids and "4G" are not quantities; "4.2m", "5k" are scales
        if (
            claim
            and (m.group("scale1") == "B" or text[m.end() : m.end() + 1] == ":")
            and not m.group("sym")
            and "." not in literal
        ):
            continue  # "plot 14B", "cert 7B:3E": ids; "$5B", "4.2B", "5K users" stay scales
        scale = _SCALES.get(scale_word, 1.0)
        if scale_word in ("m", "b") and not m.group("sym") and not claim:
            scale = 1.0  # "5 m" on the evidence side is more often metres than millions
        value = _number(literal) * scale
        at = m.start("neg")
        if m.group("neg") and (at == 0 or text[at - 1] in " (\t\n:=~"):
            value = -value  # "-14.9 °C", "C: -14.9" (not the hyphen of "A-14")
        tail = m.end()
        fraction = _VULGAR.get(text[tail : tail + 1]) if tail == m.end("num") else None
        if fraction is not None:
            # "11½ hours": the fraction glued to the number is part of it
            value += fraction if value >= 0 else -fraction
            tail += 1
        after = text[tail : tail + 30]
        currency = _CURRENCY_SYMBOLS.get((m.group("sym") or "").lower())
        unit_match = _AFTER.match(after)
        unit = unit_match.group(1).lower() if unit_match else ""
        if glued and glued.lower() in _GLUED_UNITS:
            unit = _KEY_UNITS.get(glued.lower(), glued.lower())  # "5h" is 5 hours
        elif glued and not claim and glued.lower() in _GLUED_SPANS:
            # a field named for its window ("Sessions last 90d: 14", "uptime 24h"): a length
            unit = _GLUED_SPANS[glued.lower()]
        in_pence = in_bytes = False
        if not claim and not currency and not m.group("pct"):
            # a tool's field named for its unit ("Minutes: 420", "Stale seconds: 1050")
            keyed = _UNIT_KEY.search(text[max(0, start - 40) : start])
            if keyed is not None:
                unit = _KEY_UNITS.get(keyed.group(1).lower(), keyed.group(1).lower())
            # "excess pence per mile 9", "Fee pence: 73": also read in pounds ("9p")
            in_pence = _PENCE_KEY.search(text[max(0, start - 40) : start]) is not None
            # "Bytes restored: 48600000000": also read in kB to TB (and KiB to TiB): "48.6 GB"
            in_bytes = (
                value >= 1000 and _BYTES_KEY.search(text[max(0, start - 40) : start]) is not None
            )
        end = tail
        # "S$480", "NZ$65.00": another country's dollar is money in no currency we compare
        coded = currency is None and bool(m.group("sym"))
        if currency is None and unit in _CURRENCY_WORDS:
            currency = _CURRENCY_WORDS[unit]
            end = tail + unit_match.end() if unit_match else end
        elif currency is None and unit in ("kr", "kr."):
            coded = True  # "2 244 kr": kronor, money in no one currency
        elif currency is None and not m.group("sym") and text.startswith(("€", " €"), tail):
            currency = "EUR"  # "189,00 €": the sign after the amount
        elif currency is None and not m.group("sym"):
            # "CAD 45.00", "EUR 0.12 per word": an ISO code before the amount (a dollar other
            # than the US one stays without a currency: "$45" may be said of it)
            code = _CODE_BEFORE_AMOUNT.search(text, max(0, start - 4), start)
            if code is not None:
                coded = True
                currency = _CODES.get(code.group(1))
        kind: QuantityKind = "number"
        if m.group("pct"):
            kind = "percent"
        elif currency or coded:
            kind = "money"
        # The look-backs read a bounded window: searching the whole prefix for every number
        # made extraction quadratic in the answer's length.
        before = text[max(0, start - _LOOKBACK) : start]
        if claim and kind == "number" and not currency and _REFERENCE.search(before):
            continue  # "Passage 2 says", "Step 3:", "option 1": the answer's own numbering
        label = (
            _LIST_LABEL.search(before)
            # (not a length glued to a field's name: "Reboots 7d: 19" is the last 7 days)
            if not claim
            and kind == "number"
            and text.startswith(": ", end)
            and not (glued and glued.lower() in _GLUED_SPANS)
            else None
        )
        if label is not None:
            # "Services 2: Name: …": a rendered list element's number. Only the last one
            # states a fact, how many there are, and of things, not of hours or days.
            name = label.group(1)
            if f"\n{name} {int(value) + 1}: " in text[end : end + 20_000]:
                continue
            unit = f"{LIST_UNIT}{name.lower()}"
        if claim and unit in _META_UNITS:
            continue  # "a summary in 120 words": the answer's own length, not a fact
        if claim and (_OUT_OF.search(before) or _PER_WEEK.match(text, end)):
            continue  # "3.5 out of 5 stars", "seven days a week": scales and rates
        made = _make(text, kind, start, end, value, literal, scale, currency, unit)
        if in_pence:
            made = replace(made, values=frozenset({value, value / 100}))
        elif claim and scale_word in ("m", "b") and not m.group("sym") and not currency:
            # "Fixed Saver 12M": a name's "12M" is 12 as the evidence reads it, or 12 million
            made = replace(made, values=frozenset({value, value / scale}))
        elif in_bytes:
            sizes = {value / base**k for base in (1000, 1024) for k in (1, 2, 3, 4)}
            made = replace(made, values=frozenset({value, *(v for v in sizes if v >= 1)}))
        elif value < 0 and not claim and _OFFSET_KEY.search(text[max(0, start - 40) : start]):
            # "Gates open offset min: -90": the answer says "90 minutes earlier"
            made = replace(made, values=frozenset({value, -value}))
        take(made)

    for m in _HALF_DURATION.finditer(text):
        # "an hour and a half", "half an hour", "two and a half days": a length, as "1.5 hours"
        if not free(m.start(), m.end()):
            continue
        if m.group("half_unit"):
            value, unit = 0.5, m.group("half_unit").lower()
        else:
            count = (m.group("n") or m.group("n2")).lower()
            value = (1.0 if count in ("a", "an") else float(NUMBER_WORDS[count])) + 0.5
            unit = (m.group("unit") or m.group("unit2")).lower()
        take(_make(text, "number", m.start(), m.end(), value, "1", 1.0, None, unit + "s"))
    for m in _WORD_NUMBER.finditer(text):
        if not free(m.start(), m.end()):
            continue
        word = m.group("word").lower()
        after = text[m.end() : m.end() + 30]
        unit_match = _AFTER.match(after)
        unit = unit_match.group(1).lower() if unit_match else ""
        vague = _VAGUE.search(text[max(0, m.start() - 12) : m.start()])
        if claim and _PER_WEEK.match(text, m.end()):
            continue
        if claim and (vague or not (m.group("scale") or m.group("pct") or unit in _STATED_UNITS)):
            # "two types of amino acids": a count the answer made, not a figure a source
            # would state; "two weeks", "ten percent", "five million" are figures.
            continue
        value = float(NUMBER_WORDS[word])
        if m.group("unit_word"):
            value += NUMBER_WORDS[m.group("unit_word").lower()]
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        kind = "percent" if m.group("pct") else "number"
        take(
            _make(text, kind, m.start(), m.end(), value * scale, str(int(value)), scale, None, unit)
        )

    found.sort(key=lambda q: q.start)
    return tuple(
        _zoned_dates(text, _tail_zone(text, _range_units(text, _compound_durations(text, found))))
    )


# "7 h 35 min", "2 hours and 55 minutes", "11 days and 8 hours", "12 minutes 22 seconds": one
# length, in the smaller unit
_COMPOUND = {("hour", "minute"): ("minutes", 60.0), ("day", "hour"): ("hours", 24.0),
             ("minute", "second"): ("seconds", 60.0)}  # fmt: skip
_UNIT_FAMILY = {"h": "hour", "hr": "hour", "hour": "hour", "min": "minute", "minute": "minute",
                "day": "day", "s": "second", "sec": "second", "second": "second"}  # fmt: skip


def _compound_durations(text: str, found: list[Quantity]) -> list[Quantity]:
    out: list[Quantity] = []
    for q in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == q.kind == "number"
            and len(prev.values) == len(q.values) == 1
            # the first figure's unit word between them ("7 h 35", "2 hours and 55")
            and re.fullmatch(r"\s*[A-Za-z]+\.?\s*,?\s*(?:and\s+)?", text[prev.end : q.start])
        ):
            pair = (_UNIT_FAMILY.get(_unit_key(prev.unit)), _UNIT_FAMILY.get(_unit_key(q.unit)))
            if pair in _COMPOUND:
                unit, per = _COMPOUND[pair]
                (big,), (small,) = prev.values, q.values
                if big == int(big) and 0 <= small < per:
                    value = big * per + small
                    out[-1] = replace(
                        prev,
                        text=f"{prev.text} {prev.unit} {q.text}",
                        end=q.end,
                        values=frozenset({value}),
                        unit=unit,
                        duration_days=value / 24 if unit == "hours" else None,
                        tolerance=0.0,
                    )
                    continue
        an_hour = _AN_HOUR_BEFORE.search(text, max(0, q.start - 20), q.start)
        if (
            an_hour is not None
            and q.kind == "number"
            and len(q.values) == 1
            and _UNIT_FAMILY.get(_unit_key(q.unit)) == _UNIT_FAMILY.get("minute")
            and 0 <= next(iter(q.values)) < 60
        ):
            # "an hour and twenty minutes": 80 minutes, as "1 hour 20 minutes" is
            value = 60 + next(iter(q.values))
            q = replace(
                q,
                text=f"{text[an_hour.start() : q.start]}{q.text}",
                start=an_hour.start(),
                values=frozenset({value}),
                duration_days=None,
                tolerance=0.0,
            )
        out.append(q)
    return out


_AN_HOUR_BEFORE = re.compile(r"\ban?\s+hour\s+(?:and\s+)?$", re.I)
_RANGE_BETWEEN = re.compile(r"\s*(?:-|–|—|to|and|or)\s*", re.I)


def _range_units(text: str, found: list[Quantity]) -> list[Quantity]:
    """The first figure of a range takes the unit the second states ("7 to 10 working days",
    "3-5 days", "between 2 and 4 weeks"): both are lengths of time."""
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if (
            a.kind == b.kind == "number"
            and len(a.values) == len(b.values) == 1
            and b.unit in _DURATION_DAYS
            and (a.unit is None or a.unit.lower() in ("to", "and", "or"))
            and _RANGE_BETWEEN.fullmatch(text, a.start + len(a.text), b.start) is not None
            and next(iter(a.values)) < next(iter(b.values))
        ):
            value = next(iter(a.values))
            out[i] = replace(a, unit=b.unit, duration_days=value * _DURATION_DAYS[b.unit])
    return out


def _shift_day(iso: str, days: int) -> str | None:
    try:
        if iso.startswith("--"):
            day = datetime.date.fromisoformat("2000" + iso[1:]) + datetime.timedelta(days=days)
            return day.isoformat()[4:].replace("-", "--", 1)
        return (datetime.date.fromisoformat(iso) + datetime.timedelta(days=days)).isoformat()
    except ValueError:
        return None


# ", Toronto time." closing a sentence: the zone of the times before it that name none
_ZONE_TAIL = re.compile(
    r",\s*(?=(?:in\s+)?(?:" + _alternation(_ZONES) + r")\s+time\b\s*(?:[.;!?)]|$))", re.I
)


def _tail_zone(text: str, found: list[Quantity]) -> list[Quantity]:
    """Times without a zone in a sentence that ends on one ("from 11:00 pm on Monday 14
    December to 1:00 am on Tuesday 15 December, Toronto time") read in that zone."""
    if not any(q.kind == "time" and not q.utc for q in found):
        return found
    tails = list(islice(_ZONE_TAIL.finditer(text), 16))
    if not tails:
        return found
    out = []
    for q in found:
        if q.kind == "time" and q.values and not q.utc:
            for m in tails:
                if q.end <= m.start() <= q.end + 200 and not re.search(
                    r"[.;!?]\s", text[q.end : m.start()]
                ):
                    offsets = _zone_after(text, m.end())
                    if offsets:
                        q = replace(q, utc=_in_utc(q.values, offsets))
                    break
        out.append(q)
    return out


_ON_DAY = re.compile(
    r"\s*(?:\(?[A-Za-z]{1,5}\)?\s*)?,?\s+on\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?",
    re.I,
)


def _zoned_dates(text: str, found: list[Quantity]) -> list[Quantity]:
    """A date said with a time in a zone also reads as that moment's date in the other zones
    involved: "10:00 pm Eastern on Thursday, 12/03/2026" is 03:00 UTC on 12/04, and a tool's
    "2026-12-01T20:00:00-06:00" is 02:00 UTC on 12/02. Only across midnight, only then."""
    zoned = sorted((q for q in found if q.kind == "time" and q.utc), key=lambda t: t.start)
    if not zoned:
        return found
    starts = [t.start for t in zoned]
    out = []
    for q in found:
        if q.kind == "date" and q.dates:
            # the zoned times within 80 characters, found by position (hostile input holds
            # thousands of each)
            window = zoned[
                bisect.bisect_left(starts, q.start - 79) : bisect.bisect_right(starts, q.start + 79)
            ]
            near = [
                t
                for t in window
                if not re.search(r"[.;!?]\s", text[min(t.end, q.end) : max(t.start, q.start)])
            ]
            if near:
                # the time said of this day ("11:00 pm on Monday 14 December to 1:00 am on
                # Tuesday 15 December": 11:00 pm), else the nearest
                of_day = [t for t in near if _ON_DAY.fullmatch(text, t.end, q.start)]
                t = min(of_day or near, key=lambda t: abs(t.start - q.start))
                shifts = {
                    -1 if u - v > 720 else 1 if v - u > 720 else 0 for v in t.values for u in t.utc
                } - {0}
                more = {d2 for d in q.dates for k in shifts if (d2 := _shift_day(d, k))}
                if more:
                    q = replace(
                        q,
                        dates=q.dates | frozenset(more),
                        shifted=q.shifted | (frozenset(more) - q.dates),
                    )
        out.append(q)
    return out


def _make(
    text: str,
    kind: QuantityKind,
    start: int,
    end: int,
    value: float,
    literal: str,
    scale: float,
    currency: str | None,
    unit: str,
) -> Quantity:
    hedged = bool(_HEDGE.search(text[max(0, start - 24) : start]))
    tolerance = _half_unit(literal, scale)
    if hedged:
        tolerance = max(tolerance, abs(value) * 0.1)
    days = value * _DURATION_DAYS[unit] if unit in _DURATION_DAYS else None
    return Quantity(
        kind,
        text[start:end].strip(),
        start,
        end,
        values=frozenset({value}),
        currency=currency,
        duration_days=days,
        tolerance=tolerance,
        approximate=hedged,
        unit=unit
        if unit and (len(unit) <= 12 or unit.startswith(LIST_UNIT)) and kind == "number"
        else None,
    )


def _close(a: float, b: float, tolerance: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) or abs(a - b) <= tolerance + 1e-9


@lru_cache(maxsize=4096)
def distinct_quantities(text: str, claim: bool = False) -> tuple[Quantity, ...]:
    """`extract_quantities(text, claim)` without repeats: the first of the quantities that
    differ only in where they stand. Matching reads no position, so a pool of these backs a
    figure exactly as the whole pool does (`find_match` and `closest` return the first best),
    and a text repeating one figure thousands of times (hostile input) costs one comparison
    per figure, not thousands."""
    seen: set[Quantity] = set()
    out: list[Quantity] = []
    for q in extract_quantities(text, claim):
        key = replace(q, start=0, end=0)
        if key not in seen:
            seen.add(key)
            out.append(q)
    return tuple(out)


def same_day(q: Quantity, p: Quantity) -> bool:
    """Whether date `p` backs date `q`. When both are said beside a time in a zone, a day as
    written backs a day as written and a UTC day a UTC day, never one the other ("December 10
    (11:59 pm Pacific)" is not backed by "2026-12-09T23:59:59-08:00", whose UTC day is the
    10th)."""
    if q.shifted and p.shifted:
        return dates_match(q.dates - q.shifted, p.dates - p.shifted) or dates_match(
            q.shifted, p.shifted
        )
    return dates_match(q.dates, p.dates)


def dates_match(claim: frozenset[str], other: frozenset[str]) -> bool:
    """Whether a claim's dates are among `other`'s, a date without a year ("--12-14") or a
    month ("2024-03") matching any full date inside it; a source's date without a year
    matches that day of any year."""
    for c in claim:
        for o in other:
            if c == o:
                return True
            if c.startswith("--") and o.endswith(c[1:]):  # "March 3" backed by 2024-03-03
                return True
            if o.startswith("--") and c.endswith(o[1:]):
                # "before 31 August 2027" against a policy's yearly "before 31 August"
                return True
            if len(c) == 7 and o.startswith(c):  # "March 2024" backed by 2024-03-03
                return True
    return False


_PER_MINUTES = {"second": 1 / 60, "sec": 1 / 60, "minute": 1.0, "min": 1.0, "hour": 60.0,
                "hr": 60.0, "day": 1440.0, "week": 10080.0}  # fmt: skip


def _clock_minutes(q: Quantity) -> tuple[float, bool, float] | None:
    """(length in minutes, whether its unit is under a day, minutes per unit) of a duration
    stated in seconds to weeks, or None."""
    unit = (q.unit or "").lower().rstrip(".")
    unit = unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit
    per = _PER_MINUTES.get(unit)
    if per is None or not q.values or q.kind != "number":
        return None
    return max(q.values) * per, per < 1440.0, per


_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)$", re.I)


def find_match(q: Quantity, pool: tuple[Quantity, ...] | list[Quantity]) -> Quantity | None:
    """The first quantity in `pool` that backs `q`, or None.

    Kinds are compared leniently where text is loose ("12%" is backed by a bare "12" in a table,
    "$1,200" by "1,200"), strictly where it matters: a different currency, a date, a time.
    """
    qm, day = _clock_minutes(q), _day_of_month(q)
    for p in pool:
        if _backs(q, p, qm, day):
            return p
    return None


_NOT_DAY_UNITS = frozenset(
    {"floor", "century", "place", "time", "times", "anniversary", "birthday", "edition",
     "grade", "year", "percentile", "row", "street", "avenue", "minute", "hour", "day"}
)  # fmt: skip


def _day_of_month(q: Quantity) -> set[str]:
    """ "until the 19th", "the time on the 24th has changed": a day of the month ("-19"),
    backed by a date on that day (not "the 4th floor")."""
    if q.kind == "number" and (q.unit or "") not in _NOT_DAY_UNITS and _ORDINAL.search(q.text):
        return {f"-{int(v):02d}" for v in q.values if 1 <= v <= 31}
    return set()


def same_time(a: Quantity, b: Quantity) -> bool:
    """Whether two times are one: the same moment when both zones are known ("6:02 pm ET" is
    "23:02+00:00"; "23:02 UTC" is not "23:02-06:00"), else the same time as written."""
    if a.utc and b.utc:
        return bool(a.utc & b.utc)
    return bool(a.values & b.values)


# Counts of kinds of people or animals no one of which is another ("two children" is not
# backed by "2 adults"): a count of one kind never backs a count of another.
_KINDS_COUNTED = {
    **dict.fromkeys(("adult", "adults"), "adult"),
    **dict.fromkeys(("child", "children", "kid", "kids"), "child"),
    **dict.fromkeys(("infant", "infants", "baby", "babies", "toddler", "toddlers"), "infant"),
    **dict.fromkeys(("dog", "dogs"), "dog"),
    **dict.fromkeys(("cat", "cats"), "cat"),
}


def _other_kind(q: Quantity, p: Quantity) -> bool:
    a = _KINDS_COUNTED.get((q.unit or "").lower())
    b = _KINDS_COUNTED.get((p.unit or "").lower())
    return a is not None and b is not None and a != b


def _backs(q: Quantity, p: Quantity, qm: tuple[float, bool, float] | None, day: set[str]) -> bool:
    """Whether `p` backs `q` (`qm` and `day` are `q`'s, read once per claim figure)."""
    if day and p.kind == "date" and any(d.endswith(x) for d in p.dates for x in day):
        return True
    if q.kind == "date":
        return p.kind == "date" and same_day(q, p)
    if q.kind == "time":
        return p.kind == "time" and same_time(q, p)
    if p.kind == "date":
        return q.kind == "number" and any(_close(v, y, 0.0) for v in q.values for y in p.years)
    if p.kind == "time" or (q.currency and p.currency and q.currency != p.currency):
        return False
    if _other_kind(q, p):
        return False
    if (qm is not None or q.duration_days is not None) and (p.unit or "").startswith(LIST_UNIT):
        return False  # "two hours" is no count of a list's elements
    pm = _clock_minutes(p) if qm is not None else None
    if qm is not None and pm is not None and (qm[1] or pm[1]):
        # Durations in hours or minutes: "48 hours" is not "45 minutes", "2 hours" is
        # "120 minutes".
        return _close(qm[0], pm[0], max(q.tolerance * qm[2], 0.02 * max(qm[0], pm[0])))
    if q.duration_days is not None and p.duration_days is not None:
        # Both are durations: "2 days" is not "2-year", "2 weeks" is "14 days".
        per_unit = q.duration_days / max(max(q.values, default=1.0), 1e-9)
        slack = max(q.tolerance * per_unit, 0.02 * max(q.duration_days, p.duration_days))
        return _close(q.duration_days, p.duration_days, slack)
    if q.kind == "money" and any(b < 0 for b in p.values):
        # a credit a record holds as a negative amount ("Amount: -8.45") is said as its size
        # ("a loyalty credit of £8.45 has been taken off")
        return any(_close(a, abs(b), q.tolerance) for a in q.values for b in p.values)
    return any(_close(a, b, q.tolerance) for a in q.values for b in p.values)


class _Sorted:
    """Positions keyed by a number, found by range with bisection."""

    def __init__(self, items: list[tuple[float, int]]) -> None:
        # An infinite or NaN key (a 400-digit "number") has no place in an order: always a
        # candidate.
        self.anywhere = [i for k, i in items if not math.isfinite(k)]
        items = sorted((k, i) for k, i in items if math.isfinite(k))
        self.keys = [k for k, _ in items]
        self.positions = [i for _, i in items]

    def within(self, low: float, high: float) -> list[int]:
        lo, hi = bisect.bisect_left(self.keys, low), bisect.bisect_right(self.keys, high)
        return self.positions[lo:hi] + self.anywhere


def _slack_range(centre: float, slack: float) -> tuple[float, float]:
    """Every value within `max(slack, 2 % of the larger)` of `centre`, with room for rounding:
    the ranges `_backs` accepts for a duration, widened so that none is lost."""
    pad = 1e-6 * max(1.0, abs(centre))
    return 0.98 * centre - slack - pad, (centre + slack) / 0.98 + pad


class FigureIndex:
    """The figures of one text, indexed by value, date and length: what backs a claim's figure
    is found with a few lookups instead of a scan of every figure (a price list of thousands
    against an answer of thousands, hostile input). `find(q)` returns exactly what
    `find_match(q, pool)` returns: the lookups give every figure that could back `q` (and a
    few that cannot), and `_backs` then decides among them in pool order."""

    def iso_days(self) -> set[str]:
        """The full dates ("2027-05-08") among the text's figures."""
        return {d for p in self.pool if p.kind == "date" for d in p.dates if len(d) == 10}

    def __init__(self, pool: Sequence[Quantity]) -> None:
        self.pool = tuple(pool)
        values: list[tuple[float, int]] = []  # amounts, counts, percentages and dates' years
        minutes: list[tuple[float, int]] = []
        days: list[tuple[float, int]] = []
        self._dates: dict[str, list[int]] = {}  # by "-MM-DD", by "YYYY-MM" and by "-DD"
        self._times: dict[float, list[int]] = {}
        self._utc: dict[float, list[int]] = {}
        for i, p in enumerate(self.pool):
            if p.kind == "date":
                values += [(y, i) for y in p.years]
                for d in p.dates:
                    for key in {d[-6:], d[:7], d[-3:]}:
                        self._dates.setdefault(key, []).append(i)
            elif p.kind == "time":
                for v in p.values:
                    self._times.setdefault(v, []).append(i)
                for v in p.utc:
                    self._utc.setdefault(v, []).append(i)
            else:
                # (a negative amount is also found by its size: `_backs` decides)
                values += [(v, i) for v in p.values] + [(-v, i) for v in p.values if v < 0]
                pm = _clock_minutes(p)
                if pm is not None:
                    minutes.append((pm[0], i))
                if p.duration_days is not None:
                    days.append((p.duration_days, i))
        self._values, self._minutes, self._days = _Sorted(values), _Sorted(minutes), _Sorted(days)

    def find(self, q: Quantity) -> Quantity | None:
        qm, day = _clock_minutes(q), _day_of_month(q)
        sizes = [*q.values, q.tolerance, q.duration_days or 0.0, qm[0] if qm else 0.0]
        if not all(math.isfinite(x) for x in sizes):
            return find_match(q, self.pool)  # no range around infinity: read them all
        found: set[int] = set()
        for x in day:
            found.update(self._dates.get(x, ()))
        if q.kind == "date":
            for d in q.dates:
                found.update(self._dates.get(d[-6:], ()))
                found.update(self._dates.get(d[:7], ()))
        elif q.kind == "time":
            for v in q.values:
                found.update(self._times.get(v, ()))
            for v in q.utc:
                found.update(self._utc.get(v, ()))
        else:
            for v in q.values:
                pad = q.tolerance + 1e-6 * max(1.0, abs(v))
                found.update(self._values.within(v - pad, v + pad))
            if qm is not None:
                found.update(self._minutes.within(*_slack_range(qm[0], q.tolerance * qm[2])))
            if q.duration_days is not None:
                per_unit = q.duration_days / max(max(q.values, default=1.0), 1e-9)
                slack = q.tolerance * per_unit
                found.update(self._days.within(*_slack_range(q.duration_days, slack)))
        for i in sorted(found):
            if _backs(q, self.pool[i], qm, day):
                return self.pool[i]
        return None


@lru_cache(maxsize=4096)
def figure_index(text: str) -> FigureIndex:
    """The `FigureIndex` of `distinct_quantities(text)`, built once per text."""
    return FigureIndex(distinct_quantities(text))


def find_in(q: Quantity, indexes: Sequence[FigureIndex]) -> Quantity | None:
    """`find_match` over the pools of `indexes` in order, as if they were one pool."""
    for index in indexes:
        match = index.find(q)
        if match is not None:
            return match
    return None


def closest(q: Quantity, pool: tuple[Quantity, ...] | list[Quantity]) -> Quantity | None:
    """The pool quantity nearest to `q` (same kind family), for a helpful failure message."""
    best: tuple[float, Quantity] | None = None
    for p in pool:
        if (q.kind in ("date", "time")) != (p.kind in ("date", "time")):
            continue
        if q.kind == "date" or p.kind == "date":
            if p.kind == q.kind:
                return p
            continue
        for a in q.values:
            for b in p.values:
                d = abs(a - b) / max(abs(a), abs(b), 1.0)
                if best is None or d < best[0]:
                    best = (d, p)
    return best[1] if best else None


def differs_by_one_digit(a: str, b: str) -> bool:
    """ "15" vs "14", "4,200" vs "4,300": same shape, exactly one digit changed."""
    da, db = re.sub(r"\D", "", a), re.sub(r"\D", "", b)
    return len(da) == len(db) and sum(x != y for x, y in zip(da, db, strict=True)) == 1


def in_passage_terms(claim: str, passage: str) -> str:
    """`claim` with each date and time the passage states in another form written as the
    passage writes it ("3 pm" -> "15:00", "December 31, 2026" -> "2026-12-31"): the model
    reads these formats poorly, and the number check judges the values themselves. Amounts
    keep their form (a match's text may lack its unit: "ten" of "ten euros")."""
    wanted = [q for q in extract_quantities(claim, True) if q.kind in ("date", "time")]
    if not wanted:
        return claim  # the usual case, once per (passage, claim) pair
    pool = extract_quantities(passage, False)
    if not pool:
        return claim
    out = claim
    for q in sorted(wanted, key=lambda q: q.start, reverse=True):
        match = find_match(q, pool)
        if match is None or match.kind != q.kind or match.text == q.text.rstrip("."):
            continue
        end = q.end - 1 if q.text.endswith(".") else q.end
        out = out[: q.start] + match.text + out[end:]
    return out


# --- figures an answer computes from others ----------------------------------------------------

_MINUTE_STEPS = {"minute": 1, "min": 1, "hour": 60, "hr": 60, "h": 60}
_MONTH_STEPS = {"month": 1, "year": 12, "yr": 12}
_DAY_STEPS = {"day": 1, "week": 7}


MAX_ONE_UNIT = 24
_TIME_UNITS = frozenset(
    {"second", "sec", "min", "minute", "hour", "hr", "day", "week", "wk", "month", "year", "yr"}
)
"""Figures of the claim's unit looked at for `_in_one_unit` (a bound on pairs)."""


def _in_one_unit(q: Quantity, known: Sequence[Quantity], own: Sequence[Quantity]) -> str | None:
    """A count in a unit as the sum or difference of two stated figures in that unit ("22
    miles away, that's seven miles beyond the included 15 [miles]"); small whole numbers are
    otherwise left alone (almost any two figures give one), but two of the claim's own unit
    are rare."""
    unit = _unit_key(q.unit)
    if q.kind != "number" or not unit or unit.startswith(LIST_UNIT) or not unit.isalpha():
        return None
    if q.duration_days is not None or unit in _TIME_UNITS:
        # (policies state many windows in days and hours: "45 days" and "7 business days" sum
        # to any wrong window of 52)
        return None
    pool = [
        b
        for b in islice((b for b in (*own, *known) if b is not q), 4 * MAX_ONE_UNIT)
        if b.kind == "number" and _unit_key(b.unit) == unit
    ][:MAX_ONE_UNIT]
    for v in q.values:
        for i, a in enumerate(pool):
            for b in pool[i + 1 :]:
                for x in a.values:
                    for y in b.values:
                        if x == y:
                            continue
                        if _close(abs(x - y), v, 1e-6):
                            return f"{q.describe()} is {a.describe()} - {b.describe()}"
                        if _close(x + y, v, 1e-6):
                            return f"{q.describe()} is {a.describe()} + {b.describe()}"
    return None


def _unit_key(unit: str | None) -> str:
    u = (unit or "").lower().rstrip(".")
    return u[:-1] if u.endswith("s") and len(u) > 2 else u


def _shift_month(year: int, month: int, months: int) -> tuple[int, int]:
    n = year * 12 + (month - 1) + months
    return n // 12, n % 12 + 1


def _weekdays_after(iso: str, n: int) -> set[str]:
    """A full date `iso` moved by `n` working days (Monday to Friday; holidays unknown)."""
    if len(iso) != 10 or iso.startswith("--") or not 0 < abs(n) <= 366:
        return set()
    try:
        day = datetime.date.fromisoformat(iso)
    except ValueError:
        return set()
    step = datetime.timedelta(days=1 if n > 0 else -1)
    left = abs(n)
    while left:
        day += step
        left -= day.weekday() < 5
    return {day.isoformat(), f"--{day.month:02d}-{day.day:02d}"}


def _shifted(iso: str, months: int = 0, days: int = 0) -> set[str]:
    """`iso` ("2025-05", "2025-05-14", "--10-02") moved by `months` and `days`, in the forms a
    claim's date may be read as. When months move, days past the 28th are clamped (to the
    30th, or the 28th in February, without a year; to the 28th with one) so that every month
    has them; days alone move from the day itself (30 November and 3 days is 3 December)."""
    parts = iso.split("-")
    try:
        if iso.startswith("--"):  # month and day, no year: shift in a leap-free year
            y, m = _shift_month(2001, int(parts[2]), months)
            day = min(int(parts[3]), 28 if m == 2 else 30) if months else int(parts[3])
            moved = datetime.date(y, m, day) + datetime.timedelta(days=days)
            return {f"--{moved.month:02d}-{moved.day:02d}"}
        if len(parts) not in (2, 3):
            return set()
        y, m = _shift_month(int(parts[0]), int(parts[1]), months)
        if len(parts) == 2:
            return {f"{y:04d}-{m:02d}"}
        day = min(int(parts[2]), 28) if months else int(parts[2])  # clamped for months only
        moved = datetime.date(y, m, day) + datetime.timedelta(days=days)
    except (ValueError, IndexError):
        return set()
    return {
        moved.isoformat(),
        f"{moved.year:04d}-{moved.month:02d}",
        f"--{moved.month:02d}-{moved.day:02d}",
    }


MAX_DERIVED = 32
"""Percentages and bases tried per claimed amount (bounds hostile input)."""


def _offsets(q: Quantity) -> frozenset[float]:
    """The UTC offsets (minutes) a zoned time's readings imply."""
    return frozenset((v - u) % 1440 for v in q.values for u in q.utc)


def derived_from(
    q: Quantity,
    known: Sequence[Quantity],
    own: Sequence[Quantity] = (),
    counts: Sequence[int] = (),
    also: Sequence[Quantity] = (),
) -> str | None:
    """How a time or date of the claim follows from a time or date and a duration stated
    elsewhere ("45 minutes before 08:30" is 07:45; "a 3-year warranty" from May 2025 runs to
    May 2028; "4 months after 2 October" is 2 February), or None. The answer's own arithmetic
    is no hallucination when its inputs are grounded. An amount may also be a stated
    percentage of a stated amount ("50% of £13.50, which comes to £6.75"), a duration the time
    between two stated times ("back 35 minutes late": 10:35 against 10:00), or the sum,
    difference or product of a grounded figure of the claim itself (`own`) and a stated one
    ("a £100 excess, so you'd receive £1,740": £1,840 - £100), or the total of all the
    claim's own amounts, each taken once or as many times as one of `counts` says ("two tyres
    at £94 each, plus £12 a tyre and a £20 visit charge, so £232"). `also` are further
    figures taken as the claim's own (without counts) when its own give nothing: the
    answer's amounts elsewhere."""
    if q.kind == "number" and _unit_key(q.unit) in _POINTS:
        return _percent_from(q, known)
    if q.kind == "percent":
        return _share_of(q, known, own)
    if q.kind in ("money", "number") and q.values:
        return (
            (
                _percent_of(q, known)
                if q.kind == "money"
                else _percent_of(q, known, own)
                if own and (q.unit or any(v >= 10 or v != int(v) for v in q.values))
                else None
            )
            or _elapsed(q, known)
            or _in_one_unit(q, known, own)
            or _with_own(q, known, own, counts)
            # (the first half as many of the answer's others as of the claim's own: an answer
            # of hundreds of figures would make every lookup a product of two long lists)
            or (_with_own(q, known, also[: MAX_DERIVED // 2], (), steps=1) if also else None)
            # "£69 for the first month … Insurance at £8.50 and the £12 padlock …, so your
            # first payment would be £89.50 in total": the claim's amounts and one said before
            or (
                next(
                    (
                        how
                        for a in also[:MAX_ALSO_PARTS]
                        if is_money(a)
                        and all(a is not o for o in own)
                        and (how := _total(q, [*own, a], counts)) is not None
                    ),
                    None,
                )
                if q.kind == "money" and own and also
                else None
            )
        )
    if q.kind not in ("time", "date"):
        return None
    durations = [d for d in known if d.kind == "number" and d.values and d.unit]
    for base in known:
        if base is q or base.kind != q.kind:
            continue
        for d in durations:
            key = _unit_key(d.unit)
            for amount in d.values:
                if amount <= 0 or amount != int(amount) or amount > 1000:
                    continue
                n = int(amount)
                if q.kind == "time" and key in _MINUTE_STEPS:
                    step = n * _MINUTE_STEPS[key]
                    if q.utc and base.utc and _offsets(q) != _offsets(base):
                        # times in two zones: the zones say how far apart they are, and an
                        # hour "apart" is then a conversion gone wrong ("22:30 in Dubai" for
                        # 18:30 UK time in July); in one zone it is a length ("04:12 UTC, so
                        # not before 05:12 UTC")
                        continue
                    moved = {(v + s) % 1440 for v in base.values for s in (step, -step)}
                    if moved & q.values:
                        return f"{q.describe()} is {base.describe()} and {d.describe()} apart"
                elif q.kind == "date" and (
                    key in _MONTH_STEPS
                    or key in _DAY_STEPS
                    # "links last 72 hours, so it expires on 3 December": days in hours, only
                    # as the claim itself states them (a policy's "24 hours" would back any
                    # date a day from a stated one)
                    or (_MINUTE_STEPS.get(key) == 60 and n % 24 == 0 and any(d is o for o in own))
                ):
                    months = n * _MONTH_STEPS.get(key, 0)
                    days = n * _DAY_STEPS[key] if key in _DAY_STEPS else 0
                    if _MINUTE_STEPS.get(key) == 60:
                        days = n // 24
                    shifted: set[str] = set()
                    loose: set[str] = set()  # from a base without a year
                    for iso in base.dates:
                        forms = _shifted(iso, months, days) | _shifted(iso, -months, -days)
                        if key == "day":  # "within 15 working days": weekdays only
                            forms |= _weekdays_after(iso, n) | _weekdays_after(iso, -n)
                        (loose if iso.startswith("--") else shifted).update(forms)
                    # a date with a year is read in the base's year, when the base has one
                    # ("4 December 2027" is not 6 months after 4 June 2026)
                    if (shifted | loose) & q.dates or any(
                        any(y.endswith(x[1:]) for y in q.dates) for x in loose
                    ):
                        return f"{q.describe()} is {base.describe()} and {d.describe()} apart"
    return None


MAX_ALSO_PARTS = 8
"""The answer's other amounts one of which a claim's total may add to its own (`derived_from`)."""

MAX_WORKED = 6
"""The claim's own figures a two-step working (`_worked_out`) combines."""


def _worked_out(q: Quantity, own: Sequence[Quantity], counts: Sequence[int] = ()) -> str | None:
    """How an amount is two steps of arithmetic on the claim's own grounded figures ("32 GPUs
    for 672 hours at $4.12 come to $88,596.48"; "above the 150 GB included, at $0.30 per GB,
    a 200 GB day costs $15.00"), or None: a × b × c, (a ± b) × c, a × b ± c or a + b + c, with
    at most one amount of money in a product. As in `_arithmetic`, small whole numbers that
    are not money are left alone."""
    if not q.values or not any(q.currency or v >= 100 or v != int(v) for v in q.values):
        return None
    items = [
        (min(b.values), b.currency, b.describe())
        for b in own
        if b is not q and b.kind in ("money", "number") and len(b.values) == 1
        and (b.currency is None or q.currency is None or b.currency == q.currency)
    ][:MAX_WORKED]  # fmt: skip
    # counts the claim states in words or before a plural ("2 coffee makers", "two Saturdays")
    items += [(float(n), None, str(n)) for n in counts if all(n != x for x, _, _ in items)][:3]
    if len(items) < 3:
        return None
    tolerance = max(0.005, q.tolerance)
    # an amount worked out of the claim's amounts uses all of them ("the two tyres at £94,
    # £12 a tyre fitting and the £20 visit, so £212" leaves the visit out: no total)
    amounts = sum(1 for _, c, _ in items if c) if q.currency else 0
    values, hows = _workings(tuple(items), amounts)
    for v in q.values:
        i = bisect.bisect_left(values, v - tolerance)
        if i < len(values) and values[i] <= v + tolerance:
            return f"{q.describe()} is {hows[i]}"
    return None


_Item = tuple[float, str | None, str]


@lru_cache(maxsize=64)
def _workings(items: tuple[_Item, ...], amounts: int) -> tuple[list[float], list[str]]:
    """Every two-step working of `items` that uses at least `amounts` amounts of money and
    no two in a product, sorted (computed once per claim, not once per figure)."""
    made: list[tuple[float, str]] = []
    for (a, ac, at), (b, bc, bt), (c, cc, ct) in permutations(items, 3):
        money = [x for x in (ac, bc, cc) if x]
        if len(money) < amounts:
            continue
        forms: list[tuple[float, str, bool]] = [
            (a * b * c, f"{at} × {bt} × {ct}", len(money) <= 1),
            ((a + b) * c, f"({at} + {bt}) × {ct}", not cc or not (ac or bc)),
            (abs(a - b) * c, f"({at} - {bt}) × {ct}", not cc or not (ac or bc)),
            (a * b + c, f"{at} × {bt} + {ct}", not (ac and bc)),
            (abs(a * b - c), f"{at} × {bt} - {ct}", not (ac and bc)),
            (a + b + c, f"{at} + {bt} + {ct}", True),
            # "a £68 restocking fee on top of the £39 collection charge, so £573 of the £680"
            (a - b - c, f"{at} - {bt} - {ct}", a > b + c),
            (a + b - c, f"{at} + {bt} - {ct}", a + b > c),
        ]
        made += [(value, how) for value, how, allowed in forms if allowed]
    made.sort(key=lambda m: m[0])
    return [m[0] for m in made], [m[1] for m in made]


def run_total(q: Quantity, own: Sequence[Quantity], text: str) -> str | None:
    """How a figure is the sum of the claim's figures said together right after or before it
    ("47 failed (27 card_expired, 14 insufficient_funds, 6 do_not_honor)", "64 pages (50 plan
    + 14 rollover)"), or None: a run of two to eight figures of its kind, each within a few
    words of the one before."""
    if not q.values:
        return None
    figures = sorted(
        (
            b
            for b in own
            if b is not q
            and b.kind == q.kind
            and len(b.values) == 1
            and (b.currency is None or b.currency == q.currency)
        ),
        key=lambda b: b.start,
    )
    tolerance = max(0.005, q.tolerance)
    for i in range(len(figures)):
        total = 0.0
        for j in range(i, min(len(figures), i + 8)):
            if j > i and figures[j].start - figures[j - 1].end > 40:
                break
            total += min(figures[j].values)
            after = 0 <= figures[i].start - q.end <= 40
            before = 0 <= q.start - figures[j].end <= 40
            if j > i and (after or before) and any(abs(total - v) <= tolerance for v in q.values):
                return f"{q.describe()} is {' + '.join(b.describe() for b in figures[i : j + 1])}"
    return None


_LEFT_AFTER = re.compile(
    r"\s*(?:[a-z]+\s+)?(?:left|remain(?:s|ing)?|more|short|to\s+go|fewer|less|over|extra|apart|above|"
    r"below|under)\b",
    re.I,
)


# "4 unused lessons", "2 outstanding invoices": a count of what is left, said before its noun
_UNUSED_AFTER = re.compile(r"\s+(?:unused|unspent|untaken|outstanding|remaining)\b", re.I)


# A tool's allowance and how much of it was used, as rendered ("Lessons total: 10." beside
# "Lessons used: 6."; "Total sessions: 8." beside "Sessions attended: 3.")
def _count_field(after_noun: str, before_noun: str) -> re.Pattern[str]:
    """A rendered count field named by a noun and a word after it ("Lessons used: 6.") or
    before it ("Used lessons: 6."): the noun in group a or b, the count in n."""
    return re.compile(
        rf"(?:(?P<a>[a-z]+) (?:{after_noun})|(?:{before_noun}) (?P<b>[a-z]+)): (?P<n>\d{{1,5}})\.",
        re.I,
    )


_ALLOWANCE = _count_field(
    "total|purchased|included|allowed|allowance|bought|booked", "total|purchased|included|allowed"
)
_BARE_ALLOWANCE = re.compile(
    r"(?:^|\n)(?:pack\s+)?(?:size|quantity|allowance|capacity): (?P<n>\d{1,5})\.", re.I
)
_USED_FIELD = _count_field(
    # ("Instalments total: 12." beside "Instalments paid: 3.": 9 to go)
    "used|taken|consumed|redeemed|completed|attended|spent|paid|made",
    "used|taken|consumed|redeemed|completed|attended|paid",
)


@lru_cache(maxsize=256)
def tool_remainders(text: str) -> tuple[int, ...]:
    """What is left of each allowance a rendered tool output states beside how much of it
    was used, for the same noun ("Lessons total: 10." and "Lessons used: 6." leave 4)."""

    def by_noun(pattern: re.Pattern[str]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for m in islice(pattern.finditer(text), 64):
            noun = (m.group("a") or m.group("b")).lower().rstrip("s")
            out.setdefault(noun, []).append(int(m.group("n")))
        return out

    used = by_noun(_USED_FIELD)
    if not used:
        return ()
    allowances = by_noun(_ALLOWANCE)
    if len(used) == 1:
        # "Size: 12." beside "Lessons used: 3.": a pack's size is the allowance of the one
        # thing it counts used
        (noun,) = used
        bare = [int(m.group("n")) for m in islice(_BARE_ALLOWANCE.finditer(text), 8)]
        allowances.setdefault(noun, []).extend(bare)
    return tuple(
        sorted(
            {t - u for noun, totals in allowances.items()
             for t in totals for u in used.get(noun, ()) if t >= u}
        )
    )  # fmt: skip


# "the unused 24 months", "the remaining 18 minutes": a difference named before its figure
_LEFT_BEFORE = re.compile(r"\b(?:unused|remaining|outstanding|other|another|further)\s+$", re.I)


def left_over(
    q: Quantity, own: Sequence[Quantity], text: str, remainders: Sequence[int] = ()
) -> str | None:
    """How a count the claim says is left, short or more ("61 of 64 pages used, so 3 left")
    is the difference of two of the claim's own figures, or a remainder a tool states
    (`tool_remainders`: "4 unused lessons" of 10 with 6 used), or None. Small whole numbers are
    differences of almost any two figures, so only a count worded as one is read so."""
    if not q.values or q.currency:
        return None
    if (
        _UNUSED_AFTER.match(text, q.end)
        or _LEFT_AFTER.match(text, q.end)
        # "9 unused lessons": the word read as the count's unit
        or _UNUSED_AFTER.match(" " + (q.unit or ""))
    ):
        left = [n for n in remainders if n in q.values]
        if left:
            return f"{q.describe()} is what a tool's output leaves of an allowance ({left[0]})"
    if not (_LEFT_AFTER.match(text, q.end) or _LEFT_BEFORE.search(text, 0, q.start)):
        return None
    figures = [b for b in own if b is not q and b.kind == q.kind and b.values][:MAX_WORKED]
    for a, b in permutations(figures, 2):
        for x in a.values:
            for y in b.values:
                if x > y and any(abs(x - y - v) <= max(0.005, q.tolerance) for v in q.values):
                    return f"{q.describe()} is {a.describe()} - {b.describe()}"
    return None


def _with_own(
    q: Quantity,
    known: Sequence[Quantity],
    own: Sequence[Quantity],
    counts: Sequence[int],
    *,
    steps: int = 2,
) -> str | None:
    """The derivations that build on the claim's own figures; two-step workings
    (`_worked_out`) only with `steps=2`, on the claim's own figures, not on the answer's
    others (three figures of a whole answer make almost any number)."""
    return (
        (_arithmetic(q, own, known) if own else None)
        or (_worked_out(q, own, counts) if steps == 2 else None)
        or (_total(q, own, counts) if q.kind == "money" else None)
        or (_share(q, own, known) if q.kind == "money" else None)
        or (_counted(q, own, counts) if q.kind == "money" else None)
        # "two winch launches come to £24.00" at a stated £12.00 a launch: a stated amount
        # times a count the claim itself states, to the cent
        or (_counted(q, known[:MAX_DERIVED], counts) if q.kind == "money" and counts else None)
    )


_POINTS = frozenset({"percentage", "point", "pp", "ppt"})
_BASIS_POINTS = frozenset({"basis", "bps", "bp"})


def _percent_from(q: Quantity, known: Sequence[Quantity]) -> str | None:
    """How a percentage of the claim is percentage points between two stated percentages
    ("5.8% against a 4.0% tolerance, 1.8 percentage points outside"), or None (a share of one
    figure in another is `_share_of`)."""
    if not q.values:
        return None
    tolerance = max(q.tolerance, 0.05)
    percents = list(islice((p for p in known if p.kind == "percent" and p.values), MAX_DERIVED))
    for i, a in enumerate(percents):
        for b in percents[i + 1 :]:
            for x in a.values:
                for y in b.values:
                    if any(abs(abs(x - y) - v) <= tolerance for v in q.values):
                        return f"{q.describe()} is {a.describe()} less {b.describe()}"
    return None


def _share_of(q: Quantity, known: Sequence[Quantity], own: Sequence[Quantity]) -> str | None:
    """How a percentage is one of the claim's own figures as a share of a stated or claimed
    one, to the claim's precision ("a shortfall of 14 units or 5.8%" of 240), or None. Which
    figure is the base is not read: "15% above the limit" (32.4 of the measured 212.4, not of
    the 180 limit) is backed too. An operand must be the claim's own: any two of a context's
    figures would back almost any percentage. A percentage may also be the gap between two
    of the claim's own figures as a share of the larger ("13.1 cSt against 14.2 cSt new, about
    7.7% low"); an approximate one ("about 81% of the quota") is read to within a point."""
    if not q.values:
        return None
    exact = 0.5 if all(v == int(v) for v in q.values) else 0.05
    # (a hedge's own tolerance, a tenth of the figure, would back almost any share)
    tolerance = max(exact, 1.0) if q.approximate else max(q.tolerance, exact)
    parts = [b for b in own if b.kind in ("money", "number") and b.values][:MAX_DERIVED]
    wholes = [b for b in [*own, *known] if b.kind in ("money", "number") and b.values]
    for a in parts:
        for b in wholes[: MAX_DERIVED * 2]:
            if a is b or (a.currency and b.currency and a.currency != b.currency):
                continue
            for x in a.values:
                for y in b.values:
                    if 0 < x < y and any(abs(100 * x / y - v) <= tolerance for v in q.values):
                        return f"{q.describe()} is {a.describe()} of {b.describe()}"
                    if (
                        b in own
                        and x > 0
                        and y > 0
                        and x != y
                        and any(
                            abs(100 * abs(y - x) / max(x, y) - v) <= tolerance for v in q.values
                        )
                    ):
                        return (
                            f"{q.describe()} is the gap between {a.describe()} and {b.describe()}"
                        )
    return None


def _percent_of(
    q: Quantity, known: Sequence[Quantity], percents_of: Sequence[Quantity] | None = None
) -> str | None:
    """How an amount of money in the claim is a known percentage of a known amount, or that
    amount with the percentage added or taken off, to the cent; or None. Only amounts in the
    claim's currency (or none) are bases. With `percents_of` (the claim's own figures), a
    quantity that is no money ("alerts at 80% of the new cap, 160 GB") is read the same way,
    to its stated precision, with the percentage one the claim states."""
    # the first few of each (islice: a context of thousands of figures is not read whole)
    pool = known if percents_of is None else percents_of
    percents = list(islice((p for p in pool if p.kind == "percent" and p.values), MAX_DERIVED))
    # "12.5 basis points of your $412,000 loan": a hundredth of a percent each
    percents += [
        replace(p, values=frozenset(v / 100 for v in p.values))
        for p in islice((p for p in pool if p.kind == "number" and p.values), MAX_DERIVED * 4)
        if (p.unit or "").lower() in _BASIS_POINTS
    ][:MAX_DERIVED]
    tolerance = 0.005 if percents_of is None else max(0.005, q.tolerance)
    if not percents:
        return None
    bases = list(
        islice(
            (
                b
                for b in known
                if b.kind in ("money", "number")
                and b.values
                and b is not q
                and (b.currency is None or q.currency is None or b.currency == q.currency)
            ),
            MAX_DERIVED,
        )
    )
    for p in percents:
        for b in bases:
            for share in p.values:
                if not 0 < share < 1000:
                    continue
                for base in b.values:
                    # the share itself, or the amount with it added or taken off ("each £15
                    # gift is worth £18.75 with Gift Aid's 25%")
                    for value, how in (
                        (base * share / 100, "of"),
                        (base * (1 + share / 100), "added to"),
                        (base * (1 - share / 100), "taken off"),
                    ):
                        if value in b.values or value <= 0:
                            continue  # 100 % of an amount is the amount: found already
                        if any(abs(value - v) <= tolerance for v in q.values):  # to the cent
                            return f"{q.describe()} is {p.describe()} {how} {b.describe()}"
    return None


def _days_apart(a: str, b: str) -> int | None:
    """Whole days between two ISO dates; a date without a year takes the other's year."""
    if a.startswith("--") and len(b) == 10 and not b.startswith("-"):
        a = b[:4] + a[1:]
    if b.startswith("--") and len(a) == 10 and not a.startswith("-"):
        b = a[:4] + b[1:]
    if len(a) != 10 or len(b) != 10 or a.startswith("-") or b.startswith("-"):
        return None
    try:
        return abs((datetime.date.fromisoformat(a) - datetime.date.fromisoformat(b)).days)
    except ValueError:
        return None


def _between_dates(q: Quantity, known: Sequence[Quantity]) -> str | None:
    """How a length in days or weeks is the time between two stated dates ("presented on
    11/30, 18 days after the 11/12 shipment date"), or None."""
    if q.duration_days is None or not 0 < q.duration_days <= 3660:
        return None
    dates = list(islice((d for d in known if d.kind == "date" and d.dates), MAX_DERIVED))
    for i, a in enumerate(dates):
        for b in dates[i + 1 :]:
            if any(
                _days_apart(x, y) == round(q.duration_days)
                for x in sorted(a.dates)[:4]
                for y in sorted(b.dates)[:4]
            ):
                return f"{q.describe()} is the time between {a.describe()} and {b.describe()}"
    return None


def _elapsed(q: Quantity, known: Sequence[Quantity]) -> str | None:
    """How a duration of the claim is the time between two stated times or dates, or None."""
    clock = _clock_minutes(q)
    if clock is None or not clock[1]:
        return _between_dates(q, known)
    times = list(islice((t for t in known if t.kind == "time" and t.values), MAX_DERIVED))
    for i, a in enumerate(times):
        for b in times[i + 1 :]:
            # either way round the clock: 19:42 to 03:17 is 7 h 35 min; between two zoned
            # times, their moments (08:05 in Frankfurt to 08:40 in London is 1 h 35 min)
            gaps = {d % 1440 for x in a.values for y in b.values for d in (x - y, y - x)}
            gaps |= {d % 1440 for x in a.utc for y in b.utc for d in (x - y, y - x)}
            if any(abs(g - v * clock[2]) < 0.5 for g in gaps for v in q.values):
                return f"{q.describe()} is the time between {a.describe()} and {b.describe()}"
    # "672 hours" from 7 December to 4 January: hours that make whole days, between dates
    return _between_dates(q, known) if q.duration_days is not None else None


MAX_PARTS = 8
"""Amounts of one claim a total may add up (each taken once or a stated number of times)."""


def _total(q: Quantity, own: Sequence[Quantity], counts: Sequence[int]) -> str | None:
    """How an amount is the total of every other amount of the claim, each taken once or as
    many times as a count of the claim says, or None. Every amount counts (a total that leaves
    one out is no total of them); bounds ("under £75") are not parts."""
    parts = [
        p
        for p in own
        if p.kind == "money"
        and p is not q
        and len(p.values) == 1
        and not p.approximate
        and (p.currency is None or q.currency is None or p.currency == q.currency)
    ]
    if not 2 <= len(parts) <= MAX_PARTS:
        return None
    sums = _sums(tuple(min(p.values) for p in parts), tuple(sorted(set(counts))[:3]))
    i = bisect.bisect_left(sums, min(q.values) - 0.005)
    if i < len(sums) and sums[i] <= min(q.values) + 0.005:
        return f"{q.describe()} is the total of {', '.join(p.describe() for p in parts)}"
    return None


_SHOWN = re.compile(
    r"(?<![\w.])[$€£]?\d[\d,]*(?:\.\d+)?(?:\s*[+×*]\s*[$€£]?\d[\d,]*(?:\.\d+)?){1,7}(?![\d.])"
)


def shown_arithmetic(q: Quantity, text: str, backed: Sequence[Quantity]) -> str | None:
    """How a figure is a sum or product the claim writes out ("26.60 tons over three loads
    (12.40 + 10.00 + 4.20)"), every operand a backed figure, or None."""
    grounded = {round(v, 4) for b in backed for v in b.values}
    for m in _SHOWN.finditer(text[:2000]):
        expr = m.group(0)
        ops = set(re.findall(r"[+×*]", expr))
        if len(ops) != 1:
            continue  # one operation only: no precedence to guess
        operands = [_number(x.lstrip("$€£")) for x in re.split(r"\s*[+×*]\s*", expr)]
        if not all(round(x, 4) in grounded for x in operands):
            continue
        result = sum(operands) if ops == {"+"} else math.prod(operands)
        if any(abs(result - v) <= max(0.005, q.tolerance) for v in q.values):
            return f"{q.describe()} is {expr}, as the claim works it out"
    # "£32.00 (£24.00 covers the first five, plus £4.00 each for the other two)": the total
    # of the backed amounts in the brackets right after it, each once or a count's times
    bracket = _BRACKET_AFTER.match(text, q.end) if q.kind == "money" else None
    if bracket is not None:
        lo, hi = bracket.span(1)
        counts = tuple(sorted(counts_said(bracket.group(1))))
        how = _total(q, [b for b in backed if lo <= b.start < hi], counts)
        if how is not None:
            return f"{how}, in the brackets after it"
    return None


_BRACKET_AFTER = re.compile(r"\s*\(([^()]{1,240})\)")


def _counted(q: Quantity, own: Sequence[Quantity], counts: Sequence[int]) -> str | None:
    """How an amount is one of the claim's amounts times a count it states in words ("six
    wooden poles … at £14.20 … come to £85.20"), to the cent, or None."""
    for a in own:
        if a.kind != "money" or a is q:
            continue
        for x in a.values:
            for n in counts:
                if any(abs(x * n - v) <= 0.005 for v in q.values):
                    return f"{q.describe()} is {a.describe()} × {n}"
    return None


def _share(q: Quantity, own: Sequence[Quantity], known: Sequence[Quantity]) -> str | None:
    """How an amount is one of the claim's grounded amounts split over a stated count, to the
    cent ("$1,256.85, or about $24.17 per person" for 52 people), or None."""
    amounts = tuple(
        (x, a.describe())
        for a in [a for a in own if a.kind == "money" and a is not q and a.values][:MAX_DERIVED]
        for x in sorted(a.values)
    )
    if not amounts:
        return None
    counts = tuple(
        sorted(
            set(
                islice(
                    (
                        int(n)
                        for c in known
                        if c.kind == "number" and not c.currency
                        for n in c.values
                        if 2 <= n <= 100_000 and n == int(n)
                    ),
                    MAX_DERIVED * 2,
                )
            )
        )
    )
    shares, how = _quotients(amounts, counts)
    for v in q.values:
        i = bisect.bisect_left(shares, v - 0.005)
        if i < len(shares) and shares[i] <= v + 0.005:
            return f"{q.describe()} is {how[i]}"
    return None


@lru_cache(maxsize=32)
def _quotients(
    amounts: tuple[tuple[float, str], ...], counts: tuple[int, ...]
) -> tuple[list[float], list[str]]:
    """Every amount divided by every count, sorted, with how each was made."""
    made = sorted((x / n, f"{text} split {n} ways") for x, text in amounts for n in counts)
    return [m[0] for m in made], [m[1] for m in made]


@lru_cache(maxsize=32)
def _sums(values: tuple[float, ...], counts: tuple[int, ...]) -> list[float]:
    """Every total of `values`, each taken once or `counts` times, sorted."""
    totals = {0.0}
    for v in values:
        totals = {round(t + c * v, 6) for t in totals for c in (1, *counts)}
    return sorted(totals)


_COUNT_WORDS = {w: n for w, n in NUMBER_WORDS.items() if 2 <= n <= 20}
_COUNTED = re.compile(
    # a lookahead, so that "two H-poles and four stay wires" yields both counts
    r"\b(?P<n>\d{1,2}|" + "|".join(_COUNT_WORDS) + r")(?=\s+(?:\S+\s+){0,6}?[a-z]+s\b)",
    re.I,
)


# "$60.00 for all four", "both": a count of the things the answer speaks of
_ALL_OF = re.compile(
    # ("£15 for each of the other two")
    r"\b(?:all|each\s+of\s+the)\s+(?:other\s+|remaining\s+)?(?P<n>\d{1,2}|"
    + "|".join(_COUNT_WORDS)
    # "the four would come to $299.96", "for the two of you": a count of the things or the
    # people just named
    + r")\b|\b(?:the|these|those)\s+(?:other\s+|remaining\s+)?(?P<m>"
    + "|".join(_COUNT_WORDS)
    # ("$556.00 extra for the two of you")
    + r")(?=\s+(?:would|will|come|comes|cost|costs|together|total|make|add)\b"
    + r"|\s+of\s+(?:you|us|them)\b)"
    # a price "each way" taken for a return trip: twice
    + r"|\b(?P<both>both|each\s+way|return\s+(?:trip|journey|crossing|fare|ticket)|"
    # "for your journey in and back home", "there and back", "to and from work"
    r"in\s+and\s+back|there\s+and\s+back|out\s+and\s+back|to\s+and\s+from)\b",
    re.I,
)


def counts_in(text: str) -> tuple[int, ...]:
    """Small counts of things in `text` ("the two Pirelli tyres", "3 parcels", "all four",
    "both"): how many times a total may take an amount."""
    out = set()
    for m in [*_COUNTED.finditer(text), *_ALL_OF.finditer(text)]:
        if m.groupdict().get("both"):
            out.add(2)
            continue
        word = (m.group("n") or m.groupdict().get("m") or "").lower()
        n = int(word) if word.isdigit() else _COUNT_WORDS[word]
        if 2 <= n <= 20:
            out.add(n)
    return tuple(sorted(out))


def counts_said(text: str) -> frozenset[int]:
    """The counts of `counts_in` and every number said in words, with or without a noun
    ("Two of them are covered", "your two colleagues"): what a count field may be said as."""
    words = {
        NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()[:2000]) if w in NUMBER_WORDS
    }
    return frozenset(counts_in(text)) | frozenset(words)


# A tool's field that counts things ("Nights: 5.", "Rental days: 4", "Guests: 2").
_COUNT_FIELD = re.compile(
    r"(?:^|(?<=[.:] )|\n)(?:[A-Z][a-z]*\s)?(?:nights|days|rental days|quantity|qty|guests|people|"
    r"passengers|travell?ers|seats|tickets|units|items|participants|adults|children|sessions|"
    r"lessons|weeks|months)(?: count)?: (?P<n>\d{1,3})\.(?= |$|\n)",
    re.I | re.M,
)


@lru_cache(maxsize=256)
def counted_fields(text: str) -> tuple[int, ...]:
    """Counts a tool's output states in fields named for what they count: how many times a
    total may take a rate ("$58.00 a night plus $6.00 a night ... $320.00" over "Nights: 5")."""
    found = {int(m.group("n")) for m in islice(_COUNT_FIELD.finditer(text), 64)}
    return tuple(sorted(n for n in found if 2 <= n <= 60))


def _length_unit(unit: str | None) -> str:
    """The unit of a length of time ("day", "minute"), or "" for any other figure."""
    key = _unit_key(unit)
    return (
        key if key in _DURATION_DAYS or key + "s" in _DURATION_DAYS or key in _PER_MINUTES else ""
    )


# value, currency, how it was written, its length unit ("" for an amount or any other figure)
_Operand = tuple[float, str | None, str, str]
_Made = tuple[tuple[str | None, str | None], str, bool]  # currencies, words, whether money


def _arithmetic(q: Quantity, own: Sequence[Quantity], known: Sequence[Quantity]) -> str | None:
    """How an amount of the claim is the sum, difference or product of one of the claim's
    own grounded figures and a stated figure, or None. Small whole numbers that are not money
    are left alone (almost any two figures give one). Sums and differences are of figures in
    one unit ("$3.50 + 7 days" is none); an amount of money needs an operand that is no
    length of time. The
    results are computed once per claim (`_results`), so each missing figure costs a lookup,
    not a product of the lists."""
    values = [v for v in q.values if q.kind == "money" or v >= 100 or v != int(v)]
    if not values:
        return None

    def first(items: Sequence[Quantity], cap: int) -> tuple[Quantity, ...]:
        return tuple(islice((b for b in items if b.kind in ("money", "number") and b.values), cap))

    results, lookup = _results(
        _operands(first(own, MAX_DERIVED)), _operands(first(known, MAX_DERIVED * 2))
    )
    tolerance = max(0.005, q.tolerance)
    money = q.kind == "money"
    for v in values:
        for i in range(bisect.bisect_left(results, v - tolerance), len(results)):
            if results[i] > v + tolerance:
                break
            currencies, text, moneyish = lookup[i]
            if (
                text != q.describe()
                and (moneyish or not money)
                and all(c is None or q.currency is None or c == q.currency for c in currencies)
            ):
                return f"{q.describe()} is {text}"
    return None


@lru_cache(maxsize=64)
def _operands(items: tuple[Quantity, ...]) -> tuple[_Operand, ...]:
    """`items` as operands (cached: every missing figure of a claim reads the same ones)."""
    return tuple(
        (x, b.currency, b.describe(), "" if b.currency else _length_unit(b.unit))
        for b in items
        for x in sorted(b.values)
    )


@lru_cache(maxsize=32)
def _results(
    mine: tuple[_Operand, ...], pool: tuple[_Operand, ...]
) -> tuple[list[float], list[_Made]]:
    """Every sum and difference (of figures in one unit) and product of an operand of `mine`
    and one of `pool`, sorted, with the currencies, the words that made each and whether an
    operand is no length of time."""
    made: list[tuple[float, _Made]] = []
    said = {t for _, _, t, _ in mine}
    for x, xc, xt, xu in mine:
        for y, yc, yt, yu in pool:
            if (x, xt) == (y, yt):
                continue
            moneyish = xu == "" or yu == ""
            # an amount plus or minus a count of things is no working ("$219.98" is not
            # "2 bags" from "$221.98"); a tool's amount without its currency still adds up
            counted = (xc is None and _THINGS.search(xt)) or (yc is None and _THINGS.search(yt))
            if xu == yu and not ((xc or yc) and counted):
                made.append((x + y, ((xc, yc), f"{xt} + {yt}", moneyish)))
                made.append((abs(x - y), ((xc, yc), f"{xt} - {yt}", moneyish)))
            # an amount times a count or rate the claim states ("52 x $18.50"; not "$3.50"
            # times the "three" of "three no-shows" in a policy), never two amounts
            if not (xc and yc) and (not xc or yt in said):
                made.append((x * y, ((xc, yc), f"{xt} × {yt}", moneyish)))
    made.sort(key=lambda m: m[0])
    return [m[0] for m in made], [m[1] for m in made]


_THINGS = re.compile(r"\d\s+[a-z]")  # "2 bags", "5 nights": a count of things

_WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WEEKDAY = re.compile(
    r"\b(?P<day>mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|"
    r"sat(?:urday)?|sun(?:day)?)\b\.?",
    re.I,
)
# Between a weekday and its date: "Thursday, 12/18/2026", "Fri 4 Dec", "Sunday the 6th"
# (the date's own reading starts at the number), "Saturday (5 December)".
_WEEKDAY_GAP = re.compile(r"[ \t]*,?[ \t]*(?:\(|the[ \t]+)?[ \t]*\n?", re.I)
# After a date: "12/18/2026 (Friday)", "4 Dec (Fri)".
_WEEKDAY_AFTER = re.compile(r"[ \t]*\([ \t]*\n?")


def _weekday_of(iso: str, years: frozenset[int]) -> set[int]:
    """The weekdays (0 = Monday) a date reading can fall on: one for a full date, one per
    candidate year for a date without one; none for a month or an impossible date."""
    if iso.startswith("--"):
        month, day = int(iso[2:4]), int(iso[5:7])
        candidates = [(y, month, day) for y in years]
    elif len(iso) == 10:
        candidates = [(int(iso[:4]), int(iso[5:7]), int(iso[8:10]))]
    else:
        return set()
    out = set()
    for y, m, d in candidates:
        try:
            out.add(datetime.date(y, m, d).weekday())
        except ValueError:
            continue
    return out


def _full_years(figures: Sequence[Quantity]) -> frozenset[int]:
    return frozenset(
        int(iso[:4])
        for q in figures
        if q.kind == "date"
        for iso in q.dates
        if len(iso) == 10 and not iso.startswith("--")
    )


@lru_cache(maxsize=4096)
def years_in(text: str) -> frozenset[int]:
    """The years of the full dates `text` states: those a date without a year is read in."""
    return _full_years(distinct_quantities(text))


def weekday_mismatch(text: str, years: frozenset[int] = frozenset()) -> str | None:
    """A weekday said beside a date it does not fall on ("due Thursday, 12/18/2026": a
    Friday), or None. A date without a year is read in each of `years` (the context's years)
    and is wrong only when it misses the weekday in all of them, and so is a date with two
    readings ("12/08/2026") in every reading; with no year to read it in, it is not judged."""
    dates = [q for q in extract_quantities(text, True) if q.kind == "date" and q.dates]
    if not dates:
        return None
    years = years | _full_years(dates)  # the claim's own full dates count too
    starts = [q.start for q in dates]  # in order, and apart: only neighbours can qualify
    for m in _WEEKDAY.finditer(text[:4000]):
        said = _WEEKDAY_NAMES.index(m.group("day").lower()[:3])
        # the date just before ("12/18/2026 (Friday)"), else the first after ("Thursday,
        # 12/18/2026"): any other has a date's own characters in between
        i = bisect.bisect_left(starts, m.end())
        before = dates[i - 1] if i else None
        after = dates[i] if i < len(dates) else None
        if (
            before is not None
            and before.end <= m.start()
            and m.start() - before.end <= 3
            and _WEEKDAY_AFTER.fullmatch(text, before.end, m.start())
        ):
            date = before
        elif after is not None and _WEEKDAY_GAP.fullmatch(text, m.end(), after.start):
            date = after
        else:
            continue
        readings = [_weekday_of(iso, years) for iso in date.dates]
        if not any(readings) or any(said in r for r in readings):
            continue
        falls = sorted({d for r in readings for d in r})
        names = " or a ".join(datetime.date(2024, 1, 1 + d).strftime("%A") for d in falls)
        return (
            f"'{m.group(0).strip()}' with {date.describe()}: that date is a {names}, so the "
            "weekday contradicts the date"
        )
    return None


# --- totals of a tool's list, and rates times counts -----------------------------------------

# A rendered list element ("Lines 2: Type: time. Hours: 0.8. Amount: 112.00.") and its numeric
# fields (`hallmon.verification.evidence.render_record` writes them so).
_LIST_ITEM = re.compile(r"^(?P<name>[A-Z][\w ]{0,40}?) (?P<i>\d{1,4}): (?P<body>.+)$", re.M)
_ITEM_FIELD = re.compile(
    r"(?:^|(?<=\. ))(?P<key>[A-Z][\w ]{0,40}?): "
    r"(?P<value>-?\d[\d,]*(?:\.\d+)?)(?: [A-Z]{3})?\.(?= |$)"
)
MAX_LIST_ITEMS = 200
"""List elements of one source whose fields are totalled (bounds hostile input)."""


@lru_cache(maxsize=256)
def list_totals(text: str) -> tuple[tuple[float, str], ...]:
    """Totals of each numeric field over every element of each list a rendered tool output
    holds ("the sum of Amount over the 3 Lines"), and over its negative and its positive
    values where the list has both ("$823.10 in unrealized losses": the negative gains)."""
    fields: dict[tuple[str, str], list[float]] = {}
    for m in islice(_LIST_ITEM.finditer(text), MAX_LIST_ITEMS):
        for f in _ITEM_FIELD.finditer(m.group("body")):
            values = fields.setdefault((m.group("name"), f.group("key")), [])
            values.append(float(f.group("value").replace(",", "")))
    totals: list[tuple[float, str]] = []
    for (name, key), values in fields.items():
        if len(values) < 2:
            continue
        totals.append((round(sum(values), 6), f"the {key.lower()} of the {len(values)} {name}"))
        signed = (
            ([v for v in values if v < 0], "negative"),
            ([v for v in values if v > 0], "positive"),
        )
        for part, sign in signed:
            if 2 <= len(part) < len(values):
                totals.append((round(abs(sum(part)), 6), f"the {sign} {key.lower()} of the {name}"))
    return tuple(totals)


# a word field of a list element ("Status: awaiting_dispatch.", "Type: adult.")
_WORD_FIELD = re.compile(
    r"(?:^|(?<=\. ))(?P<key>[A-Z][\w ]{0,40}?): (?P<value>[a-z][a-z_ -]{1,40})\."
)


@lru_cache(maxsize=256)
def listed_kinds(text: str) -> dict[str, int]:
    """How many elements of a rendered tool output's lists hold each word value of a field
    ("shipped" -> 2 over "Status: shipped." in two of the "Orders" lines), keyed by the value
    with "_" read as a space."""
    counts: dict[str, int] = {}
    for m in islice(_LIST_ITEM.finditer(text), MAX_LIST_ITEMS):
        for f in {
            f.group("value").replace("_", " ") for f in _WORD_FIELD.finditer(m.group("body"))
        }:
            counts[f] = counts.get(f, 0) + 1
    return counts


def counted_kind(q: Quantity, text: str, texts: Sequence[str]) -> str | None:
    """How a count of the claim is the number of a tool's list elements whose field holds the
    word after it ("2 shipped", "1 cancelled", "2 awaiting dispatch"), or None."""
    if q.kind != "number" or not q.values or (q.unit and q.unit.startswith(LIST_UNIT)):
        return None
    after = text[q.end : q.end + 40].lower().lstrip(" *")
    for source in texts:
        for value, n in listed_kinds(source).items():
            if n in q.values and re.match(rf"(?:\w+\s+)?{re.escape(value)}\b", after):
                return f"{q.describe()} is the number of elements listed as {value}"
    return None


def listed_total(q: Quantity, texts: Sequence[str]) -> str | None:
    """How an amount or count of the claim is the total of one field over a tool's list
    ("That brings the total to $1,173.00" after three invoice lines), or None."""
    if q.kind not in ("money", "number") or not q.values:
        return None
    tolerance = max(0.005, q.tolerance)
    for text in texts:
        for total, what in list_totals(text):
            if any(abs(total - v) <= tolerance for v in q.values):
                return f"{q.describe()} is {what}"
    return None


# "EUR 0.12 per source word", "$2.50 a mile", "CHF 39.00/day", "£4 each"
_PER_AFTER = re.compile(r"\s*(?:per\b|/\s*\w|an?\s+[a-z]|each\b)", re.I)
MAX_RATES = 16
_CODE_BEFORE = re.compile(r"\b(?:[A-Z]{3}|[$€£¥])\s?$")


@lru_cache(maxsize=256)
def _rates_and_counts(text: str) -> tuple[tuple[Quantity, ...], tuple[Quantity, ...]]:
    """The rates a source states ("EUR 0.12 per word") and its bare counts, read once per
    source (every missing amount of every claim asks)."""
    rates: list[Quantity] = []
    counts: list[Quantity] = []
    for found in distinct_quantities(text):
        # ("EUR 0.12 per word": a code before a number; the listed codes make it money)
        money = found.kind == "money" or (
            found.kind == "number"
            and _CODE_BEFORE.search(text, max(0, found.start - 6), found.start) is not None
        )
        if money and found.values and _PER_AFTER.match(text, found.end):
            rates.append(found)
        elif found.kind == "number" and found.values and not found.unit:
            counts.append(found)
    return tuple(rates), tuple(counts)


# A multiple said in words: "at half the normal interval", "twice the standard fee"
_WORD_FACTORS = (
    (re.compile(r"\b(?:half|halved|halve|50\s*%\s+of)\b", re.I), 0.5),
    (re.compile(r"\b(?:a|one)[\s-]third\b", re.I), 1 / 3),
    (re.compile(r"\b(?:a|one)\s+quarter\b", re.I), 0.25),
    (re.compile(r"\b(?:twice|double[ds]?|doubling)\b", re.I), 2.0),
    (re.compile(r"\b(?:three\s+times|triple[ds]?|tripling)\b", re.I), 3.0),
)


def said_multiple(q: Quantity, text: str, known: Sequence[Quantity]) -> str | None:
    """How a figure is the multiple of a known one that the claim says in words ("resample at
    half the normal interval, after 250 hours instead of 500"), or None. Only figures of the
    same kind and unit (or none), and only the factors the claim's words name."""
    if q.kind not in ("money", "number") or not q.values:
        return None
    factors = [f for pattern, f in _WORD_FACTORS if pattern.search(text)]
    if not factors:
        return None
    tolerance = max(0.005, min(q.tolerance, 0.05))
    for b in islice(
        (b for b in known if b is not q and b.kind == q.kind and b.values), MAX_DERIVED * 4
    ):
        if q.unit and b.unit and _unit_key(q.unit) != _unit_key(b.unit):
            continue
        if q.currency and b.currency and q.currency != b.currency:
            continue
        for f in factors:
            if any(abs(f * y - v) <= tolerance for y in b.values for v in q.values if y):
                return f"{q.describe()} is {f:g} × {b.describe()}"
    return None


def per_unit(q: Quantity, text: str, figures: Sequence[Quantity]) -> str | None:
    """How an amount said per unit ("NZ$3.00 per GB") is another amount of the claim divided
    by a count beside it ("Data Boost 5GB: NZ$15.00"), or None."""
    if q.kind != "money" or not q.values or not _PER_AFTER.match(text, q.end):
        return None
    amounts = [a for a in figures if a is not q and a.kind == "money" and a.values]
    counts = [c for c in figures if c.kind == "number" and c.values and c is not q]
    tolerance = max(0.005, q.tolerance)
    for a in amounts[:MAX_RATES]:
        for c in counts[:MAX_RATES]:
            for x in a.values:
                for n in c.values:
                    if n >= 2 and any(abs(x / n - v) <= tolerance for v in q.values):
                        return f"{q.describe()} is {a.describe()} / {c.describe()}"
    return None


def rate_times_count(q: Quantity, texts: Sequence[str], own: Sequence[Quantity] = ()) -> str | None:
    """How an amount of money of the claim is a rate the sources state ("EUR 0.12 per source
    word") times a count they or the claim state ("Word count: 1240"), or None. Only rates
    said as such and whole counts: amounts are never multiplied by each other."""
    if q.kind != "money" or not q.values:
        return None
    rates: list[Quantity] = []
    counts: list[Quantity] = [c for c in own if c.kind == "number" and c.values]
    for text in texts:
        stated_rates, stated_counts = _rates_and_counts(text)
        rates += stated_rates
        counts += stated_counts
    if not rates:
        return None
    # whole counts: stated ones, and totals over a list ("2,100 words" of two uploads)
    whole = [(n, c.describe()) for c in counts[: MAX_DERIVED * 2] for n in c.values]
    whole += [(n, what) for text in texts for n, what in list_totals(text)]
    tolerance = max(0.005, q.tolerance)
    for rate in rates[:MAX_RATES]:
        if rate.currency and q.currency and rate.currency != q.currency:
            continue
        for n, what in whole:
            if n < 2 or n != int(n) or n > 1_000_000:
                continue
            if any(abs(r * n - v) <= tolerance for r in rate.values for v in q.values):
                return f"{q.describe()} is {rate.describe()} × {what}"
    return None


# --- the day a moment falls on in another zone ------------------------------------------------


def day_across_zones(
    q: Quantity, figures: Sequence[Quantity], source_texts: Sequence[str]
) -> str | None:
    """A date the claim gives beside a clock time it converts, that is the day a source's
    moment falls on at that clock ("23:59 UTC on 15 October, which is 00:59 on Friday 16
    October in Lisbon" of `2026-10-15T23:59:00Z`): some shift of whole or half hours, within
    the spread of the world's zones, takes the source's moment to both the claim's clock time
    and this date, the claim stating the moment's own clock time as well. None when no source
    moment does."""
    if q.kind != "date" or not q.dates:
        return None
    clocks = {v for f in figures if f.kind == "time" for v in f.values}
    if not clocks:
        return None
    for text in source_texts:
        for day, minutes in _moments(text):
            # (the claim converts this moment: it states the moment's own clock time too)
            if minutes not in clocks:
                continue
            for shift in (*range(-14 * 60, 0, 30), *range(30, 14 * 60 + 1, 30)):
                total = minutes + shift
                if total % 1440 not in clocks:
                    continue
                # the full date and its month-and-day form, not the month _shifted also offers
                local = {
                    e
                    for e in _shifted(day, 0, int(total // 1440))
                    if len(e) == 10 or e.startswith("--")
                }
                if local & q.dates:
                    return f"{q.describe()} is the day of {day}'s moment at the claim's clock time"
    return None


# --- a deadline some hours or days before a booked moment ------------------------------------

_ISO_MOMENT = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})")
_SPAN = re.compile(r"\b(\d{1,3})\s*(?:-\s*)?(hours?|hrs?|days?)\b", re.I)


@lru_cache(maxsize=256)
def _moments(text: str) -> tuple[tuple[str, float], ...]:
    """(ISO date, minutes of the day on its own clock) of the date-times a source states."""
    out = []
    for m in islice(_ISO_MOMENT.finditer(text), 64):
        y, mo, d, h, mi = (int(g) for g in m.groups())
        if _valid(y, mo, d) and h < 24 and mi < 60:
            out.append((_iso(y, mo, d), float(h * 60 + mi)))
    return tuple(out)


@lru_cache(maxsize=256)
def _spans_in_days(text: str) -> tuple[int, ...]:
    """Whole days a source states as a length ("24 hours", "48-hour", "2 days")."""
    out = set()
    for m in islice(_SPAN.finditer(text), 64):
        n, unit = int(m.group(1)), m.group(2).lower()
        if unit.startswith("h") and n % 24 == 0 and 0 < n <= 720:
            out.add(n // 24)
        elif unit.startswith("d") and 0 < n <= 60:
            out.add(n)
    return tuple(sorted(out))


# "By 8pm on the evening before delivery we'll text you": a day before a date a source states
_DAY_BEFORE = re.compile(
    r"\b(?:the\s+)?(?:day|evening|night|morning|afternoon)\s+before\s+(?:the\s+|your\s+)?\w+",
    re.I,
)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?!\d)")


def _day_before(q: Quantity, clock: set[float], texts: Sequence[str]) -> str | None:
    """How the claim's date is the day before a date the sources state, where a source says
    the claim's clock time on "the evening before" something ("By 8pm on Tuesday 16 June" for
    "By 8pm on the evening before delivery" and a slot on 2026-06-17)."""
    said = [
        m.group(0)
        for text in texts
        for m in islice(_DAY_BEFORE.finditer(text), 8)
        if any(
            t.kind == "time" and t.values & clock
            for t in extract_quantities(text[max(0, m.start() - 40) : m.start()])
        )
    ]
    if not said:
        return None
    for text in texts:
        for m in islice(_ISO_DAY.finditer(text), 64):
            y, mo, d = (int(g) for g in m.groups())
            if not _valid(y, mo, d):
                continue
            iso = _iso(y, mo, d)
            if _shifted(iso, 0, -1) & q.dates:
                return f"{q.describe()} is the day before {iso} ('{said[0]}')"
    return None


def deadline_before(
    q: Quantity, claim_times: Sequence[Quantity], texts: Sequence[str]
) -> str | None:
    """How a date of the claim is a booked moment less a length the sources state, said with
    the moment's own time ("free of charge until 15:00 on Monday 7 December" for a start at
    2026-12-08T15:00 and "up to 24 hours before the start time"), or None. The claim must
    say that clock time: a length alone would back any date a day from a stated one."""
    if q.kind != "date" or not q.dates or not claim_times:
        return None
    clock = {v for t in claim_times for v in t.values}
    eve = _day_before(q, clock, texts)
    if eve is not None:
        return eve
    spans = {n for text in texts for n in _spans_in_days(text)}
    if not spans:
        return None
    for text in texts:
        for iso, minutes in _moments(text):
            if minutes not in clock:
                continue
            for n in sorted(spans):
                # the full date and its month-and-day form, not the month _shifted also offers
                earlier = {e for e in _shifted(iso, 0, -n) if len(e) == 10 or e.startswith("--")}
                if earlier & q.dates:
                    return f"{q.describe()} is {n} day(s) before {iso} (a length a source states)"
    return None
