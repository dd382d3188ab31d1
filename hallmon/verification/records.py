"""Yes/no fields of JSON records in the context, and the check of claims against them.

Producers often send structured context: a business record, a tool's JSON output. hallmon
renders such records into sentences for retrieval and the NLI model (`evidence.render_record`),
but a cross-encoder reads "WiFi: no" against "they offer free WiFi" poorly, and "does not take
reservations" against "Restaurants Reservations: yes" no better. A yes/no field is a fact the
answer can be checked against deterministically:

- `record_facts(response)`: every boolean-like leaf (true/false, "yes"/"no", "free"/"paid",
  "none") of the JSON records among the documents and tool outputs, with the words that name
  it ("OutdoorSeating" -> outdoor seating; "RestaurantsTakeOut" -> take out). A field of a
  group of flags ("BusinessParking": {"lot": false, "street": true}) whose own name is a short
  word also needs the group's name in the claim ("parking lot"), so that "a lot of dishes" is
  not about parking.
- `check_record(text, facts)`: a claim that names a field and asserts the opposite of its
  value fails (`passed=False`, "contradicts the record"); a claim that names fields and agrees
  with all of them passes; a claim that names none gets no check. A field counts as negated
  when a negation ("not", "no", "without", "lacks", "n't", "unavailable") appears in its
  clause, or in the clause before it when the field is only a further item of a list
  ("does not offer WiFi, music, or reservations").

Deliberately narrow: only booleans, and only fields the claim names. A claim about a field the
record does not have is left to the NLI model and the novelty features.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hallmon.schemas import AssembledResponse, CheckResult
from hallmon.verification.text import BARE_ANSWER, negation_pattern
from hallmon.verification.tool_names import is_lookup, name_words

__all__ = [
    "OpeningHours",
    "RecordFact",
    "check_hours",
    "check_record",
    "record_facts",
    "record_hours",
]

# Words that name no feature of their own ("RestaurantsReservations", "BusinessAcceptsCards").
_GENERIC = frozenset({"restaurant", "business", "good", "for", "has", "is", "accept", "by"})
_FALSE = frozenset({"no", "none", "false"})
_TRUE = frozenset({"yes", "true", "free", "paid"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[a-z0-9]+")
_PY_STR = re.compile(r"^u?'(.*)'$")
_SHORT = 5
"""A nested field whose name is at most this many letters also needs its group's name."""

_NEGATION = negation_pattern(
    "without", "lacks?", "lacking", "neither", "nor", "unavailable", "cannot",
    # a switch said to be off ("auto-renew is off", "alerts are disabled")
    r"(?:is|are|was|were|been|stays?|remains?)\s+(?:still\s+|now\s+|currently\s+)?"
    r"(?:off|disabled|deactivated|switched\s+off|turned\s+off)",
    # "Auto-renew: switched off as you asked", "I've turned off alerts"
    r"(?:switched|turned)\s+off",
    flags=0,
)  # fmt: skip
_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|offers?|offering|provides?|allows?|accepts?|takes?|"
    r"features?|includes?|available|can|does|do)\b"
)
_CLAUSE = re.compile(r"[;:]|\bbut\b|\bhowever\b|\balthough\b|\bwhile\b|\bwhereas\b|\bexcept\b")


def _norm(word: str) -> str:
    w = word.lower()
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _words(text: str) -> list[str]:
    """Lower-case words with hyphens closed up ("Wi-Fi" -> "wifi", "take-out" -> "takeout")."""
    return [_norm(w) for w in _WORD.findall(text.lower().replace("-", ""))]


def _key_words(key: str) -> list[str]:
    words = [_norm(w) for w in _CAMEL.sub(" ", key.replace("_", " ")).split()]
    return [w for w in words if w not in _GENERIC]


