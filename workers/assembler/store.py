"""How a `StreamState` is laid out in the changelog-backed table: appends, not rewrites.

Each stream is one small header record (its key is the `response_id`) plus one record per
part: a chunk, a context item, a user input, a seen event id. An event writes the header and
the parts it added, so the bytes written per event stay the size of the event (rewriting the
whole state, context included, on every delta cost O(events × state) per answer). Closing a
stream deletes its parts and leaves the header as the tombstone.

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
    "e": ("seen_event_ids", lambda raw: raw.decode("utf-8")),
    "u": ("user_input", lambda raw: raw.decode("utf-8")),
    "d": ("documents", DocumentItem.model_validate_json),
    "t": ("tool_results", ToolResultItem.model_validate_json),
    "m": ("memory", MemoryItem.model_validate_json),
}
_CHUNK = "c"
_PART_FIELDS = {field for field, _ in _LISTS.values()} | {"chunks"}

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


def _runs(seqs: list[int]) -> list[list[int]]:
    """Sorted seqs as [first, last] runs: an in-order stream's index stays one pair long."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and runs[-1][1] == seq - 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    return runs


def header_bytes(state: StreamState) -> bytes:
    """The state without its parts, and the index of the parts it has."""
    head = json.loads(state.model_dump_json(exclude_defaults=True, exclude=_PART_FIELDS))
    head["parts"] = {
        **{kind: len(getattr(state, field)) for kind, (field, _) in _LISTS.items()},
        _CHUNK: _runs(sorted(state.chunks)),
    }
    return json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


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
    for first, last in parts.get(_CHUNK, []):
        for seq in range(int(first), int(last) + 1):
            raw = lookup(part_key(response_id, _CHUNK, seq))
            if raw is not None:
                state.chunks[seq] = raw.decode("utf-8")
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
    before_chunks = old.chunks if old is not None else {}
    after_chunks = new.chunks if new is not None else {}
    writes += [
        (part_key(response_id, _CHUNK, seq), text.encode("utf-8"))
        for seq, text in sorted(after_chunks.items())
        if before_chunks.get(seq) != text
    ]
    writes += [
        (part_key(response_id, _CHUNK, seq), None)
        for seq in sorted(before_chunks)
        if seq not in after_chunks
    ]
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
