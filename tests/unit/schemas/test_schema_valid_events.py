"""What the JSON Schemas promise: an event that is valid against them is read, or refused only
for a documented run-time limit (bytes, nesting depth), never for a rule the schemas do not say.

Property-based: hypothesis builds events inside the schemas' constraints (types, required
fields, maxLength, maximum, the schema_version pattern, no unknown fields).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hallmon.schemas import ContractError, decode_trace_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

README = Path(__file__).resolve().parents[3] / "README.md"
RUNTIME_LIMITS = ("HALLMON_LIMITS__MAX_EVENT_BYTES", "HALLMON_LIMITS__MAX_JSON_DEPTH")

chars = st.characters(blacklist_categories=("Cs",))  # JSON text is Unicode: no lone surrogates
ids = st.text(chars, min_size=1, max_size=256)
wire_int = st.integers(min_value=0, max_value=2**31 - 1)
version = st.from_regex(r"\A1\.[0-9]{1,4}\Z")
scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(chars, max_size=20)
json_values = st.recursive(
    scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(chars, max_size=5), inner, max_size=3)
    ),
    max_leaves=40,
)

# The schema's `output`: a string, an object, an array or null (a bare number is not).
tool_output = (
    st.none()
    | st.text(chars, max_size=200)
    | st.lists(json_values, max_size=3)
    | st.dictionaries(st.text(chars, max_size=5), json_values, max_size=3)
)


def common(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "type": st.just(kind),
            "event_id": ids,
            "session_id": ids,
            "response_id": ids,
            "agent_id": ids,
        },
        optional={
            "schema_version": version,
            "turn": wire_int,
            "model": st.text(chars, max_size=256),
            "attributes": st.dictionaries(st.text(chars, max_size=10), scalars, max_size=64),
        },
    )


def with_fields(kind: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(common(kind), st.fixed_dictionaries(fields)).map(lambda p: {**p[0], **p[1]})


events = st.one_of(
    with_fields("response.delta", text=st.text(chars, max_size=2_000), seq=wire_int),
    with_fields("response.completed", final_seq=wire_int),
    with_fields("user.input", text=st.text(chars, max_size=2_000)),
    with_fields("context.retrieved", source_id=ids, text=st.text(chars, max_size=2_000),
                trust=st.floats(0, 1) | st.integers(0, 1)),
    with_fields("tool.result", tool=ids, call_id=ids, output=tool_output,
                status=st.sampled_from(["ok", "error", "timeout", "cancelled"]),
                arguments=st.dictionaries(st.text(chars, max_size=5), json_values, max_size=3)),
    with_fields("memory.ref", memory_id=ids, text=st.text(chars, max_size=2_000)),
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event=events)
def test_schema_valid_event_is_read_or_refused_for_a_documented_limit(
    event: dict[str, Any],
) -> None:
    data = json.dumps(event, ensure_ascii=False).encode("utf-8")
    try:
        decoded = decode_trace_event(data)
    except ContractError as exc:
        assert exc.reason == "over_limit", (exc.reason, str(exc), event)
        assert any(limit in str(exc) for limit in RUNTIME_LIMITS), str(exc)
        return
    assert decoded.type == event["type"]


def test_the_run_time_limits_are_documented() -> None:
    text = README.read_text(encoding="utf-8")
    for limit in RUNTIME_LIMITS:
        assert limit in text


def test_a_deep_but_schema_valid_tool_output_is_refused_for_its_depth() -> None:
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    event = {"type": "tool.result", "event_id": "e", "session_id": "s", "response_id": "r",
             "agent_id": "a", "tool": "t", "call_id": "c", "output": {"x": deep}}  # fmt: skip
    try:
        decode_trace_event(json.dumps(event))
    except ContractError as exc:
        assert exc.reason == "over_limit" and "HALLMON_LIMITS__MAX_JSON_DEPTH" in str(exc)
    else:
        raise AssertionError("a value nested 42 deep must be refused")
