"""Strict, bounded decoding: UTF-8 JSON only, no coercion, size and depth limits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hallmon.schemas import ContractError, Limits, decode_trace_event
from hallmon.schemas.codec import json_depth_over


def ev(**fields: Any) -> dict[str, Any]:
    base = {
        "type": "response.delta",
        "event_id": "e",
        "session_id": "s",
        "response_id": "r",
        "agent_id": "a",
        "text": "x",
        "seq": 0,
    }
    return {**base, **fields}


def reason(data: bytes, limits: Limits | None = None) -> str:
    with pytest.raises(ContractError) as info:
        decode_trace_event(data, limits or Limits())
    return info.value.reason


def test_valid_event_still_decodes_with_a_timestamp() -> None:
    event = decode_trace_event(json.dumps(ev(ts="2026-01-01T00:00:00Z", turn=3)).encode())
    assert event.ts is not None and event.turn == 3


@pytest.mark.parametrize(
    "fields",
    [{"seq": "3"}, {"seq": True}, {"seq": 1.0}, {"seq": 2**31}, {"turn": "1"}, {"text": 5}],
)
def test_no_type_coercion(fields: dict[str, Any]) -> None:
    assert reason(json.dumps(ev(**fields)).encode()) == "schema_violation"


def test_trust_as_string_is_rejected_but_an_integer_trust_is_a_number() -> None:
    doc = {**ev(), "type": "context.retrieved", "source_id": "d", "trust": "0.5"}
    doc.pop("seq")
    assert reason(json.dumps(doc).encode()) == "schema_violation"
    doc["trust"] = 1
    assert decode_trace_event(json.dumps(doc).encode()).trust == 1.0  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "data",
    [
        json.dumps(ev()).encode("utf-16"),
        json.dumps(ev()).encode("utf-16-be"),
        json.dumps(ev()).encode("utf-32"),
        b"\xef\xbb\xbf" + json.dumps(ev()).encode(),
        json.dumps(ev(text="X")).encode().replace(b"X", b"\xc3\x28"),
        json.dumps(ev(text="X")).encode().replace(b"X", b"\\udc00"),
        json.dumps(ev(seq=0)).encode().replace(b'"seq": 0', b'"seq": NaN'),
        json.dumps(ev(seq=0)).encode().replace(b'"seq": 0', b'"seq": ' + b"1" * 5000),
    ],
    ids=["utf16", "utf16be", "utf32", "bom", "bad-utf8", "surrogate", "nan", "huge-int"],
)
def test_only_utf8_json(data: bytes) -> None:
    assert reason(data) == "malformed_json"


def test_size_and_depth_are_over_limit() -> None:
    limits = Limits(max_event_bytes=1000, max_json_depth=4)
    assert reason(json.dumps(ev(text="x" * 2000)).encode(), limits) == "over_limit"
    deep = {**ev(), "type": "tool.result", "tool": "t", "call_id": "c", "output": [[[[1]]]]}
    deep.pop("seq")
    deep.pop("text")
    assert reason(json.dumps(deep).encode(), limits) == "over_limit"
    assert reason(b"[" * 10_000 + b"]" * 10_000) == "over_limit"


def test_depth_walk() -> None:
    assert not json_depth_over({"a": [1, {"b": 2}]}, 3)
    assert json_depth_over({"a": [1, {"b": []}]}, 3)
    assert not json_depth_over("text", 0)
