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

__all__ = ["RecordFact", "check_record", "record_facts"]

# Words that name no feature of their own ("RestaurantsReservations", "BusinessAcceptsCards").
_GENERIC = frozenset({"restaurant", "business", "good", "for", "has", "is", "accept", "by"})
_FALSE = frozenset({"no", "none", "false"})
_TRUE = frozenset({"yes", "true", "free", "paid"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[a-z0-9]+")
_PY_STR = re.compile(r"^u?'(.*)'$")
_SHORT = 5
"""A nested field whose name is at most this many letters also needs its group's name."""

_NEGATION = re.compile(
    r"\b(?:not|no|never|without|lacks?|lacking|neither|nor|unavailable|cannot)\b|n't\b"
)
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
    truth: bool
    names: tuple[tuple[str, ...], ...]

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
    value: Any, path: tuple[str, ...], source_id: str, in_group: bool = False
) -> Iterable[RecordFact]:
    """`in_group`: the value's parent is a group of flags ({"garage": false, "lot": true})."""
    if isinstance(value, dict):
        group = bool(path) and all(_truth(v) is not None for v in value.values())
        for k, v in value.items():
            yield from _leaves(v, (*path, str(k)), source_id, group)
        return
    truth = _truth(value)
    if truth is None or not path:
        return
    own = _key_words(path[-1])
    if not own:
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
    for tool in ctx.tool_results:
        output = _parse(tool.output) if isinstance(tool.output, str) else tool.output
        if isinstance(output, dict):
            facts.extend(_leaves(output, (), f"tool:{tool.tool}:{tool.call_id}"))
    return facts


def _pieces(text: str) -> Iterable[tuple[list[str], bool]]:
    """(words, negated) per comma-separated piece of each clause."""
    for clause in _CLAUSE.split(text.lower()):
        negated = False
        for piece in clause.split(","):
            # A negation carries over list items without a verb of their own.
            negated = bool(_NEGATION.search(piece)) or (negated and not _VERB.search(piece))
            yield _words(piece), negated


def check_record(text: str, facts: Sequence[RecordFact]) -> CheckResult | None:
    """The record check of one claim, or None when the claim names no yes/no field."""
    if not facts:
        return None
    conflicts: list[tuple[RecordFact, bool]] = []
    agrees: list[RecordFact] = []
    for words, negated in _pieces(text):
        if not words:
            continue
        for fact in facts:
            if fact.named_in(words):
                if fact.truth == negated:
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
    if agrees:
        named = ", ".join(sorted({f"{f.field}={f.value}" for f in agrees}))
        return CheckResult(name="record", passed=True, detail=f"agrees with the record: {named}")
    return None