@dataclass(frozen=True)
class RecordFact:
    """One yes/no field: `names` are word sequences that must all occur in a claim's clause."""

    source_id: str
    field: str
    value: str
    truth: bool | None
    """None: the field is present but empty (null)."""
    names: tuple[tuple[str, ...], ...]
    group: bool = False

    def named_in(self, words: Sequence[str]) -> bool:
        return all(_contains(words, name) for name in self.names)


def _contains(words: Sequence[str], name: tuple[str, ...]) -> bool:
    """`name` as consecutive words, or closed up into one word ("takeout")."""
    joined = "".join(name)
    if joined in words:
        return True
    n = len(name)
    return any(tuple(words[i : i + n]) == name for i in range(len(words) - n + 1))


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    m = _PY_STR.match(text)
    text = (m.group(1) if m else text).strip().lower()
    if text in _FALSE:
        return False
    if text in _TRUE:
        return True
    return None


def _leaves(
    value: Any,
    path: tuple[str, ...],
    source_id: str,
    in_group: bool = False,
    pending: frozenset[str] = frozenset(),
) -> Iterable[RecordFact]:
    """`in_group`: the value's parent is a group of flags ({"garage": false, "lot": true});
    `pending`: words of the calls that were to fill a field, whose null then says nothing."""
    if isinstance(value, dict):
        group = bool(path) and all(_truth(v) is not None for v in value.values())
        for k, v in value.items():
            yield from _leaves(v, (*path, str(k)), source_id, group, pending)
        own = _key_words(path[-1]) if group and path else []
        if own and any(_truth(v) for v in value.values()):
            # "BusinessParking": {"street": true, ...}: the business has parking, whichever.
            on = ", ".join(str(k) for k, v in value.items() if _truth(v))
            yield RecordFact(
                source_id, ".".join(path), f"yes ({on})", True, (tuple(own),), group=True
            )
        return
    if not path:
        return
    own = _key_words(path[-1])
    if value is None:
        # A field the record has but leaves empty: the record backs nothing said about it.
        if len("".join(own)) >= 4 and not set(own) <= pending:
            yield RecordFact(source_id, ".".join(path), "null", None, (tuple(own),))
        return
    truth = _truth(value)
    if truth is None or not own:
        return
    names: list[tuple[str, ...]] = [tuple(own)]
    group_words = _key_words(path[-2]) if in_group and len(path) > 1 else []
    if group_words and len("".join(own)) <= _SHORT:
        names.append((group_words[-1],))
    yield RecordFact(source_id, ".".join(path), str(value), truth, tuple(names))


