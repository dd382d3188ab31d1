"""Agent grounding: tool results as structured evidence, compared field by field.

An agent's tool calls arrive as `ToolResultItem`s (tool, call id, status, arguments, output).
Rendering them to text for the NLI model loses what matters most, so these checks read the
structure itself:

- `check_action`: "I have cancelled / refunded / sent / upgraded / booked ..." is backed only by
  a call whose tool names the same kind of action, whose `status` field is `ok`, and whose
  arguments or output hold the claim's identifiers, amounts (with currency) and dates. A failed,
  timed-out or cancelled call, or an ok call for another id, amount or date, contradicts the
  claim; no such call at all leaves it unbacked.
- `check_tool_facts`: a claim about an entity a tool returned (an order id it names, or "your
  order" when one lookup was made) is compared with that output field by field: status words,
  carriers, amounts, dates.
- `check_exception`: a commitment or exception (waive a fee, a free upgrade, a longer window,
  "we will make an exception") is backed only when a policy passage or a tool result grants it
  with the same kind of word.

`ground_in_tools` applies them to one claim and its text-level checks (`checks.run_checks`),
replacing the text-level action check. Everything is bounded: outputs are flattened to at most
`MAX_FIELDS` scalar fields, each value cut at `MAX_VALUE_CHARS`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import lru_cache
from itertools import pairwise
from typing import Any

from hallmon.schemas import CheckResult, Claim, Source, ToolResultItem
from hallmon.verification.checks import (
    _ACTION_DONE,
    _DENIES,
    _PAST,
    _WHEN_AFTER,
    NO_CHARGE,
    _claimed_families,
    _clause_around,
    _families,
    _identifiers,
    _names,
    _sentences_of,
    backed_figures,
    card_ending_before,
    in_injected,
    injected_text,
    needs_action_check,
    without_citation_markers,
)
from hallmon.verification.evidence import MINOR_UNIT_KEY, minor_digits, parse_json_record
from hallmon.verification.numbers import (
    ZONE_NAMES,
    Quantity,
    counts_in,
    counts_said,
    currency_agrees,
    dates_match,
    derived_from,
    distinct_quantities,
    extract_quantities,
    find_match,
    is_money,
    per_unit,
    same_time,
)
from hallmon.verification.sentences import sentence_before
from hallmon.verification.text import (
    CONDITION_OPENERS,
    NUMBER_WORDS,
    condition_before,
    content_tokens,
    first_unconditioned,
    negation_pattern,
    stem,
)
from hallmon.verification.tool_names import LOOKUP_VERBS, WRITE_VERBS, is_lookup, name_words

MAX_FIELDS = 200
MAX_CALL_AMOUNTS = 40
"""Amounts of one call the answer's arithmetic may start from (bounded: hostile outputs)."""
MAX_VALUE_CHARS = 500
MAX_DEPTH = 6

_CURRENCY_KEY = re.compile(r"(?:^|_)(eur|usd|gbp|chf|jpy|cad|aud)$", re.I)
_AMOUNT_KEY = re.compile(
    r"amount|total|price|cost|fee|refund|credit|charge|balance|sum|paid|value|payment|"
    r"instal|premium|rent|deposit|due",
    re.I,
)
_DATE_KEY = re.compile(
    r"date|eta|_at$|_on$|day|deadline|until|expires|arriv|deliver|effective|start|end|renew|"
    r"valid|begin|due|schedul",
    re.I,
)
# Said of when an action takes effect; and the fields that say when it does.
_IMMEDIATE = re.compile(
    r"\b(?:(?:effective\s+)?immediately|with\s+immediate\s+effect|right\s+away|"
    r"straight\s+away|as\s+of\s+(?:today|now)|effective\s+(?:today|now))\b",
    re.I,
)
_ISO_VALUE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
_WHEN_KEY = re.compile(r"effective|start|begin|valid_from|from$|schedul|takes_effect|as_of", re.I)
# Fields that say when the call's own event happened ("cancelled_at", "processed_on").
_EVENT_TIME_KEY = re.compile(r"_at$|_on$|^(?:timestamp|ts|time|now|as_of)$", re.I)
_CURRENCY_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY"}


@dataclass(frozen=True)
class ToolCall:
    """One tool call, flattened: `fields` maps a dotted key path to its scalar value as text."""

    source_id: str
    tool: str
    status: str
    fields: tuple[tuple[str, str], ...]
    currency: str | None
    # Names of the output's empty lists ("refunds" for {"refunds": []}): a lookup that found
    # nothing, which `_flatten` (scalars only) cannot show.
    empty: tuple[str, ...] = ()
    # The day the answer was given (ISO date), what "effective immediately" means; None when
    # unknown (an evaluation record without `ts`): then only the call's own times tell.
    answered_on: str | None = None

    @classmethod
    def of(cls, item: ToolResultItem, answered_on: str | None = None) -> ToolCall:
        fields = list(_flatten("arguments", item.arguments or {}))
        output: Any = item.output
        if isinstance(output, str):
            parsed = parse_json_record(output)
            output = parsed if parsed is not None else output
        fields += list(_flatten("output", output))
        fields = fields[:MAX_FIELDS]
        currency = next(
            (v.upper() for k, v in fields if k.rsplit(".", 1)[-1].lower() == "currency"), None
        )
        return cls(
            source_id=f"tool:{item.tool}:{item.call_id}",
            tool=item.tool,
            status=item.status,
            fields=tuple(fields),
            currency=currency,
            empty=tuple(_empty_lists(output)),
            answered_on=answered_on,
        )

    def values(self) -> set[str]:
        return {v.lower() for _, v in self.fields}

    def holds(self, ident: str) -> bool:
        """Whether an identifier (order number, email) is one of the call's values."""
        return any(_names(v, ident) for v in self.values())

    def amounts(self, other: bool = False) -> list[tuple[str, float, str | None]]:
        """(key, value, currency) of the amount-like numeric fields; with `other`, of the
        fields that are money only by their currency suffix (`original_eur`)."""
        out = []
        for key, value in self.fields:
            leaf = key.rsplit(".", 1)[-1]
            number = _as_number(value)
            cur = _CURRENCY_KEY.search(leaf)
            # "expected_route_pence" is money by its minor-unit suffix alone.
            money = _AMOUNT_KEY.search(leaf) is not None or MINOR_UNIT_KEY.search(leaf) is not None
            if number is None or money == other or (other and cur is None):
                continue
            code = cur.group(1).upper() if cur else self._currency_of(key)
            if MINOR_UNIT_KEY.search(leaf):
                number /= 10 ** minor_digits(code)
            out.append((key, number, code))
        return out

    def _currency_of(self, key: str) -> str | None:
        """The currency of an amount field: its object's `currency` ("destination.amount"
        beside "destination.currency"), a sibling named for it ("from_amount_minor" beside
        "from_currency"), an enclosing object's, else the call's first."""
        codes = {
            k: v.upper()
            for k, v in self.fields
            if k.rsplit(".", 1)[-1].lower().endswith("currency")
        }
        if not codes:
            return self.currency
        parent, _, leaf = key.rpartition(".")
        side = leaf.split("_", 1)[0]
        for candidate in (f"{parent}.{side}_currency", f"{parent}.currency"):
            if candidate in codes:
                return codes[candidate]
        while "." in parent:
            parent = parent.rsplit(".", 1)[0]
            if f"{parent}.currency" in codes:
                return codes[f"{parent}.currency"]
        return self.currency

    def dates(self) -> list[tuple[str, frozenset[str]]]:
        out = []
        for key, value in self.fields:
            # A failed call's error message names its dates anywhere ("reserved from ...").
            if (
                self.status == "ok"
                and not _DATE_KEY.search(key.rsplit(".", 1)[-1])
                and not _ISO_VALUE.match(value)
            ):
                continue  # an ISO value is a date whatever its key ("period": {"from": ...})
            found = [q for q in distinct_quantities(value) if q.dates]
            if found:
                out.append((key, frozenset().union(*(q.dates for q in found))))
        return out

    def times(self) -> list[tuple[str, frozenset[float]]]:
        """(key, minutes of the day) of the fields holding a time: ISO datetimes and clock
        times ("2026-12-07T15:00:00+00:00", "14:20")."""
        return self._time_fields(utc=False)

    def utc_times(self) -> list[tuple[str, frozenset[float]]]:
        """(key, minutes of the day in UTC) of the time fields whose zone is known."""
        return self._time_fields(utc=True)

    def _time_fields(self, *, utc: bool) -> list[tuple[str, frozenset[float]]]:
        out = []
        for key, value in self.fields:
            if not (_ISO_VALUE.match(value) or (not utc and _CLOCK_VALUE.fullmatch(value))):
                continue
            found = [q for q in distinct_quantities(value) if q.kind == "time"]
            readings = [q.utc for q in found if q.utc] if utc else [q.values for q in found]
            if readings:
                out.append((key, frozenset().union(*readings)))
        return out


_CLOCK_VALUE = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")


def _flatten(prefix: str, value: Any, depth: int = 0) -> Iterator[tuple[str, str]]:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in list(value.items())[:MAX_FIELDS]:
            yield from _flatten(f"{prefix}.{k}", v, depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value[:MAX_FIELDS]):
            yield from _flatten(f"{prefix}.{i}", v, depth + 1)
    elif value is not None:
        yield prefix, str(value)[:MAX_VALUE_CHARS]


def _empty_lists(value: Any, depth: int = 0) -> Iterator[str]:
    """The keys of the empty lists in an output (bounded like `_flatten`)."""
    if depth > MAX_DEPTH or not isinstance(value, dict):
        return
    for k, v in list(value.items())[:MAX_FIELDS]:
        if isinstance(v, list) and not v:
            yield str(k)
        else:
            yield from _empty_lists(v, depth + 1)


def _as_number(value: str) -> float | None:
    try:
        return float(value.replace(",", ""))
    except ValueError:
        return None


# Kinds of action the text-level checks do not name (checks._ACTION_FAMILIES), by stem.
_MORE_FAMILIES: dict[str, tuple[str, ...]] = {
    "upgrade": ("upgrad", "downgrad"),
    "extend": ("extend", "extension", "renew", "prolong"),
    "activate": ("activat", "enabl", "reinstat"),
    # Re-done actions are the same kind as the first time ("rebooked" is booking).
    "book": ("rebook", "reschedul", "reserv", "moved", "secured"),
    "send": ("resen", "re-sen", "resubmit"),
    # ("request_repeat_prescription": a request made is a thing created)
    # ("I've placed it with the Westcountry Gazette": `notices.submit`)
    "create": ("reissu", "reorder", "reopen", "request", "placed"),
    # operations on running systems ("I've run the rollout restart", "restarted the pod")
    # ("I tried to restart it" of `resume_migration`)
    "restart": ("restart", "reboot", "redeploy", "bounc", "resum"),
    "rollback": ("rollback", "undo", "revert"),
    "failover": ("failover", "switchover"),
    # starting or stopping a machine or a job ("I've started wm-07", `start_machine`)
    "start": ("start", "launch", "poweron", "switchon"),
    "stop": ("stop", "shutdown", "halt", "poweroff", "switchoff"),
    # "I've ordered a free replacement": `order_replacement`, `orders.create`
    "order": ("order",),
    # "I've redirected it to your neighbour": `parcel.redirect`
    "redirect": ("redirect", "rerout", "re-rout", "divert"),
    # "I've released the documentation hold": `customs.release_hold`
    "release": ("releas",),
    # "I've moved rental SS-48213 into unit C-207": `transfer_unit`, `move_booking`
    "move": ("moved", "move", "transfer", "relocat"),
    # "I've swapped it for the Salmon Orzo": `swap_recipe`, `exchange_item`
    "swap": ("swap", "switch", "exchang", "substitut"),
    # "I've skipped your December 15 delivery": `skip_shipment`
    "skip": ("skip",),
    # "I've uploaded your corrected invoice": `customs.upload_document`, `attach_file`
    "upload": ("upload", "attach"),
}
_MORE_VERBS = (
    r"(?:upgraded|downgraded|extended|renewed|prolonged|activated|enabled|reinstated|"
    r"rebooked|rescheduled|moved|resent|re-sent|reissued|reordered|reopened|resubmitted|restarted|"
    r"rebooted|redeployed|reverted|ordered|redirected|rerouted|re-routed|diverted|released|"
    r"swapped|switched|exchanged|substituted|relocated|skipped|uploaded|attached|put\s+(?:through|in)(?=\s+(?:the|a|an|your)\b)|"
    # "I've secured his place with the £50 deposit": a booking
    r"secured(?=\s+(?:your|his|her|their|the|a|an)\s+(?:[\w-]+\s+)?(?:place|spot|seat|space|slot|"
    r"booking|reservation|room|table|ticket|berth|pitch)s?\b)|"
    # "I've started wm-07", "stopped the pump": a machine or job by name or by kind
    r"(?:started|stopped|launched|shut\s+down|halted|switched\s+(?:on|off)|turned\s+(?:on|off)|"
    r"powered\s+(?:on|off))\s+(?=(?:the\s+|your\s+)?(?:[a-z]+[-_]?\d[\w-]*|machine|pump|"
    r"server|service|unit|engine|generator|fan|compressor|heater|boiler|job|container|"
    r"instance|node|host|valve|motor|wind\s+machine)\b)|"
    # "I've run the rollout restart", "triggered a failover"
    r"(?:run|ran|triggered|executed|kicked\s+off|performed)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+)?"
    r"(?:restart|reboot|redeploy|rollback|failover|switchover))"
)
_MORE_PAST = re.compile(
    r"\b(?:I|we)(?:'ve|’ve| have| had)?\s+(?:just\s+|now\s+|already\s+|also\s+|"
    r"(?:gone|went)\s+ahead\s+and\s+)*" + _MORE_VERBS + r"\b",
    re.I,
)


# "booking TS-3307 for 4 to 6 July is now cancelled": the thing's state after the action,
# whatever words name the thing (its verb names no date field)
_NOW_DONE = re.compile(
    r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+|just\s+|already\s+)*"
    + _PAST
    + r"\b",
    re.I,
)


def _kinds(text: str) -> list[str]:
    """Action kinds named in `text`: the text-level families, then hallmon's extra ones."""
    words = re.findall(r"[a-z]+", text.lower()[:2000])
    more = [
        k
        for k, stems in _MORE_FAMILIES.items()
        if any(w.startswith(st) for w in words for st in stems)
    ]
    return [*_families(text), *(k for k in more if k not in _families(text))]


def tool_calls(items: Sequence[ToolResultItem], answered_on: date | None = None) -> list[ToolCall]:
    day = answered_on.isoformat() if answered_on is not None else None
    return [ToolCall.of(item, day) for item in items]


# --- comparing a claim with one call ----------------------------------------------------------


def _claim_amounts(text: str) -> list[Quantity]:
    return [q for q in extract_quantities(text, True) if is_money(q) and q.values]


def _claim_dates(text: str) -> list[Quantity]:
    return [q for q in extract_quantities(text, True) if q.dates]


def _same_amounts(
    q: Quantity, fields: list[tuple[str, float, str | None]]
) -> list[tuple[str, float, str | None]]:
    """The (key, value, currency) amount fields whose value is the claimed amount `q`'s (a
    deduction's negative amount, `amount_pence: -1500`, is said by its size: "a £15.00 fee")."""
    return [
        f for f in fields if any(abs(abs(f[1]) - x) <= max(0.005, q.tolerance) for x in q.values)
    ]


_GENERIC_KEY_WORDS = frozenset(
    {"output", "argument", "date", "at", "on", "time", "day", "start", "end", "from", "to",
     "valu", "data", "result", "item", "detail", "info"}
)  # fmt: skip


# (a comma or colon between digits is inside a figure: "£72,100.00", "14:00")
_CLAUSE_SPLIT = re.compile(r"(?<!\d)[,:]|[,:](?!\d)|[;()]|\s(?:and|but|while|whereas|so)\s", re.I)


