"""How a `StreamState` is laid out in the changelog-backed table: context stored once.

A stream is one header record (its key is the `response_id`: the stream's fields, its chunks
and the ids of its events other than deltas) plus one record per context item and user input.
An event writes the header and the parts it added, so a context item is written once, not
again with every later delta (rewriting the whole state, context included, on every delta
cost O(events x context) per answer). The chunks stay in the header: a part per chunk made
three to five changelog records per delta, and the assembler a quarter slower on ordinary
answers, for text that is small next to the context. Closing a stream deletes its parts and
leaves the header as the tombstone.

Transport-free: `changes` says which keys to write or delete, `load` rebuilds a state from a
lookup. A header without a parts index (the layout before this one) is read as a whole state.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hallmon.schemas import DocumentItem, MemoryItem, ToolResultItem
from hallmon.workers.assembler.state import StreamState
from pydantic import BaseModel

PART_MARK = "\x00"
"""Part keys begin with it. Any response_id is valid, so a header key is the response_id
itself unless that begins with the mark too (then it is escaped): keys never collide."""
_ESCAPED = "h"  # not a part kind

# Part kind -> the list field of StreamState it holds, and how one element is read back.
_LISTS: dict[str, tuple[str, Callable[[bytes], Any]]] = {
    "u": ("user_input", lambda raw: raw.decode("utf-8")),
    "d": ("documents", DocumentItem.model_validate_json),
    "t": ("tool_results", ToolResultItem.model_validate_json),
    "m": ("memory", MemoryItem.model_validate_json),
}
_PART_FIELDS = {field for field, _ in _LISTS.values()}

Write = tuple[str, bytes | None]
"""A key and its new value; None deletes it."""


def header_key(response_id: str) -> str:
    """The table key of a stream's header (and tombstone)."""
    if response_id.startswith(PART_MARK):
        return f"{PART_MARK}{_ESCAPED}{response_id}"
    return response_id


def part_key(response_id: str, kind: str, index: int) -> str:
    return f"{PART_MARK}{kind}{index}{PART_MARK}{response_id}"


def is_part_key(key: str) -> bool:
    return key.startswith(PART_MARK) and not key.startswith(PART_MARK + _ESCAPED)


def _encode(element: Any) -> bytes:
    if isinstance(element, BaseModel):
        return element.model_dump_json(exclude_defaults=True).encode("utf-8")
    return str(element).encode("utf-8")


def header_bytes(state: StreamState) -> bytes:
    """The state without its parts, and the index of the parts it has."""
    head = state.model_dump_json(exclude_defaults=True, exclude=_PART_FIELDS).encode("utf-8")
    parts = {kind: len(getattr(state, field)) for kind, (field, _) in _LISTS.items()}
    # Spliced rather than parsed and dumped again: this runs for every event.
    index = json.dumps(parts, separators=(",", ":")).encode("ascii")
    return head[:-1] + b',"parts":' + index + b"}"


def is_whole(stored: bytes) -> bool:
    """Whether a stored header is a whole state in the previous layout (no parts index): its
    parts were never written, so the next write must write them all. (Inside a JSON string a
    quote is escaped, so the bytes `"parts":` only occur as the index's key.)"""
    return b'"parts":' not in stored


def load(header: bytes, lookup: Callable[[str], bytes | None]) -> StreamState:
    """The whole state from its header and its parts (`lookup` reads the table). A part that
    is missing is left out: the stream is then assembled with what there is (a hole in the
    chunks is reported as one)."""
    head = json.loads(header)
    parts = head.pop("parts", None)
    if parts is None:
        return StreamState.model_validate(head)  # a whole state (the previous layout)
    state = StreamState.model_validate(head)
    response_id = state.response_id
    for kind, (field, read) in _LISTS.items():
        values = [lookup(part_key(response_id, kind, i)) for i in range(int(parts.get(kind, 0)))]
        setattr(state, field, [read(v) for v in values if v is not None])
    return state


def changes(old: StreamState | None, new: StreamState | None) -> list[Write]:
    """The writes that turn the stored `old` state into `new` (None: the stream is forgotten):
    the parts `new` appended, deletions of the parts it no longer has, then the header."""
    latest = new if new is not None else old
    if latest is None:
        return []
    response_id = latest.response_id
    writes: list[Write] = []
    for kind, (field, _) in _LISTS.items():
        before: list[Any] = getattr(old, field) if old is not None else []
        after: list[Any] = getattr(new, field) if new is not None else []
        kept = 0
        while kept < min(len(before), len(after)) and before[kept] == after[kept]:
            kept += 1
        writes += [
            (part_key(response_id, kind, i), _encode(after[i])) for i in range(kept, len(after))
        ]
        writes += [(part_key(response_id, kind, i), None) for i in range(len(after), len(before))]
    writes.append((header_key(response_id), header_bytes(new) if new is not None else None))
    return writes


__all__ = [
    "PART_MARK",
    "Write",
    "changes",
    "header_bytes",
    "header_key",
    "is_part_key",
    "is_whole",
    "load",
    "part_key",
]