def _parse(text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith("{") or not stripped.endswith("}"):
        return None
    try:
        return json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None


def record_facts(response: AssembledResponse) -> list[RecordFact]:
    """The yes/no fields of every JSON object among the documents and tool outputs."""
    facts: list[RecordFact] = []
    ctx = response.context
    for doc in ctx.documents:
        record = _parse(doc.text)
        if isinstance(record, dict):
            facts.extend(_leaves(record, (), doc.source_id))
    # ("assembly": null on an order while `add_assembly` timed out: the field the call was
    # to fill, not a record that the order has no assembly)
    pending = frozenset(
        w for tool in ctx.tool_results if not is_lookup(tool.tool) for w in name_words(tool.tool)
    )
    for tool in ctx.tool_results:
        output = _parse(tool.output) if isinstance(tool.output, str) else tool.output
        if isinstance(output, dict):
            facts.extend(_leaves(output, (), f"tool:{tool.tool}:{tool.call_id}", pending=pending))
    return facts


# Phrases that deny a field under another name ("out of stock" is `in_stock: false`).
_DENIED_AS = ((re.compile(r"\b(?:out\s+of\s+stock|sold\s+out)\b"), "not in stock"),)


_LABEL = re.compile(r"^(\W*[a-z][\w\- ]{0,30}?)\s*\**\s*:\s*\**\s*")
_CONDITION_CLAUSE = re.compile(
    # "doesn't match marketplace sellers even when the item is in stock": a concession, which
    # the negation before it does not reach
    r"\b(?:once|if|unless|until|as\s+soon\s+as|provided\s+that|even\s+(?:when|though))\b"
    r"[^,;:.]*"
)


def _pieces(text: str) -> Iterable[tuple[list[str], bool]]:
    """(words, negated) per comma-separated piece of each clause."""
    # a bare answer folded before the claim ("No. The endpoint is reachable again") negates
    # nothing in it
    text = BARE_ANSWER.sub("", text.lower(), count=1)
    # a field named in a condition is not said of the record ("no refund once an eSIM is
    # installed")
    text = _CONDITION_CLAUSE.sub(" ", text)
    # a bullet's label is said of by what follows it ("Auto-renew: switched off as you asked")
    text = _LABEL.sub(r"\1 ", text, count=1)
    for pattern, meaning in _DENIED_AS:
        text = pattern.sub(meaning, text)
    for clause in _CLAUSE.split(text):
        negated = False
        for piece in clause.split(","):
            # A negation carries over list items without a verb of their own.
            negated = bool(_NEGATION.search(piece)) or (negated and not _VERB.search(piece))
            yield _words(piece), negated


_RULE_WORDS = re.compile(r"\b(?:only|would|usually|normally|always|generally|typically)\b", re.I)
_HYPOTHETICAL = re.compile(r"\b(?:you['’]d|you\s+would|it\s+would|would\s+cost)\b", re.I)


def _said_generically(text: str, fact: RecordFact) -> bool:
    """Whether the claim names the field's thing only after "a"/"an", or as one the user
    would have: the kind, not this customer's one."""
    names = [n for n in fact.names if n]
    if not names:
        return False
    if _HYPOTHETICAL.search(text):
        return True  # "If you go ahead …, you'd pay £4,155 for the battery": one not had yet
    said = False
    for name in names:
        pattern = r"\s+".join(re.escape(w) for w in name)
        for m in re.finditer(rf"\b{pattern}s?\b", text, re.I):
            before = text[max(0, m.start() - 40) : m.start()].lower()
            if not re.search(r"\b(?:a|an|any|each|every)\s+(?:[\w-]+\s+){0,3}$", before):
                return False
            said = True
    return said


def check_record(text: str, facts: Sequence[RecordFact]) -> CheckResult | None:
    """The record check of one claim, or None when the claim names no yes/no field."""
    if not facts:
        return None
    conflicts: list[tuple[RecordFact, bool]] = []
    agrees: list[RecordFact] = []
    empty: list[RecordFact] = []
    for words, negated in _pieces(text):
        if not words:
            continue
        in_piece = [f for f in facts if f.named_in(words)]
        # A group ("parking") speaks only where none of its members ("street parking") is named.
        members = {f.field.rsplit(".", 1)[0] for f in in_piece if not f.group}
        for fact in in_piece:
            if fact.group and fact.field in members:
                continue
            if fact.truth is None:
                # Only what the claim asserts about an empty field is unbacked: "does not play
                # music" or "no details on WiFi" may be how the answer reads the empty field.
                # (a call's empty field says nothing of such a thing in general: "A 10 kWh
                # battery costs £4,250 fitted" beside an installation's `battery: null`)
                generic = fact.source_id.startswith("tool:") and _said_generically(text, fact)
                if not negated and not _UNSTATED.search(text) and not generic:
                    empty.append(fact)
            elif fact.truth == negated:
                if _RULE_WORDS.search(text) and _said_generically(text, fact):
                    # "An overlock is only fitted at 30 days overdue": the rule for any
                    # account, not this one's `overlock`
                    continue
                conflicts.append((fact, negated))
            else:
                agrees.append(fact)
    if conflicts:
        fact, negated = conflicts[0]
        said = "denies" if negated else "asserts"
        return CheckResult(
            name="record",
            passed=False,
            detail=f"contradicts the record: the claim {said} {fact.field}, which is "
            f"{fact.value!r} in {fact.source_id}",
        )
    if empty:
        fields = ", ".join(sorted({f.field for f in empty}))
        return CheckResult(
            name="record",
            passed=False,
            detail=f"the record leaves {fields} empty (null) in {empty[0].source_id}: nothing "
            "there backs what the claim says about it",
        )
    if agrees:
        named = ", ".join(sorted({f"{f.field}={f.value}" for f in agrees}))
        return CheckResult(name="record", passed=True, detail=f"agrees with the record: {named}")
    return None


# --- opening hours --------------------------------------------------------------------------

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORD = (
    r"(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs?(?:day)?)?|fri(?:day)?|"
    r"sat(?:urday)?|sun(?:day)?)s?\b"
)
_DAY_RANGE = re.compile(
    rf"\b({_DAY_WORD})\s*(?:-|–|—|to|through|thru|until|till)\s*({_DAY_WORD})", re.IGNORECASE
)
# A day alone: its full name, or a capitalised abbreviation ("Sat", not "we sat outside").
_DAY = re.compile(
    r"\b(?:(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"|(?:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b\.?)"
)
_ALL_WEEK = re.compile(
    r"\b(?:every\s*day|daily|all\s+week|(?:seven|7)\s+days\s+a\s+week)\b", re.IGNORECASE
)
_WEEKDAYS = re.compile(r"\bweekdays\b", re.IGNORECASE)
_WEEKENDS = re.compile(r"\bweekends?\b", re.IGNORECASE)
# "9 am", "9:30 p.m.", "noon", "midnight", or a 24-hour "14:00" (no am/pm after it).
_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\b(noon|midday|midnight)\b"
    r"|\b(\d{1,2}):(\d{2})\b(?!\s*[ap]\.?m)",
    re.IGNORECASE,
)
_HOURS_WORDS = re.compile(r"\b(?:open|opens|opening|closed?|closes|hours|operat\w*)\b", re.I)
_CLOSED = re.compile(r"\bclosed\b", re.IGNORECASE)
_TIME_RANGE = re.compile(
    r"\d(?::\d\d)?\s*(?:[ap]\.?m\.?)?\s*(?:-|–|—|to|until|till)\s*\d|\bbetween\s+\d", re.I
)
_EDGE_WORDS = re.compile(r"\b(?:open(?:s|ing)?|clos(?:e|es|ing))\s+(?:at|from)\b", re.I)
_OPEN_WORD = re.compile(r"\b(?:open|opens|opening\s+hours|hours)\b", re.IGNORECASE)
_UNSTATED = re.compile(
    r"\b(?:no|without|lacks?)\s+(?:details?|information|data|mention)\b|\bnot\s+(?:specified|"
    r"mentioned|listed|stated|provided|given|known|available\s+in)\b|\bunknown\b|\bunclear\b|"
    r"\bdo(?:es)?\s*(?:not|n't)\s+(?:provide|give|list|mention|specify)\b"
    # "still awaiting their decision" of `decision: null`: what has not come yet
    r"|\b(?:awaiting|waiting\s+(?:for|on)|pending|yet\s+to|not\s+yet)\b",
    re.IGNORECASE,
)
_RECORD_HOURS = re.compile(r"^\s*(\d{1,2}):(\d{1,2})\s*-\s*(\d{1,2}):(\d{1,2})\s*$")
_MAX_HOURS_CLAIM = 2_000
"""Characters of a claim the hours check reads: a claim is a sentence, not a page."""


