"""Round trips and rejections of the producers' contract."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hallmon.schemas import (
    AssembledResponse,
    ClaimCounts,
    ContractError,
    DeadLetter,
    Limits,
    MonitorResult,
    ResponseDeltaEvent,
    ResponseEvent,
    VerdictEvent,
    VerdictTimings,
    decode,
    decode_trace_event,
    encode,
    verdict_id_for,
)
from hallmon.schemas.jsonschema import JSON_DIR, render_all

COMMON = {"event_id": "e-1", "session_id": "s-1", "response_id": "r-1", "agent_id": "support-bot"}

EVENTS = [
    {"type": "user.input", "text": "Can I return my shoes?"},
    {
        "type": "context.retrieved",
        "source_id": "policy-7",
        "text": "Returns within 14 days.",
        "trust": 0.9,
        "locator": "https://example.com/policy",
    },
    {
        "type": "tool.result",
        "tool": "orders.cancel",
        "call_id": "c-1",
        "output": {"order": "A-17", "state": "cancelled"},
        "status": "ok",
    },
    {"type": "memory.ref", "memory_id": "m-1", "text": "Customer prefers email."},
    {"type": "response.delta", "text": "You can return ", "seq": 0},
    {"type": "response.completed", "final_seq": 3, "usage": {"prompt_tokens": 812}},
    {
        "type": "response",
        "text": "Returns are accepted within 14 days.",
        "context": {"documents": [{"source_id": "policy-7", "text": "Returns within 14 days."}]},
    },
]


@pytest.mark.parametrize("payload", EVENTS, ids=[e["type"] for e in EVENTS])
def test_every_event_type_round_trips(payload: dict[str, object]) -> None:
    raw = json.dumps({**COMMON, "schema_version": "1.0", **payload}).encode()
    event = decode_trace_event(raw)
    assert event.type == payload["type"]
    assert decode_trace_event(encode(event)) == event


def test_unknown_type_is_rejected_naming_the_known_ones() -> None:
    with pytest.raises(ContractError) as info:
        decode_trace_event(json.dumps({**COMMON, "type": "response.partial"}))
    assert info.value.reason == "schema_violation"
    assert "response.partial" in str(info.value) and "response.delta" in str(info.value)


def test_missing_field_names_the_field() -> None:
    with pytest.raises(ContractError) as info:
        decode_trace_event(json.dumps({**COMMON, "type": "response.delta", "text": "x"}))
    assert info.value.reason == "schema_violation"
    assert "seq" in str(info.value)


def test_malformed_json_has_its_own_reason() -> None:
    with pytest.raises(ContractError) as info:
        decode_trace_event(b"{not json")
    assert info.value.reason == "malformed_json"
    with pytest.raises(ContractError) as info2:
        decode_trace_event(b"\xff\xfe")
    assert info2.value.reason == "malformed_json"


def test_over_limit_text_names_field_and_limit() -> None:
    limits = Limits(max_text_chars=50)
    raw = json.dumps({**COMMON, "type": "user.input", "text": "x" * 51})
    with pytest.raises(ContractError) as info:
        decode_trace_event(raw, limits)
    assert info.value.reason == "over_limit"
    assert "max_text_chars=50" in str(info.value) and "text" in str(info.value)
    # exactly at the limit is accepted
    ok = decode_trace_event(json.dumps({**COMMON, "type": "user.input", "text": "x" * 50}), limits)
    assert ok.type == "user.input"


def test_answer_limit_and_context_item_limit() -> None:
    limits = Limits(max_answer_chars=10, max_context_items=2)
    with pytest.raises(ContractError, match="max_answer_chars=10"):
        decode_trace_event(json.dumps({**COMMON, "type": "response", "text": "y" * 11}), limits)
    docs = [{"source_id": f"d{i}", "text": "t"} for i in range(3)]
    raw = json.dumps({**COMMON, "type": "response", "text": "ok", "context": {"documents": docs}})
    with pytest.raises(ContractError, match="max_context_items=2"):
        decode_trace_event(raw, limits)


def test_tool_output_json_counts_against_the_text_limit() -> None:
    raw = json.dumps(
        {
            **COMMON,
            "type": "tool.result",
            "tool": "t",
            "call_id": "c",
            "output": {"blob": "z" * 100},
        }
    )
    with pytest.raises(ContractError) as info:
        decode_trace_event(raw, Limits(max_text_chars=50))
    assert info.value.reason == "over_limit"


def test_foreign_major_version_is_rejected() -> None:
    raw = json.dumps({**COMMON, "schema_version": "2.0", "type": "user.input", "text": "hi"})
    with pytest.raises(ContractError, match="schema_version"):
        decode_trace_event(raw)


def test_newer_minor_with_extra_field_is_read() -> None:
    raw = json.dumps(
        {**COMMON, "schema_version": "1.7", "type": "user.input", "text": "hi", "locale": "en-GB"}
    )
    assert decode_trace_event(raw).type == "user.input"


def test_verdict_event_is_always_not_enforced_streaming() -> None:
    verdict = VerdictEvent(
        verdict_id=verdict_id_for("r-1"),
        response_id="r-1",
        session_id="s-1",
        agent_id="a",
        state="unavailable",
        unavailable_reason="stream_incomplete",
        timings=VerdictTimings(verdict_at=datetime.now(UTC)),
    )
    data = json.loads(encode(verdict))
    assert data["enforcement"] == "not_enforced_streaming"
    data["enforcement"] = "enforced"
    with pytest.raises(ContractError):
        decode(VerdictEvent, json.dumps(data))
    assert verdict_id_for("r-1") == verdict.verdict_id != verdict_id_for("r-2")


def test_unavailable_state_needs_a_reason() -> None:
    with pytest.raises(ValueError, match="unavailable_reason"):
        MonitorResult(state="unavailable")
    with pytest.raises(ValueError, match="only for state"):
        MonitorResult(state="checked", unavailable_reason="context_unavailable")


def test_claim_counts_unsupported() -> None:
    counts = ClaimCounts(total=5, supported=2, contradicted=1, not_found=1, unclear=1)
    assert counts.unsupported == 3


def test_assembled_response_from_response_event() -> None:
    event = ResponseEvent(**COMMON, text="Hello", turn=3)
    assembled = AssembledResponse.from_response_event(event)
    assert (assembled.origin, assembled.turn, assembled.complete) == ("response_event", 3, True)
    assert decode(AssembledResponse, encode(assembled)) == assembled


def test_dead_letter_keeps_original_bytes() -> None:
    original = b"\x00\xffnot json at all"
    letter = DeadLetter.of(
        reason="malformed_json",
        error="bad",
        stage="assembler",
        topic="agent.traces",
        value=original,
        key=b"s-1",
        partition=2,
        offset=41,
    )
    back = decode(DeadLetter, encode(letter))
    assert back.original_value() == original
    assert (back.partition, back.offset) == (2, 41)


def test_delta_seq_must_not_be_negative() -> None:
    with pytest.raises(ValueError):
        ResponseDeltaEvent(**COMMON, text="x", seq=-1)


def test_committed_json_schemas_are_up_to_date() -> None:
    rendered = render_all()
    committed = {p.name: p.read_text(encoding="utf-8") for p in JSON_DIR.glob("*.json")}
    stale = sorted(n for n in rendered if committed.get(n) != rendered[n])
    extra = sorted(set(committed) - set(rendered))
    assert not stale and not extra, (
        f"JSON Schemas out of date: {stale or extra}; run `python -m hallmon.schemas.jsonschema`"
    )
