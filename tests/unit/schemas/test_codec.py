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


def test_misspelt_field_is_an_error_in_this_minor_and_dropped_in_a_newer_one() -> None:
    done = {**ev(), "type": "response.completed", "final_sq": 3}
    done.pop("seq")
    done.pop("text")
    with pytest.raises(ContractError, match="final_sq"):
        decode_trace_event(json.dumps(done).encode())
    newer = decode_trace_event(json.dumps({**done, "schema_version": "1.9"}).encode())
    assert newer.model_extra == {} and "final_sq" not in newer.model_dump()


def test_unknown_field_inside_a_context_item_is_an_error() -> None:
    whole = {
        **ev(),
        "type": "response",
        "context": {"documents": [{"source_id": "d", "text": "t", "trsut": 1}]},
    }
    whole.pop("seq")
    with pytest.raises(ContractError, match=r"context.documents\[0\].trsut"):
        decode_trace_event(json.dumps(whole).encode())


def test_attributes_is_the_extension_point() -> None:
    event = decode_trace_event(json.dumps(ev(attributes={"locale": "en-GB", "n": 2})).encode())
    assert event.attributes == {"locale": "en-GB", "n": 2}
    assert reason(json.dumps(ev(attributes={"deep": {"x": 1}})).encode()) == "schema_violation"


@pytest.mark.parametrize("version", ["2.0", "1", "1.x", "01.0", "1.0 "])
def test_schema_version_follows_its_pattern(version: str) -> None:
    assert reason(json.dumps(ev(schema_version=version)).encode()) == "schema_violation"


def test_missing_type_is_rejected_and_the_schema_says_so() -> None:
    from hallmon.schemas.jsonschema import render_all

    no_type = ev()
    no_type.pop("type")
    assert reason(json.dumps(no_type).encode()) == "schema_violation"
    schema = json.loads(render_all()["trace_event.schema.json"])
    for name, model in schema["$defs"].items():
        if name.endswith("Event"):
            assert model["required"][0] == "type" and model["additionalProperties"] is False
    delta = schema["$defs"]["ResponseDeltaEvent"]["properties"]
    assert delta["seq"]["maximum"] == 2**31 - 1 and delta["text"]["maxLength"] == 50_000
    assert delta["schema_version"]["pattern"] == r"^1\.[0-9]{1,4}$"