@dataclass(frozen=True)
class OpeningHours:
    """A record's weekly hours: minutes after midnight (open, close) per day index 0..6, None
    for a day the record lists as closed ("0:0-0:0", as RAGTruth's annotators read it) or
    leaves out."""

    source_id: str
    days: tuple[tuple[int, int] | None, ...]

    def describe(self) -> str:
        out = []
        for name, hours in zip(DAYS, self.days, strict=True):
            out.append(f"{name.title()} " + (_clock(*hours) if hours else "closed"))
        return ", ".join(out)


def _clock(open_: int, close: int) -> str:
    return f"{open_ // 60}:{open_ % 60:02d}-{close // 60}:{close % 60:02d}"


def _day_index(word: str) -> int:
    return next(i for i, day in enumerate(DAYS) if day.startswith(word.lower()[:3]))


def _opening_hours(value: Any, source_id: str) -> OpeningHours | None:
    """`{"Monday": "8:0-14:0", ...}` as `OpeningHours`, or None when it is not such a map."""
    if not isinstance(value, dict) or not value:
        return None
    days: list[tuple[int, int] | None] = [None] * 7
    for key, spec in value.items():
        name = str(key).strip().lower()
        m = _RECORD_HOURS.match(spec) if isinstance(spec, str) else None
        if name not in DAYS or m is None:
            return None
        h1, m1, h2, m2 = (int(g) for g in m.groups())
        open_, close = h1 * 60 + m1, h2 * 60 + m2
        days[DAYS.index(name)] = None if open_ == close == 0 else (open_, close)
    return OpeningHours(source_id, tuple(days))


