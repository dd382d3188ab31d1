"""One byte budget: a stream whose answer and context outgrow what a topic accepts is refused."""

from __future__ import annotations

import json
from typing import Any

from hallmon.schemas import TraceEvent, decode_trace_event, encode
from hallmon.workers.assembler.state import Assembler, AssemblerConfig, StreamState

IDS = {"session_id": "s", "response_id": "r", "agent_id": "a"}


def ev(kind: str, event_id: str, **fields: Any) -> TraceEvent:
    return decode_trace_event(json.dumps({"type": kind, "event_id": event_id, **IDS, **fields}))


def test_stream_over_its_byte_budget_is_refused_with_a_publishable_answer() -> None:
    asm = Assembler(AssemblerConfig(max_stream_bytes=10_000))
    state: StreamState | None = None
    steps = []
    for i in range(4):  # 4 x 3,000 characters of 2-byte UTF-8 = 24 kB
        doc = ev("context.retrieved", f"d{i}", source_id=f"doc-{i}", text="é" * 3_000)
        step = asm.apply(state, doc, now=1.0, open_streams=0, partition=0)
        steps.append(step)
        state = step.state
        if step.dead_letter is not None:
            break
    refused = steps[-1]
    assert refused.dead_letter is not None and refused.dead_letter[0] == "stream_too_large"
    assert "max_stream_bytes=10000" in refused.dead_letter[1]
    assert len(steps) == 2  # 12 kB after the second document
    assert refused.emit is not None and refused.emit.incomplete_reason == "stream_too_large"
    assert refused.emit.context.item_count == 0 and len(encode(refused.emit)) < 10_000


def test_bytes_count_utf8_of_answer_and_context() -> None:
    asm = Assembler()
    step = asm.apply(None, ev("response.delta", "e", text="ü" * 10, seq=0), now=1.0, open_streams=0)
    assert step.state is not None and step.state.content_bytes == 20
