"""The assembler's transitions, without a broker."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hallmon.schemas import TraceEvent, decode_trace_event, encode
from hallmon.schemas.common import Limits
from hallmon.workers.assembler.state import Assembler, AssemblerConfig, AssemblyStep, StreamState

IDS = {"session_id": "s-1", "response_id": "r-1", "agent_id": "support-bot", "turn": 3}


def ev(kind: str, event_id: str, **fields: Any) -> TraceEvent:
    return decode_trace_event(encode_dict({"type": kind, "event_id": event_id, **IDS, **fields}))


def encode_dict(obj: dict[str, Any]) -> bytes:
    import json

    return json.dumps(obj).encode()


def run(
    asm: Assembler, events: list[TraceEvent], state: StreamState | None = None, now: float = 100.0
) -> tuple[StreamState | None, list[AssemblyStep]]:
    steps = []
    for e in events:
        step = asm.apply(state, e, now=now, open_streams=0, partition=2, traceparent="00-ab-cd-01")
        steps.append(step)
        if step.delete:
            state = None
        elif step.state is not None:
            state = step.state
    return state, steps


def stream(texts: list[str]) -> list[TraceEvent]:
    events: list[TraceEvent] = [
        ev("user.input", "u", text="Can I return my shoes?"),
        ev("context.retrieved", "d", source_id="policy", text="Returns within 14 days."),
        ev("tool.result", "t", tool="orders", call_id="c1", output={"order": "A1"}),
    ]
    events += [ev("response.delta", f"x{i}", seq=i, text=t) for i, t in enumerate(texts)]
    return events


def completed(final_seq: int | None = None) -> TraceEvent:
    return ev("response.completed", "end", final_seq=final_seq, usage={"completion_tokens": 9})


def test_in_order_stream_emits_one_complete_answer_with_context() -> None:
    asm = Assembler()
    state, steps = run(
        asm, [*stream(["You can ", "return them ", "within 14 days."]), completed(2)]
    )
    emitted = [s.emit for s in steps if s.emit]
    assert len(emitted) == 1
    answer = emitted[0]
    assert answer.text == "You can return them within 14 days."
    assert answer.complete and answer.incomplete_reason is None and answer.missing_seqs == []
    assert answer.chunk_count == 3
    assert answer.context.user_input == "Can I return my shoes?"
    assert [d.source_id for d in answer.context.documents] == ["policy"]
    assert answer.context.tool_results[0].output == {"order": "A1"}
    assert answer.traceparent == "00-ab-cd-01"
    assert answer.turn == 3
    assert answer.usage is not None and answer.usage.completion_tokens == 9
    assert state is not None and state.status == "completed" and state.chunks == {}


def test_out_of_order_and_duplicated_deltas() -> None:
    asm = Assembler()
    events = stream(["A", "B", "C", "D"])
    context, deltas = events[:3], events[3:]
    shuffled = deltas[:]
    random.Random(7).shuffle(shuffled)
    dupes = [deltas[1], deltas[3], context[1]]
    _, steps = run(asm, [*context, *shuffled, *dupes, completed(3)])
    emitted = [s.emit for s in steps if s.emit]
    assert len(emitted) == 1
    assert emitted[0].text == "ABCD"
    assert len(emitted[0].context.documents) == 1
    assert sum(1 for s in steps if s.dropped == "duplicate") == 3


def test_same_seq_under_new_event_id_keeps_first_text() -> None:
    asm = Assembler()
    events = [
        ev("response.delta", "a", seq=0, text="first"),
        ev("response.delta", "b", seq=0, text="retry"),
        completed(0),
    ]
    _, steps = run(asm, events)
    assert [s.emit.text for s in steps if s.emit] == ["first"]


def test_gap_is_reported_as_missing_seqs_once_the_wait_is_over() -> None:
    asm = Assembler(AssemblerConfig(completion_wait_s=5.0))
    events = [
        ev("response.delta", "a", seq=0, text="A"),
        ev("response.delta", "c", seq=2, text="C"),
    ]
    state, steps = run(asm, [*events, completed(3)])
    # The missing chunks may still be on their way: nothing is emitted yet.
    assert state is not None and state.is_open and all(s.emit is None for s in steps)
    assert asm.expire(state, now=104.9, quiet_s=10.0).emit is None
    answer = asm.expire(state, now=105.0, quiet_s=10.0).emit
    assert answer is not None and answer.missing_seqs == [1, 3]


def test_a_chunk_arriving_after_completed_completes_the_answer() -> None:
    asm = Assembler()
    early = [ev("response.delta", "b", seq=1, text="B"), completed(1)]
    state, steps = run(asm, early)
    assert all(s.emit is None for s in steps)
    _, steps = run(asm, [ev("response.delta", "a", seq=0, text="A")], state)
    answer = steps[-1].emit
    assert answer is not None and answer.text == "AB" and answer.complete


def test_a_stream_spread_over_partitions_waits_for_its_context() -> None:
    asm = Assembler(AssemblerConfig(completion_wait_s=5.0))
    state = None
    events = [
        (ev("response.delta", "a", seq=0, text="Returns within 14 days."), 1),
        (completed(0), 4),
    ]
    for event, partition in events:
        step = asm.apply(state, event, now=100.0, open_streams=0, partition=partition)
        assert step.emit is None
        state = step.state
    assert state is not None and state.spread
    doc = ev("context.retrieved", "d", source_id="policy", text="Returns within 14 days.")
    step = asm.apply(state, doc, now=101.0, open_streams=0, partition=2)
    assert step.emit is None and step.state is not None
    # Stream time decides: a restarted worker reading its backlog does not close it early.
    assert asm.expire(step.state, now=500.0, progress_ms=None, quiet_s=1.0).emit is None
    answer = asm.expire(step.state, now=106.0, quiet_s=10.0).emit
    assert answer is not None and answer.complete
    assert [d.source_id for d in answer.context.documents] == ["policy"]


def test_events_after_completion_do_not_emit_again() -> None:
    asm = Assembler()
    events = [*stream(["A"]), completed(0)]
    state, _ = run(asm, events)
    _, steps = run(
        asm, [events[-1], events[3], ev("response.delta", "new", seq=5, text="x")], state
    )
    assert all(s.emit is None and not s.changes_state for s in steps)
    assert all(s.dropped == "duplicate" for s in steps)


def test_response_event_passes_straight_through() -> None:
    asm = Assembler()
    event = ev(
        "response",
        "whole",
        text="Refunds take 5 days.",
        context={"documents": [{"source_id": "p", "text": "Refunds take 5 days."}]},
    )
    step = asm.apply(None, event, now=1.0, open_streams=0, traceparent="00-1-2-01")
    assert step.emit is not None and step.emit.origin == "response_event"
    assert step.emit.traceparent == "00-1-2-01"
    assert not step.changes_state


def test_timeout_emits_incomplete_then_tombstone_expires() -> None:
    cfg = AssemblerConfig(stream_timeout_s=5.0, closed_retention_s=60.0)
    asm = Assembler(cfg)
    state, _ = run(asm, stream(["Half an ans"]), now=100.0)
    assert state is not None
    assert asm.expire(state, now=104.9).emit is None
    step = asm.expire(state, now=105.0)
    assert step.emit is not None
    assert not step.emit.complete and step.emit.incomplete_reason == "stream_timeout"
    assert step.emit.text == "Half an ans"
    assert step.state is not None and step.state.status == "timed_out"
    # a late delta is dropped, not a second answer
    late = asm.apply(
        step.state, ev("response.delta", "late", seq=1, text="x"), now=106, open_streams=0
    )
    assert late.dropped == "late" and late.emit is None
    assert asm.expire(step.state, now=164.0).delete is False
    assert asm.expire(step.state, now=165.0).delete is True


def test_too_many_open_streams_refuses_with_dead_letter_and_incomplete_answer() -> None:
    asm = Assembler(AssemblerConfig(max_open_streams=2))
    step = asm.apply(None, ev("response.delta", "a", seq=0, text="A"), now=1, open_streams=2)
    assert step.dead_letter is not None and step.dead_letter[0] == "too_many_open_streams"
    assert "max_open_streams=2" in step.dead_letter[1]
    assert step.emit is not None and step.emit.incomplete_reason == "too_many_open_streams"
    assert step.state is not None and step.state.status == "refused"
    # the rest of the refused stream is dropped as late, never a second verdict
    again = asm.apply(step.state, completed(0), now=2, open_streams=2)
    assert again.emit is None and again.dropped == "late"


def test_oversized_stream_is_cut_with_dead_letter_and_incomplete_answer() -> None:
    asm = Assembler(AssemblerConfig(max_stream_chars=10))
    state, steps = run(asm, [ev("response.delta", f"d{i}", seq=i, text="abcd") for i in range(4)])
    refused = [s for s in steps if s.dead_letter]
    assert len(refused) == 1 and refused[0].dead_letter is not None
    assert refused[0].dead_letter[0] == "stream_too_large"
    assert refused[0].emit is not None and refused[0].emit.incomplete_reason == "stream_too_large"
    assert state is not None and state.status == "too_large"
    assert steps[-1].dropped == "late"


def test_too_many_context_items_is_too_large() -> None:
    asm = Assembler(AssemblerConfig(limits=Limits(max_context_items=2), max_stream_chars=100))
    events = [ev("context.retrieved", f"d{i}", source_id=f"s{i}", text="t") for i in range(3)]
    _, steps = run(asm, events)
    assert steps[-1].dead_letter is not None and steps[-1].dead_letter[0] == "stream_too_large"
    assert steps[-1].emit is not None and steps[-1].emit.context.documents == []


def test_state_round_trips_through_bytes() -> None:
    asm = Assembler()
    state, _ = run(asm, stream(["A", "B"]))
    assert state is not None
    again = StreamState.from_bytes(state.to_bytes())
    assert again == state
    assert again.chunks == {0: "A", 1: "B"} and again.partition == 2


def test_config_refuses_stream_longer_than_contract() -> None:
    with pytest.raises(ValueError, match="max_stream_chars"):
        AssemblerConfig(max_stream_chars=10**9)


def test_assembled_answer_is_valid_wire_json() -> None:
    _, steps = run(Assembler(), [*stream(["A"]), completed(0)])
    assert steps[-1].emit is not None
    assert b'"complete":true' in encode(steps[-1].emit)


def test_loop_step_of_the_stream_reaches_the_assembled_answer() -> None:
    events = [ev("response.delta", "x0", seq=0, text="Done.", loop_step=4), completed(0)]
    _, steps = run(Assembler(), events)
    (answer,) = [s.emit for s in steps if s.emit]
    assert answer.loop_step == 4
    # a producer that does not send it: none, never a made-up 0
    _, steps = run(Assembler(), [ev("response.delta", "x0", seq=0, text="Done."), completed(0)])
    assert [s.emit.loop_step for s in steps if s.emit] == [None]