def record_hours(response: AssembledResponse) -> list[OpeningHours]:
    """The `hours` maps of the JSON records among the documents and tool outputs."""
    out: list[OpeningHours] = []
    ctx = response.context
    records: list[tuple[Any, str]] = [(_parse(d.text), d.source_id) for d in ctx.documents]
    for tool in ctx.tool_results:
        output = _parse(tool.output) if isinstance(tool.output, str) else tool.output
        records.append((output, f"tool:{tool.tool}:{tool.call_id}"))
    for record, source_id in records:
        if isinstance(record, dict):
            hours = _opening_hours(record.get("hours"), source_id)
            if hours is not None:
                out.append(hours)
    for doc in ctx.documents:
        hours = text_hours(doc.text[:_MAX_HOURS_TEXT], doc.source_id)
        if hours is not None:
            out.append(hours)
    return out


_MAX_HOURS_TEXT = 20_000


def text_hours(text: str, source_id: str) -> OpeningHours | None:
    """Weekly hours stated in prose ("Opening hours: Monday to Saturday 9:00-20:00, Sunday
    closed"; "open Tuesday to Sunday, 10:00 to 18:00"). A day the text leaves out is taken as
    closed only when the open days were given as a range ("Tuesday to Sunday" says Monday is
    not one of them); days named one by one must cover the whole week."""
    if not _HOURS_WORDS.search(text):
        return None
    days: list[tuple[int, int] | None] = [None] * 7
    stated = [False] * 7
    ranged = False  # an "open Tuesday to Sunday" range: the days it leaves out are closed
    pending: set[int] = set()  # days of a clause whose times follow in the next one
    for clause in re.split(r"[,;.\n]|\band\b", text):
        named = _days_named(clause)
        times = _times_named(clause)
        if not named and pending and len(times) == 2:
            named, pending = pending, set()  # "open Tuesday to Sunday, 10:00 to 18:00"
        elif not named:
            pending = set()
            continue
        closed = _CLOSED.search(clause) is not None and not times
        if closed or len(times) == 2:
            said = None if closed else (times[0], times[1])
            if any(stated[day] and days[day] != said for day in named):
                # Two schedules in one text ("Zone H3 … Monday to Saturday, 8:30am to 6:30pm.
                # Zone H5 … Monday to Friday, 10am to 12 noon"): whose hours a claim states
                # is for the passage's words to tell, not one merged week.
                return None
            for day in named:
                days[day], stated[day] = said, True
            if not closed:
                ranged = ranged or _DAY_RANGE.search(clause) is not None
        elif not times and _OPEN_WORD.search(clause):
            pending = named
            ranged = ranged or _DAY_RANGE.search(clause) is not None
    if pending or not any(stated) or (not all(stated) and not ranged):
        return None
    return OpeningHours(source_id=source_id, days=tuple(days))


