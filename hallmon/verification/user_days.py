"""Days the answer says suit the user, against the days the user said they can or cannot do.

"Since Fridays suit you, the earliest slot is Friday" where the customer said "I can do any
weekday except Fridays"; "weekday evenings suit you best" where they said "I can only do
weekends, I work late Monday to Friday". The user's own turns (memory, this turn's input) are
the only evidence of what suits them. Pure text; no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hallmon.schemas import CheckResult, Source

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS = frozenset(_DAYS[:5])
_WEEKEND = frozenset(_DAYS[5:])
_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
_DAY_WORD = re.compile(
    rf"\b(?P<a>{_DAY})\s*(?:to|-|–|through|thru|until)\s*(?P<b>{_DAY})\b"
    rf"|\b(?P<one>{_DAY}|week\s?days?|week\s?ends?)\b",
    re.I,
)
# what the answer says suits the user: "Fridays suit you", "as you prefer weekends"
_SUITS_YOU = re.compile(
    r"\b(?:suits?|works?|(?:is|are)\s+(?:best|better|easiest|good|ideal))\s+(?:best\s+)?"
    r"(?:for\s+)?you\b",
    re.I,
)
_YOU_PREFER = re.compile(
    r"\byou(?:['’]d|\s+would)?\s+(?:prefer|like|can\s+(?:only\s+)?do|are\s+free\s+on|"
    r"['’]re\s+free\s+on)\b",
    re.I,
)
_HEDGED = re.compile(r"\b(?:if|whether|unless|in\s+case)\b|\?", re.I)
# what the user rules out: "except Fridays", "I work late Monday to Friday", "not Tuesdays"
_RULED_OUT = re.compile(
    r"\b(?:except|apart\s+from|other\s+than|but\s+not|not|never|no|can['’]?t\s+do|cannot\s+do|"
    r"can['’]?t\s+make|work(?:ing)?(?:\s+late)?(?:\s+on)?|busy(?:\s+on)?)\s+(?:on\s+|any\s+)?"
    rf"(?P<days>(?:{_DAY}|week\s?days?|week\s?ends?)(?:\s*(?:to|-|–|through|thru|and|or|,)\s*"
    rf"(?:{_DAY}))*)",
    re.I,
)
_ONLY = re.compile(r"\b(?:only|just)\b[^.;]{0,40}$", re.I)
_AGENT_TURN = re.compile(r"\s*(?:agent|assistant|bot|support|advisor|staff)\b", re.I)


def _day(word: str) -> str | None:
    low = word.lower()
    return next((d for d in _DAYS if low[:3] == d[:3]), None)


def days_in(text: str) -> frozenset[str]:
    """The days of the week `text` names: day names (plural too), ranges ("Monday to
    Friday", "Mon-Fri"), "weekdays" and "weekends"."""
    out: set[str] = set()
    for m in _DAY_WORD.finditer(text):
        if m.group("one"):
            one = m.group("one").lower().replace(" ", "")
            if one.startswith("weekday"):
                out |= _WEEKDAYS
            elif one.startswith("weekend"):
                out |= _WEEKEND
            elif (d := _day(one)) is not None:
                out.add(d)
            continue
        a, b = _day(m.group("a")), _day(m.group("b"))
        if a is not None and b is not None:
            i, j = _DAYS.index(a), _DAYS.index(b)
            out |= set(_DAYS[i : j + 1] if i <= j else _DAYS[i:] + _DAYS[: j + 1])
    return frozenset(out)


def _suited(claim_text: str) -> frozenset[str]:
    """The days the claim says suit the user, from the clause that says so."""
    for clause in re.split(r"[,;:—]\s|\.\s", claim_text):
        m = _SUITS_YOU.search(clause)
        if m is not None:
            said = clause[: m.start()]
        elif (m := _YOU_PREFER.search(clause)) is not None:
            said = clause[m.end() :]
        else:
            continue
        if _HEDGED.search(clause[: m.end()]):
            continue
        if days := days_in(said):
            return days
    return frozenset()


def _users_days(sources: Sequence[Source]) -> tuple[frozenset[str], frozenset[str], str]:
    """(days ruled out, days the user can only do, id of the turn) over the user's turns."""
    out: set[str] = set()
    only: set[str] = set()
    where = ""
    for source in sources:
        if source.kind not in ("memory", "user_input") or _AGENT_TURN.match(source.text):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", source.text[:4000]):
            ruled = set().union(*(days_in(m.group("days")) for m in _RULED_OUT.finditer(sentence)))
            for clause in re.split(r"[,;]\s", sentence):
                m = _DAY_WORD.search(clause)
                if m is not None and _ONLY.search(clause[: m.start()]):
                    only |= days_in(clause) - ruled
            if ruled:
                out |= ruled
                where = where or source.source_id
            elif only and not where:
                where = source.source_id
    return frozenset(out), frozenset(only), where


def check_user_days(claim_text: str, sources: Sequence[Source]) -> CheckResult | None:
    """Days said to suit the user that the user ruled out, or outside the only days they said
    they can do. None where the claim says no day suits them or the user named none."""
    suited = _suited(claim_text)
    if not suited:
        return None
    ruled, only, where = _users_days(sources)
    clash = (suited <= ruled) or (bool(only) and not suited & only)
    if not clash:
        return None
    named = ", ".join(d.title() for d in _DAYS if d in suited)
    return CheckResult(
        name="profile",
        passed=False,
        detail=f"said to suit the user ({named}), but {where} rules "
        + (
            "those days out"
            if suited <= ruled
            else "them out: only " + ", ".join(d.title() for d in _DAYS if d in only)
        )
        + " (contradicts it)",
    )
