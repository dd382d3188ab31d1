"""A measured value said of the field that records it, and read wrong.

"Your free chlorine came back at 1.4 ppm" where the water test returned `free_chlorine_ppm:
0.4`: the claim names the field by all the words of its key, so the figure is that field's, and
the number check's leave to work a figure out from others (1.4 = 1 + 0.4) does not apply. Pure;
reads the flattened tool calls.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hallmon.schemas import CheckResult
from hallmon.verification.checks import MAX_CLAIM_FIGURES
from hallmon.verification.numbers import Quantity, extract_quantities
from hallmon.verification.text import content_tokens
from hallmon.verification.tools import ToolCall
from hallmon.verification.units import measure_of

# unit words at the end of a key ("free_chlorine_ppm", "battery_health_pct", "temp_c")
_KEY_UNITS = frozenset(
    {"ppm", "ppb", "pct", "percent", "psi", "bar", "db", "kwh", "kw", "w", "v", "mbps", "gb",
     "mb", "c", "f", "kg", "g", "lb", "lbs", "km", "m", "cm", "mm", "mi", "l", "ml", "mg"}
)  # fmt: skip
# a figure of a bound or a comparison, not a reading: "up to 3", "below 1 ppm", "from 7.2"
_BOUND_BEFORE = re.compile(
    r"\b(?:up\s+to|at\s+(?:most|least)|max(?:imum)?|min(?:imum)?|limit|over|under|above|"
    r"below|more\s+than|less\s+than|fewer\s+than|within|between|from|to|and|range|target|"
    r"recommended|per|by|than|of\s+up\s+to|around|about)\s*$",
    re.I,
)
_CLAUSE_END = re.compile(r"[,;:]\s|\.\s|\s(?:which|and|but|so|while)\s", re.I)
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
# a figure inside a name or an id ("ending 3381", "CV-…-4471", "the 1st", "AA")
_PART_OF_NAME = re.compile(r"[A-Za-z-][\d.]+|[\d.]+(?:st|nd|rd|th|[A-Za-z]*-)", re.I)
_TIME_UNITS = frozenset({"days", "weeks", "months", "years", "hours", "minutes", "seconds"})
_BEFORE_CHARS = 40
_MAX_FIELD_CHARS = 24


def _clause(text: str, start: int) -> str:
    """The clause of `text` that holds position `start`."""
    begin = 0
    for m in _CLAUSE_END.finditer(text):
        if m.end() <= start:
            begin = m.end()
        elif m.start() >= start:
            return text[begin : m.start()]
    return text[begin:]


def _key_words(key: str) -> frozenset[str]:
    """The words of a field's own name, less a unit at its end."""
    parts = [p for p in re.split(r"[_\W\d]+", key.rpartition(".")[2].lower()) if p]
    while parts and parts[-1] in _KEY_UNITS:
        parts.pop()
    return content_tokens(" ".join(parts))


def _field_quantity(key: str, value: str) -> tuple[Quantity, str] | None:
    if len(value) > _MAX_FIELD_CHARS or not _NUMBER.fullmatch(value.strip()):
        return None
    leaf = key.rpartition(".")[2].replace("_", " ")
    rendered = f"{leaf}: {value.strip()}."
    found = [q for q in extract_quantities(rendered, False) if q.kind in ("number", "percent")]
    return (found[-1], rendered) if found else None


def _same(q: Quantity, claim_text: str, f: Quantity, rendered: str) -> bool | None:
    """Whether a claim's figure is the field's value (converted between units where both
    carry one); None where only one of them says its unit, so they cannot be compared."""
    mine, theirs = measure_of(q, claim_text), measure_of(f, rendered)
    if (mine is None) != (theirs is None):
        return None
    if mine is not None and theirs is not None:
        if mine.dimension != theirs.dimension:
            return None
        return any(
            abs(mine.value * a - theirs.value * b) <= 1e-6 * max(1.0, abs(theirs.value * b))
            for a in mine.factors
            for b in theirs.factors
        )
    return bool(q.values & f.values)


def _words_before(claim_text: str, q: Quantity) -> frozenset[str]:
    """The words right before a figure, inside its clause ("free chlorine came back at [1.4]"):
    a reading follows what it reads; words after it name what it counts ("3 freeze months")."""
    clause = _clause(claim_text, q.start)
    at = claim_text.find(clause)
    return content_tokens(claim_text[max(at, q.start - _BEFORE_CHARS) : q.start])


def check_named_measures(claim_text: str, calls: Sequence[ToolCall]) -> CheckResult | None:
    """A reading the claim gives right after the words of a field's key (all of them, two at
    least), where no such field of an ok call holds it and no other
    figure of the clause is the field's. None where no figure names a field, or one does and
    agrees."""
    keyed = [
        (call, key, raw, wanted)
        for call in calls
        if call.status == "ok"
        for key, raw in call.fields
        # (two words of its own at least: "battery_pct" is named by any "batteries";
        # a list element's field is one of many, for the list checks to place)
        if len(wanted := _key_words(key)) >= 2 and not re.search(r"\.\d+\.", key)
    ]
    if not keyed:
        return None
    # (a sentence-sized claim states a handful of figures; thousands, in hostile input, would
    # make each of them a scan of the whole claim: as many as the number check reads)
    figures = extract_quantities(claim_text, True)[:MAX_CLAIM_FIGURES]
    for q in figures:
        if q.kind not in ("number", "percent") or len(q.values) != 1 or q.unit in _TIME_UNITS:
            continue
        value = next(iter(q.values))
        if (
            _BOUND_BEFORE.search(claim_text[max(0, q.start - 25) : q.start])
            or _PART_OF_NAME.search(claim_text[max(0, q.start - 1) : q.end + 2])
            or (value.is_integer() and 1900 <= value <= 2100)
        ):
            continue
        words = _words_before(claim_text, q)
        clause = _clause(claim_text, q.start)
        others = {v for o in figures if o is not q and clause.find(claim_text[o.start : o.end]) >= 0
                  for v in o.values}  # fmt: skip
        named: list[tuple[str, str, bool]] = []
        for call, key, raw, wanted in keyed:
            if not wanted <= words:
                continue
            field = _field_quantity(key, raw)
            if field is None or field[0].values & others:
                continue  # (another figure of the clause is this field's: "1 of your 2")
            same = _same(q, claim_text, *field)
            if same is not None:
                named.append((f"{key.split('.', 1)[-1]}={raw}", call.tool, same))
        if named and not any(same for _, _, same in named):
            field_said, tool, _ = named[0]
            return CheckResult(
                name="tool_fact",
                passed=False,
                detail=f"'{claim_text[q.start : q.end]}' but {tool} records {field_said}: mismatch",
            )
    return None