def _clause_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of `text`, split at `_CLAUSE_SPLIT`."""
    bounds = [0, *(m.end() for m in _CLAUSE_SPLIT.finditer(text)), len(text) + 1]
    return list(pairwise(bounds))


def _clauses(text: str) -> list[str]:
    """The clauses of a claim, at most 32 (a status or a name is read clause by clause)."""
    return [text[a:b] for a, b in _clause_bounds(text)][:32]


def _key_words(key: str) -> frozenset[str]:
    """The words of a field's name and its parent's that name what it is
    ("output.payment.date" -> payment; "containers.0.customs.hold.from" -> hold, not the
    list "containers" every element's field sits in)."""
    parts = [p for p in key.split(".") if not p.isdigit()][-2:]
    return content_tokens(" ".join(re.split(r"[_\d]+", " ".join(parts)))) - _GENERIC_KEY_WORDS


def _names_key(key_words: frozenset[str], words: frozenset[str]) -> bool:
    """Whether the claim's words name a field by its key words, also by a word that a key word
    makes a doer of ("the loan aid" names `loaner.issued_on`; "the final check" does not name
    `checkin_utc`)."""
    return bool(key_words & words) or any(
        len(w) >= 4 and k[len(w) :] in _DOER and k.startswith(w) for k in key_words for w in words
    )


_DOER = frozenset({"er", "or", "ee"})


_QUOTED = re.compile(r'"[^"\n]{1,300}"|“[^“”\n]{1,300}”')


def _worked_out_date(
    q: Quantity, call: ToolCall, stated: Sequence[Quantity], figures: Sequence[Quantity] = ()
) -> bool:
    """Whether a claim's date is a date of the call moved by a length the policy states
    ("report within 7 days, so by 6 December"); a length only the claim states is the
    agent's own ("an extra two weeks, until 12/29" is a promise to check, not arithmetic)."""
    # a due or end date is no start to move on from ("new_due: 2027-06-04" is no start of a
    # 6-month agreement running to 4 December 2027)
    held = [
        h
        for k, v in call.fields
        if not _END_KEY.search(k.rsplit(".", 1)[-1])
        for h in distinct_quantities(v)
        if h.kind == "date"
    ]
    # "up to 48 hours before": a length in hours moves a date only where the claim keeps the
    # call's time of day ("starts at 9:15 a.m. on December 9, so you can cancel until 9:15
    # a.m. on December 7"); else a policy's "24 hours" would back any date a day off
    # (not where the call states its own due or end date: "due: 2026-12-03" is when trays
    # received after the cut-off come back, whatever 24 hours from receipt would give)
    kept = any(f.kind == "time" and f.values & t for f in figures for _, t in call.times()) and (
        not any(_END_KEY.search(k.rsplit(".", 1)[-1]) for k, _ in call.dates())
    )
    hours = [d for d in stated if kept and d.unit == "hours" and d.duration_days]
    return derived_from(q, [*stated, *held][:400], own=hours) is not None


_END_KEY = re.compile(r"due|expir|end|until|deadline|valid_to|last_day|renews?_on", re.I)


def _shown_date(q: Quantity, figures: Sequence[Quantity], stated: Sequence[Quantity]) -> bool:
    """Whether a claim's date is another date the claim states moved by a length the policy
    states ("bought on 16 May 2026, so its 12-month guarantee runs until 16 May 2027"): the
    working shown."""
    own = [f for f in figures if f.dates and f is not q]
    return bool(own) and derived_from(q, [*own, *stated][:400]) is not None


def _as_quantities(amounts: Sequence[tuple[str, float, str | None]]) -> list[Quantity]:
    """A call's amounts as figures the answer's arithmetic may start from ("the remaining 15%,
    £2,760.00" of the invoice's `face_value`)."""
    return [
        Quantity("money", f"{v:g}", 0, 0, values=frozenset({v}), currency=c)
        for _, v, c in amounts[:MAX_CALL_AMOUNTS]
    ]


# Between an id and the amount said of it: "RFD-88412 for £549.00", "RFD-88412 (£549.00)";
# between an amount and the id after it: "£549.00 refund RFD-88412", "the £549.00 refund,
# RFD-88412" (not "the £30 fee and A-1042").
_TIED_AFTER = re.compile(
    r"\s*(?:\(|,|:|=|-|–|—)?\s*(?:(?:for|of|worth|totall?ing|amounting\s+to)\s+)?"
    r"(?:(?:the|a|an)\s+)?",
    re.I,
)
_TIED_BEFORE = re.compile(
    r"\s*(?:(?!(?:and|or|plus|minus|to|from|for|of|on|in|with|than|by)\b)[a-z]+\s*){0,2}"
    r"[,(]?\s*",
    re.I,
)


def _tied(text: str, q: Quantity, ident: str) -> bool:
    """Whether the claim says amount `q` of the thing `ident` names (see `_TIED_AFTER`)."""
    at = text.find(ident)
    if at < 0:
        return False
    if at + len(ident) <= q.start:
        return _TIED_AFTER.fullmatch(text, at + len(ident), q.start) is not None
    if q.end <= at:
        return _TIED_BEFORE.fullmatch(text, q.end, at) is not None
    return False


def _now_days(call: ToolCall, dates: Sequence[tuple[str, frozenset[str]]]) -> set[str]:
    """The days that count as "now" for a claim about the call (the answer's day, a day
    either side for zones), else the days of the call's own event times (`cancelled_at`,
    `created_at`), else none: what "immediately" is compared with, never the verifier's clock
    (an answer read a week later is as immediate as it was)."""
    if call.answered_on is not None:
        days = {call.answered_on}
    else:
        days = {
            day
            for key, found in dates
            if _EVENT_TIME_KEY.search(key.rsplit(".", 1)[-1])
            and not _WHEN_KEY.search(key.rsplit(".", 1)[-1])
            for day in found
        }
    out = set()
    for day in days:
        try:
            d = date.fromisoformat(day)
        except ValueError:
            continue  # a date without a year ("--12-04") anchors nothing
        out |= {(d + timedelta(days=n)).isoformat() for n in (-1, 0, 1)}
    return out


_RATE_KEY = re.compile(r"(?:^|_)(?:rate|fx_rate|exchange_rate|fx)$", re.I)
_PER_WORD = re.compile(r"\s*(?:per|a|to\s+(?:the|one)|for\s+(?:each|every|one)|/)\s*\w", re.I)


# Kinds of action that set a time (a booking, a move): their time is the call's new one.
_TIME_SETTING = frozenset({"book", "move", "update", "swap", "create", "reset", "start", "stop"})


_VALUE_LABEL = re.compile(
    r"\b(?:gate|seat|platform|bay|room|terminal|pier|stand|desk|counter|locker|lane|zone|row|"
    r"aisle|berth|cabin|pod|dock|door|slot|table|court|pitch|pump|stall)\s+$",
    re.I,
)


def _leaves_holding(calls: Sequence[ToolCall], ident: str) -> set[str]:
    """The field names whose values hold `ident` ("gate" for "B22")."""
    low = ident.lower()
    return {k.rsplit(".", 1)[-1].lower() for c in calls for k, v in c.fields if low in v.lower()}


def _labelled_value(claim_text: str, ident: str) -> bool:
    """Whether the claim says `ident` right after the name of the field it is a value of
    ("from gate B22", "seat 14C")."""
    at = claim_text.find(ident)
    return at > 0 and _VALUE_LABEL.search(claim_text[max(0, at - 12) : at]) is not None


def _card_digits(claim_text: str, ident: str) -> bool:
    """Whether the claim says `ident` as the last digits of a card or an account."""
    at = claim_text.find(ident)
    return ident.isdigit() and at >= 0 and card_ending_before(claim_text[:at])


_ID_VALUE = re.compile(r"^(?=[^\s]*\d)(?=[^\s]*[A-Za-z])[A-Za-z0-9][\w-]{3,}$")


def _holds_shape(call: ToolCall, ident: str) -> bool:
    """Whether the call holds another id of the identifier's shape ("C-119" beside "C-118"):
    then it is about that one, whatever a linked lookup holds."""
    shape = re.sub(r"\d", "9", ident.lower())
    return any(re.sub(r"\d", "9", v.lower()) == shape for _, v in call.fields)


def _linked(call: ToolCall, other: ToolCall) -> bool:
    """Whether two calls are about one record: an id-like value (letters and digits, like
    `SA-30417`) that both hold."""
    ids = {v for _, v in call.fields if _ID_VALUE.match(v)}
    return any(v in ids for _, v in other.fields if _ID_VALUE.match(v))


# A field that counts things ("guests": 2, "nights": 7, "quantity": 4)
_COUNT_LEAF = re.compile(
    r"^(?:guests|nights|days|quantity|qty|passengers|travell?ers|seats|tickets|units|items|"
    r"participants|adults|children|people|sessions|lessons|weeks|months)(?:_count)?$",
    re.I,
)


def _count_fields(call: ToolCall, elsewhere: Sequence[ToolCall]) -> tuple[int, ...]:
    """The small counts (2-20) the count fields of the calls hold, at most three."""
    held = {
        int(v)
        for c in (call, *elsewhere)
        for k, v in c.fields
        if v.isdigit() and len(v) <= 2 and _COUNT_LEAF.match(k.rsplit(".", 1)[-1])
    }
    return tuple(sorted(n for n in held if 2 <= n <= 20))[:3]


_AMOUNT_WORDS = frozenset(
    {
        *("amount", "cents", "pence", "minor", "value"),
        *("usd", "eur", "gbp", "cad", "aud", "nzd", "chf", "jpy", "sek", "nok", "dkk", "pln"),
    }
)


_MONEY_ROLES = frozenset(
    {"refund", "credit", "deposit", "fee", "charge", "payout", "balance", "net", "remaining",
     "rebate", "discount", "deduction", "excess", "deductible", "surcharge"}
)  # fmt: skip


def _names_other_amount(text: str, q: Quantity, call: ToolCall) -> bool:
    """Whether a word just before the amount names the role of an amount field of the call
    ("a refund of $128.00" of `refund_usd: 64`) and no field of that role holds the amount,
    read in major or minor units."""
    lo = max(0, q.start - 30)
    # (the words right before it, in its clause: not "€100.00 excess, we paid €145.00")
    prev = [m.end() for m in re.finditer(r"[\d,;:()]", text[lo : q.start])]
    window = text[lo + prev[-1] if prev else lo : q.start].lower()
    roles = set(re.findall(r"[a-z]+", window)[-2:]) & _MONEY_ROLES
    if not roles:
        return False
    named = [
        abs(v)
        for key, v, _ in call.amounts()
        if roles & set(re.findall(r"[a-z]+", key.rsplit(".", 1)[-1].lower()))
    ]
    tolerance = max(q.tolerance, 0.005)
    return bool(named) and not any(
        abs(r - x) <= tolerance for v in named for r in (v, v * 100, v / 100) for x in q.values
    )


def _names_amount_field(text: str, q: Quantity, call: ToolCall) -> bool:
    """Whether a word just before the amount names one of the call's amount fields ("pays a
    net €69,430" of `net_position_cents`): that field's value is what the amount is, not
    something the answer's other figures may work out."""
    before = set(re.findall(r"[a-z]+", text[max(0, q.start - 30) : q.start].lower())[-3:])
    return any(
        before & (set(re.findall(r"[a-z]+", key.rsplit(".", 1)[-1].lower())) - _AMOUNT_WORDS)
        for key, _, _ in call.amounts()
    )


def _compare(
    claim_text: str,
    call: ToolCall,
    elsewhere: Sequence[ToolCall] = (),
    stated: Sequence[Quantity] = (),
    *,
    beside_match: bool = True,
    also: Sequence[Quantity] = (),
) -> tuple[list[str], list[str], list[str]]:
    """(matched, mismatched, aside) descriptions of the claim's ids, amounts and dates against
    the call's fields. `aside` are the mismatches something else explains, which count only
    when nothing of the claim matched: an id or amount that another ok call of `elsewhere`
    holds ("I've refunded the £8.80 difference from the £28.40 you were charged to your card
    ending 4417": the lookup holds the £28.40 and the card), an amount the policy states
    (`stated`: "£7 more for each adult ticket") or the answer works out from the claim's other
    amounts ("so £33.95 in total"), and a date another call holds ("the payment from 3
    October"). With `beside_match` (an action's amount), an amount is explained only beside
    one that matched this call."""
    matched: list[str] = []
    mismatched: list[str] = []
    aside: list[str] = []  # mismatches another call explains, if this one matched anything
    idents = _identifiers(claim_text)
    # Calls about the same thing as this one: "a recall for wire FT2611270093 of $48,250.00"
    # against a recall call taking the wire's id and a lookup of that wire holding its amount.
    # (not by a card's last digits: one card pays for many things, "visa_4417" and `last4`)
    same_thing = [
        o
        for o in elsewhere
        if any(call.holds(i) and o.holds(i) and not _card_digits(claim_text, i) for i in idents)
    ]
    for ident in idents:
        if call.holds(ident):
            matched.append(ident)
        elif not _holds_shape(call, ident) and any(
            o.holds(ident) and _linked(call, o) for o in elsewhere if o.status == "ok"
        ):
            # "I've booked your move-out from unit C-118": the lookup that holds C-118 holds
            # the agreement SA-30417 the move-out call was made for; no mismatch, and no match
            # either (another id of the claim the call lacks still counts)
            continue
        elif any(o.holds(ident) for o in elsewhere) and not (
            beside_match and call.status == "ok" and _holds_shape(call, ident)
        ):
            aside.append(f"{ident} is not in the arguments or output of {call.tool}")
        else:
            # (an action's call holding another id of its shape was made for that one: "I've
            # resent INV-2026-1187" of `resend_invoice(INV-2026-1178)`, whatever the invoice
            # list holds)
            mismatched.append(f"{ident} is not in the arguments or output of {call.tool}")
    amounts = call.amounts()
    others = call.amounts(other=True)

    def same_as(q: Quantity, fields: list[tuple[str, float, str | None]]) -> bool:
        same = _same_amounts(q, fields)
        return bool(same) and all(currency_agrees(q, c) for _, _, c in same)

    def held_by(q: Quantity, calls: Sequence[ToolCall]) -> bool:
        return any(same_as(q, o.amounts()) or same_as(q, o.amounts(other=True)) for o in calls)

    # figures inside quotation marks are words quoted ('reads "E & T 12.06.27"'), not facts
    # compared with fields; the quote check reads them
    bare = _QUOTED.sub(lambda m: " " * len(m.group(0)), claim_text)
    figures = extract_quantities(bare, True)  # read once: amounts, dates and times
    claimed = [q for q in figures if is_money(q) and q.values] if amounts else []
    # ("a refund of $128.00" of `refund_usd: 64` beside `remaining_total_usd: 128`: the field
    # the claim names holds what the amount is)
    primary = [q for q in claimed if same_as(q, amounts) and not _names_other_amount(bare, q, call)]
    stated_money = [p for p in stated if is_money(p)]
    # counts the claim states, then those the calls' count fields hold ("guests": 2), as the
    # number check reads them
    counts = tuple(dict.fromkeys(counts_in(claim_text) + _count_fields(call, elsewhere)))
    # what a fact's amount may be worked out from (read once per call, not once per amount):
    # the claim's figures, then the calls' amounts before the policy's, as a derivation reads
    # only the first few figures of each kind
    worked_from = (
        [
            *figures,
            *_as_quantities([*amounts, *(a for o in elsewhere for a in o.amounts())]),
            *stated,
        ]
        if claimed and not beside_match
        else []
    )
    # "Refund RFD-88412 for £549.00": an amount said right beside an id this call holds is
    # that thing's amount, whatever another call or the policy holds
    tied = {id(q) for q in claimed if any(call.holds(i) and _tied(bare, q, i) for i in idents)}
    # an exchange rate said as money per unit ("188.47 yen per pound") is the call's `rate`
    rates = {
        round(n, 6)
        for k, v in call.fields
        if _RATE_KEY.search(k.rsplit(".", 1)[-1]) and (n := _as_number(v)) is not None
    }
    for q in claimed:
        if q in primary or (
            rates and _PER_WORD.match(bare, q.end) and {round(v, 6) for v in q.values} & rates
        ):
            matched.append(q.describe())
        elif (
            id(q) in tied
            and not same_as(q, others)
            and not held_by(q, same_thing)
            # "BRK-8813, a $25.00 mismatch ($91,000.00 vs $90,975.00)": worked out
            and derived_from(q, claimed, own=[c for c in claimed if c is not q]) is None
            and per_unit(q, bare, figures) is None
        ):
            said = ", ".join(f"{k.split('.', 1)[-1]}={v:g}{' ' + c if c else ''}"
                             for k, v, c in amounts[:3])  # fmt: skip
            mismatched.append(f"{q.describe()} differs from {call.tool}'s {said}")
        elif not beside_match and (
            find_match(q, stated_money) is not None or held_by(q, elsewhere)
        ):
            # a fact's amount the policy states ("minus a $15 cancellation fee") or another
            # call holds (the rateable value the property lookup returned)
            continue
        elif not beside_match and per_unit(q, bare, figures) is not None:
            continue  # "NZ$15.00 … (NZ$3.00 per GB)" of a 5GB add-on: worked out
        elif (
            not beside_match
            and derived_from(
                q,
                worked_from,
                # the claim's figures and the policy's amounts ("two winch launches come to
                # £24.00" at the policy's £12 a launch)
                own=[
                    *(c for c in figures if c is not q and c.kind in ("money", "percent")),
                    *stated_money,
                ],
                counts=counts,
                also=() if _names_amount_field(bare, q, call) else also,
            )
            is not None
        ):
            # a fact's amount the answer works out from the calls' and the policy's figures
            # ("the remaining 15%, £2,760.00" of the invoice's `face_value`), also from one the
            # answer worked out before ("… come to $8,420.75. … the $1,000 deductible comes off,
            # so the payment would be $7,420.75")
            continue
        elif not beside_match and same_as(q, others):
            # a fact's amount in a field that is money by its currency suffix alone
            # ("compensation up to £20" of `compensation_up_to_gbp: 20`)
            matched.append(q.describe())
        elif primary and same_as(q, others):
            # "I've refunded €30, half of your €60 order": the €60 is the call's
            # `original_eur`, said beside the amount that matched, not instead of it.
            matched.append(q.describe())
        else:
            said = ", ".join(f"{k.split('.', 1)[-1]}={v:g}{' ' + c if c else ''}"
                             for k, v, c in amounts[:3])  # fmt: skip
            # Only beside an amount that matched this call: "I've refunded €9.99" against a
            # €4.99 refund stays a mismatch, whatever the order lookup holds.
            held = held_by(q, same_thing) or (
                (bool(primary) or not beside_match)
                and (
                    held_by(q, elsewhere)
                    or find_match(q, list(stated)) is not None
                    # ("another £6.40 …, so you'll get £12.80 back in total": this call's
                    # amount and the other refund's)
                    or derived_from(
                        q,
                        [
                            *claimed,
                            *stated,
                            *_as_quantities([a for o in elsewhere for a in o.amounts()]),
                        ],
                        own=[c for c in claimed if c is not q],
                        counts=counts,
                    )
                    is not None
                )
            )
            (aside if held else mismatched).append(
                f"{q.describe()} differs from {call.tool}'s {said}"
            )
    dates = call.dates()
    today = _now_days(call, dates) if _IMMEDIATE.search(claim_text) else set()
    if today:
        # "Cancelled, effective immediately" against "effective": "2026-12-31".
        later = [(k, d) for k, d in dates if _WHEN_KEY.search(k.rsplit(".", 1)[-1])]
        if later and not any(d & today for _, d in later):
            said = ", ".join(f"{k.split('.', 1)[-1]}={sorted(d)[0]}" for k, d in later[:3])
            mismatched.append(f"'immediately' but {call.tool} says {said}")
    # The date fields the claim names ("payment … scheduled for 12/18": `payment.date`): a
    # date is compared with those when there are any, field by field, not with every date
    # of the call (the parts-return deadline that happens to be 18 December).
    # The verb of an action that sets no date ("I've cancelled booking TB-77364 … starting
    # 3 August") names no date field: the date is the thing's, not `cancelled_on`.
    done = _ACTION_DONE.search(bare) or _MORE_PAST.search(bare)
    kinds = _action_of(claim_text)[0] if done else []
    now = _NOW_DONE.search(bare) if done is None else None
    # "booking … for 4 to 6 July is now cancelled": dates before the verb are the thing's ("it
    # was issued on 18 March" keeps `issued_on`: the date is the verb's own), and the verb, not
    # the thing ("booking"), says what was done
    if now is not None and all(q.end <= now.start() for q in figures if q.dates):
        done, kinds = now, _kinds(now.group(0).split()[-1])
    verb_words = (
        content_tokens(done.group(0).split()[-1])
        if done and any(q.dates for q in figures) and not set(kinds) & _TIME_SETTING
        else frozenset()
    )
    for q in (q for q in figures if q.dates):
        if not dates:
            continue
        # the fields the date's own clause names ("effective immediately and good through
        # 05/30/2027": the date's clause names no field; "payment is scheduled for 12/18")
        words = content_tokens(_clause_around(bare, q.start, q.start, _CLAUSE_SPLIT)) - verb_words
        named = [(k, d) for k, d in dates if _names_key(_key_words(k), words)]
        in_elsewhere = any(dates_match(q.dates, d) for o in elsewhere for _, d in o.dates())
        in_stated = any(p.kind == "date" and dates_match(q.dates, p.dates) for p in stated)
        # "approved your leave for 22–26 June on 3 June": the named field's date (approved_at)
        # is another of the claim's dates, and this one is another field's (the leave's)
        accounted = any(dates_match(q.dates, d) for _, d in dates) and all(
            any(dates_match(p.dates, d) for p in figures if p is not q and p.dates)
            for _, d in named
        )
        if (
            named
            and not accounted
            and not any(dates_match(q.dates, d) for _, d in named)
            and not (in_elsewhere or in_stated)  # "so it covers you on 12/18" (the trip's)
            and not _shown_date(q, figures, stated)
        ):
            said = ", ".join(f"{k.split('.', 1)[-1]}={sorted(d)[0]}" for k, d in named[:3])
            mismatched.append(f"{q.describe()} differs from {call.tool}'s {said}")
        elif any(dates_match(q.dates, d) for _, d in dates):
            matched.append(q.describe())
        elif not beside_match and (
            in_stated
            or in_elsewhere
            or _worked_out_date(q, call, stated, figures)
            or _shown_date(q, figures, stated)
        ):
            # a fact's date the policy states ("after the November 20 deadline"), or works
            # out from the call's ("report within 7 days, so by 6 December")
            continue
        else:
            said = ", ".join(f"{k.split('.', 1)[-1]}={sorted(d)[0]}" for k, d in dates[:3])
            (aside if in_elsewhere else mismatched).append(
                f"{q.describe()} differs from {call.tool}'s {said}"
            )
    if beside_match:
        # an action's time ("moved to 14:20") is the call's, when the call states times
        times = call.times()
        clock = [q for q in figures if q.kind == "time"]
        # beside a time of this call, another call's time is context ("your 10:40
        # appointment moved to 15:00"); alone, a slot a search listed is not what was done
        timed = any(q.values & t for q in clock for _, t in times)
        zoned = call.utc_times() if any(q.utc for q in clock) else []
        for q in clock:
            if not times or any(q.values & t for _, t in times):
                continue
            if q.utc and any(q.utc & u for _, u in zoned):
                continue  # "1:00 PM Mountain time" is the call's 2026-12-10T20:00:00Z
            said = ", ".join(f"{k.split('.', 1)[-1]}" for k, _ in times[:3])
            # another call's time, or one a policy or an earlier turn states ("so your son can
            # take you after he finishes work at 1pm")
            held = (
                timed
                and (
                    any(q.values & t for o in elsewhere for _, t in o.times())
                    or any(p.kind == "time" and same_time(q, p) for p in stated)
                )
            ) or (
                # "I've cancelled his check-up at 9:15 tomorrow": the time of the thing acted
                # on, as a lookup of the same id holds it (not for a move, whose time is new)
                any(q.values & t for o in same_thing for _, t in o.times())
                and not set(_action_of(claim_text)[0]) & _TIME_SETTING
            )
            (aside if held else mismatched).append(
                f"{q.describe()} is not the time of {call.tool}'s {said}"
            )
    wrong_channel = _other_channel(bare, call)
    if wrong_channel is not None:
        mismatched.append(wrong_channel)
    return matched, mismatched, aside


# How a thing was sent, in the claim's words and in a call's `channel`/`method`/`via` field.
_CHANNELS: dict[str, tuple[str, ...]] = {
    "email": ("email", "e-mail", "emailed", "inbox"),
    "sms": ("sms", "text", "texted", "text message"),
    "post": ("by post", "posted", "letter", "by mail", "mailed"),
    # ("the call" is as often the tool call; "your phone" may be an SMS or an app)
    "phone": ("phone call", "voicemail"),
    "whatsapp": ("whatsapp",),
    "push": ("push", "app notification", "in-app"),
}
_CHANNEL_KEY = re.compile(
    r"^(?:channel|method|via|medium|send_via|delivery_method|sent_via)$", re.I
)
_CHANNEL_WORDS = {
    word: channel for channel, words in _CHANNELS.items() for word in words
}  # fmt: skip
_CHANNEL_RE = re.compile(
    r"\b(?:" + "|".join(sorted((re.escape(w) for w in _CHANNEL_WORDS), key=len, reverse=True))
    + r")\b",
    re.I,
)  # fmt: skip


def _other_channel(claim_text: str, call: ToolCall) -> str | None:
    """A way of sending the claim names ("to her personal email") that the call's channel
    field does not hold (`channel: sms`), when the claim names no channel the call holds."""
    held = {
        _CHANNEL_WORDS[v.lower()]
        for k, v in call.fields
        if _CHANNEL_KEY.match(k.rsplit(".", 1)[-1]) and v.lower() in _CHANNEL_WORDS
    }
    if not held:
        return None
    said = {_CHANNEL_WORDS[m.group(0).lower()] for m in _CHANNEL_RE.finditer(claim_text)}
    if not said or said & held:
        return None
    return f"sent by {', '.join(sorted(said))} but {call.tool} says {', '.join(sorted(held))}"


# --- actions ----------------------------------------------------------------------------------


# (past an amount: "submitted the £96 refund")
_OBJECT = re.compile(r"\s+(?:a|an|the|your)\s+(?:(?:[$€£]|US\$)?\d[\d,.]*\s+)?([a-z]{3,})\b", re.I)


_MONEY_NEXT = re.compile(
    r"\s+(?:the\s+|your\s+)?(?:[$€£]|US\$)\s?\d|\s+\d[\d,.]*\s?(?:USD|EUR|GBP)\b"
)


_TIME_NEXT = re.compile(r"\bto\s+(?:\d{1,2}[:.]\d{2}|\d{1,2}\s*(?:am|pm)\b)", re.I)


_USERS_OWN_ACT = re.compile(
    r"\b(?:that\s+|which\s+)?you(?:['’]ve|\s+have|['’]d|\s+had)?\s+(?:originally\s+|first\s+)?"
    r"[a-z]+ed\s+(?:with|on|from|through|by|under|in)\b",
    re.I,
)


def _action_of(claim_text: str) -> tuple[list[str], re.Match[str] | None]:
    """(the families of the action the claim reports, the done verb's match)."""
    # ("the card you booked with" names what the user did, no action of the agent's)
    named = _USERS_OWN_ACT.sub(" ", claim_text)
    families = _claimed_families(named)
    families += [k for k in _kinds(named) if k not in families]
    done = (
        _ACTION_DONE.search(claim_text)
        or _MORE_PAST.search(claim_text)
        or _PASSIVE_DONE.search(claim_text)
    )
    verb = _kinds(done.group(0).split()[-1]) if done else []
    if done and verb == ["update"] and re.match(r"\s+up\b", claim_text[done.end() :]):
        verb = ["create"]  # "I've set up your redirection" creates it
    if (
        done
        and re.search(r"mov", done.group(0).split()[-1], re.I)
        and _MONEY_NEXT.match(claim_text, done.end())
    ):
        verb = _kinds("transfer")  # "I moved $15,000.00 from your savings": money transferred
    if done and re.search(r"\bput\s+(?:through|in)$", done.group(0), re.I):
        verb = ["create"]  # "I've put through the repeat prescription": a request made
    if not verb and done and re.match(r"(?:I|we)\b[^.;]*\bpaid$", done.group(0), re.I):
        verb = ["charge"]  # "I've paid £35 towards PCN TB40219873" (not "it has been paid")
    if done and verb and set(verb) <= {"create", "apply"}:
        # "I've added a credit of £8.99", "applied a refund": a generic verb done to a favour
        # is the favour's kind too (`issue_credit`), read from the object right after it
        thing = _OBJECT.match(claim_text, done.end())
        kinds = _families(thing.group(1)) if thing else []
        verb = [*verb, *(k for k in kinds if k not in verb)]
    if "move" in verb and _TIME_NEXT.search(claim_text, done.end() if done else 0):
        # "I've moved the cortège's departure to 10:35": a time changed by an update call
        verb = [*verb, "update"]
    if verb == ["order"]:
        # "I've ordered a replacement": ordering is done by whatever call makes the thing
        # ordered (`issue_replacement`), so the object's kinds count beside it
        verb = ["order", *(f for f in families if f != "order")]
    if verb:
        # The verb names the action ("delivered" is shipping, whatever the sentence is about);
        # the object counts only for verbs of no family ("issued a refund").
        families = verb
    return families, done


# The agent's own report of something done, whatever the verb ("I've cleared the MFA methods"):
# the words after it are what it was done to.
_I_DID = re.compile(
    r"\b(?:I|we)(?:'ve|’ve|\s+have)\s+(?:just\s+|now\s+|also\s+|already\s+|gone\s+ahead\s+and\s+)*"
    r"(?:had\s+|got\s+)?(?P<verb>[a-z]+ed|set|reset|sent|put|run|taken|made|done|wiped|shut)\b"
    r"(?P<rest>[^.;!?]{0,120})",
    re.I,
)
# Words of a tool's name that say nothing of what it acts on.
_GENERIC_NAME_WORDS = LOOKUP_VERBS | WRITE_VERBS | frozenset(
    {"api", "v1", "v2", "request", "job", "task", "item", "record", "records", "data", "new",
     "customer", "account", "user", "my", "by", "for", "to", "of", "and", "all"}
)  # fmt: skip


def _failed_namesake(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """The agent says it did something (any verb) to a thing that only a call that failed, timed
    out or was cancelled was named for, and no call that succeeded: "I've cleared the MFA
    methods on your account" after `entra.reset_mfa_methods` timed out. The thing is read from
    the call's name without its namespace (the vendor, which answers name too) and its verbs,
    and must share two of its words with the claim, or its one word."""
    done = _I_DID.search(claim_text)
    if done is None:
        return None
    said = {stem(w) for w in re.findall(r"[a-z0-9]+", done.group("rest").lower())}

    def thing(call: ToolCall) -> set[str]:
        words = name_words(call.tool.split(".", 1)[-1])
        return {stem(w) for w in words if w not in _GENERIC_NAME_WORDS and len(w) >= 3}

    def named(call: ToolCall) -> bool:
        mine = thing(call)
        shared = mine & said
        return bool(mine) and len(shared) >= min(2, len(mine))

    writes = [c for c in calls if not is_lookup(c.tool) and named(c)]
    if not writes or any(c.status == "ok" for c in writes):
        return None
    failed = writes[0]
    return CheckResult(
        name="action",
        passed=False,
        detail=f"the claim that it was done is not backed: tool {failed.tool} "
        f"({failed.source_id}) returned status {failed.status}",
    )


def _failed_attempt(claim_text: str, calls: Sequence[ToolCall]) -> ToolCall | None:
    """A call that tried the claim's action and did not succeed, when none of its kind did
    ("Your return flight has been upgraded" after `request_upgrade` returned an error)."""
    families, _ = _action_of(claim_text)
    if not families:
        return None
    tried = [c for c in calls if not is_lookup(c.tool) and set(families) & set(_kinds(c.tool))]
    idents = _identifiers(claim_text)
    if idents:  # the attempts on the claim's thing ("VL 117"), not those on another
        tried = [c for c in tried if any(c.holds(i) for i in idents)]
    if any(c.status == "ok" for c in tried):
        return None
    return next((c for c in tried if c.status != "ok"), None)


# Kinds of action that make a thing, which a call that only creates may have done.
_MADE = frozenset({"book", "create", "order"})
# Actions that change a value a call updates (a move, a swap, an upgrade)
_CHANGES = frozenset({"move", "swap", "upgrade"})


def check_action(
    claim_text: str, calls: Sequence[ToolCall], stated: Sequence[Quantity] = ()
) -> CheckResult:
    """A claimed action needs an ok call of the same kind whose fields match the claim."""
    families, done = _action_of(claim_text)
    what = families[0] if families else "the action"
    if not calls:
        return CheckResult(
            name="action",
            passed=False,
            detail=f"no tool result backs the claim that {what} was done: no tool was called",
        )
    everything = calls
    # A lookup ("shipments.track", "getOrder") reports a state; it never did the action.
    calls = [c for c in calls if not is_lookup(c.tool)]
    candidates = [c for c in calls if set(families) & set(_kinds(c.tool))]
    if not candidates and families:
        candidates = [c for c in calls if families[0] in _kinds(" ".join(k for k, _ in c.fields))]
    if not candidates and families and set(families) <= _MADE:
        # "I've reserved loan laptop LT-0219 under loan LN-33071": `loans.create_loan` made
        # the thing reserved; a call that only creates, holding the claim's ids, is its kind
        idents = [i for i in _identifiers(claim_text) if not _card_digits(claim_text, i)]
        candidates = [
            c
            for c in calls
            if idents and set(_kinds(c.tool)) <= {"create"} and all(c.holds(i) for i in idents)
        ]
    if not candidates and set(families) & _CHANGES:
        # "I've moved you from Home 100 to Home 300": `plans.change_plan` changed the value
        candidates = [c for c in calls if "update" in _kinds(c.tool)]
    if not candidates and done is not None:
        # "I've added a note about the knee pain": the booking call took a `note` argument.
        obj = _OBJECT.match(claim_text[done.end() :])
        if obj is not None:
            noun = obj.group(1).lower()
            candidates = [
                c
                for c in calls
                if any(
                    k.startswith("arguments.") and k.rsplit(".", 1)[-1] == noun for k, _ in c.fields
                )
                # "I've added a note to order MS-50288": `update_delivery_notes`, a call named
                # for what was added
                or (not is_lookup(c.tool) and stem(noun) in {stem(w) for w in name_words(c.tool)})
            ]
    called = ", ".join(sorted({c.tool for c in calls}))
    if not candidates:
        if not families:
            return CheckResult(
                name="action",
                passed=None,
                detail=f"could not tell which action the claim reports; tools called: {called}",
            )
        return CheckResult(
            name="action",
            passed=False,
            detail=f"no tool result for '{what}'; tools called: {called}",
        )
    failures: list[str] = []
    for call in candidates:
        if call.status != "ok":
            failures.append(f"tool {call.tool} ({call.source_id}) returned status {call.status}")
            continue
        elsewhere = [c for c in everything if c is not call and c.status == "ok"]
        matched, mismatched, aside = _compare(claim_text, call, elsewhere, stated)
        mismatched += [] if matched else aside
        if done is not None:  # the count the done verb takes ("added the 5 seats")
            mismatched += _other_counts(claim_text[done.end() : done.end() + 30], call)
        if mismatched:
            failures.append("; ".join(mismatched) + f" ({call.source_id}): mismatch")
            continue
        backed = f" for {', '.join(matched)}" if matched else ""
        return CheckResult(
            name="action",
            passed=True,
            detail=f"tool {call.tool} ({call.source_id}) returned status ok{backed}",
        )
    return CheckResult(
        name="action",
        passed=False,
        detail=f"the claim that {what} was done is not backed: " + "; ".join(failures),
    )


_COUNT = re.compile(
    # (not the digits of an id: "order CL-2207 for your two boards", nor of an amount:
    # "£22.95 for the one bottle")
    # ("two reams": a count in words too, from two; "one" is as often a pronoun)
    r"(?<![\w.,:£$€-])(?P<n>\d{1,4}|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve)\s+(?:(?:more|new|extra|additional)\s+)?(?P<noun>[a-z]{3,})\b",
    re.I,
)
# Words after a number that count no things ("within 5 working days", "95 for"): a generic
# count argument (qty) is no reading of them.
_NOT_COUNTED = frozenset(
    {"for", "and", "but", "the", "with", "from", "per", "each", "working", "business",
     "calendar", "days", "day", "hours", "hour", "minutes", "minute", "weeks", "week", "months",
     "month", "years", "year", "nights", "night", "times", "percent", "pence", "cents"}
)  # fmt: skip
_COUNT_KEYS = frozenset({"quantity", "qty", "count", "number"})


def _other_counts(claim_text: str, call: ToolCall) -> list[str]:
    """Counts in `claim_text` (the words after the done verb: "[added] the 5 seats") that the
    call was asked for otherwise: an argument named quantity/qty/count, or after the counted
    noun ("seats"), holding another number ({"quantity": 3})."""
    out = []
    for m in _COUNT.finditer(claim_text):
        word = m.group("n").lower()
        n = float(word) if word.isdigit() else float(NUMBER_WORDS[word])
        noun = _singular(m.group("noun"))
        if m.group("noun").lower() in _NOT_COUNTED:
            continue
        asked = [
            (k, v)
            for k, v in call.fields
            if k.startswith("arguments.")
            and (
                k.rsplit(".", 1)[-1].lower() in _COUNT_KEYS
                or _singular(k.rsplit(".", 1)[-1].lower()) == noun
            )
            and _as_number(v) is not None
        ]
        if asked and all(_as_number(v) != n for _, v in asked):
            said = ", ".join(f"{k.split('.', 1)[1]}={v}" for k, v in asked[:3])
            out.append(f"'{m.group(0)}' but {call.tool} was asked for {said}")
    return out


# --- facts read from tool output ----------------------------------------------------------------

# fmt: off
_UNIT_STATE_WORDS = ("out of order", "available", "unavailable", "in use", "blocked")
_STATUS_WORDS = (
    # (before "on its way": the longer alternative first)
    "on its way back", "on the way back",
    "being prepared", "in preparation", "preparing", "on its way", "on the way", "en route",
    "shipped", "delivered", "pending", "processing", "cancelled", "canceled", "refunded",
    "returned", "in transit", "out for delivery", "on hold", "confirmed", "dispatched",
    "active", "inactive", "suspended", "expired", "approved", "rejected", "declined", "open",
    "closed", "resolved", "paid", "unpaid", "failed", "completed", "booked", "lost", "delayed",
    "overdue", "past due", "draft", "scheduled", "degraded", "operational", "received",
    "cleared", "settled", "come back", "came back", "signed off", "finalised", "finalized",
    # "it's still waiting for your approval" of `proof_status: awaiting_approval`
    "awaiting approval", "awaiting your approval", "waiting for approval",
    "waiting for your approval", "awaiting payment", "awaiting your payment",
    "waiting for payment", "waiting for your payment",
    # a unit's or a card's state ("PHT-22-2 is available" of `status: out_of_order`)
    *_UNIT_STATE_WORDS,
    # a claim or an application in review ("is still under assessment")
    "under assessment", "being assessed", "under review", "being reviewed", "in review",
)
_ATTEMPT_SUBJECT = re.compile(
    r"\b(?:my|our|the|your|that|this)\s+(?:[\w-]+\s+)?(?:request|call|attempt|change|"
    r"cancellation|deletion|reschedule|rebooking|move|update|exchange|submission)\b"
    r"[^.;!?]{0,60}?\b(?:was|were|got|has\s+been|have\s+been|came\s+back)\s+(?:also\s+)?$",
    re.I,
)
_ATTEMPT_TOLD = re.compile(
    r"\b(?:request|call|attempt|change|move|reschedule|rebooking|exchange|cancellation|deletion|"
    r"update|transfer)\b[^.;!?]{0,80}?\b(?:was|were|got|has\s+been|came\s+back)\s+(?:\w+\s+)?"
    r"(?:cancell?ed|canceled|stopped|withdrawn|rejected|declined|refused|aborted)\b"
    r"|\bI\s+(?:stopped|withdrew|called\s+off|held\s+off\s+on)\s+the\b",
    re.I,
)
_UNIT_STATES = frozenset(_UNIT_STATE_WORDS)
_ID_SUBJECT = re.compile(
    r"[\w-]*\d[\w-]*\s+(?:is|are|was|were|['’]s)\s+(?:now\s+|still\s+|currently\s+|already\s+)?$",
    re.I,
)
_CARRIERS = (
    "dhl", "ups", "fedex", "usps", "dpd", "gls", "hermes", "royal mail", "colissimo",
    "postnl", "tnt", "amazon logistics", "canada post", "la poste", "parcelforce", "evri",
    "yodel", "dx", "inpost", "australia post", "startrack", "aramex", "sendle", "nz post",
    "new zealand post", "purolator", "canpar", "ontrac", "lasership", "correos", "seur", "bpost",
    "postnord", "chronopost", "deutsche post", "japan post", "yamato", "sagawa", "sf express",
    "an post", "fastway",
)
# fmt: on
# "It should be delivered by Wednesday": what is expected, not the status now.
_MODAL_BEFORE = re.compile(
    # ("transfers can be cancelled free of charge while …": what can be done, no status)
    r"(?:\b(?:will|should|would|could|can|cannot|may|might|must|expected\s+to|due\s+to|going\s+to|"
    r"to)|['’]ll|can['’]t)\s+(?:\w+\s+)?be\s+(?:\w+\s+)?$",
    re.I,
)
# "It's only confirmed once we've received payment", "whether or not the funds are returned",
# "applied to your invoice rather than paid in cash": a status on a condition, or denied.
_CONDITION_BEFORE = re.compile(
    # ("… falls in the 60-to-119-day band, where 40% of the booth fee is refunded": a rule)
    # (a figure's decimal point or thousands comma ends no clause: "until the £170.00 is paid")
    r"\b(?:only|once|until|unless|if|when|whether|where|before)\b(?:[^,;:.!?]|(?<=\d)[.,](?=\d))*$"
    r"|\b(?:rather\s+than|instead\s+of)\s+(?:being\s+)?$"
    # "Once the review clears, the account is paid within 1 business day": the consequence of
    # a condition that opens the sentence is no more the state now than the condition is.
    r"|(?:^|[.;:!?*]\s*)(?:once|if|when|whenever|after|as\s+soon\s+as)\b[^.;:!?]*,[^,;.:!?]*$",
    re.I,
)
_BEING_BEFORE = re.compile(r"\bbeing\s+$", re.I)
_BEING_DONE = frozenset({"paid", "shipped", "delivered", "returned", "dispatched"})
_RESULT_KEYS = frozenset({"result", "outcome", "verdict", "test_result"})
_PASSED = re.compile(
    r"\b(?:has|have|had|was|were|is|are)\s+(?:now\s+|already\s+)?passed\b(?!\s+(?:on|to)\b)", re.I
)
_CONDITION_AFTER = re.compile(r"\s+(?:only\s+)?(?:once|if|unless|until|provided)\b", re.I)
_ATTRIBUTIVE_BEFORE = re.compile(r"\b(?:the|your|a|an|this|that|his|her|their|our)\s+$", re.I)


def _attributive_other(text: str, m: re.Match[str], calls: Sequence[ToolCall]) -> bool:
    """Whether a status word stands before a noun ("the cancelled … trip") that no call's name
    speaks of: an adjective of another thing."""
    if not _ATTRIBUTIVE_BEFORE.search(text[max(0, m.start() - 8) : m.start()]):
        return False
    after = [stem(w) for w in re.findall(r"[a-z]+", text[m.end() : m.end() + 40].lower())[:3]]
    if not after:
        return False
    # (the calls' names and field names: "your delivered parcel" of `parcel_id`)
    named = {stem(w) for c in calls for w in name_words(c.tool)} | {
        stem(w) for c in calls for k, _ in c.fields[:200] for w in re.findall(r"[a-z]+", k.lower())
    }
    return not set(after) & named


_UNDER_AFTER = re.compile(r"\s+under\s+(?!way\b|review\b|assessment\b|investigation\b)", re.I)
_TIMEFRAME_AFTER = re.compile(
    # ("is then paid out within 10 days of the decision")
    r"\s+(?:(?:out|back|over|across)\s+)?(?:within|in\s+(?:up\s+to\s+)?\d|after\s+\d|"
    r"no\s+later\s+than|inside\s+of)",
    re.I,
)
_DENIED_BEFORE = re.compile(
    r"(?:\b(?:not|never|no\s+longer)|n['’]t)\s+(?:(?:yet|been|being|be|treated|marked|shown|"
    r"listed|recorded|counted|it|them|this|as|fully)\s+){0,4}$"
    # "there's no new request pending", "because no second admin approved it"
    r"|\bno\s+(?!longer\b|later\b|more\b)(?:[\w-]+\s+){1,3}$"
    # "so nothing has been refunded": of nothing, no status
    r"|\b(?:nothing|none\s+of\s+(?:it|them))\s+(?:has|have|had|was|were|is|got)\s+(?:yet\s+)?"
    r"(?:been\s+)?$",
    re.I,
)
# "our handling fee for processing it through customs": an activity a preposition names, no
# status of the thing
_GERUND_BEFORE = re.compile(r"\b(?:for|by|of|after|before|without|while|from)\s+$", re.I)
# "You've already paid $220": what someone did, not the state of the thing.
_DONE_BY = re.compile(
    r"\b(?:you|we|i|they)(?:['’]ve|['’]d|\s+have|\s+had)?\s+(?:already\s+|just\s+|now\s+)?$", re.I
)
_METHOD_AFTER = re.compile(
    r"\s+(?:with|using|via|through)\s+(?:your\s+|the\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:card|cash|bank|transfer|paypal|cheque|check|voucher|gift|direct\s+debit|account)\b",
    re.I,
)
_YOU_BEFORE = re.compile(r"\b(?:you|we)\s+(?:originally\s+|first\s+|just\s+)?$", re.I)
_WITH_AFTER = re.compile(r"\s+(?:it\s+|them\s+)?(?:with|through|via|using|under)\b", re.I)
_TO_VERSION = re.compile(r"\s+(?:from\s+v?\d[\w.-]*\s+)?to\s+v?\d", re.I)
_PAIRED = re.compile(r"\s*/\s*\w")
# "lost/stolen check", "payment.refunded" (an event's type)
_PAIRED_BEFORE = re.compile(r"\w\s*/\s*$|\w[._]$")
_OBJECT_AFTER = re.compile(
    # "returned a potential match", "your endpoint returned 200"
    r"\s+(?:(?:a|an|one|two|three|no|several|some|\d+)\s+\w|\d{3}\b)",
    re.I,
)
# "I've provisionally booked the hall": a provisional booking, whatever the verb.
_PROVISIONALLY = re.compile(r"\b(?:provisionally|tentatively)\s+$", re.I)
_STATUS_RE = re.compile(
    r"\b(" + "|".join(w.replace(" ", r"\s+") for w in _STATUS_WORDS) + r")\b", re.I
)
_CARRIER_RE = re.compile(
    r"\b(" + "|".join(w.replace(" ", r"\s+") for w in _CARRIERS) + r")\b", re.I
)
_ENTITY = re.compile(
    r"\byour\s+(?:[\w-]+\s+)?(order|refund|booking|reservation|ticket|subscription|account|"
    r"package|shipment|parcel|delivery|payment|return|claim|appointment|flight|invoice|plan|"
    r"membership|loan|card|contract|lease|warranty|pass|permit|policy|licen[cs]e)s?\b",
    re.I,
)


def _carriers(call: ToolCall) -> set[str]:
    """The carriers a call names, with the known carrier a service's name starts from
    ("Royal Mail Tracked 48" is also Royal Mail)."""
    named = {v.lower() for k, v in call.fields if "carrier" in k.lower() or "courier" in k.lower()}
    return named | {
        re.sub(r"\s+", " ", m.group(1).lower()) for v in named for m in _CARRIER_RE.finditer(v)
    }


_CARRIED = re.compile(
    r"\b(?:deliver\w*|ship\w*|courier|carrier|dispatch\w*|posted|sent|track\w*|transit|"
    r"parcel|package|collect\w*)\b",
    re.I,
)


def _carrier_said(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A carrier named in a claim that names no order ("They're being delivered by Royal
    Mail"), against the carriers the successful calls give: one of them, or a mismatch."""
    said = {
        m.group(1).lower()
        for m in _CARRIER_RE.finditer(claim_text)
        if not claim_text[: m.start()].endswith("-")  # "top-ups", "sign-ups"
    }
    if not _CARRIED.search(claim_text):
        return None
    held = set().union(*(_carriers(c) for c in calls if c.status == "ok"))
    if not said or not held:
        return None
    if said & held:
        # (not the carrier's own verb: "being delivered by DPD")
        rest = re.sub(
            r"\b\w+\s+(?:by|with|via)\s+" + _CARRIER_RE.pattern, " ", claim_text, flags=re.I
        )
        if _STATUS_RE.search(rest):
            # "Evri scanned your parcel in, so it has been dispatched": the carrier agrees,
            # the state said beside it is not compared here, so the carrier decides nothing
            return CheckResult(
                name="tool_fact",
                passed=None,
                detail=f"carrier {sorted(said & held)[0]} agrees; the state said is not read",
            )
        return CheckResult(
            name="tool_fact", passed=True, detail=f"carrier {sorted(said & held)[0]}"
        )
    return CheckResult(
        name="tool_fact",
        passed=False,
        detail=f"carrier '{sorted(said)[0]}' but the calls say {', '.join(sorted(held))}: mismatch",
    )


_REFUSALS = frozenset({"rejected", "declined", "refused", "denied", "failed", "unsuccessful"})


def _error_says(said: str, idents: Sequence[str], calls: Sequence[ToolCall]) -> bool:
    """Whether a failed call's output names one of the claim's ids and says the status word
    ("ALREADY_REFUNDED: Booking BK-55139 was refunded on 2026-12-03")."""
    word = re.compile(rf"\b{re.escape(said)}\b", re.I)
    return any(
        c.status != "ok"
        and any(c.holds(i) for i in idents)
        and any(key.startswith("output.") and word.search(v) for key, v in c.fields)
        for c in calls
    )


def _refused_attempt(text: str, said: str, calls: Sequence[ToolCall]) -> bool:
    """A refusal said of an attempt ("the cancellation was rejected") that a call of that
    kind failed on: the attempt's outcome, not a status of the thing it was about."""
    if said not in _REFUSALS:
        return False
    m = re.search(rf"\b{re.escape(said)}\b", text, re.I)
    # (what was attempted, not the thing: "the order was rejected" names no attempt)
    before = set(_kinds(text[max(0, m.start() - 40) : m.start()])) - {"order"} if m else set()
    return bool(before) and any(c.status != "ok" and before & set(_kinds(c.tool)) for c in calls)


def _norm_status(word: str) -> str:
    # "in_transit", "in-transit", "In Transit" are one status.
    w = " ".join(re.split(r"[\s_\-]+", word.lower().strip()))
    return _STATUS_ALIASES.get(w, w)


_STATUS_ALIASES = {
    "canceled": "cancelled",
    "dispatched": "shipped",
    "being prepared": "preparing",
    "in preparation": "preparing",
    "on its way": "on the way",
    "on its way back": "on the way back",
    "en route": "on the way",
    "came back": "come back",
    "finalized": "finalised",
    "awaiting your approval": "awaiting approval",
    "waiting for approval": "awaiting approval",
    "waiting for your approval": "awaiting approval",
    "awaiting your payment": "awaiting payment",
    "waiting for payment": "awaiting payment",
    "waiting for your payment": "awaiting payment",
    # a charger's connector or a unit in use, or out of order, in the tool's own words
    "charging": "in use",
    "occupied": "in use",
    "out of service": "out of order",
    "faulted": "out of order",
    "being assessed": "under assessment",
    "being reviewed": "under review",
    "in review": "under review",
}
# money or goods that arrived, whatever was done with them since ("your deposit has been
# received" is false of a `pending` deposit, true of a `paid` or `processing` one)
_ARRIVED = {"received", "paid", "cleared", "settled", "completed", "complete", "succeeded",
            "success", "delivered", "processing", "processed", "confirmed", "accepted",
            "applied", "credited", "posted", "returned", "refunded", "inspected", "closed",
            "deposited"}  # fmt: skip
# Words a claim uses for a stage that a tool names in several ways: "being prepared" holds for
# a `preparing` or `accepted` order, "on its way" for a shipped or out-for-delivery one.
_STAGES = {
    # an invoice "overdue" is unpaid past its date ("is now 14 days overdue" of `unpaid` with
    # `days_overdue: 14`)
    "overdue": {"overdue", "past due", "unpaid", "outstanding", "due"},
    "past due": {"overdue", "past due", "unpaid", "outstanding", "due"},
    "preparing": {"preparing", "processing", "pending", "accepted", "confirmed", "received"},
    "on the way": {"on the way", "shipped", "in transit", "out for delivery", "picked up"},
    # money on its way back to a card is a refund under way, a parcel one in transit
    "on the way back": {"on the way", "shipped", "in transit", "out for delivery", "picked up",
                        "returning", "initiated", "submitted", "processing", "processed",
                        "issued", "sent", "refunded", "approved", "completed", "paid"},
    # (an order just placed and paid is booked: "Everything's booked: order VC-7 has been paid")
    "booked": {"booked", "confirmed", "scheduled", "reserved", "paid", "created"},
    # a task or an order done and closed was paid for ("was booked and paid through TaskNest"
    # of a `completed` task)
    "paid": {"paid", "completed", "complete", "settled", "captured", "succeeded"},
    # a visit or an appointment that is scheduled or booked is confirmed
    "confirmed": {"confirmed", "booked", "scheduled", "reserved", "accepted"},
    # a message or a webhook "delivered" is one whose delivery `succeeded`
    "delivered": {"delivered", "succeeded", "success", "sent", "acknowledged"},
    "provisional": {"provisional", "tentative", "held", "on hold", "pending", "unconfirmed",
                    "awaiting payment", "reserved"},
    "received": _ARRIVED,
    # a test or a parcel that "has come back": resulted, returned, reported
    "come back": {"resulted", "completed", "complete", "final", "reported", "returned",
                  "received", "available", "ready", "back", "done"},
    "cleared": _ARRIVED,
    # a result "finalised" is final, whatever the record calls it
    "finalised": {"final", "finalised", "complete", "completed", "resulted", "reported",
                  "released", "verified", "authorised", "authorized"},
    # a check or a piece of work "signed off" is passed, approved or done
    "signed off": {"signed off", "passed", "approved", "complete", "completed", "done",
                   "accepted", "closed"},
    "settled": _ARRIVED,
    # a service whose work is "delayed" is degraded ("photo uploads have been delayed" of a
    # `degraded` component)
    "delayed": {"delayed", "degraded", "slow", "late", "partial outage"},
    # an incident or ticket still being worked on is open, whatever its stage
    "open": {"open", "investigating", "identified", "monitoring", "in progress", "acknowledged",
             "assigned", "new", "reopened", "triaged", "pending"},
    # an incident still being worked on is active ("an active incident, INC-40218" of one
    # whose status is `identified`)
    "active": {"active", "investigating", "identified", "monitoring", "in progress",
               "ongoing"},
}  # fmt: skip


_FINISHED = frozenset({"finalised", "come back", "signed off"})


def _about(claim_text: str, calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The ok calls a claim talks about: those holding one of its identifiers, else, for
    "your order" and the like, the one call whose fields name that entity. A claim that
    reports a failure ("I couldn't extend CR-5 to December 8") is also about the failed calls
    that hold its identifiers: what they were asked to do is what it reports, and so is one
    that tells the attempt ("I tried to move GRM-30417 to Sunday 6 December")."""
    failure = _FAILURE.search(claim_text) is not None or _ATTEMPT.match(claim_text) is not None
    ok = [c for c in calls if c.status == "ok" or failure]
    idents = _identifiers(claim_text)
    named = [c for c in ok if any(c.holds(i) for i in idents)]
    if named and not any(c.status == "ok" for c in named):
        return []  # only failed calls: the failure report's own check decides
    if named or idents:
        return named
    ok = [c for c in ok if c.status == "ok"]
    listed = _quantified(claim_text)
    if listed is not None:
        # "All four lines were dispatched": the one call with a list of lines.
        about = [c for c in ok if _list_sizes(c, listed[1])]
        if len(about) == 1:
            return about
    m = _ENTITY.search(claim_text)
    if m:
        entity = m.group(1).lower()
        about = [c for c in ok if any(entity in k.lower() for k, _ in c.fields) or entity in c.tool]
        return about if len(about) == 1 else []
    # "The total is €46", "collect it by 2 December": the one call whose amount or date
    # fields hold every amount and date the claim states.
    claimed, dated = _claim_amounts(claim_text), _claim_dates(claim_text)
    if not (claimed or dated):
        # "our engineers are still investigating": the one call whose status is spelled so.
        spelled = [c for c in ok if _spelled_statuses(claim_text, c)]
        if len(spelled) == 1:
            return spelled
        if spelled or not _STATUS_RE.search(claim_text):
            return []
        # "The total T4 thyroid test has come back": the one element its name words name
        return _labelled_element(claim_text, (), ok, shared=2)
    # Fields of list elements are left out: a date of one of several parts is not said of
    # the whole call ("waiting for the keyboard, expected on 7 December" when 7 December is
    # the battery's).
    flat = [replace(c, fields=tuple((k, v) for k, v in c.fields if not _in_list(k))) for c in ok]
    holding = [
        c
        for c in flat
        if (claimed or dated)
        and all(_same_amounts(q, c.amounts()) for q in claimed)
        and all(any(dates_match(q.dates, d) for _, d in c.dates()) for q in dated)
    ]
    if len(holding) == 1:
        return holding
    return _labelled_element(claim_text, claimed, ok) if claimed and not dated else []


def _labelled_element(
    claim_text: str, claimed: Sequence[Quantity], calls: Sequence[ToolCall], shared: int = 1
) -> list[ToolCall]:
    """The call, cut to one element of its list, that a line of the answer reads out by the
    element's words and amount ("Emergency surcharge: £85.00" for the invoice line
    `{"description": "Emergency surcharge", "amount_minor": 8500}`), or [] unless exactly one
    element holds every amount and `shared` content words of the claim's label."""
    label = content_tokens(re.sub(r"\S*\d\S*", " ", claim_text))
    found: list[ToolCall] = []
    for call in calls:
        prefixes = {k.rpartition(".")[0] + "." for k, _ in call.fields if _in_list(k)}
        for prefix in sorted(prefixes):
            element = replace(
                call, fields=tuple((k, v) for k, v in call.fields if k.startswith(prefix))
            )
            words = content_tokens(" ".join(v for _, v in element.fields if _as_number(v) is None))
            if len(label & words) >= shared and all(
                _same_amounts(q, element.amounts()) for q in claimed
            ):
                found.append(element)
                if len(found) > 1:
                    return []
    return found


_COUNT_WORD = {w: n for w, n in NUMBER_WORDS.items() if 2 <= n <= 20}
# "all four lines", "every one of the 3 parcels", "none of your orders", "both invoices"
_QUANTIFIED = re.compile(
    r"\b(?:all|every(?:\s+one)?|each|none|both)\s+(?:of\s+)?(?:the\s+|your\s+|its\s+|their\s+)?"
    r"(?:(?P<n>\d{1,2}|" + "|".join(_COUNT_WORD) + r")\s+)?(?P<noun>[a-z]{3,}s)\b",
    re.I,
)


_PART_OF = re.compile(
    r"\b(?P<n>\d[\d,]*)\s+(?:of|out\s+of)\s+(?:the\s+|its\s+|your\s+)?(?P<m>\d[\d,]*)\s+"
    r"(?:[a-z0-9-]+\s+){0,2}?(?P<noun>[a-z]{3,})",
    re.I,
)


_Part = tuple[float, float, str, str]  # part, whole, the noun's stem, as the claim says it


def _part_counts(parts: Sequence[_Part], call: ToolCall) -> list[str]:
    """A part of a whole ("paused at 2 of 4 nodes") against the call's count beside that whole:
    the field holding the whole (`nodes_in_pool: 4`) has a sibling counting the same thing
    (`nodes_upgraded: 1`) and no sibling holds the part."""
    out: list[str] = []
    for n, whole, noun, said_as in parts:
        parents = {
            k.rsplit(".", 1)[0]
            for k, v in call.fields
            if _as_number(v) == whole and noun in k.rsplit(".", 1)[-1].lower()
        }
        siblings = [
            (k, _as_number(v))
            for k, v in call.fields
            if k.rsplit(".", 1)[0] in parents
            and noun in k.rsplit(".", 1)[-1].lower()
            and _as_number(v) is not None
            and _as_number(v) != whole
        ]
        # "5 of your 12 visits … 7 left" against `visits_remaining: 7`: the rest of the whole
        if siblings and not any(value in (n, whole - n) for _, value in siblings):
            said = ", ".join(f"{k.split('.', 1)[-1]}={value:g}" for k, value in siblings[:2])
            out.append(f"'{said_as}' but {call.tool} says {said}")
    return out


def _part_counts_of(claim_text: str, calls: Sequence[ToolCall]) -> list[str]:
    """`_part_counts` against every ok call, unless a call counts the part itself (the booking
    that took "2 of its 4 rods" beside the lookup from before it). The claim is read once."""
    matches = list(_PART_OF.finditer(claim_text[:2000]))
    if not matches:
        return []
    parts: list[_Part] = []
    for m in matches:
        n, whole = _as_number(m.group("n")), _as_number(m.group("m"))
        if n is not None and whole is not None and n < whole:
            said_as = f"{m.group('n')} of {m.group('m')}"
            parts.append((n, whole, _singular(m.group("noun"))[:5].lower(), said_as))
    ok = [c for c in calls if c.status == "ok"]
    out = [x for c in ok for x in _part_counts(parts, c)]
    if not out:
        return out
    said = {_as_number(m.group("n")) for m in matches}
    held = {_as_number(v) for c in ok for k, v in c.fields if not k.endswith(("_id", "id"))}
    return [] if said & held else out


# "both orders awaiting dispatch", "all three invoices from October": a qualifier after the
# noun picks part of the list; the count is of that part, not of the whole list.
_SUBSET_AFTER = re.compile(
    r"\s+(?:that|which|who|with|without|from|in|on|for|of|still|awaiting|pending|due|[a-z]+ing\b|"
    r"[a-z]+ed\s+(?:by|on|in|at|for|before|after|to|from)\b)",
    re.I,
)


_AS_OR_REPORTED = re.compile(
    r"\bas\s+$|\b(?:saying|says|said|stating|states|claiming|claims|noting|reads|reading)\b"
    r"(?:\s+that)?\s+[^,;:.!?]*$",
    re.I,
)
_COUNT_BEFORE = re.compile(r"(?<![\d.,:/-])\d[\d,]*\s+$")


def _quantified(claim_text: str) -> tuple[int | None, str] | None:
    """(the count said, if any, the singular noun) of a claim about every element of a list."""
    m = _QUANTIFIED.search(claim_text)
    if m is None or _SUBSET_AFTER.match(claim_text, m.end()):
        return None
    word = (m.group("n") or "").lower()
    n = int(word) if word.isdigit() else _COUNT_WORD.get(word)
    if m.group(0).lower().startswith("both"):
        n = 2
    return n, _singular(m.group("noun"))


def _list_sizes(call: ToolCall, noun: str) -> list[int]:
    """The lengths of the call's lists named `noun` ("lines" for "line"), from their fields."""
    indices: dict[str, set[str]] = {}
    for key, _ in call.fields:
        parts = key.split(".")
        for i in range(1, len(parts)):
            if parts[i].isdigit() and _singular(parts[i - 1]) == noun:
                indices.setdefault(".".join(parts[:i]), set()).add(parts[i])
    return [len(v) for v in indices.values()]


_EVENT_STEMS = {"closed": ("clos", "end"), "completed": ("complet", "finish", "end"),
                "expired": ("expir", "end"), "opened": ("open", "start"),
                "started": ("start", "open"), "refunded": ("refund",),
                # "all evidence was received on 6 October": `evidence_complete_date`
                "received": ("receiv", "complet", "arriv")}  # fmt: skip
_EXPECTED_KEY = re.compile(r"estimat|expect|eta|due|schedul|plan|target", re.I)
# "She's booked for a telephone appointment at 09:30 on 8 December": the call's appointment
# (`appointment.at`) at that time is the booking, whatever the referral's own status.
_BOOKED = frozenset({"booked", "scheduled", "reserved", "arranged"})
_BOOKING_KEY = re.compile(r"book|appointment|slot|visit|reserv|schedul|session|sitting", re.I)


def _names_field(call: ToolCall, word: str, claim_text: str) -> bool:
    """Whether the status word names an event the call dates, at the claim's date or time
    ("the comment period closed on 11 November": `comment_period_closes: 2026-11-11`;
    "completed 09:47:12 UTC": `completed_at`), or an amount the call holds under that word
    ("$3,324.00 approved": `approved_cents`). An expected date (`estimated_delivery`) is no
    event that happened."""
    stems = _EVENT_STEMS.get(word.lower(), (word.lower()[:5],))
    if any(len(stem) < 3 for stem in stems):
        return False
    said = extract_quantities(claim_text, True)
    booked = word.lower() in _BOOKED
    # "$3,324.00 approved": the call's `approved_cents` holds the amount
    named = [(k, v) for k, v, _ in call.amounts() if any(x in k.rsplit(".", 1)[-1].lower()
                                                          for x in stems)]  # fmt: skip
    if any(is_money(q) and _same_amounts(q, [(k, v, None) for k, v in named]) for q in said):
        return True
    for key, value in call.fields:
        leaf = key.rsplit(".", 1)[-1].lower()
        if not key.startswith("output.") or leaf == "status":
            continue
        if booked:
            if not _BOOKING_KEY.search(key.removeprefix("output.")):
                continue
        elif not any(x in leaf for x in stems) or _EXPECTED_KEY.search(leaf):
            continue
        elif re.search(
            rf"\b{re.escape(value.replace('_', ' ').lower())}\b", claim_text.lower()
        ) and (re.fullmatch(r"[A-Za-z][A-Za-z_ -]{2,40}", value)):
            return True  # "delivered to the mobile app": `delivery_method: mobile_app`
        held = distinct_quantities(value)
        times = [q for q in said if q.kind == "time"]
        if (
            booked
            and times
            and not any(h.kind == "time" and same_time(q, h) for h in held for q in times)
        ):
            continue  # booked for 11:00 is not the appointment at 09:30
        if any(
            (q.kind == "date" and any(h.kind == "date" and dates_match(q.dates, h.dates)
                                      for h in held))
            or (q.kind == "time" and any(h.kind == "time" and same_time(q, h) for h in held))
            for q in said
        ):  # fmt: skip
            return True
    return False


def _in_list(key: str) -> bool:
    """Whether a flattened field ("output.orders.1.status") is a field of a list element."""
    return key.rpartition(".")[0].rpartition(".")[2].isdigit()


def _scoped(call: ToolCall, idents: Sequence[str]) -> ToolCall:
    """The call with, of its lists, only the element(s) that hold one of the claim's
    identifiers: in `[{"order_id": "D-100", "status": "delivered"}, {"order_id": "D-101", ...}]`
    a claim about D-101 is compared with D-101's record, not with D-100's status. Fields
    outside every list stay (the order a battery item belongs to keeps its `order_id` and
    `expected_delivery`)."""
    prefixes = set()
    for key, value in call.fields:
        if _in_list(key) and any(_names(value.lower(), i) for i in idents):
            prefixes.add(key.rpartition(".")[0] + ".")
    if not prefixes:
        return call
    kept = tuple(
        (k, v)
        for k, v in call.fields
        if any(k.startswith(p) for p in prefixes) or not any(x.isdigit() for x in k.split("."))
    )
    return replace(call, fields=kept)


# "All three of your invoices are paid", "none of your orders has shipped": a statement about
# every element of a tool's list.
# ("Frankfurt and London are both operational" names its two; "both" quantifies over no list)
_EVERY = re.compile(r"\b(?:all|every|each)\b", re.I)
_NONE_OF = re.compile(r"\bnone\s+of\b|\bneither\b", re.I)


def _statuses(call: ToolCall, *, listed: bool = False) -> set[str]:
    """The call's status fields; with `listed`, only those of list elements."""
    return {
        _norm_status(v)
        for k, v in call.fields
        if k.rsplit(".", 1)[-1] in ("status", "state") and (not listed or _in_list(k))
    }


_CLAUSES = re.compile(r";|,\s*(?=(?:and|but|so|while|whereas)\b)", re.I)


def _named_clauses(claim_text: str, idents: Sequence[str]) -> str:
    """The clauses of the claim that name its thing (an identifier, "your order"): a status
    word elsewhere is said of something else ("…, and claims approved after the 15th are
    paid with the next salary"). The whole claim when no clause names it."""
    clauses = _CLAUSES.split(claim_text)
    named = [c for c in clauses if any(i in c for i in idents) or _ENTITY.search(c)]
    return " ".join(named) if named and len(clauses) > 1 else claim_text


_IN_PROGRESS = frozenset({"processing", "pending", "initiated", "in progress", "submitted",
                          "issued", "queued", "scheduled"})  # fmt: skip


def _part_statuses(call: ToolCall) -> list[tuple[str, str]]:
    """(part, status) of the call's fields that hold the status of a part of it
    (`payment_status: paid`, `proof_status: awaiting_approval`), not the call's own."""
    out = []
    for key, value in call.fields:
        leaf = key.rsplit(".", 1)[-1].lower()
        if leaf.endswith(("_status", "_state")) and leaf not in ("status", "state"):
            out.append((leaf.rsplit("_", 1)[0], _norm_status(value)))
    return out


def _own_status(call: ToolCall, said: str, claim_text: str) -> bool:
    """Whether a status the claim says is that of a part of the call ("payment_status",
    "refund_status"): the same word, or, said as going on ("is being refunded"), a value in
    progress of the part its word names."""
    going = re.search(rf"\bbeing\s+{re.escape(said)}\b", claim_text, re.I) is not None
    return (said in _PAID_WORDS and _nothing_due(call)) or any(
        held == said or (going and held in _IN_PROGRESS and stem(part) == stem(said))
        for part, held in _part_statuses(call)
    )


# "the £96.00 was settled when you ordered": the payment's state, which a balance of nothing
# due records (`balance_due_gbp: 0.0`), not the order's `status`
_PAID_WORDS = frozenset({"paid", "settled", "paid in full", "cleared"})
_DUE_KEY = re.compile(
    r"^(?!.*(?:day|date|count|item))(?:.*_)?(?:balance|outstanding|amount_due|owed|"
    r"to_pay)",
    re.I,
)


def _nothing_due(call: ToolCall) -> bool:
    """Whether the call records a balance still to pay of zero."""
    for key, value in call.fields:
        if _DUE_KEY.search(key.rpartition(".")[2]) is None:
            continue
        try:
            if float(value) == 0.0:
                return True
        except ValueError:
            continue
    return False


def _spelled_statuses(claim_text: str, call: ToolCall) -> set[str]:
    """The call's statuses the claim says as the tool spells them ("investigating", "awaiting
    pickup"), beyond the common status words, or in words a status alias reads as it
    ("waiting for your approval" for `awaiting_approval`)."""
    aliased = {
        _STATUS_ALIASES[w]
        for m in _STATUS_RE.finditer(claim_text)
        if (w := " ".join(m.group(1).lower().split())) in _STATUS_ALIASES
    }
    # (a thing's own status field too: `proof_status`)
    own = {held for _, held in _part_statuses(call)} if aliased else set()
    return {
        v
        for v in _statuses(call) | own
        if len(v) >= 5 and (re.search(rf"\b{re.escape(v)}\b", claim_text, re.I) or v in aliased)
    }


_WAITING = frozenset({"pending", "on hold", "provisional"})
_WAITING_WORDS = frozenset({"awaiting", "pending", "waiting", "held", "hold", "queued", "paused"})


def _status_holds(claim_text: str, said: str, statuses: set[str], listed: set[str]) -> bool:
    """Whether the status a claim states agrees with the call: for every element of its list
    when the claim quantifies over all of them ("all", "none of"), else for one of them."""
    if _NONE_OF.search(claim_text):
        return said not in (listed or statuses)
    if _EVERY.search(claim_text) and listed:
        return listed == {said}
    # "approved" is `approved_for_publication`'s first word, "on hold" `hold_moisture`'s
    return (
        said in statuses
        or bool(statuses & _STAGES.get(said, set()))
        # "the task was booked and paid through TaskNest" of a `completed` task: its history
        or (
            said == "booked"
            and "completed" in statuses
            and re.search(r"\b(?:was|were)\s+booked\b", claim_text, re.I) is not None
        )
        # "on hold pending your decision" of an `awaiting_customer_approval` job
        or (said in _WAITING and any(s.split()[0] in _WAITING_WORDS for s in statuses if s))
        or any(s.startswith(f"{said} ") for s in statuses)
        or (" " in said and any(s.startswith(f"{said.split()[-1]} ") for s in statuses))
    )


_CODE_VALUE = re.compile(r"\(?[A-Za-z0-9]{1,6}(?:[/.+-][A-Za-z0-9]{1,6}){0,2}\)?")
# Fields whose values are codes said after the field's own name ("packing group II", "tunnel
# code (D/E)", "grade B2"): free-text and generic names are left to the other checks.
_GENERIC_LEAVES = frozenset({"status", "state", "name", "type", "id", "note", "notes",
                             "reason", "description", "message", "title", "comment", "error",
                             "detail"})  # fmt: skip


def _is_code(text: str) -> bool:
    """A short code ("II", "(D/E)", "B2"), not a word ("is"), a number or a yes/no."""
    return (
        _CODE_VALUE.fullmatch(text) is not None
        and re.search(r"[A-Z]", text) is not None
        and text.lower() not in ("true", "false", "none", "null", "yes", "no", "n/a")
        and not re.fullmatch(r"[A-Z][a-z]+", text)  # a capitalised word, a name
    )


# Kinds that exclude each other: an account is checking or savings, a fare economy or
# business. A claim naming one kind of a set where the call's type field holds another
# ("your savings account ending in 2290" against `type: checking`) misreads the output.
_KIND_SETS = (
    frozenset({"checking", "current", "savings", "deposit", "brokerage", "credit", "isa"}),
    frozenset({"adult", "child", "senior", "student", "infant", "youth", "concession"}),
    frozenset({"economy", "premium economy", "business", "first"}),
    frozenset({"single", "double", "twin", "triple", "suite", "family"}),
    frozenset({"debit", "credit", "prepaid"}),
    frozenset({"monthly", "annual", "quarterly", "weekly"}),
    frozenset({"first", "second", "standard"}),
    frozenset({"standard", "express", "overnight", "economy"}),
)
_KIND_LEAF = re.compile(r"(?:^|_)(?:type|kind|class|category|cabin|tier|plan|frequency|cycle)$")


def _other_kinds(claim_text: str, call: ToolCall) -> list[str]:
    """A kind the claim names ("savings") where the call's type field holds another kind of
    the same set (`type: checking`) and no field of the call holds the claim's."""
    low = claim_text.lower()
    held = {v.lower().replace("_", " ") for _, v in call.fields}
    for key, value in call.fields:
        leaf = key.rsplit(".", 1)[-1].lower()
        kind = value.lower().replace("_", " ")
        if not _KIND_LEAF.search(leaf) or re.search(rf"\b{re.escape(kind)}\b", low):
            continue
        for kinds in _KIND_SETS:
            if kind not in kinds:
                continue
            said = [
                k
                for k in kinds - held
                if re.search(rf"\b{re.escape(k)}\b(?!-)", low)
                # "by direct deposit" is the call's `method: direct_deposit`, no account kind
                and not any(k in h.split() and h in low for h in held)
            ]
            if said:
                return [f"'{said[0]}' but {call.tool}'s {leaf}={value}"]
    return []


def _keyed_codes(claim_text: str, call: ToolCall) -> tuple[list[str], list[str]]:
    """(matched, mismatched) codes the claim says right after a field's name: "packing group
    III" against the element's `packing_group: "II"`. A claim naming several elements may say
    any of their values."""
    values: dict[str, set[str]] = {}
    for key, value in call.fields:
        leaf = key.rsplit(".", 1)[-1]
        if not key.startswith("output.") or leaf.lower() in _GENERIC_LEAVES:
            continue
        if not _is_code(value):
            continue
        words = " ".join(w for w in re.split(r"[_\W\d]+", leaf.lower()) if w)
        if len(words) >= 4:
            values.setdefault(words, set()).add(value.strip("()").lower())
    matched: list[str] = []
    mismatched: list[str] = []
    for words, held in values.items():
        pattern = r"\b" + r"[\s_-]+".join(map(re.escape, words.split())) + r"\s*:?\s+"
        for m in re.finditer(pattern, claim_text, re.I):
            said = _CODE_VALUE.match(claim_text, m.end())
            if said is None or not _is_code(said.group(0)):
                continue
            code = said.group(0).strip("()").lower()
            if code in held:
                matched.append(f"{words} {said.group(0)}")
            elif not any(h.startswith(code) or code.startswith(h) for h in held if len(h) > 3):
                mismatched.append(
                    f"{words} '{said.group(0)}' but {call.tool} says "
                    f"{', '.join(sorted(held)).upper()}"
                )
    return matched, mismatched


def _result_reports(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A claim that a test or inspection passed, against the `result` of the call's record the
    claim names by its key ("VDK: the forced sample … has passed" against `vdk_test.result:
    pending`). None when no such result is named."""
    if not _PASSED.search(claim_text):
        return None
    words = content_tokens(claim_text)
    for call in calls:
        if call.status != "ok":
            continue
        for key, value in call.fields:
            parts = key.split(".")
            if parts[-1] not in _RESULT_KEYS or not re.fullmatch(r"[A-Za-z_ ]{2,30}", value):
                continue
            if not _key_words(".".join(parts[:-1]) or key) & words:
                continue
            result = _norm_status(value)
            passed = result in ("passed", "pass", "ok", "satisfactory", "compliant")
            return CheckResult(
                name="tool_fact",
                passed=passed,
                detail=f"{call.source_id} {'agrees' if passed else 'says otherwise'}: "
                f"{key.split('.', 1)[1]}={value}",
            )
    return None


_FOUND_BEFORE = re.compile(
    r"\b(?:found|discovered|noticed|saw|confirmed)\s+(?:that\s+)?(?:the\s+|your\s+|its\s+|a\s+)?"
    r"(?:[\w-]+\s+){0,3}(?:had|has|have|was|were|is|are)\s+(?:been\s+)?$",
    re.I,
)
_PERIOD_BEFORE = re.compile(
    r"\b(?:window|period|deadline|cut-?off|offer|promotion|sale|season|term)\s+(?:has\s+|had\s+|"
    r"was\s+|is\s+)?(?:now\s+|already\s+)?$",
    re.I,
)
_PERIOD_AFTER = re.compile(r"\s+(?:window|period|hours|time\s+window)\b", re.I)


def _coded_words(call: ToolCall) -> str:
    """The words of a call's coded output fields other than its status ("blocked … as lost":
    `block_reason: reported_lost`); never free text, which may say anything ("notes": "tell
    parents the registration is approved")."""
    return " ".join(
        _norm_status(v)
        for k, v in call.fields
        if k.startswith("output.")
        and k.rsplit(".", 1)[-1] not in ("status", "state")
        and re.fullmatch(r"[a-z]+(?:_[a-z]+){0,3}", v) is not None
    )


def _one_apart(a: str, b: str) -> bool:
    """Same length, one character different, and that character a letter or digit for a
    letter or digit of the same kind ("eu-north-2a" for "eu-north-2b", "RF-77" for "RF-78"),
    or two neighbouring digits or letters swapped ("LP-60214" for "LP-60241")."""
    if len(a) != len(b) or a == b:
        return False
    at = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(at) == 2 and at[1] == at[0] + 1:
        i = at[0]
        pair = a[i : i + 2]
        return a[i] == b[i + 1] and a[i + 1] == b[i] and (pair.isdigit() or pair.isalpha())
    return len(at) == 1 and (
        (a[at[0]].isdigit() and b[at[0]].isdigit()) or (a[at[0]].isalpha() and b[at[0]].isalpha())
    )


def _misread_ids(claim_text: str, idents: Sequence[str], calls: Sequence[ToolCall]) -> list[str]:
    """Identifiers of the claim that no call holds while an ok call holds one a single
    character away, not said in the claim too: a code read wrong ("in eu-north-2a" against
    `zone: eu-north-2b`). Ids of four characters or fewer, and ids without a letter, are left
    alone (too many are one apart by chance, and dates are the number check's)."""
    out: list[str] = []
    low = claim_text.lower()
    ok = [c for c in calls if c.status == "ok"]
    for ident in idents:
        key = ident.lower().lstrip("#").strip()
        if (
            len(key) <= 4
            or not any(ch.isalpha() for ch in key)  # dates, phone numbers: the number check's
            or any(c.holds(ident) for c in calls)
        ):
            continue
        for call in ok:
            near = next(
                (
                    (k, v)
                    for k, v in call.fields
                    if _one_apart(key, v.lower()) and v.lower() not in low
                ),
                None,
            )
            if near is not None:
                field = near[0].split(".", 1)[-1]
                out.append(f"'{ident}' but {call.tool}'s {field}={near[1]} ({call.source_id})")
                break
    return out


_INCIDENT_AFTER = re.compile(
    r"\s+(?:incidents?|outages?|issues?|problems?|disruptions?|faults?|alerts?)\b", re.I
)


def _incident_states(calls: Sequence[ToolCall]) -> bool:
    """Whether a call holds the status of an incident (`incidents.0.status`)."""
    return any(
        _INCIDENT_KEY.search(k) and k.rsplit(".", 1)[-1] in ("status", "state")
        for c in calls
        for k, _ in c.fields
    )


_INCIDENT_KEY = re.compile(r"incident|outage|issue|problem|disruption|fault|alert", re.I)


def check_tool_facts(
    claim_text: str,
    calls: Sequence[ToolCall],
    stated: Sequence[Quantity] = (),
    also: Sequence[Quantity] = (),
) -> CheckResult | None:
    """Status words, carriers, amounts and dates of a claim about what a tool returned,
    compared with its fields. None when the claim is about no tool output or names no field.
    An amount another call holds, the policy states (`stated`) or the answer works out is no
    mismatch beside a figure that matched ("£29 for the reprint, plus £4.95 delivery, so
    £33.95")."""
    idents = _identifiers(claim_text)
    misread = _misread_ids(claim_text, idents, calls) + _part_counts_of(claim_text, calls)
    if misread:
        return CheckResult(name="tool_fact", passed=False, detail="; ".join(misread) + ": mismatch")
    about = _about(claim_text, calls)
    if not about:
        return _carrier_said(claim_text, calls)
    whole = about  # a count ("both of your uploads") is of the whole list, not the named
    # (a card's ending names no element: every payout may go to the account ending 4821)
    # (nor a value said after its field's name: "from gate B22" claims a gate, it names no
    # element)
    scoping = [i for i in idents if not _card_digits(claim_text, i)] or idents
    labelled = [i for i in scoping if _labelled_value(claim_text, i)]
    if labelled and about:
        # (unless the other ids are values of the same field: "seat 15A … and 27A")
        leaves = {i: _leaves_holding(about, i) for i in scoping}
        unlabelled = [i for i in scoping if i not in labelled]
        kept = [i for i in unlabelled if not any(leaves[i] & leaves[j] for j in labelled)]
        if kept and len(kept) == len(unlabelled):
            scoping = kept
    about = [_scoped(c, scoping) for c in about] if idents else about
    matched: list[str] = []
    mismatched: list[str] = []
    aside: list[str] = []
    # The status words the claim says of its thing now (read once, not once per call).
    # (a status inside quotation marks is the policy's word, quoted: "Treatments cancelled
    # less than 24 hours before … are charged in full")
    scope = _QUOTED.sub(lambda q: " " * len(q.group(0)), _named_clauses(claim_text, idents))
    known = {
        "provisional" if _PROVISIONALLY.search(scope[: m.start()]) else _norm_status(m.group(1))
        for m in _STATUS_RE.finditer(scope)
        if not _MODAL_BEFORE.search(scope[max(0, m.start() - 40) : m.start()])
        and not _CONDITION_BEFORE.search(scope[max(0, m.start() - 120) : m.start()])
        # "I have not treated it as paid": a status denied is no status said (the negation
        # check reads denials)
        and not _DENIED_BEFORE.search(scope[max(0, m.start() - 40) : m.start()])
        and not (
            m.group(1).lower() == "paid"
            and (
                _DONE_BY.search(scope[max(0, m.start() - 40) : m.start()])
                # "the deposit was paid with the card ending 4417": how, not the status
                or _METHOD_AFTER.match(scope, m.end())
            )
        )
        # "the £10.50 is still being paid as vouchers": a payment under way, how it is paid,
        # not the finished status
        and not (m.group(1).lower() in _BEING_DONE and _BEING_BEFORE.search(scope[: m.start()]))
        # "the card ending 0932 that you booked with": what the user did with a thing
        and not (
            _YOU_BEFORE.search(scope[max(0, m.start() - 30) : m.start()])
            and _WITH_AFTER.match(scope, m.end())
        )
        # "PHT-22-2 is available", "card ending 4471 is now blocked": a unit's state, said
        # of a thing named by its id ("everything stored is still available" says none)
        and not (
            _norm_status(m.group(1)) in _UNIT_STATES
            and not _ID_SUBJECT.search(scope[max(0, m.start() - 60) : m.start()])
        )
        # "My request to delete SCH-3312 … was cancelled before it went through": the state of
        # the attempt, not of the thing
        and not _ATTEMPT_SUBJECT.search(scope[max(0, m.start() - 80) : m.start()])
        # "screening returned a potential match": a verb with its object, no status
        and not _OBJECT_AFTER.match(scope, m.end())
        and not (
            m.group(1).lower().endswith("ing")
            and _GERUND_BEFORE.search(scope[max(0, m.start() - 12) : m.start()])
        )
        # "fees for your 18 active listings": a count of things in that state, no status
        # of what the call is about
        and not _COUNT_BEFORE.search(scope[max(0, m.start() - 12) : m.start()])
        # "out of tolerance as received"; "a memo saying INV-4402 has been settled": an
        # idiom, and what a note says, not the status the claim states
        and not _AS_OR_REPORTED.search(scope[max(0, m.start() - 60) : m.start()])
        # "transfers are completed within 15 working days": a rule's timeframe, no status;
        # "bookings are confirmed only once all permits are issued": a rule's condition
        and not _TIMEFRAME_AFTER.match(scope, m.end())
        and not _CONDITION_AFTER.match(scope, m.end())
        # "they're paid under Coverage A", "the binders returned under RA-30418": the terms
        # a thing is dealt with under, not its status
        and not _UNDER_AFTER.match(scope, m.end())
        # "your credit from the cancelled Chicago–Atlanta trip": a word for another thing, not
        # the status of what the calls are about
        and not _attributive_other(scope, m, calls)
        # "clean on the lost/stolen check": a status naming a kind of check, said of nothing
        and not _PAIRED.match(scope, m.end())
        # "on its way from 1.30.9 to 1.31.4": an upgrade's progress, no parcel's status
        and not _TO_VERSION.match(scope, m.end())
        # "there's an active incident" of a component whose incident has no status field:
        # a kind of event, not the component's status ("an open incident" of a list of
        # incidents with their statuses is read against them)
        and not (_INCIDENT_AFTER.match(scope, m.end()) and not _incident_states(calls))
        and not _PAIRED_BEFORE.search(scope, 0, m.start())
        # "the engineer found the drum bearings had failed": a finding, not the call's status
        and not _FOUND_BEFORE.search(scope[max(0, m.start() - 60) : m.start()])
        # "that window closed on 17 February", "within the booked window": a period's own
        # state, not the status of what the call is about
        and not _PERIOD_BEFORE.search(scope[max(0, m.start() - 30) : m.start()])
        and not _PERIOD_AFTER.match(scope, m.end())
    }
    listed_count = _quantified(claim_text)
    said_statuses: dict[str, set[str]] = {}  # status word -> the calls that bear it out
    # each ok call's statuses and coded words, read once for every call and status word
    words_of = [
        (c.source_id, _statuses(c), _coded_words(c))
        for c in (calls if known and not idents else ())
        if c.status == "ok"
    ]
    for call, unscoped in zip(about, whole, strict=True):
        if listed_count is not None and listed_count[0] is not None:
            sizes = _list_sizes(unscoped, listed_count[1])
            if sizes and listed_count[0] not in sizes:
                mismatched.append(
                    f"{listed_count[0]} {listed_count[1]}s but {call.tool} lists "
                    f"{' or '.join(str(n) for n in sizes)}"
                )
        # (a failed call the claim is about holds what was tried: another call's figure)
        # (by id: `call` may be a copy with some fields left out, never another call)
        others = [
            c for c in calls if c.source_id != call.source_id and (c.status == "ok" or c in whole)
        ]
        if _ATTEMPT_TOLD.search(claim_text):
            # "The move to Friday 11 December … was cancelled, so nothing has changed": what
            # the failed call was asked for is what the claim reports of it
            others += [c for c in calls if c.status != "ok" and c not in others]
        m, mm, aa = _compare(claim_text, call, others, stated, beside_match=False, also=also)
        matched += [x for x in m if x not in idents]
        mismatched += [x for x in mm if " is not in the arguments" not in x]
        aside += [x for x in aa if " is not in the arguments" not in x]
        statuses = _statuses(call)
        listed = _statuses(call, listed=True)
        matched += [f"status {v}" for v in _spelled_statuses(claim_text, call) - known]
        mismatched += _other_kinds(claim_text, call)
        codes_matched, codes_mismatched = _keyed_codes(claim_text, call)
        matched += codes_matched
        mismatched += codes_mismatched
        reasons = _coded_words(call)
        for said in known:
            coded = not _EVERY.search(claim_text) and re.search(rf"\b{re.escape(said)}\b", reasons)
            if not statuses and not coded:
                continue
            if coded or _status_holds(claim_text, said, statuses, listed):
                # also a word the call holds in another field ("blocked … as lost": `reason`)
                matched.append(f"status {said}")
                said_statuses.setdefault(said, set()).add(call.tool)
            elif _own_status(call, said, claim_text):
                # "paid on your card" of `payment_status: paid`; "is being refunded" of
                # `refund_status: processing`: the status of a part, not of the booking
                matched.append(f"status {said} (of a part of {call.tool})")
                said_statuses.setdefault(said, set()).add(call.tool)
            elif _names_field(call, said, claim_text):
                # "the comment period closed on 11 November": `comment_period_closes`, an
                # event the call dates, not the application's status
                matched.append(f"{said} (a field of {call.tool})")
            elif _error_says(said, idents, calls):
                # "BK-55139 had already been refunded" beside the refund call that failed with
                # "Booking BK-55139 was refunded on 2026-12-03": what the error reports
                matched.append(f"status {said} (a failed call's message)")
                said_statuses.setdefault(said, set()).add(call.tool)
            elif _refused_attempt(scope, said, calls):
                # "The cancellation was rejected because …": the failed cancel call's
                # outcome, not the order's status
                matched.append(f"{said} (a failed call)")
            elif not idents and any(
                said in held or re.search(rf"\b{re.escape(said)}\b", coded)
                for source_id, held, coded in words_of
                if source_id != call.source_id
            ):
                # "the licence photo was rejected": the documents call's `result`, not the
                # transfer's status, when the claim's date picked the transfer (a claim that
                # names its order by id is read against that order's call alone)
                continue
            else:
                mismatched.append(
                    f"status '{said}' but {call.tool} says {', '.join(sorted(statuses))}"
                )
        carriers = _carriers(call)
        for said in {s.lower() for s in _CARRIER_RE.findall(claim_text)}:
            if not carriers:
                continue
            if said in carriers:
                matched.append(f"carrier {said}")
            else:
                mismatched.append(
                    f"carrier '{said}' but {call.tool} says {', '.join(sorted(carriers))}"
                )
    # A figure or status one of the calls holds is no mismatch for another ("CR-5 stays due
    # back on December 5; extending it to December 8 failed": December 8 is the failed
    # call's; "check #1047 has an active stop": the stop is active, the check outstanding).
    mismatched = [
        x
        for x in mismatched
        if not any(x.startswith(f"{m} ") for m in matched)
        and not any(x.startswith(f"status '{w}' ") for w in said_statuses)
    ]
    if not matched:
        mismatched += aside
    where = ", ".join(c.source_id for c in about)
    if mismatched:
        return CheckResult(
            name="tool_fact", passed=False, detail="; ".join(mismatched) + f" ({where}): mismatch"
        )
    if matched:
        return CheckResult(
            name="tool_fact", passed=True, detail=f"{where} agrees: {', '.join(matched)}"
        )
    return None


# A claim that denies anything exists ("I don't see any refunds", "you have no open tickets").
_NONE_SAID = re.compile(
    r"\b(?:no|not|never|none|nothing|zero|without|neither|nor)\b|n['’]t\b|\bno\s+longer\b", re.I
)
# A claim about what could or will be, not about what the lookup holds now.
_NOT_NOW = re.compile(
    r"\b(?:will|would|could|may|might|should|shall|if|once|when|request|apply)\b"
    r"|\bcan\b(?!\s+(?:see|find|confirm|tell|view|spot))",  # "I can see your refund" is now
    re.I,
)


def _singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ses", "xes", "ches", "shes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


# a list of things in a state ("open_claims"): what the claim must say of its thing too
_STATE_QUALIFIERS = frozenset({"open", "active", "pending", "outstanding", "unpaid", "ongoing"})


def check_empty_lists(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A claim about items an ok lookup returned none of ({"refunds": []}): "I don't see any
    refunds" is backed by it, "I can see your refund of 25 EUR" is contradicted. Applies only
    when the claim names the list's items (the last word of its key, singular or plural) and
    speaks of now (no "will", "can", "if": a refund that may come is no lookup's business)."""
    # (not the words of a quotation: 'the policy says: "… unless you grant access"' names
    # no grant)
    bare = _QUOTED.sub(" ", claim_text)
    words = {_singular(w) for w in re.findall(r"[A-Za-z]+", bare)}
    for call in calls:
        if call.status != "ok":
            continue
        for key in call.empty:
            parts = [p for p in re.split(r"[\W_]+", key.strip("_").lower()) if p]
            noun = _singular(parts[-1] if parts else key)
            if len(noun) < 3 or noun not in words:
                continue
            # "open_claims": [] is of open claims; "the 14-day claim window" names none
            qualifiers = set(parts[:-1]) & _STATE_QUALIFIERS
            if qualifiers and not (qualifiers | _STATE_QUALIFIERS) & {w.lower() for w in words}:
                continue
            if _NONE_SAID.search(claim_text):
                return CheckResult(
                    name="tool_fact",
                    passed=True,
                    detail=f"{call.source_id} returned no {key}: the claim says there are none",
                )
            others = [c for c in calls if c is not call and c.status == "ok"]
            if _NOT_NOW.search(claim_text) or any(
                noun in c.tool.lower() or any(noun in k.lower() for k, _ in c.fields)
                for c in others
            ):
                return None  # a call that made or found one since speaks for itself
            return CheckResult(
                name="tool_fact",
                passed=False,
                detail=f"{call.source_id} returned no {key}, but the claim speaks of one: mismatch",
            )
    return None


# A claim that an attempt failed ("the payment system timed out, so nothing has been refunded").
_FAILURE = re.compile(
    r"\b(?:timed\s+out|time[ds]?[\s-]?out|failed|failure|errors?|went\s+wrong|"
    r"could(?:n't|n’t|\s+not)|was(?:n't|n’t|\s+not)\s+able|unable|"
    r"did(?:n't|n’t|\s+not)\s+go\s+through|nothing\s+(?:has|have|was)\s+been|"
    r"(?:has|have|was)(?:n't|n’t|\s+not)\s+(?:yet\s+)?been|"
    # "our repair system isn't responding", "the booking service is unavailable"
    r"(?:is|was|are|were)(?:n't|n’t|\s+not)\s+(?:currently\s+)?respond\w*|not\s+responding|"
    r"did(?:n't|n’t|\s+not)\s+(?:respond|answer|reply)|no\s+response|"
    r"unavailable|unreachable|"
    # "I tried to find a route avoiding them, but none was found"
    r"(?:none|nothing)\s+(?:was|were|could\s+be)\s+found)\b",
    re.I,
)
# Words such a report may use without naming anything the call must hold (normalised tokens).
_FAILURE_WORDS = frozenset(
    {"system", "payment", "request", "call", "servic", "tool", "attempt", "noth", "yet", "tri",
     "again", "later", "moment", "unfortun", "sorri", "so", "it", "now", "right", "tim", "go",
     "through", "issu", "process", "complet", "your", "sorry",
     # the other party whose system failed, named generically
     "airlin", "bank", "carrier", "provid", "partner", "server", "upstream", "extern", "vendor",
     "backend", "third", "parti", "booking", "book", "network", "gateway",
     # what was being done when it failed ("before it confirmed the change")
     "load", "detail", "just", "fetch", "retriev", "access", "inform", "data", "record",
     "chang", "updat", "befor",
     # how the report is put ("not yet, I'm afraid: … timed out without a confirmation")
     "afraid", "without", "confirm", "still", "respond", "answer", "repli", "reply",
     # the attempt named generically ("that lookup timed out")
     "lookup", "look", "search", "queri", "query", "check"}
)  # fmt: skip
_CANNOT_TELL = re.compile(
    r"\b(?:can(?:no|['’])?t|cannot|(?:am|are|is)\s+(?:not\s+)?unable\s+to|unable\s+to|not\s+able\s+to|"
    r"could(?:n['’]t|\s+not))\s+(?:yet\s+)?(?:confirm|check|see|tell|verify|access|load|retrieve|"
    r"look\s+up|show|give|say|pull\s+up|view)\b[^,.;:!?]*"
    # "so I don't have it for you just yet"
    r"|\b(?:do|does)(?:n['’]t|\s+not)\s+have\b[^,.;:!?]*",
    re.I,
)
# Words are compared by their first five letters (the normalised forms differ in endings).
_FAILURE_PREFIXES = frozenset(w[:5] for w in _FAILURE_WORDS)


def check_reported_failure(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A claim that reports a failed attempt is backed by a call that did fail (status error,
    timeout or cancelled) when every other word it says is about that call: the agent telling
    the truth about a failure is not a hallucination. None when it does not apply."""
    if not _FAILURE.search(claim_text):
        return None
    # What the failure kept the agent from ("so I can't confirm your exact balance") names
    # nothing the call must hold.
    said = _CANNOT_TELL.sub(" ", claim_text)
    words = content_tokens(_FAILURE.sub(" ", said))
    rest = {w[:5] for w in words} - _FAILURE_PREFIXES
    # (the kind of call it names, not of what it could not tell: "so I can't confirm your
    # next delivery date" after a subscription lookup timed out)
    # ("the request timed out": the attempt named generically, no kind of call)
    named = set(_kinds(re.sub(r"\brequests?\b", " ", said, flags=re.I)))
    for call in calls:
        if call.status == "ok" or (named and not named & set(_kinds(call.tool))):
            continue  # succeeded, or another kind of call ("the payment failed", email error)
        known = content_tokens(
            " ".join([call.tool, *(f"{k.rsplit('.', 1)[-1]} {v}" for k, v in call.fields)])
        )
        # the attempt's own verb ("when I submitted the transfer" of `initiate_isa_transfer`)
        # (read on the words as written: "moved" names a rebooking, its stem "mov" nothing)
        attempted = {
            t[:5]
            for w in re.findall(r"[a-z]+", said.lower())
            if set(_kinds(w)) & set(_kinds(call.tool))
            for t in content_tokens(w)
        }
        if rest <= {k[:5] for k in known} | attempted:
            return CheckResult(
                name="tool_fact",
                passed=True,
                detail=f"{call.source_id} returned status {call.status}: the claim reports it",
            )
    return None


# "Nothing has been paid out at this stage", "No booking has been made yet": what a failed
# attempt left undone, and advice to the user after it ("…, so please let me know …").
_NOTHING_DONE = re.compile(
    # ("nothing is booked yet": the present state after the failure, said the same way)
    r"^\W*(?:so\s+|and\s+)?(?:nothing|no\s+(?:\w+\s+)?\w+)\s+(?:(?:has|have)\s+(?:yet\s+)?been|is|are)\s+"
    r"(?:\w+ed|paid|sent|made|taken|done|set|put|held|spent|issued|booked)(?:\s+(?:out|back|up|through))?"
    r"(?:\s+(?:yet|so\s+far|at\s+this\s+(?:stage|point)|for\s+now|on\s+your\s+\w+))*"
    r"\s*(?:$|[.!]\s*$|,\s*so\s+(?:please|let|feel|do|you)\b)",
    re.I,
)


def _nothing_done(text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """ "Nothing has been booked yet" where an attempt failed and no call changed anything:
    the failure's consequence, told honestly."""
    if not _NOTHING_DONE.match(text) or any(
        c.status == "ok" and not is_lookup(c.tool) for c in calls
    ):
        return None
    failed = next((c for c in calls if c.status != "ok"), None)
    if failed is None:
        return None
    return CheckResult(
        name="tool_fact",
        passed=True,
        detail=f"{failed.source_id} returned status {failed.status} and no call changed "
        "anything: the claim reports it",
    )


# --- commitments and exceptions ------------------------------------------------------------------

# Word families of what an agent may grant; a source grants it only with a word of the family.
_GRANTS: dict[str, tuple[str, ...]] = {
    "waive": ("waive", "free", "no charge", "no cost", "at no extra", "without charge", "exempt"),
    "free": (
        "free",
        "no charge",
        "no cost",
        "complimentary",
        "waive",
        "included",
        "without charge",
    ),
    "exception": ("exception", "exceptionally", "goodwill", "discretion"),
    "extend": ("extend", "extension", "longer", "additional days", "up to"),
    "upgrade": ("upgrade",),
    "bonus": ("bonus", "compensation", "goodwill", "apology"),
    "discount": ("discount", "voucher", "coupon", "credit", "promo"),
    "keep": (
        "pre-approved",
        "preapproved",
        "without returning",
        "no need to return",
        "do not need to return",
        "don't need to return",
        "keep the item",
        "keep it",
    ),
}
# How a detail names a kind of favour whose key is not a word for it.
_FAVOUR_NAMES = {"keep": "refund without a return"}
# Stems of a tool's name that does what a favour of each kind grants.
_GRANT_TOOLS: dict[str, tuple[str, ...]] = {
    "waive": ("waiv", "fee_exempt", "exempt"),
    "free": ("waiv", "complimentary", "free"),
    "exception": ("exception", "override", "goodwill"),
    "extend": ("extend", "extension", "renew", "prolong"),
    "upgrade": ("upgrad",),
    "bonus": ("bonus", "compensat", "goodwill"),
    "discount": ("discount", "voucher", "coupon", "credit", "promo"),
    "keep": ("pre_approv", "no_return", "keep_item", "returnless"),
}
_EXCEPTION = re.compile(
    r"\b(?P<waive>waiv(?:e|ed|ing)|"
    # "I'll get the £15 late surcharge taken off", "knock the fee off"
    r"(?:fee|surcharge|charge|penalty|fine)s?\s+(?:taken|knocked|struck)\s+off|"
    r"(?:take|took|taking|knock|knocked)\s+(?:the\s+|that\s+|your\s+|this\s+)?"
    r"(?:[£$€]\s?\d[\d.,]*\s+)?(?:[\w-]+\s+){0,2}(?:fee|surcharge|charge|penalty|fine)s?\s+off)\b"
    # ("gluten-free", "hands-free" are no favour)
    # ("feel free to reply", "you're free to cancel" are no favour either)
    r"|(?<!-)(?<!feel\s)\b(?P<free>free(?!\s+to\s)(?:\s+of\s+charge)?|at\s+no\s+(?:extra\s+|additional\s+)?(?:cost|charge)|"
    r"complimentary|on\s+the\s+house)\b"
    r"|\b(?P<exception>(?:make|made|making)\s+(?:an|a\s+one[- ]time|a\s+one[- ]off)\s+exception|"
    r"as\s+(?:an|a\s+one[- ]time|a\s+one[- ]off)\s+exception|goodwill)\b"
    r"|\b(?P<extend>extend(?:ed)?|longer\s+(?:return\s+)?(?:window|period))\b"
    r"|\b(?P<upgrade>upgrad(?:e|ed|ing))\b"
    r"|\b(?P<bonus>bonus|as\s+an\s+apology|compensation)\b"
    r"|\b(?P<discount>discount|voucher|coupon|store\s+credit|promo(?:tion(?:al)?)?\s+code)\b"
    # a refund without sending the thing back ("you're pre-approved for a full refund without
    # needing to send the plant back")
    r"|\b(?P<keep>pre-?approved|without\s+(?:needing|having)\s+to\s+(?:send|return|post)\b|"
    r"no\s+need\s+to\s+(?:send|return|post)\s+(?:it|them|the\s+[\w-]+)\s+back)",
    re.I,
)
# A favour named only to say it was not, or cannot be, granted ("I couldn't extend it",
# "we are unable to waive the fee"): the negation right before the favour's word.
_REFUSED_BEFORE = re.compile(
    r"\b(?:could(?:n['’]t|\s+not)|can(?:not|['’]t)|unable\s+to|(?:was|were|am|are|is)(?:n['’]t|"
    r"\s+not)\s+able\s+to|won['’]t|will\s+not|didn['’]t|did\s+not|not\s+(?:been\s+)?able\s+to|"
    # "I tried to extend it, but …": an attempt, granted by nothing; "extend it yourself"
    r"tried\s+to|attempted\s+to|"
    # "charging there isn't free at the moment"
    r"(?:is|are|was|were)(?:n['’]t|\s+not)(?:\s+(?:currently|actually|really|always|yet))?|"
    # "less than the 48 hours needed for a free cancellation": what a grant would need
    r"(?:needed|required|necessary|you\s+need)\s+for)"
    r"(?:\s+\w+){0,2}\s*$",
    re.I,
)
# A favour named to say it does not apply ("the discount doesn't apply if you pay by
# instalments", "free delivery isn't available on sale items"): refused, not granted.
_REFUSED_AFTER = re.compile(
    r"\s*(?:[\w-]+\s+){0,2}?(?:does(?:n['’]t|\s+not)|do(?:n['’]t|\s+not)|won['’]t|will\s+not|"
    r"can(?:not|['’]t)|(?:is|are)(?:n['’]t|\s+not))\s+(?:be\s+)?(?:apply|applied|available|"
    r"offered|included|valid|possible|given)\b",
    re.I,
)
# "a note on your account saying … and suggesting a Deluxe upgrade": what a note, an email or
# an injected instruction says, reported, not granted
_REPORTED_BEFORE = re.compile(
    r"\b(?:saying|says|said|suggesting|suggests|suggested|asking|asks|claiming|claims|telling|"
    r"tells|instructing|offering\s+you)\b[^.;:!?]{0,70}$",
    re.I,
)
# A voucher or a credit is a favour only when given ("I've issued a £10 voucher", "we'll
# add a credit"), not when it is the thing talked about ("the voucher was worth £50.00")
_GRANT_VERB = re.compile(
    r"\b(?:give|gave|given|giving|offer|offered|offering|apply|applied|applying|issue|issued|"
    r"add|added|adding|send|sent|sending|provide|provided|grant|granted|get|gets|receive|"
    r"receives|credit|credited|enjoy|use|used|using|redeem|redeemed)\b"
    r"|\b(?:i|we|you)(?:['’]ll|\s+will|\s+can|\s+could|['’]ve)\b",
    re.I,
)
_IF_CLAIM = re.compile(rf"\b(?:{CONDITION_OPENERS}|once)\b", re.I)
_LEADING_CONDITION = re.compile(rf"^\s*(?:{CONDITION_OPENERS})\b[^,;]{{0,120}},\s*", re.I)
# Only the agent granting something to the user is an exception ("we will waive", "free for
# members", "your upgrade"); "the company extended its deadline" is reported news.
_AGENT_VOICE = re.compile(
    r"\b(?:i|we|you|your|our|us)\b|\bfor\s+(?:members|customers|subscribers|loyal)", re.I
)
# "is booked", not "is scheduled to ship" (a plan) or "is reserved by another customer"
_PRESENT_DONE = re.compile(
    r"\b(?:is|are|['’]re|['’]s)\s+(?:now\s+|all\s+|already\s+)?(?:booked|reserved|confirmed|"
    r"scheduled|registered|submitted|filed|cancell?ed|refunded|paid|sent|renewed|transferred)\b"
    r"(?!\s+to\b|\s+by\s+(?:another|someone|somebody|a\s+different|other)\b)",
    re.I,
)
_PRESENT_CONDITION = condition_before(
    r"once|if|when|whenever|unless|until|provided|after|before|as\s+soon\s+as"
)


_ATTEMPT = re.compile(
    r"^\W*(?:[\w'’]+\W+){0,4}?(?:I|we)\s+(?:just\s+|also\s+)?(?:tried|attempted)\s+to\s+"
    # the attempt's object, up to a comma or the next clause ("… and it shows $500 due")
    r"(?P<verb>[a-z]+)\b(?P<rest>(?:(?!\b(?:and|so|which|but|then)\b)[^.;!?,])*)",
    re.I,
)
_READ_VERBS = frozenset({"check", "pull", "read", "fetch", "get", "retrieve", "query",
                         "look", "see", "confirm", "verify", "load", "find", "reach",
                         "contact"})  # fmt: skip


def _attempt_reports(text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """ "I tried to pull your November statement", said of the call that tried: backed when a
    call of the verb's kind, or one whose name holds the attempt's object, was made (a reading
    verb by any lookup). It says nothing of the outcome, which the rest of the answer reports.
    None when no call made the attempt (the model judges it)."""
    m = _ATTEMPT.match(text)
    if m is None:
        return None
    after = text[m.end() :].strip()
    if (
        after
        and after[0] not in ".!?:"
        and not (re.match(r",?\s*but\b", after) and _FAILURE.search(after))
    ):
        return None  # more is said than the attempt ("… and it now shows $500 due")
    verb = m.group("verb").lower()
    kinds = set(_kinds(verb))
    words = {stem(w) for w in content_tokens(m.group("rest"))}
    for call in calls:
        name = {stem(w) for w in content_tokens(re.sub(r"[._\-/]+", " ", call.tool))}
        if (
            (kinds and kinds & set(_kinds(call.tool)))
            or (words & name)
            or (verb in _READ_VERBS and is_lookup(call.tool))
        ):
            return CheckResult(
                name="tool_fact",
                passed=True,
                detail=f"{call.source_id} ({call.tool}, status {call.status}) is the attempt",
            )
    return None


_DONE_AT_KEY = re.compile(
    r"(?:_at|_on|^(?:issued|sent|emailed|processed|created|completed|submitted|posted|done))$",
    re.I,
)


def _recorded_earlier(text: str, calls: Sequence[ToolCall]) -> bool:
    """Whether an ok lookup holds the claim's thing and the date or time the claim says it was
    done ("VSL-2026-04471 was issued on 2 December and emailed … at 09:41 GMT" of
    `letters.get` with `sent_at: 2026-12-02T09:41:00Z`): an earlier act the record shows, not
    the failed retry just now."""
    idents = _identifiers(text)
    figures = [q for q in extract_quantities(text, True) if q.kind in ("date", "time")]
    if not idents or not figures:
        return False
    for c in calls:
        if c.status != "ok" or not is_lookup(c.tool) or not any(c.holds(i) for i in idents):
            continue
        # (a time the record says the thing was done: `sent_at`, `issued`, not a flight's
        # `departs`)
        dates = [d for k, d in c.dates() if _DONE_AT_KEY.search(k.rsplit(".", 1)[-1])]
        times = [t for k, t in c.times() if _DONE_AT_KEY.search(k.rsplit(".", 1)[-1])]
        if any(
            (q.kind == "date" and any(dates_match(q.dates, d) for d in dates))
            or (q.kind == "time" and any((q.values | q.utc) & t for t in times))
            for q in figures
        ):
            return True
    return False


def _attempt_reported(text: str, calls: Sequence[ToolCall]) -> bool:
    """The action is told as an attempt whose failure the same sentence reports ("I sent the
    request to move it, but the carrier gateway timed out, so I don't know whether it went
    through"), and a call did fail: no claim that it was done."""
    done = _ACTION_DONE.search(text) or _MORE_PAST.search(text)
    if not any(c.status != "ok" for c in calls):
        return False
    # "The request for your sertraline (Rx 7730452) was cancelled before it was confirmed":
    # the attempt's own end, reported
    ended = _ATTEMPT_ENDED.search(text)
    if ended and _ATTEMPT_SUBJECT.search(text[max(0, ended.start() - 100) : ended.start()]):
        # (of a failed call for the claim's thing, when it names one)
        idents = _identifiers(text)
        failed = [c for c in calls if c.status != "ok"]
        if not idents or any(c.holds(i) for c in failed for i in idents):
            return True
    if done is None:
        return False
    after = text[done.end() :]
    # "…, but the gateway timed out"; "When I submitted the transfer, the request timed out"
    told = re.search(r"\b(?:but|however|though|although)\b", after, re.I) or _WHEN_BEFORE.search(
        text[: done.start()]
    )
    return bool(told) and bool(_FAILURE.search(after))


_WHEN_BEFORE = re.compile(r"\b(?:when|after|as\s+soon\s+as)\s*$", re.I)
_ATTEMPT_ENDED = re.compile(r"\b(?:cancell?ed|rejected|declined|failed|aborted|refused)\b", re.I)


def _present_done(text: str) -> bool:
    """A present 'is booked' said as a fact, not in a condition ("once it is booked",
    "provided it is filed before the deadline") nor as a rule's timeframe ("the records are
    sent within 5 business days")."""
    # ("approved reimbursements are paid by check or direct deposit within 30 days": a rule)
    done = (
        m
        for m in _PRESENT_DONE.finditer(text)
        if not (_TIMEFRAME_AFTER.match(text, m.end()) or _WHEN_AFTER.match(text, m.end()))
    )
    return first_unconditioned(done, text, _PRESENT_CONDITION) is not None


# "Your refund for contract TC-2888 has been approved": done to the user's thing, by someone;
# a short, bounded gap between the thing and the verb.
_PASSIVE_DONE = re.compile(
    # (not "Your booking still shows 7120, so nothing has changed": nothing was done)
    r"\byour\s(?:[^.;!?]|\.\d){0,60}?(?<!nothing\s)(?<!none\s)\b(?:has|have|was|were)\s+"
    r"(?:now\s+|just\s+|already\s+)?"
    r"(?:been\s+)?(?:successfully\s+)?(?:" + _PAST + "|" + _MORE_VERBS + r")\b"
    # "The curtain rod installation (BK-7762044) has been moved": a thing named by its id
    r"|(?-i:\b[A-Z]{2,}[A-Z0-9]*-?\d[\w-]*)\)?\s+(?:has|have)\s+(?:now\s+|just\s+|already\s+)?"
    r"been\s+(?:successfully\s+)?(?:" + _PAST + "|" + _MORE_VERBS + r")\b"
    # "APT-4471920 is moved from D-14 to D-09": a move reported in the present
    r"|\b(?:is|are)\s+(?:now\s+)?(?:moved|rescheduled|rebooked)\b"
    # "I've gone ahead and cancelled it"
    r"|\b(?:I|we)(?:'ve|’ve| have)?\s+(?:gone|went)\s+ahead\s+and\s+(?:"
    + _PAST
    + "|"
    + _MORE_VERBS
    + r")\b"
    # "You're booked in for Friday at 10:40": the user's place, done by a call
    r"|^\W*(?:you(?:['’]re|\s+are|['’]ve\s+been|\s+have\s+been)\s+(?:now\s+|all\s+)?"
    r"(?:booked|registered|enrolled|signed\s+up|scheduled|rebooked)\b)",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:i|we|i've|we've|i’ve|we’ve)\b", re.I)
_AGENT_I = re.compile(r"\b(?:i|i've|i’ve|i'd|i’d|i'll|i’ll)\b", re.I)
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:but|except|unless|although|while)\b", re.I)
# Figures, weekdays and months: the number check's business, not the favour's words.
_CALENDAR = re.compile(
    r"\d[\w.:,]*|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|"
    r"june|july|august|september|october|november|december",
    re.I,
)
_NOISE = frozenset({"will", "can", "make", "give", "get", "free", "charge", "cost", "extra"})


# "no patch-test slots free that day": free as in available, no favour; "I can't confirm
# whether one is free": a question, no favour either
_AVAILABLE_FREE = re.compile(
    r"\b(?:slots?|spaces?|places?|seats?|tables?|appointments?|rooms?|spots?|dates?|times?|"
    r"capacity|availability)\s+(?:\w+\s+)?$"
    r"|\b(?:whether|if)\s+(?:\w+\s+){0,3}(?:is|are|was|were)\s+(?:still\s+)?$"
    # "9:30 and 10:00 were both still free", "it was still free for that time": not taken yet
    r"|\b(?:is|are|was|were|['’]s|['’]re)\s+(?:both\s+|all\s+)?still\s+(?:both\s+|all\s+)?$"
    # "We have two free at Bermondsey": a count of things free to take
    r"|\b(?:have|has|got|are|is)\s+(?:(?:still|only|just)\s+)?(?:one|two|three|four|five|six|"
    r"\d{1,2}|a\s+few|several|some)\s+(?:\w+\s+)?$"
    # "As you'd already used your one free amendment, there's a £7.50 fee": a free one spent
    r"|\b(?:used|used\s+up|had|taken|spent)\s+(?:your|the|all|both)\s+(?:(?:one|only|two|"
    r"three)\s+)?$",
    re.I,
)
# Words of when, not of what is granted: "free of charge until 11:00 AM Mountain that day"
# (normalised tokens; "until", "before", "that" are stopwords already).
_WHEN_WORDS = frozenset(
    {"day", "time", "pm", "local", "today", "tomorrow", "morn", "even"}
) | frozenset(content_tokens(" ".join(ZONE_NAMES)))  # fmt: skip
_YOURSELF = re.compile(r"(?:\s+\w+){0,3}?\s+yourself\b", re.I)
_CHARGE_KEY = re.compile(r"charge|price|fee|cost|total|amount|payable|due", re.I)
_CHARGE_WORDS = content_tokens("charge price fee cost total amount payable due pence cents minor")


_JOB_KEYS = frozenset({"job", "service", "work", "task", "job_type", "service_type", "repair"})


def _job_named(call: ToolCall, words: frozenset[str]) -> bool:
    """Whether the claim names the job a call booked or did, in all its words ("we swap it"
    … "battery" of `job: battery_swap`)."""
    for key, value in call.fields:
        if key.rpartition(".")[2].lower() in _JOB_KEYS and len(value) <= 40:
            wanted = content_tokens(value.replace("_", " "))
            if wanted and wanted <= words:
                return True
    return False


# "you could free up at least 77 GB there": the verb, no favour
_FREE_UP = re.compile(r"free(?:d|s|ing)?\s+(?:up|it\s+up|them\s+up|some)\b", re.I)


def check_exception(
    claim_text: str, sources: Sequence[Source], calls: Sequence[ToolCall] = ()
) -> CheckResult | None:
    """A granted exception or favour must be granted by a successful tool call that does it
    ("rooms.upgrade" for an upgrade), or by a policy passage or tool result: a sentence with a
    word of the same family that shares the claim's object words. None when the claim grants
    nothing."""
    # (not a favour inside a quotation: the policy's own words, which the quote check reads)
    bare = _QUOTED.sub(lambda q: " " * len(q.group(0)), claim_text)
    found = [
        k
        for m in _EXCEPTION.finditer(bare)
        if not _REFUSED_BEFORE.search(claim_text[max(0, m.start() - 40) : m.start()])
        and not _REFUSED_AFTER.match(claim_text, m.end())
        and not _YOURSELF.match(claim_text, m.end())
        and not _FREE_UP.match(claim_text, m.start())
        and not _AVAILABLE_FREE.search(claim_text[max(0, m.start() - 40) : m.start()])
        and not _REPORTED_BEFORE.search(claim_text[max(0, m.start() - 80) : m.start()])
        for k, v in m.groupdict().items()
        if v and (k not in ("discount", "bonus") or _GRANT_VERB.search(claim_text))
    ]  # "I couldn't extend your booking", "extend it yourself in the app" grant nothing
    if not found or not _AGENT_VOICE.search(claim_text):
        return None
    idents = _identifiers(claim_text)
    for call in calls:
        tool = call.tool.lower()
        if idents and not any(call.holds(i) for i in idents):
            continue  # a call on another thing ("VL 112" upgraded, not "VL 117")
        if call.status == "ok" and not is_lookup(call.tool):
            kinds = [k for k in found if any(st in tool for st in _GRANT_TOOLS[k])]
            if kinds:
                return CheckResult(
                    name="commitment",
                    passed=True,
                    detail=f"tool {call.tool} ({call.source_id}) did it ({kinds[0]}), status ok",
                )
    if "free" in found:
        # "I've ordered a free replacement battery (order BT-77310)": the order's charge is 0;
        # "I've swapped it … at no extra cost": the swap's `price_change` is 0.
        acted = set(_action_of(claim_text)[0])
        said_words = content_tokens(claim_text)
        counted = counts_said(claim_text)
        for call in calls:
            # ("there's no stair-carry charge": `stair_carry_charge_pence: 0` names the charge)
            named_zero = any(
                v == 0 and _CHARGE_KEY.search(k) and (_key_words(k) - _CHARGE_WORDS) & said_words
                for k, v, _ in call.amounts()
            )
            # "Two of them are covered by your free daily guest allowance": `free_guests: 2`
            free_count = [
                k
                for k, v in call.fields
                if "free" in k.rsplit(".", 1)[-1].lower()
                and (n := _as_number(v)) is not None
                and n in counted
            ]
            if call.status != "ok" or not (
                any(call.holds(i) for i in idents)
                or call in _about(claim_text, [call])
                or (acted and not is_lookup(call.tool) and acted & set(_kinds(call.tool)))
                or named_zero
                or free_count
                or (not is_lookup(call.tool) and _job_named(call, said_words))
            ):
                continue
            zero = [k for k, v, _ in call.amounts() if v == 0 and _CHARGE_KEY.search(k)]
            if zero:
                return CheckResult(
                    name="commitment",
                    passed=True,
                    detail=f"tool {call.tool} ({call.source_id}) charges nothing: "
                    f"{zero[0].split('.', 1)[-1]}=0",
                )
            if free_count:
                return CheckResult(
                    name="commitment",
                    passed=True,
                    detail=f"tool {call.tool} ({call.source_id}) gives them free: "
                    f"{free_count[0].split('.', 1)[-1]}",
                )
    if "discount" in found:
        # "the 10% block discount takes £41 off" of a block whose `discount_pct` is 10
        figures = {v for q in extract_quantities(claim_text, True) for v in q.values if v}
        for call in calls:
            given = [
                k
                for k, v in call.fields
                if "discount" in k.lower() and (n := _as_number(v)) and n in figures
            ]
            if call.status == "ok" and given:
                return CheckResult(
                    name="commitment",
                    passed=True,
                    detail=f"tool {call.tool} ({call.source_id}) gives it: "
                    f"{given[0].split('.', 1)[-1]}",
                )
    kind = found[0]
    obj = _favour_words(claim_text)
    backing = [s for s in sources if s.kind in ("document", "tool_result", "memory")]
    best: tuple[float, str, str] | None = None
    grants = _whole_words(_GRANTS[kind])
    if kind == "waive" and _IF_CLAIM.search(claim_text):
        # "it'll be waived if you send the note" against "charged in full, unless you send a
        # note": the policy's exception, on its condition (an unconditional waiver is not it).
        grants = _whole_words((*_GRANTS[kind], "unless"))
    wanted = _loose(obj)
    # the whole claim's words, condition too: "If it isn't paid within 10 days, we'll post
    # the phone back to you unrepaired at no charge" says the policy's "If it is not paid
    # within 10 days, we return the device unrepaired at no charge" in other words
    whole = _loose(content_tokens(claim_text))
    for source in backing:
        injected = injected_text(source.text)
        for sentence in _sentences_of(source):
            if not grants.search(sentence) or in_injected(sentence, injected):
                continue  # (an injected instruction grants nothing: it is data)
            theirs = _loose(content_tokens(sentence))
            overlap = len(wanted & theirs) / len(obj) if obj else 1.0
            if (
                0.25 <= overlap < 0.4
                and len(whole) >= 5
                and len(whole & theirs) >= 0.6 * len(whole)
            ):
                overlap = 0.4
            if best is None or overlap > best[0]:
                best = (overlap, source.source_id, sentence)
    if best is not None and best[0] >= 0.4:
        said = " ".join(best[2].split())[:90]
        # (a refund without a return is granted in negative words: "you do not need to return it")
        if kind != "keep" and _refuses(best[2], grants) and not _DENIES.search(claim_text):
            # "Discounts do not apply to gift cards" names the favour only to refuse it.
            return CheckResult(
                name="commitment", passed=False, detail=f"{best[1]} refuses it ({kind}): “{said}”"
            )
        return CheckResult(
            name="commitment", passed=True, detail=f"{best[1]} grants it ({kind}): “{said}”"
        )
    return CheckResult(
        name="commitment",
        passed=False,
        detail=f"no policy passage or tool result grants this {_FAVOUR_NAMES.get(kind, kind)}",
    )


def _favour_words(claim_text: str) -> set[str]:
    """The words naming what a claim grants, for a policy sentence to share: those of the
    clause that grants it, not of its condition ("If it hasn't been applied, you can extend
    it yourself"), of another clause ("…; after that, the full $49.00 fee applies"), of when
    it holds ("until 11:00 AM Mountain that day") or of a citation marker. A clause that only
    points back ("you can do so free of charge") takes its condition's words."""
    text = without_citation_markers(claim_text)
    condition = _LEADING_CONDITION.match(text)
    favour = text[condition.end() :] if condition else text
    found = _EXCEPTION.search(favour)
    if found is not None:
        breaks = list(_FAVOUR_CLAUSE.finditer(favour))
        start = max((m.end() for m in breaks if m.end() <= found.start()), default=0)
        end = min((m.start() for m in breaks if m.start() >= found.end()), default=len(favour))
        favour = favour[start:end]

    def words(part: str) -> set[str]:
        return {
            t
            for t in content_tokens(part)
            if t not in _NOISE and t not in _WHEN_WORDS and not _CALENDAR.fullmatch(t)
        }

    obj = words(favour)
    if not obj and condition is not None:
        obj |= words(condition.group(0))
    return obj


def _loose(words: Iterable[str]) -> set[str]:
    """Stems without a final "e", so "reschedule" meets "rescheduled" ("reschedul")."""
    return {w[:-1] if len(w) > 4 and w.endswith("e") and not w.endswith("ee") else w for w in words}


# Where a granting clause ends: a semicolon, a dash, or a new clause after a comma.
_FAVOUR_CLAUSE = re.compile(
    r";|\s[—–-]\s|,\s+(?:after\s+that|otherwise|but|and\s+then|so|each|which)\b"
    # "… once free of charge if you'd like to travel on different dates": the user's wish,
    # no words of the favour
    r"|,?\s+if\s+you(?:['’]d\s+(?:like|prefer|rather)|\s+(?:want|prefer|wish|would\s+like))\b",
    re.I,
)


@lru_cache(maxsize=64)
def _whole_words(words: tuple[str, ...]) -> re.Pattern[str]:
    """`words` as whole words, with their common endings ("free" is not in "freeze")."""
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"\b(?:{alternatives})(?:s|d|ed|es|ing)?\b", re.I)


def _refuses(sentence: str, grants: re.Pattern[str]) -> bool:
    """Whether the clause of `sentence` that names the favour (one of the `grants` words)
    negates it ("Discounts do not apply to gift cards"); a negation in another clause ("free
    for members, no code needed") refuses nothing."""
    # (the negation near the favour word: "we pay automatic compensation … for each day the
    # service is not repaired" denies the repair, not the compensation)
    for clause in _CLAUSE_BREAK.split(sentence):
        clause = NO_CHARGE.sub(" free ", clause)
        for m in grants.finditer(clause):
            near = clause[max(0, m.start() - _REFUSAL_REACH) : m.end() + _REFUSAL_REACH]
            if _DENIES.search(near):
                return True
    return False


_REFUSAL_REACH = 35
"""Characters either side of a favour word that a refusing negation sits within."""


def _field_reports(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A passive report backed by a lookup's field: "your pickup code was sent by SMS" and
    `"code_sent_via": "SMS"` (the field's name shares two words with the claim and its value
    is in the claim), or None."""
    said = {w[:5] for w in content_tokens(claim_text)}
    low = claim_text.lower()
    for call in calls:
        if call.status != "ok":
            continue
        for key, value in call.fields:
            if not key.startswith("output.") or len(value) < 2 or value.lower() not in low:
                continue
            named = {w[:5] for w in content_tokens(" ".join(re.split(r"[._]", key)[1:]))}
            if len(named & said) >= 2 and re.search(rf"\b{re.escape(value.lower())}\b", low):
                return CheckResult(
                    name="tool_fact",
                    passed=True,
                    detail=f"{call.source_id} reports it: {key.split('.', 1)[1]} = {value}",
                )
    return None


def _when_reports(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A passive report of when something happened, backed by a lookup's "<verb>ed_at" field:
    "your address was added at 08:41 on 30 November" and `"added_at": "2026-11-30T08:41Z"`
    (the verb is the claim's, and the claim's dates are the field's), or None."""
    dated = _claim_dates(claim_text)
    timed = [q for q in extract_quantities(claim_text, True) if q.kind == "time"]
    if not (dated or timed):
        return None
    said = content_tokens(claim_text)
    for call in calls:
        if call.status != "ok":
            continue
        for key, value in call.fields:
            leaf = key.rsplit(".", 1)[-1].lower()
            verb = re.match(r"([a-z]+?)(?:_at|_on|_date|_time)$", leaf)
            if verb is None or not key.startswith("output."):
                continue
            if not content_tokens(verb.group(1)) or not content_tokens(verb.group(1)) <= said:
                continue
            held = distinct_quantities(value)  # "was logged at 08:52": the time too
            if all(
                any(h.kind == "date" and dates_match(q.dates, h.dates) for h in held) for q in dated
            ) and (  # one of the claim's times ("logged at 08:52 … before your trip at 09:00")
                not timed or any(h.kind == "time" and same_time(q, h) for h in held for q in timed)
            ):
                return CheckResult(
                    name="tool_fact",
                    passed=True,
                    detail=f"{call.source_id} reports it: {key.split('.', 1)[1]}",
                )
    return None


def _flag_reports(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A state report decided by a lookup's yes/no field: "your starter pack was delivered"
    against `{"sku": "starter_pack", "delivered": true}` (the field's name is a word of the
    claim, and another field of the same item names what the claim is about), or None. Backed
    when the field's value is what the claim says (negated or not), contradicted otherwise."""
    low = claim_text.lower()
    said = {w[:5] for w in content_tokens(claim_text)}
    for call in calls:
        if call.status != "ok":
            continue
        for key, value in call.fields:
            if not key.startswith("output.") or value not in ("True", "False"):
                continue
            item, _, leaf = key.rpartition(".")
            named = {w[:5] for w in content_tokens(leaf.replace("_", " "))}
            if not named or not named <= said:
                continue
            siblings = (
                v.lower().replace("_", " ")
                for k, v in call.fields
                if k.rpartition(".")[0] == item and k != key and len(v) >= 3
            )
            if not any(re.search(rf"\b{re.escape(v)}\b", low) for v in siblings):
                continue
            word = re.search(rf"\b(?:{'|'.join(re.escape(n) for n in sorted(named))})", low)
            before = low[max(0, word.start() - 30) : word.start()] if word else ""
            negated = re.search(r"\b(?:not|never|no)\b|n['’]t\b", before) is not None
            holds = (value == "True") != negated
            return CheckResult(
                name="tool_fact",
                passed=holds,
                detail=f"{call.source_id} {'reports' if holds else 'says otherwise'}: "
                f"{key.split('.', 1)[1]} = {value.lower()}",
            )
    return None


# "your payment of £279.80 has gone through", "the payment went through", "payment was taken"
_PAYMENT_DONE = re.compile(
    r"\bpayments?\b(?:[^.;!?]|\.\d){0,40}?\b(?:(?:has|have)\s+)?(?:gone|went)\s+through\b"
    r"|\bpayments?\b(?:[^.;!?]|\.\d){0,40}?\b(?:has|have|was|were)\s+(?:been\s+)?(?:successful|taken|"
    r"received|cleared|processed|completed|accepted)\b",
    re.I,
)
_PAID_KEY = re.compile(r"paid|payment|charged|captured|collected", re.I)
_PAID_STATES = frozenset({"paid", "succeeded", "success", "captured", "completed", "settled",
                          "complete", "successful", "cleared"})  # fmt: skip
_UNPAID_STATES = frozenset({"failed", "declined", "unpaid", "pending", "refused", "cancelled"})


def _payment_reports(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A payment said to have gone through, read from the calls: the amount a paid/charged
    field holds, else a payment's or purchase's state; None when the claim reports no payment
    or the calls say nothing of one."""
    done = _PAYMENT_DONE.search(claim_text)
    if done is None or re.search(r"\b(?:not|never|no)\b|n['’]t\b", done.group(0), re.I):
        return None  # "the payment hasn't gone through" is the failure check's
    claimed = _claim_amounts(claim_text)
    for call in calls:
        if call.status != "ok":
            continue
        if claimed:
            paid = [f for f in call.amounts() if _PAID_KEY.search(f[0].rsplit(".", 1)[-1])]
            if paid and all(_same_amounts(q, paid) for q in claimed):
                return CheckResult(
                    name="tool_fact",
                    passed=True,
                    detail=f"{call.source_id} reports it: {paid[0][0].split('.', 1)[1]}",
                )
            continue
        for key, value in call.fields:
            leaf = key.rsplit(".", 1)[-1].lower()
            if leaf not in ("status", "state", "payment_status") or not key.startswith("output."):
                continue
            word = _norm_status(value)
            if word in _PAID_STATES or word in _UNPAID_STATES:
                holds = word in _PAID_STATES
                return CheckResult(
                    name="tool_fact",
                    passed=holds,
                    detail=f"{call.source_id} {'reports' if holds else 'says otherwise'}: "
                    f"{key.split('.', 1)[1]} = {value}",
                )
    return None


# "you won't be charged anything", "there's no fee", "free of charge": nothing to pay
_NOTHING_CHARGED = re.compile(
    r"\b(?:won['’]t|will\s+not|(?:are|is|were|was)(?:n['’]t|\s+not))\s+(?:be\s+)?"
    r"(?:charged|billed)(?:\s+(?:anything|a\s+(?:penny|cent|thing)|at\s+all))?\b"
    r"|\bno\s+(?:\w+\s+)?(?:fee|charge|cost)s?\b(?!\s+(?:if|unless|once|when|after|before))"
    r"|\b(?:free\s+of\s+charge|at\s+no\s+(?:extra\s+|additional\s+)?(?:cost|charge)|nothing\s+to\s+pay)\b",
    re.I,
)
_FEE_KEY = re.compile(r"fee|charge|penalt|amount_due|balance_due|to_pay|payable", re.I)


def _free_reports(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """ "You won't be charged anything" backed by an ok call whose fee or charge amounts are
    all zero (a waived late-cancellation fee of 0.00); None when the claim says nothing of a
    charge, names an amount, or no call holds a fee. A fee the call holds above zero is left
    to the other checks: it may be the fee that was waived."""
    if _NOTHING_CHARGED.search(claim_text) is None or _claim_amounts(claim_text):
        return None
    for call in calls:
        if call.status != "ok":
            continue
        fees = [(k, v) for k, v, _ in call.amounts() if _FEE_KEY.search(k.split(".", 1)[-1])]
        if fees and all(v == 0 for _, v in fees):
            return CheckResult(
                name="tool_fact",
                passed=True,
                detail=f"{call.source_id} reports it: {fees[0][0].split('.', 1)[1]} = 0",
            )
    return None


# States a lookup reads ("has arrived", "has already processed it"), for a claim about a
# thing whose lookup failed.
_READ_STATE = re.compile(
    r"\b(?:has|have|had|was|were|is|are|['’]s|['’]ve)\s+(?:now\s+|already\s+|just\s+|also\s+|"
    r"been\s+|not\s+|n['’]t\s+|yet\s+|still\s+|currently\s+)*(?:arrived|received|processed|"
    r"cleared|settled|approved|under\s+(?:assessment|review)|being\s+(?:assessed|reviewed)|"
    r"pending|on\s+hold|"
    r"paid|delivered|shipped|completed|resolved|rejected|declined|accepted|credited|landed|"
    r"gone\s+through|come\s+through|matched|allocated|reconciled|ready|marked|graded|assessed|"
    r"come\s+back\s+(?:as\s+)?(?:valid|clear|approved|eligible|negative|positive|fine|ok))\b",
    re.I,
)
_VERIFY_TOOL = re.compile(r"verif|validat|check|eligib|screen", re.I)
_STATUS_KEY = re.compile(r"(?:^|[._])(?:status|state|stage|outcome|result)(?:$|[._])", re.I)


# Where a tracked thing is now ("The van is out on its route", "the crew are three drops away")
_WHERE_NOW = re.compile(
    r"\b(?:is|are|['’]s|['’]re)\s+(?:now\s+|currently\s+|already\s+|still\s+|just\s+)*"
    r"(?:out\s+on\s+(?:its|their|the|his|her)\s+(?:route|round|rounds|way)|"
    r"on\s+(?:its|their|the|his|her)\s+way|en\s+route|nearby|close\s+by|"
    r"(?:[\w-]+\s+){1,2}(?:stops?|drops?|deliveries|miles?|km)\s+away)\b",
    re.I,
)
# What a tracking call's noun is called in an answer ("track_vehicle": the van, the driver)
_TRACKED_AS = {
    "vehicle": frozenset({"van", "vans", "truck", "lorry", "driver", "crew", "vehicle"}),
    "driver": frozenset({"van", "truck", "lorry", "driver", "crew", "courier"}),
    "courier": frozenset({"courier", "driver", "rider", "van"}),
    "fleet": frozenset({"van", "truck", "lorry", "driver", "crew", "vehicle"}),
    # ("your bank transfer has been received" after `get_payment` failed)
    "payment": frozenset({"payment", "transfer", "funds", "money", "instalment"}),
}


def _unread(said: str, which: str, call: ToolCall) -> CheckResult:
    """A state the claim says that nothing read: the call that was to read it failed."""
    return CheckResult(
        name="tool_fact",
        passed=False,
        detail=f"{said}, but {which} {call.tool} ({call.source_id}) failed ({call.status}): "
        "nothing read it",
    )


def _failed_tracking(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """ "The van is out on its route now" when `track_vehicle` failed, "his ashes are ready"
    when `get_ashes_status` did, and no call that succeeded is about the thing: where it is
    or its state, which nothing read."""
    moving = _WHERE_NOW.search(claim_text)
    where = moving or _READ_STATE.search(claim_text)
    if where is None or _CONDITION_BEFORE.search(claim_text[: where.start()]):
        return None
    said = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", claim_text[: where.start()])}

    def about(call: ToolCall) -> bool:
        nouns = set(name_words(call.tool)[1:] if "." in call.tool else name_words(call.tool))
        return any(
            said & {stem(w) for w in _TRACKED_AS.get(n, frozenset({n}))}
            for n in nouns - LOOKUP_VERBS
        )

    # (where a thing is, after the call that was to send it failed: "A patrol is on its way"
    # when `dispatch_patrol` timed out)
    failed = [c for c in calls if c.status != "ok" and (is_lookup(c.tool) or moving) and about(c)]
    if not failed or any(c.status == "ok" and about(c) for c in calls):
        return None
    return _unread(f"'{where.group(0).strip()}'", "the lookup", failed[0])


def _failed_lookup_state(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """ "Transfer HU-PAY-550913 has arrived" when the lookup of HU-PAY-550913 failed and no
    call that succeeded holds a state of it: a state nothing read. None when the claim reports
    the failure, states no state, or names no such thing."""
    if _FAILURE.search(claim_text) or _ATTEMPT.match(claim_text):
        return None
    tracked = _failed_tracking(claim_text, calls)
    if tracked is not None:
        return tracked
    state = _READ_STATE.search(claim_text)
    if state is None or _CONDITION_BEFORE.search(claim_text[: state.start()]):
        return None
    idents = _identifiers(claim_text)
    if not idents and calls and all(c.status != "ok" for c in calls):
        # "… and it's come back as valid" when the only call, the check, failed
        lookups = [c for c in calls if is_lookup(c.tool) or _VERIFY_TOOL.search(c.tool)]
        if lookups:
            return _unread(f"'{state.group(0).strip()}'", "the only lookup", lookups[0])
    for ident in idents:
        failed = [c for c in calls if c.status != "ok" and is_lookup(c.tool) and c.holds(ident)]
        if not failed:
            continue
        read = [
            c
            for c in calls
            if c.status == "ok"
            and c.holds(ident)
            and any(_STATUS_KEY.search(k.split(".", 1)[-1]) for k, _ in c.fields)
        ]
        if not read:
            return _unread(f"'{state.group(0).strip()}' of {ident}", "the lookup", failed[0])
    return None


# Who money went to, in the claim's words and in a call's payee field.
_TO_YOU = re.compile(
    r"\b(?:paid|sent|transferred|refunded|credited|deposited|reimbursed|gone|went)\b[^.;!?]{0,60}?"
    r"\b(?:(?:in)?to|back\s+to)\s+(?:you\b|your\s+(?:own\s+)?(?:bank|account|card|"
    r"current\s+account|savings|wallet|paypal))"
    r"|\b(?:you(?:['’]ve|\s+have)|you)\s+(?:been\s+)?(?:paid|reimbursed|received)\b",
    re.I,
)
_TO_THIRD = re.compile(
    r"\b(?:paid|sent|transferred|settled)\b[^.;!?]{0,60}?\b(?:direct(?:ly)?\s+)?to\s+"
    r"(?:the|your)\s+(?:vet|vets|clinic|practice|hospital|provider|surgery|garage|repairer|"
    r"landlord|merchant|supplier|dentist)\b",
    re.I,
)
_PAYEE_KEY = re.compile(r"^(?:payee|paid_to|pay_to|recipient|beneficiary|payee_type)$", re.I)
_YOU_PAYEES = frozenset({"policyholder", "policy_holder", "customer", "member", "insured",
                         "claimant", "owner", "account_holder", "self", "you", "client",
                         "cardholder", "subscriber", "holder"})  # fmt: skip
_THIRD_PAYEES = frozenset({"provider", "vet", "clinic", "practice", "hospital", "merchant",
                           "supplier", "landlord", "third_party", "repairer", "garage",
                           "dentist", "surgery"})  # fmt: skip


def _payee_said(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """ "The remaining €684.00 was paid into your bank account" against a settlement whose
    `payee` is "provider": money said to have gone to the user (or to a third party) that the
    call says went to the other. The payee read is the one beside the claim's amount when it
    names one. None when the claim names no recipient or no call has a payee of a known kind."""
    to_you, to_third = _TO_YOU.search(claim_text), _TO_THIRD.search(claim_text)
    if bool(to_you) == bool(to_third):
        return None
    claimed = _claim_amounts(claim_text)
    for call in calls:
        if call.status != "ok":
            continue
        payees = [(k, v) for k, v in call.fields if _PAYEE_KEY.match(k.rsplit(".", 1)[-1])]
        if claimed:
            # the payee of the object that holds the claim's amount ("settlement.amount.value"
            # and "settlement.payee")
            near = {
                k.rsplit(".", 1)[0]
                for k, v, c in call.amounts()
                if any(_same_amounts(q, [(k, v, c)]) for q in claimed)
            }
            payees = [
                (k, v) for k, v in payees if any(n.startswith(k.rsplit(".", 1)[0]) for n in near)
            ]
        kinds = {v.strip().lower().replace(" ", "_").replace("-", "_") for _, v in payees}
        if len(kinds) != 1:
            continue
        (kind,) = kinds
        if kind not in _YOU_PAYEES and kind not in _THIRD_PAYEES:
            continue
        holds = (kind in _YOU_PAYEES) == bool(to_you)
        key = payees[0][0].split(".", 1)[1]
        return CheckResult(
            name="tool_fact",
            passed=holds,
            detail=f"{call.source_id} {'reports' if holds else 'says otherwise'}: {key} = {kind}"
            + ("" if holds else ": mismatch"),
        )
    return None


# A place the claim puts its thing at ("discharged … at Rotterdam", "held in Felixstowe").
_AT_PLACE = re.compile(
    r"\b(?:at|in|into|from|to|via)\s+(?:the\s+)?"
    r"(?P<place>(?-i:[A-Z][a-zà-ÿ'’-]{2,})(?:\s+(?-i:[A-Z][a-zà-ÿ'’-]{2,})){0,2})"
    # (not a possessive: "one hour at Dario's rate" names a person)
    r"(?<!['’]s)(?<!['’])(?![\w'’])",
    re.I,
)
_PLACE_KEY = re.compile(
    r"(?:^|_)(?:location|port|city|town|depot|terminal|hub|station|site|branch|warehouse|"
    r"facility|origin|destination|pod|pol|place)(?:_name)?$",
    re.I,
)
# Regions and calendar words are no misread place ("arrived in Europe", "in December").
_NOT_PLACES = frozenset({
    "europe", "asia", "africa", "america", "north america", "south america", "oceania",
    "the uk", "uk", "eu", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday", "utc", "gmt", "cet",
})  # fmt: skip


def _place_said(claim_text: str, calls: Sequence[ToolCall], known: str) -> CheckResult | None:
    """A place the claim puts its thing at that no source names, where the call it is about
    holds a place the claim does not say ("discharged … at Rotterdam" against a discharge
    event at "Antwerp, BE"): a misread location. `known` is every source's text, lower-cased.
    None when the claim names no such place or the call holds none."""
    places = [
        m.group("place")
        for m in _AT_PLACE.finditer(claim_text)
        if m.group("place").lower() not in _NOT_PLACES and m.group("place").lower() not in known
    ]
    if not places:
        return None
    about = [c for c in _about(claim_text, calls) if c.status == "ok"]
    low = claim_text.lower()
    for call in about:
        held = [
            (k, v)
            for k, v in call.fields
            if k.startswith("output.")
            and _PLACE_KEY.search(k.rsplit(".", 1)[-1])
            and v[:1].isupper()
        ]
        if held and not any(v.split(",")[0].strip().lower() in low for _, v in held):
            said = ", ".join(f"{k.split('.', 1)[1]}={v}" for k, v in held[:3])
            return CheckResult(
                name="tool_fact",
                passed=False,
                detail=f"{', '.join(places)} is not where {call.tool} says: {said} "
                f"({call.source_id}): mismatch",
            )
    return None


# --- values of list elements ------------------------------------------------------------------

_NAME_VALUE = re.compile(r"(?=[\w.-]*[a-z])(?=[\w.-]*[\d-])[\w.-]{4,40}", re.I)


@dataclass(frozen=True)
class _ListView:
    """A call's list elements, read once per call (every claim of an answer asks)."""

    names: dict[str, tuple[str, ...]]
    """element prefix ("output.nodes.1") -> its id-like values no other element holds,
    lower-cased, in field order"""
    numbers: dict[str, dict[str, set[str]]]
    """element prefix -> its numeric fields (`_element_numbers`)"""
    values: dict[str, tuple[str, ...]]
    """element prefix -> all its values, as written"""
    fields: dict[str, tuple[tuple[str, str], ...]]
    """element prefix -> its (leaf key, value) pairs"""


@lru_cache(maxsize=256)
def _list_view(call: ToolCall) -> _ListView:
    elements: dict[str, list[tuple[str, str]]] = {}
    for key, value in call.fields:
        prefix, _, leaf = key.rpartition(".")
        if prefix.rpartition(".")[2].isdigit():
            elements.setdefault(prefix, []).append((leaf, value))
    seen = Counter(v.lower() for fields in elements.values() for _, v in fields)
    return _ListView(
        names={
            prefix: tuple(
                v.lower()
                for _, v in fields
                if _NAME_VALUE.fullmatch(v.lower()) and seen[v.lower()] == 1
            )
            for prefix, fields in elements.items()
        },
        numbers={prefix: _element_numbers(fields) for prefix, fields in elements.items()},
        values={prefix: tuple(v for _, v in fields) for prefix, fields in elements.items()},
        fields={prefix: tuple(fields) for prefix, fields in elements.items()},
    )


def _status_on_condition(clause: str, word: str) -> bool:
    """Whether the status word `word` is said in `clause` only on a condition or as what may
    be ("can only start once …", "should be approved"), not as the state now."""
    spelled = re.escape(word).replace(r"\ ", " ").replace(" ", r"[\s_-]+")
    at = re.search(rf"\b{spelled}\b", clause, re.I)
    before = clause[: at.start()] if at else clause
    return bool(_CONDITION_BEFORE.search(before[-120:]) or _MODAL_BEFORE.search(before[-40:]))


_PERSON_NAME = re.compile(r"[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+){1,2}")


_ObjectView = tuple[dict[str, str], dict[str, set[str]], dict[str, list[str]]]


@lru_cache(maxsize=256)
def _object_view(call: ToolCall) -> _ObjectView:
    """A call's output objects outside lists, read once per call (every claim asks): object
    (its key path, "" the output itself) -> its status; -> its own values (not its children's);
    -> the people named in it or in a child of it ("approver")."""
    statuses: dict[str, str] = {}
    held: dict[str, set[str]] = {}
    people_of: dict[str, list[str]] = {}
    for key, value in call.fields[:MAX_FIELDS]:
        if not key.startswith("output."):
            continue
        prefix, _, leaf = key[len("output.") :].rpartition(".")
        if any(part.isdigit() for part in prefix.split(".")):
            continue  # list elements are check_element_status's
        if leaf in ("status", "state"):
            statuses[prefix] = _norm_status(value)
        held.setdefault(prefix, set()).add(value.lower())
        owner = prefix.rsplit(".", 1)[0] if "." in prefix else prefix
        if _PERSON_NAME.fullmatch(value):
            people_of.setdefault(prefix, []).append(value)
            people_of.setdefault(owner, []).append(value)
    return statuses, held, people_of


def check_object_status(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A status said in a clause that names one object of the call's output, by its key ("The
    refund shows as settled" of `refund.status: pending_bank`) or by an id it holds ("Your
    ticket INC0420510 is marked as resolved" of the ticket's own `state: on_hold`), where only
    another object has that status (`payment.status: settled`, `related_problem.state:
    resolved`): the status was read from the wrong field. None when no clause reads so."""
    clauses = _clauses(claim_text)
    idents = [i.lower() for i in _identifiers(claim_text)]
    for call in calls:
        if call.status != "ok":
            continue
        statuses, held, people_of = _object_view(call)
        if len(set(statuses.values())) < 2:
            continue
        for clause in clauses:
            said = {_norm_status(m.group(1)) for m in _STATUS_RE.finditer(clause)}
            if len(said) != 1:
                continue
            low = clause.lower()
            stems = {stem(w) for w in re.findall(r"[a-z]+", low)}
            by_key = [
                p for p in statuses if p and stem(p.rsplit(".", 1)[-1].split("_")[-1]) in stems
            ]
            by_id = [
                p for p in statuses if any(i in low and i in held.get(p, set()) for i in idents)
            ]
            # ("Grace Whitfield has approved it" of `manager_approval.approver`: the person's
            # decision is that object's status, whatever the other fields say)
            by_person = [p for p in statuses if any(n.lower() in low for n in people_of.get(p, ()))]
            named = by_key or by_id or by_person
            if len(named) != 1:
                continue
            (word,) = said
            if _status_on_condition(clause, word):
                continue
            own = statuses[named[0]]
            others = {v for p, v in statuses.items() if p != named[0]}
            elsewhere = _status_holds(clause, word, others, set())
            if not _status_holds(clause, word, {own}, set()) and (elsewhere or named == by_person):
                what = named[0] or "the record itself"
                return CheckResult(
                    name="tool_fact",
                    passed=False,
                    detail=f"'{word}' is another field's status; {what} is {own} "
                    f"({call.source_id}): mismatch"
                    if elsewhere
                    else f"'{word}' is not the status of {what}, which is {own} "
                    f"({call.source_id}): mismatch",
                )
    return None


# Words no element's name is told by: status words and carriers (read once, not per call)
_STATUS_CARRIER_STEMS = frozenset(
    stem(w) for w in re.findall(r"[a-z]+", " ".join((*_STATUS_WORDS, *_CARRIERS)))
)


def _distinct_words(
    values: dict[str, tuple[str, ...]], statuses: dict[str, str], carriers: set[str]
) -> dict[str, set[str]]:
    """Per list element with a status, the stems of the words of its values (4 letters or
    more) that no other element's values have, without status and carrier words (the call's
    own carriers too: "in transit with DHL Freight" names the carrier, not the element)."""
    words_of = {
        prefix: {
            stem(w)
            for v in vs[:MAX_FIELDS]
            if len(v) <= 80
            for w in re.findall(r"[a-z]{4,}", v.lower())
        }
        for prefix, vs in values.items()
        if prefix in statuses
    }
    counts = Counter(w for ws in words_of.values() for w in ws)
    plain = _STATUS_CARRIER_STEMS | {
        stem(w) for v in (*statuses.values(), *carriers) for w in re.findall(r"[a-z]+", v)
    }
    return {p: {w for w in ws if counts[w] == 1 and w not in plain} for p, ws in words_of.items()}


_DONE_SAID = re.compile(r"\b(?:has|have)\s+(?:now\s+|already\s+)?been\s+done\b", re.I)


def check_element_status(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A status said in a clause that names one list element by the words of its name, where
    that element has another status that a second element has ("… and education verification
    is still in progress" when `education_verification` is `clear` and `employment_verification`
    `in_progress`): the statuses are swapped. None when no clause reads so."""
    clauses = _clauses(claim_text)
    for call in calls:
        if call.status != "ok":
            continue
        view = _list_view(call)
        if len(view.values) < 2:
            continue
        seen = Counter(v.lower() for vs in view.values.values() for v in vs)
        statuses = {
            k.rpartition(".")[0]: _norm_status(v)
            for k, v in call.fields
            if _in_list(k) and k.rsplit(".", 1)[-1] in ("status", "state")
        }
        carriers = _carriers(call)
        # element -> the words of its names ("education_verification": education, verification;
        # not its carrier: "in transit with DHL Freight" names the carrier, not the element)
        names = {
            prefix: [
                words
                for n in (v.lower() for v in vs[:MAX_FIELDS] if len(v) <= 60)
                if seen[n] == 1
                and n not in carriers
                and _norm_status(n) != statuses.get(prefix)
                and (words := frozenset(w for w in re.split(r"[_\s-]+", n) if len(w) >= 3))
                and all(w.isalpha() for w in words)
            ]
            for prefix, vs in view.values.items()
            if prefix in statuses
        }
        distinct: dict[str, set[str]] | None = None  # read only for a clause that needs it
        for clause in clauses:
            low = set(re.findall(r"[a-z]+", clause.lower()))
            # the common status words, and the list's own as it spells them ("clear")
            said = {_norm_status(m.group(1)) for m in _STATUS_RE.finditer(clause)} | {
                v
                for v in set(statuses.values())
                if len(v) >= 4 and re.search(rf"\b{re.escape(v)}\b", clause, re.I)
            }
            if _DONE_SAID.search(clause):
                # "His bath and brush has been done too" beside a `completed` nail trim
                said.add("completed")
            named = [p for p, ws in names.items() if any(w <= low for w in ws)]
            if not named:
                # "The two 'Annabelle' hydrangeas" of "Hydrangea arborescens 'Annabelle' 5L":
                # a word of one element's name that no other element's values have
                stems = {stem(w) for w in low}
                if distinct is None:
                    distinct = _distinct_words(view.values, statuses, carriers)
                named = [p for p, ws in distinct.items() if ws & stems]
            if len(said) != 1 or len(named) != 1:
                continue
            (word,) = said
            if _status_on_condition(clause, word):
                continue  # "can only start once Lancashire Police has acknowledged"
            own = statuses[named[0]]
            others = {v for p, v in statuses.items() if p != named[0]}
            # (said as another element's status is, or in words of a finished result that
            # hold of it: "finalised" of a `pending` marker beside `final` ones; not the broad
            # "received", which holds of nearly any later stage)
            if not _status_holds(clause, word, {own}, set()) and (
                word in others or (word in _FINISHED and _status_holds(clause, word, others, set()))
            ):
                return CheckResult(
                    name="tool_fact",
                    passed=False,
                    detail=f"'{word}' is another element's status; {named[0].split('.', 1)[-1]} "
                    f"is {own} ({call.source_id}): mismatch",
                )
    return None


# A time said to be open for booking ("has openings at 3:00pm and 4:30pm", "4pm is free"), and
# the statuses of a slot that is not
_OPEN_SAID = re.compile(
    r"\b(?:available|availability|free|open|openings?|vacanc(?:y|ies)|bookable|spaces?\s+left)\b",
    re.I,
)
_SLOT_TIME = re.compile(r"(?:^|T)(?P<h>\d{2}):(?P<m>\d{2})(?::\d{2})?")
_TAKEN = frozenset(
    {"booked", "held", "on hold", "full", "unavailable", "reserved", "taken", "closed",
     "sold out", "blocked", "fully booked"}
)  # fmt: skip
_OPEN_STATUSES = frozenset({"available", "open", "free", "bookable", "vacant"})


def check_slot_availability(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A time said to be open ("openings at 3:00pm and 4:30pm") where the slots a call lists
    at that time all have a taken status (`{"start": "15:00", "status": "held"}`). None when no
    clause reads so."""
    for clause in _clauses(claim_text):
        if not _OPEN_SAID.search(clause) or _PLAIN_NEGATED.search(clause):
            continue
        # each time's readings ("7:00" is morning or evening) are looked up together
        said = [q.values for q in extract_quantities(clause, True) if q.kind == "time"]
        if not said:
            continue
        for call in calls:
            if call.status != "ok":
                continue
            slots: dict[str, tuple[set[int], str]] = {}
            for k, v in call.fields:
                prefix, _, leaf = k.rpartition(".")
                if not _in_list(k):
                    continue
                times, status = slots.get(prefix, (set(), ""))
                if leaf in ("status", "state", "availability"):
                    status = _norm_status(v)
                elif (t := _SLOT_TIME.search(v)) is not None and len(v) <= 25:
                    times = times | {int(t.group("h")) * 60 + int(t.group("m"))}
                slots[prefix] = (times, status)
            for readings in said:
                at = [st for times, st in slots.values() if readings & times and st]
                if at and all(st in _TAKEN for st in at) and not _OPEN_STATUSES & set(at):
                    minute = int(min(r for r in readings if any(r in t for t, _ in slots.values())))
                    shown = f"{minute // 60:02d}:{minute % 60:02d}"
                    return CheckResult(
                        name="tool_fact",
                        passed=False,
                        detail=f"said to be open at {shown} but {call.tool} lists that slot "
                        f"as {at[0]} ({call.source_id}): mismatch",
                    )
    return None


_PLAIN_NEGATED = negation_pattern("none", "nothing")


def _dates_said(text: str) -> set[str]:
    return {d for q in extract_quantities(text, True) for d in q.dates}


def _has_date(values: Iterable[str], said: set[str]) -> bool:
    days = {v[:10] for v in values if re.match(r"\d{4}-\d{2}-\d{2}", v)}
    return any(d in days or (d.startswith("--") and any(v[4:10] == d[1:] for v in days))
               for d in said)  # fmt: skip


def _id_said(view: _ListView, prefix: str, low: str) -> str | None:
    """The first id-like value (with a digit) of a list element that a lower-cased text
    says, or None."""
    return next(
        (i for i in view.names.get(prefix, ()) if any(ch.isdigit() for ch in i) and i in low),
        None,
    )


def _anchored(view: _ListView, prefix: str, low: str, said: set[str]) -> bool:
    """Whether a sentence (`low`, lower case; `said`, its dates) names a list element by an
    id-like value of its own or by its date."""
    return _id_said(view, prefix, low) is not None or _has_date(view.values[prefix], said)


# Words of a key path that say nothing of a person's role ("approver.name", "guide.full_name")
_NAME_KEY_WORDS = frozenset({"output", "name", "names", "full", "first", "last", "display"})
# Said of what is still to come: "will be looking after it", "your guide will be", "is assigned"
_TO_COME = re.compile(
    r"\b(?:will|['’]ll|is\s+going\s+to|are\s+going\s+to|is\s+assigned|are\s+assigned)\b", re.I
)


# Keys whose value is a person ("seamstress", "crew_lead", "approver", "guide.name"), not a
# vessel, a product or a branch that is named in capitals too
_PERSON_ROLES = frozenset(
    stem(w)
    for w in (
        "approver", "seamstress", "mechanic", "guide", "lead", "tailor", "photographer",
        "instructor", "driver", "technician", "engineer", "agent", "assignee", "manager",
        "stylist", "therapist", "vet", "doctor", "dentist", "nurse", "tutor", "teacher", "coach",
        "host", "contact", "advisor", "adviser", "consultant", "cover", "pilot", "pilots",
        "captain", "surveyor", "inspector", "courier", "rep", "representative", "owner",
        "caseworker", "handler", "fitter", "installer", "planner", "trainer", "groomer",
        "clinician", "physio", "optometrist", "pharmacist", "solicitor", "broker", "mentor",
        "supervisor", "officer", "cleaner", "stewards", "steward", "chef", "artist",
    )
)  # fmt: skip


def _role_words(key: str) -> set[str]:
    parts = re.split(r"[._]", key)
    return {stem(p) for p in parts if p and not p.isdigit() and p not in _NAME_KEY_WORDS}


@lru_cache(maxsize=256)
def _people(call: ToolCall) -> list[tuple[str, str, str]]:
    """(its list element, "" for the record itself; key; name) of every person the call's
    output names under a key that names people, read once per call."""
    elements = _list_view(call).values
    return [
        (next((p for p in elements if key.startswith(p + ".")), ""), key, value)
        for key, value in call.fields[:MAX_FIELDS]
        if key.startswith("output.")
        and _PERSON_NAME.fullmatch(value)
        and _role_words(key) & _PERSON_ROLES
    ]


def check_list_person(
    claim_text: str, sentence: str, calls: Sequence[ToolCall]
) -> CheckResult | None:
    """A person named in the claim who is another part of the record's than the one the
    claim's sentence names: another list element, named by its id or date ("Your second
    fitting is this Saturday, 8 August, and Priya Nair will be looking after you" when the
    8 August fitting is Imogen Clarke's); another role, named by its key ("The person to chase
    is Daniel Okafor, as the approval is sitting with him" of the cover, when the approver is
    Priya Nair); or a past job's, said of what is to come when the record's own job has its
    own ("Aoife Brennan … will be looking after it again" of `history`, the job's mechanic
    being Dariusz Kowal). None when no sentence reads so."""
    low = sentence.lower()
    words = {stem(w) for w in re.findall(r"[a-z]+", low)}
    for call in calls:
        if call.status != "ok":
            continue
        view = _list_view(call)
        people = _people(call)
        if len({n for _, _, n in people}) < 2:
            continue
        said = _dates_said(sentence)
        for holder, key, name in people:
            if name not in claim_text or any(n == name and h != holder for h, _, n in people):
                continue
            others = [(h, k, n) for h, k, n in people if n != name]
            roles = _role_words(key)
            wrong: tuple[str, str] | None = None
            if holder and not _anchored(view, holder, low, said):
                named = {h for h, _, _ in others if h and _anchored(view, h, low, said)}
                same = [
                    (k, n)
                    for h, k, n in others
                    if h in named and k.rsplit(".", 1)[-1] == key.rsplit(".", 1)[-1]
                ]
                if len(named) == 1 and same:
                    wrong = same[0]
                elif not named and _TO_COME.search(claim_text):
                    own = [(k, n) for h, k, n in others if not h and _role_words(k) & roles]
                    if len(own) == 1:
                        wrong = own[0]
            if wrong is None and not roles & words:
                by_role = {(k, n) for _, k, n in others if (_role_words(k) - roles) & words}
                if len({n for _, n in by_role}) == 1:
                    wrong = min(by_role)
            if wrong is not None:
                return CheckResult(
                    name="tool_fact",
                    passed=False,
                    detail=f"{name} is {key.split('.', 1)[-1]}; the claim speaks of "
                    f"{wrong[0].split('.', 1)[-1]}, who is {wrong[1]} ({call.source_id}): mismatch",
                )
    return None


def check_list_field_words(
    claim_text: str, sentence: str, calls: Sequence[ToolCall], before: str = ""
) -> CheckResult | None:
    """Words of one list element's field said in a sentence that names another element, by
    its id, its date or a name of its own, whose same field holds something else ("Then on
    Wednesday 9 December you have a 90-minute lesson … and she'll pick you up from home as
    well" when the 9 December lesson's `pickup` is "Westfield College, Gate B" and "Home - 14
    Ashby Road" is the 5 December one's; "4 Keel Row (23 November) was satisfactory as well"
    when its `result` is action_required). A claim whose subject is a pronoun ("It's being
    held at Moorgate Travel Centre") reads the element the sentence `before` names. A claim
    that also says its own element's value, or names the other element, is left alone. None
    when no such words are said."""
    claim_low = claim_text.lower()
    claimed = _long_stems(claim_low)
    for call in calls:
        if call.status != "ok":
            continue
        view = _list_view(call)
        if len(view.fields) < 2:
            continue
        anchored = _elements_named(view, sentence, claim_text)
        pointed = False  # named by the sentence before, the claim's own naming nothing
        if not anchored and before and _PRONOUN_SUBJECT.match(claim_text):
            anchored, pointed = _elements_named(view, before), True
        if len(anchored) != 1:
            continue
        mine = anchored[0]
        own = dict(view.fields[mine])
        own_values = {v.lower() for v in own.values()}
        own_words = {stem(w) for v in own.values() for w in re.findall(r"[a-z]+", v.lower())}
        for other, fields in view.fields.items():
            if other == mine or other.rpartition(".")[0] != mine.rpartition(".")[0]:
                continue
            # the other element's values the claim says, by key
            # ("card_fees" is said "card fees")
            named = {
                k
                for k, v in fields
                if len(v) >= 3
                and _as_number(v) is None
                and v.lower() not in own_values
                and not _STATUS_KEY.search(k)
                and v.lower().replace("_", " ") in claim_low.replace("_", " ")
            }
            for leaf, value in fields:
                if named and not pointed:
                    # the claim names the other element too ("Dan Whitfield picks …"); after a
                    # pronoun, the other's value of this very field is what is checked ("It's
                    # being held at Moorgate Travel Centre")
                    break
                if named - {leaf}:
                    continue  # another of its fields named: only that field is compared
                ours = own.get(leaf)
                status = bool(_STATUS_KEY.search(leaf))
                if (
                    ours is None
                    or ours.lower() == value.lower()
                    or len(value) > 60
                    or _as_number(value) is not None
                    or re.match(r"\d{4}-\d{2}-\d{2}", value)
                    or _NAME_VALUE.fullmatch(value.lower())
                ):
                    continue
                theirs = _long_stems(value.lower())
                # (a status's own words are what it says, after a verb: "Intermezzo is ready
                # too", "was satisfactory"; not "an average moisture content")
                plain = frozenset() if status else _STATUS_CARRIER_STEMS
                hit = sorted(
                    w
                    for w in (theirs - own_words - plain) & claimed
                    if not status
                    or (_said_as_state(claim_low, w) and not _RULE_SAID.search(claim_low))
                )
                own_said = _long_stems(ours.lower()) & claimed
                if hit and not own_said - theirs:
                    return CheckResult(
                        name="tool_fact",
                        passed=False,
                        detail=f"'{hit[0]}' is of {other.split('.', 1)[-1]}.{leaf} "
                        f"({value!r}); the element the sentence names has {leaf} {ours!r} "
                        f"({call.source_id}): mismatch",
                    )
    return None


def _long_stems(low: str) -> set[str]:
    """The stems of a lower-cased text's words of 4 letters or more."""
    return {stem(w) for w in re.findall(r"[a-z]{4,}", low)}


# "no result is released until they have": a rule, no element's state
_RULE_SAID = re.compile(r"\b(?:no|never|until|unless|only|once|if|whenever)\b")


def _said_as_state(low: str, word_stem: str) -> bool:
    """Whether a word (by its stem) is said as what something is ("is ready", "was
    satisfactory as well", "'s now in transit")."""
    return bool(
        re.search(
            rf"\b(?:is|are|was|were|['’]s|['’]re|been)\s+(?:\w+\s+){{0,2}}?{re.escape(word_stem)}",
            low,
        )
    )


def _elements_named(view: _ListView, sentence: str, claim: str = "") -> list[str]:
    """The list elements a sentence names: by an id-like value or date of their own, or by a
    name no other element holds ("Intermezzo", "4 Keel Row", "YE70 BLM")."""
    low = sentence.lower()
    by_id = {p for p in view.names if _id_said(view, p, low) is not None}
    # (a date every element has names none: "on Monday 30 November" of two items found then)
    by_date = set()
    for day in _dates_said(sentence):
        holding = {p for p in view.fields if _has_date(view.values[p], {day})}
        if len(holding) < len(view.fields):
            by_date |= holding
    if by_id or by_date:
        return sorted(by_id | by_date)
    # by a name only in the claim itself: its sentence may name every element in turn
    low = (claim or sentence).lower()
    seen = Counter(v.lower() for fields in view.fields.values() for _, v in fields)
    return [
        p
        for p, fields in view.fields.items()
        if any(
            _NAME_KEY.search(k)
            and len(v) >= 4
            and seen[v.lower()] == 1
            and _as_number(v) is None
            and re.search(rf"(?<![\w-]){re.escape(v.lower())}(?![\w-])", low)
            for k, v in fields
            if len(v) <= 60
        )
    ]


# Keys whose value names a list element ("title": "Intermezzo", "property": "4 Keel Row"),
# not a place or a state it has
_NAME_KEY = re.compile(
    r"(?:^|_)(?:name|title|property|registration|reg|item|product|model|device|vehicle|course|"
    r"module|address|plate|label|hostname|host|service|plan)(?:$|_)",
    re.I,
)


def check_list_values(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """Figures said of a list element that are another element's ("pg-orders-02 is on 16.4,
    and pg-orders-03 is on 16.6" when the list holds them the other way round): each clause
    that names exactly one element by an id-like value is read for its figures; a figure that
    is another element's value under the same key, and none of its own, is swapped. None
    when no such figure is found."""
    low = claim_text.lower()
    for call in calls:
        if call.status != "ok":
            continue
        view = _list_view(call)
        if len(view.names) < 2:
            continue
        named: list[tuple[int, str]] = []  # (where the claim names it, element prefix)
        for prefix, names in view.names.items():
            for v in names:
                at = re.search(rf"(?<![\w.-]){re.escape(v)}(?![\w-])", low)
                if at is not None:
                    named.append((at.start(), prefix))
                    break
        if len(named) < 2:
            continue
        swapped = _paired_names(claim_text, view)
        if swapped is not None:
            return CheckResult(
                name="tool_fact", passed=False, detail=f"{swapped} ({call.source_id}): mismatch"
            )
        # each clause that names exactly one element is read for that element's figures
        # ("€570.00 on the 40-foot OCLU4471203 and €285.00 on the 20-foot OCLU4471219")
        for start, end in _clause_bounds(claim_text):
            inside = [prefix for at, prefix in named if start <= at < end]
            if len(inside) != 1:
                continue
            prefix = inside[0]
            own = view.numbers[prefix]
            for q in extract_quantities(claim_text[start:end], True):
                if q.kind not in ("number", "money") or not q.values:
                    continue
                if any(_near(q, values) for values in own.values()):
                    continue
                for other, theirs in view.numbers.items():
                    if other == prefix:
                        continue
                    keys = [k for k, values in theirs.items() if _near(q, values) and k in own]
                    if keys:
                        name = next(v for v in view.values[prefix] if v.lower() in low)
                        return CheckResult(
                            name="tool_fact",
                            passed=False,
                            detail=f"{q.describe()} is another element's {keys[0]} in "
                            f"{call.tool}, not {name}'s ({', '.join(sorted(own[keys[0]]))}) "
                            f"({call.source_id}): mismatch",
                        )
    return None


# Two names said of one thing: "dlv_71Hc3 (evt_9KD21X, …)": the first word in parentheses
# right after a name.
_PAIRED_NAME = r"\s*\(\s*(?P<paren>[^\s,;)]+)"


def _paired_names(claim_text: str, view: _ListView) -> str | None:
    """A list element's name said together with another element's as one thing (the ids of
    two replays swapped), or None."""
    low = claim_text.lower()
    owner = {v: prefix for prefix, names in view.names.items() for v in names}
    for v, prefix in owner.items():
        if v not in low:
            continue  # (most names of a long list are not in the claim: no pattern to build)
        for m in re.finditer(rf"(?<![\w.-]){re.escape(v)}(?![\w-]){_PAIRED_NAME}", low):
            other = m.group("paren").rstrip(".")
            theirs = owner.get(other)
            if theirs is not None and theirs != prefix:
                return f"'{v}' and '{other}' are said of one thing but are two elements' names"
    return None


def _element_numbers(fields: Sequence[tuple[str, str]]) -> dict[str, set[str]]:
    """An element's numeric fields: leaf key -> the value as written and, for amounts in
    minor units, in major units."""
    out: dict[str, set[str]] = {}
    for leaf, value in fields:
        number = _as_number(value)
        if number is None:
            continue
        if MINOR_UNIT_KEY.search(leaf):
            number /= 100
        out.setdefault(leaf, set()).add(f"{number:g}")
    return out


def _near(q: Quantity, values: set[str]) -> bool:
    return any(abs(float(v) - x) <= max(0.005, q.tolerance) for v in values for x in q.values)


# --- one claim ------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _stated(texts: tuple[str, ...]) -> tuple[Quantity, ...]:
    """The amounts, percentages, dates, times and lengths of time the policies and earlier
    turns state ("the November 20 deadline", "a discount fee of 1.2%", "he finishes work at
    1pm", "guaranteed for 12 months"): read once per answer, not once per claim."""
    return tuple(
        q
        for text in texts
        for q in distinct_quantities(text)
        if q.currency
        or q.kind in ("money", "date", "percent", "time")
        or q.duration_days is not None
    )


# A reading said as the present one ("the lock reads off", "is back on air again").
_READ_NOW = re.compile(r"\b(?:is|are|reads|shows|showing|says|reports|remains|stays)\b", re.I)
_FRESH = re.compile(
    r"\b(?:back|again|restored|recovered|currently|right\s+now|at\s+the\s+moment)\b", re.I
)
# Not said as the present reading: hedged, conditional, the last one known, or unknown.
_NOT_READ = re.compile(
    r"\b(?:may|might|could|would|should|unknown|unclear|not\s+sure|unverified|unconfirmed|"
    r"can['’]t\s+(?:confirm|tell|see|say)|cannot|couldn['’]t|until|once|if|when|whether|"
    r"last|earlier|was|were|before|expect\w*|likely|probably|please|check)\b|\?",
    re.I,
)


def _tool_objects(tool: str) -> set[str]:
    """The nouns of a tool's name after its namespace ("tibench.check_lock": {"lock"})."""
    name = tool.rsplit(".", 1)[-1]
    words = set(name_words(name))
    return {w for w in words - LOOKUP_VERBS if len(w) >= 3}


def _reads(tool: str) -> bool:
    """A lookup by its name, or by the verb it starts with ("check_lock" reads a lock)."""
    name = tool.rsplit(".", 1)[-1]
    words = name_words(name)
    return is_lookup(tool) or bool(words and words[0] in LOOKUP_VERBS)


def _arguments(call: ToolCall) -> frozenset[str]:
    return frozenset(v for k, v in call.fields if k.startswith("arguments."))


def _particular(thing: str, low: str) -> bool:
    """Whether the claim names `thing` as one thing ("your item", "the lock", "item BW55"), not
    as a kind: "Items are usually ready from the next working day" is the policy on items
    (a plural with no determiner), not a reading of the one a failed tracking call would have
    read."""
    for m in re.finditer(rf"\b{re.escape(thing)}(\w*)", low):
        plural = m.group(1) in ("s", "es")
        determined = re.search(
            r"\b(?:your|the|this|that|these|those|its|my|his|her|their|our)\s+(?:[\w-]+\s+){0,2}$",
            low[max(0, m.start() - 40) : m.start()],
        )
        if not plural or determined:
            return True
    return False


def _unread_state(text: str, calls: Sequence[ToolCall], backed: bool) -> CheckResult | None:
    """A present reading of what a lookup would have read when its latest call failed: none
    was made ("activation lock reads off" after `check_lock` timed out), or the claim says the
    state changed since the last good one ("is back on air again" after `get_site` timed out
    on a later try). None where an earlier reading or another check backs it as it stands."""
    if _NOT_READ.search(text) or _FAILURE.search(text) or not _READ_NOW.search(text):
        return None
    low = text.lower()
    words = set(content_tokens(text))
    # where each tool was first read well, and each (tool, arguments) last: once per claim
    first_ok: dict[str, int] = {}
    last_ok: dict[tuple[str, frozenset[str]], int] = {}
    for j, c in enumerate(calls):
        if c.status == "ok":
            first_ok.setdefault(c.tool, j)
            last_ok[(c.tool, _arguments(c))] = j
    for i, failed in enumerate(calls):
        if failed.status == "ok" or not _reads(failed.tool):
            continue
        args = _arguments(failed)
        if last_ok.get((failed.tool, args), -1) > i:
            continue  # read again after the failure
        # any good reading of that tool, of this thing or another (a reading at 08:02 of the
        # three hosts, then a failed one of one host)
        earlier = first_ok.get(failed.tool, i) < i
        # what the lookup reads, by name ("the lock"); the thing it reads ("MZ-0417") only
        # where an earlier reading of it went stale (the thing has other, backed sides:
        # "its TTL was lowered" after a failed propagation check)
        named = any(_particular(o, low) for o in _tool_objects(failed.tool) & words) or (
            earlier and any(len(v) >= 4 and v.lower() in low for v in args)
        )
        if not named:
            continue
        if earlier and not _FRESH.search(text):
            continue  # the last good reading, said as it stood
        if not earlier and backed:
            continue
        return CheckResult(
            name="system_state",
            passed=False,
            detail=f"no reading backs it now: {failed.tool} ({failed.source_id}) returned "
            f"status {failed.status}" + (" after the last good reading" if earlier else ""),
        )
    return None


@lru_cache(maxsize=8)
def _known_text_of(texts: tuple[str, ...]) -> str:
    return " ".join(texts).lower()


def _known_text(sources: Sequence[Source]) -> str:
    """Every source's text, lower-cased (read once per answer, not once per claim)."""
    return _known_text_of(tuple(s.text for s in sources))


# "I've started the restore from that snapshot": the agent's start of a job its noun names
_STARTED = re.compile(
    r"\b(?:I|we)(?:['’]ve|\s+have)?\s+(?:just\s+|now\s+|already\s+|also\s+)?"
    r"(?:started|begun|kicked\s+off|launched|triggered|queued|set\s+off)\s+"
    r"(?:the|a|an|your)\s+(?P<noun>[\w-]+(?:\s+[\w-]+)?)",
    re.I,
)


def check_started_after_failure(
    claim_text: str, sentence: str, calls: Sequence[ToolCall]
) -> CheckResult | None:
    """A job the agent says it started ("I've started the restore") when the only call of
    that kind failed and the sentence tells no failure: the action is not backed. None when
    the claim starts nothing, a call of the kind succeeded, or the failure is told ("I started
    a refund of it, but the request was cancelled")."""
    m = _STARTED.search(claim_text)
    if m is None or _FAILURE.search(sentence):
        return None
    # the job's noun, after an adjective at most ("a full refund")
    noun, kinds = next(
        ((w, k) for w in m.group("noun").split() if (k := set(_kinds(w)) - {"start"})),
        ("", set()),
    )
    if not kinds:
        return None
    of_kind = [c for c in calls if kinds & set(_kinds(c.tool))]
    failed = [c for c in of_kind if c.status != "ok"]
    if not failed or len(failed) < len(of_kind):
        return None
    return CheckResult(
        name="action",
        passed=False,
        detail=f"the claim that the {noun.lower()} was started is not backed: tool "
        f"{failed[-1].tool} ({failed[-1].source_id}) returned status {failed[-1].status}",
    )


# A claim whose subject is a pronoun ("The good news is that it has since been resolved"),
# after any lead-in of how the news is
_PRONOUN_SUBJECT = re.compile(
    r"^\W*(?:(?:the\s+)?(?:good|bad|better|great)\s+news\s+is(?:\s+that)?,?\s+|"
    r"(?:luckily|happily|unfortunately|sadly|however|so|and|but),?\s+)?"
    r"(?:it|it['’]s|this|that)\b(?!\s+(?:is|was|['’]s)\s+(?:worth|possible|likely|best|fine|ok|"
    r"okay|important|free|easy|normal|usual|common|why|because|what|how))"
    # "That's £7,932.35 across the three": a total said, no one element
    r"(?!(?:['’]s|\s+is|\s+was|\s+comes\s+to|\s+makes)\s+(?:[£$€]|\d|a\s+total|all|everything|"
    r"about|around|roughly|just|only|in\s+total))",
    re.I,
)


def with_antecedent(claim: Claim, answer_text: str, calls: Sequence[ToolCall]) -> Claim:
    """The claim with the one list element its pronoun points back to as its subject ("it has
    since been resolved" after a sentence naming incident KW-INC-7710), for the tool checks
    to read that element; the claim unchanged when it names its own thing, or the sentence
    before names no element, or several."""
    if claim.implicit_subject or not _PRONOUN_SUBJECT.match(claim.text):
        return claim
    # (a card's or an account's ending names no element: "It lands in your account ending 4821")
    if any(not _card_digits(claim.text, i) for i in _identifiers(claim.text)):
        return claim
    before = sentence_before(answer_text, claim.span.start)
    low = before.lower()
    # the elements the sentence names, each by any of its names ("TK-4470215, payout
    # PO-88120" are one payout's task and payout ids)
    named = {
        (call.source_id, element): min(hits, key=low.find)
        for call in calls
        if call.status == "ok"
        for element, names in _list_view(call).names.items()
        if (hits := [v for v in names if any(ch.isdigit() for ch in v) and v in low])
    }
    if len(named) != 1:
        return claim
    (name,) = named.values()
    at = low.find(name)
    return claim.model_copy(update={"implicit_subject": before[at : at + len(name)]})


def ground_in_tools(
    claim: Claim,
    checks: list[CheckResult],
    calls: Sequence[ToolCall],
    sources: Sequence[Source],
    answer_text: str = "",
) -> list[CheckResult]:
    """`checks` with the action check done on the structured calls, and the tool-fact and
    exception checks added where they apply. `answer_text` (the whole answer) holds the
    figures the claim's arithmetic may start from beyond its own."""
    out = [c for c in checks if c.name != "action"]
    # The statement, with the subject a coordinated predicate shares ("[Your order A-1] should
    # arrive on December 3"), so the claim finds the call it is about.
    # (without its citation markers: "[ferncroft-fees-2026]" names a source, not an id a call
    # must hold)
    text = without_citation_markers(claim.statement)
    stated = _stated(tuple(s.text for s in sources if s.kind in ("document", "memory")))
    # the answer's grounded figures outside the claim (`checks.backed_figures`, cached)
    also = tuple(
        a
        for a in (
            backed_figures(answer_text, tuple(s.text for s in sources)) if answer_text else ()
        )
        if not claim.span.start <= a.start < claim.span.end
    )
    fact = check_tool_facts(text, calls, stated, also)
    if fact is None:
        fact = check_reported_failure(text, calls) or _nothing_done(text, calls)
    if fact is None:
        fact = check_empty_lists(text, calls)
    if fact is None:
        fact = _payment_reports(text, calls)
    if fact is None:
        fact = _free_reports(text, calls)
    if fact is None:
        fact = _result_reports(text, calls)
    if fact is None:
        fact = _attempt_reports(text, calls)
    if fact is None or fact.passed is not False:
        unread = _failed_lookup_state(text, calls)
        if unread is not None:
            fact = unread
    swapped = (
        check_list_values(text, calls)
        or check_element_status(text, calls)
        or check_object_status(text, calls)
        or check_slot_availability(text, calls)
    )
    if swapped is not None:
        fact = swapped  # a figure said of the wrong element of a list
    if fact is None or fact.passed is not False:
        place = _place_said(text, calls, _known_text(sources))
        if place is not None:
            fact = place  # the right event, said of another place
    payee = _payee_said(text, calls)
    if payee is not None and (payee.passed is False or fact is None):
        fact = payee  # right amount and date, paid to someone else
    action = None
    if (
        any(c.name == "action" for c in checks)
        or needs_action_check(claim)
        or _PASSIVE_DONE.search(text)
        or _MORE_PAST.search(text)
        # "the 11 pm slot is booked" right after the booking call timed out: a state only the
        # failed call could have made (without one it is a lookup's state, read as a fact)
        or (
            _present_done(text)
            and not _FAILURE.search(text)
            and _failed_attempt(text, calls) is not None
        )
    ) and not (_attempt_reported(text, calls) or _NOTHING_DONE.match(text)):
        action = check_action(text, calls, stated)
        # An attempt on the claim's thing that failed keeps the action check, whoever did it.
        attempted = (
            action.passed is not True
            and _failed_attempt(text, calls) is not None
            and not _recorded_earlier(text, calls)
        )
        if action.passed is not True and not _FIRST_PERSON.search(text) and not attempted:
            # "Your order has shipped" is the order's state as a lookup returned it, not
            # something the agent did: the tool's fields decide.
            if fact is None or fact.passed is None:
                fact = (
                    _field_reports(text, calls)
                    or _flag_reports(text, calls)
                    or _when_reports(text, calls)
                    or fact
                )
            # (a fact that decides nothing, "the carrier agrees", leaves the action check)
            if fact is not None and fact.passed is not None:
                action = None
        elif (
            action.passed is not True
            and not attempted
            and fact is not None
            and fact.passed is True
            and not _AGENT_I.search(text)
        ):
            # "We paid the vet £410.72" with a lookup showing that payment: the company's
            # recorded act, not one the agent claims to have done now ("I've paid" stays strict).
            action = None
    if action is None or action.passed is None:
        namesake = _failed_namesake(text, calls)
        if namesake is not None:
            action = namesake
    if action is None:
        unread = _unread_state(text, calls, backed=fact is not None and fact.passed is True)
        if unread is not None:
            fact = unread
    if action is not None:
        out.append(action)
    elif fact is not None:
        out.append(fact)
        if fact.passed is True:
            # "£4,590.80 will be refunded by bank transfer by 18 December": the call that
            # holds the refund's amount and date states the promise, whatever words it uses
            out = [c for c in out if not (c.name == "commitment" and c.passed is False)]
    exception = check_exception(claim.text, sources, calls)
    if exception is not None:
        # The exception check is the stricter reading of a commitment: it replaces the
        # lexical one when it fails, and joins it when it passes.
        if exception.passed is False:
            out = [c for c in out if c.name != "commitment"]
        elif exception.passed and exception.detail.startswith("tool "):
            # a call that did it, or charged nothing for it, backs the favour structurally:
            # no policy sentence need state it too
            out = [c for c in out if not (c.name == "commitment" and c.passed is False)]
        out.append(exception)
    return out
