"""The producer helper, against a fake confluent-kafka producer."""

from __future__ import annotations

from typing import Any

import pytest
from hallmon.schemas import ResponseCompletedEvent, ResponseDeltaEvent, decode_trace_event

from hallmon.producer import ProducerError, TraceProducer


class FakeKafka:
    def __init__(self, fail: bool = False, buffer_full_once: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.fail = fail
        self.buffer_full_once = buffer_full_once
        self.polls = 0

    def produce(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        headers: list[tuple[str, bytes]] | None = None,
        on_delivery: Any = None,
    ) -> None:
        if self.buffer_full_once:
            self.buffer_full_once = False
            raise BufferError("queue full")
        self.sent.append({"topic": topic, "value": value, "key": key, "headers": headers})
        if on_delivery is not None and self.fail:

            class Msg:
                def key(self) -> bytes | None:
                    return key

            on_delivery("broker down", Msg())

    def poll(self, timeout: float = 0) -> int:
        self.polls += 1
        return 0

    def flush(self, timeout: float = 0) -> int:
        return 0


def test_streamed_answer_is_one_message_per_call_keyed_by_session() -> None:
    fake = FakeKafka()
    traces = TraceProducer("bot", topic="t", producer=fake, model="m1")
    stream = traces.start_response("s-1", turn=2, user_input="Where is my order?")
    stream.context("policy", "Orders ship in 2 days.", trust=0.9)
    stream.tool_result("orders.lookup", "c1", {"status": "shipped"})
    assert stream.delta("It ") == 0
    assert stream.delta("shipped.") == 1
    stream.complete(usage={"completion_tokens": 3})
    traces.flush()

    assert len(fake.sent) == 6
    assert {m["key"] for m in fake.sent} == {b"s-1"}
    assert {m["topic"] for m in fake.sent} == {"t"}
    tps = {dict(m["headers"])["traceparent"] for m in fake.sent}
    assert len(tps) == 1 and tps.pop().decode().startswith("00-")
    events = [decode_trace_event(m["value"]) for m in fake.sent]
    assert [e.type for e in events] == [
        "user.input",
        "context.retrieved",
        "tool.result",
        "response.delta",
        "response.delta",
        "response.completed",
    ]
    assert len({e.event_id for e in events}) == 6
    assert all(e.response_id == stream.response_id and e.turn == 2 for e in events)
    last = events[-1]
    assert isinstance(last, ResponseCompletedEvent) and last.final_seq == 1
    assert isinstance(events[3], ResponseDeltaEvent) and events[3].seq == 0
    with pytest.raises(RuntimeError, match="already complete"):
        stream.delta("more")


def test_send_response_for_non_streaming_agents() -> None:
    fake = FakeKafka(buffer_full_once=True)
    traces = TraceProducer("bot", topic="t", producer=fake)
    rid = traces.send_response(
        "s-2",
        "Refunds take 5 days.",
        context={"documents": [{"source_id": "p", "text": "x"}]},
        traceparent="00-" + "a" * 32 + "-" + "b" * 16 + "-01",
    )
    assert len(fake.sent) == 1
    event = decode_trace_event(fake.sent[0]["value"])
    assert event.type == "response" and event.response_id == rid
    assert dict(fake.sent[0]["headers"])["traceparent"].startswith(b"00-aaaa")


def test_failed_delivery_is_raised_on_flush() -> None:
    traces = TraceProducer("bot", topic="t", producer=FakeKafka(fail=True))
    traces.start_response("s-3").delta("x")
    with pytest.raises(ProducerError, match="broker down"):
        traces.flush()


def loop_steps(fake: FakeKafka) -> list[tuple[str, int | None]]:
    out = []
    for m in fake.sent:
        event = decode_trace_event(m["value"])
        if event.type in ("response.completed", "response"):
            out.append((event.session_id, event.loop_step))
    return out


def test_loop_step_counts_model_and_tool_calls_since_the_users_input() -> None:
    fake = FakeKafka()
    traces = TraceProducer("bot", topic="t", producer=fake)
    first = traces.start_response("s1", user_input="Where is my order?")  # a new loop: step 0
    first.tool_result("orders.lookup", "c1", {"status": "shipped"})  # one tool call
    first.delta("Let me check.")
    first.complete()
    second = traces.start_response("s1")  # same loop: the answer and the tool call before it
    second.delta("It has shipped.")
    second.complete()
    traces.send_response("s2", "Hello.", question="Hi?")  # another session: its own loop
    traces.send_response("s1", "Anything else?", question="Thanks")  # the user spoke again
    traces.send_response("s1", "Done.", loop_step=7)  # set by the caller
    assert loop_steps(fake) == [("s1", 0), ("s1", 2), ("s2", 0), ("s1", 0), ("s1", 7)]
    # every event of a stream carries its step, so the assembler keeps it
    assert {decode_trace_event(m["value"]).loop_step for m in fake.sent[:4]} == {0}