def _days_named(text: str) -> set[int]:
    days: set[int] = set()
    if _ALL_WEEK.search(text):
        days.update(range(7))
    if _WEEKDAYS.search(text):
        days.update(range(5))
    if _WEEKENDS.search(text):
        days.update((5, 6))
    covered: list[tuple[int, int]] = []
    for m in _DAY_RANGE.finditer(text):
        a, b = _day_index(m.group(1)), _day_index(m.group(2))
        days.update((a + k) % 7 for k in range((b - a) % 7 + 1))
        covered.append((m.start(), m.end()))
    for m in _DAY.finditer(text):
        if not any(s <= m.start() < e for s, e in covered):
            days.add(_day_index(m.group(0)))
    return days


def _times_named(text: str) -> list[int]:
    """Clock times of the claim as minutes after midnight; midnight is 0."""
    out: list[int] = []
    for m in _CLOCK.finditer(text):
        hour, minute, half, word, h24, m24 = m.groups()
        if word:
            out.append(0 if word.lower() == "midnight" else 12 * 60)
        elif h24 is not None:
            out.append(int(h24) % 24 * 60 + int(m24))
        else:
            h = int(hour) % 12 + (12 if half.lower().startswith("p") else 0)
            out.append(h * 60 + int(minute or 0))
    return out


def check_hours(text: str, hours: Sequence[OpeningHours]) -> CheckResult | None:
    """The hours check of one claim against the record's opening hours, or None when the claim
    states no days or times of opening, or the context has no hours.

    - times stated: each must be an opening or closing time of a day the claim names (of any
      open day when it names none), and each named day must be open;
    - days only, with "open"/"hours": each named day must be open; with "closed": closed.
    """
    if not hours:
        return None
    text = text[:_MAX_HOURS_CLAIM]
    times = _times_named(text)
    # Per clause: "open 8 am to 2 pm, closed on Mondays" names open days and closed ones.
    open_days: set[int] = set()
    closed_days: set[int] = set()
    for clause in re.split(r"[,;]|\bbut\b|\bexcept\b", text):
        named = _days_named(clause)
        (closed_days if _CLOSED.search(clause) else open_days).update(named)
    if not times and not ((open_days or closed_days) and _HOURS_WORDS.search(text)):
        return None
    record = hours[0]
    problems: list[str] = []
    for day in sorted(open_days | closed_days):
        is_open = record.days[day] is not None
        if is_open != (day in open_days):
            state = "open" if is_open else "closed"
            problems.append(f"{DAYS[day].title()} is {state}")
    day = 24 * 60
    if len(times) == 2 and open_days and _TIME_RANGE.search(text):
        # One opening and one closing time for the named days: each of them has exactly those.
        said = (times[0] % day, times[1] % day)
        for d in sorted(open_days):
            hours_d = record.days[d]
            if hours_d is not None and (hours_d[0] % day, hours_d[1] % day) != said:
                problems.append(f"{DAYS[d].title()} is {_clock(*hours_d)}")
    elif times:
        pool = [record.days[d] for d in open_days] if open_days else list(record.days)
        opened = [h for h in pool if h is not None]
        edges = {t % day for h in opened for t in h}
        # A time said of no opening or closing ("a 17:00 appointment works") only has to fall
        # inside the hours; "we open at 9:00" must be an edge.
        inside = bool(opened) and not _EDGE_WORDS.search(text)
        problems.extend(
            f"no hours {t // 60}:{t % 60:02d}"
            for t in times
            if t not in edges and not (inside and all(h[0] <= t % day < h[1] for h in opened))
        )
    if problems:
        return CheckResult(
            name="record",
            passed=False,
            detail=f"contradicts the record's hours ({'; '.join(problems)}): "
            f"{record.describe()} in {record.source_id}",
        )
    return CheckResult(
        name="record", passed=True, detail=f"agrees with the record's hours in {record.source_id}"
    )
