"""The helper agents use to emit their traces to `agent.traces`.

    from hallmon.producer import TraceProducer

    traces = TraceProducer(agent_id="support-bot")
    stream = traces.start_response(session_id="s-42", turn=3, user_input="Can I return these?")
    stream.context(source_id="returns-policy", text="Returns are accepted within 30 days.")
    stream.tool_result(tool="orders.lookup", call_id="c1", output={"order": "A-7", "days": 12})
    for chunk in llm_stream:                 # one call per delta, as the user sees it
        stream.delta(chunk)
    stream.complete(usage={"completion_tokens": 57})
    traces.flush()

The Kafka producer is idempotent (retries neither duplicate nor reorder within a partition), the
key is the session id (one session stays on one partition, in order), and every message carries
the W3C `traceparent` header: the caller's current OpenTelemetry span when there is one, else a
fresh trace per answer, so hallmon's spans join the agent's trace.

Every answer also carries `loop_step`, counted here: the model or tool calls the agent made in
the same loop before this answer. A loop starts with the user's input (`user_input=` on
`start_response`, `question=` on `send_response`, or `new_loop(session)`); each answer and each
`tool_result` after that is one call. Pass `loop_step=` to set it yourself.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol, cast

from opentelemetry import propagate

from hallmon.schemas import (
    ContextRetrievedEvent,
    MemoryRefEvent,
    ResponseCompletedEvent,
    ResponseContext,
    ResponseDeltaEvent,
    ResponseEvent,
    TokenUsage,
    ToolResultEvent,
    UserInputEvent,
    encode,
)
from hallmon.schemas.events import TraceEventBase

DeliveryCallback = Callable[[Any, Any], None]

MAX_TRACKED_LOOPS = 10_000
"""Sessions whose loop counter is kept; the least recently used is forgotten beyond this (its
next answer then counts from 0), so a long-running agent's memory stays bounded."""


class KafkaProducerLike(Protocol):
    """The part of confluent_kafka.Producer this helper uses (a fake in tests)."""

    def produce(
        self,
        topic: str,
        value: bytes | None = ...,
        key: bytes | None = ...,
        headers: list[tuple[str, bytes]] | None = ...,
        on_delivery: DeliveryCallback | None = ...,
    ) -> None: ...

    def poll(self, timeout: float = ...) -> int: ...

    def flush(self, timeout: float = ...) -> int: ...


class ProducerError(RuntimeError):
    """Messages the broker did not accept; `failures` holds (topic, key, error) triples."""

    def __init__(self, failures: list[tuple[str, str, str]]) -> None:
        first = failures[0]
        super().__init__(
            f"{len(failures)} trace message(s) were not delivered, first: topic={first[0]} "
            f"key={first[1]} error={first[2]}; check the brokers and HALLMON_KAFKA__*"
        )
        self.failures = failures


def new_traceparent() -> str:
    """The caller's current span as W3C trace context, or a fresh sampled trace."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    if "traceparent" in carrier:
        return carrier["traceparent"]
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


def _usage(usage: TokenUsage | Mapping[str, int] | None) -> TokenUsage | None:
    if usage is None or isinstance(usage, TokenUsage):
        return usage
    return TokenUsage.model_validate(dict(usage))


class TraceProducer:
    """Emits trace events for one agent. Thread-safe; one per process is enough."""

    def __init__(
        self,
        agent_id: str,
        *,
        model: str | None = None,
        topic: str | None = None,
        producer: KafkaProducerLike | None = None,
    ) -> None:
        if producer is None or topic is None:
            from hallmon.topology.settings import get_settings

            settings = get_settings()
            topic = topic or settings.topics.traces
            if producer is None:
                from hallmon.topology.kafka_client import make_producer

                producer = cast(KafkaProducerLike, make_producer(settings.kafka))
        self.agent_id = agent_id
        self.model = model
        self.topic = topic
        self._producer: KafkaProducerLike = producer
        self._failures: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()
        self._loop_calls: OrderedDict[str, int] = OrderedDict()

    # --- public API -------------------------------------------------------------------------

    def start_response(
        self,
        session_id: str,
        *,
        turn: int | None = None,
        response_id: str | None = None,
        user_input: str | None = None,
        traceparent: str | None = None,
        model: str | None = None,
        loop_step: int | None = None,
    ) -> ResponseStream:
        """Begin one streamed answer; send its context and deltas through the handle.

        `user_input` starts a new agent loop; `loop_step` defaults to the calls counted since."""
        if user_input is not None:
            self.new_loop(session_id)
        stream = ResponseStream(
            self,
            session_id=session_id,
            response_id=response_id or f"r-{uuid.uuid4().hex}",
            turn=turn,
            traceparent=traceparent or new_traceparent(),
            model=model or self.model,
            loop_step=self._count_call(session_id, loop_step),
        )
        if user_input is not None:
            stream.user_input(user_input)
        return stream

    def send_response(
        self,
        session_id: str,
        text: str,
        *,
        context: ResponseContext | Mapping[str, Any] | None = None,
        question: str | None = None,
        turn: int | None = None,
        usage: TokenUsage | Mapping[str, int] | None = None,
        response_id: str | None = None,
        traceparent: str | None = None,
        loop_step: int | None = None,
    ) -> str:
        """A whole answer with its context, for agents that do not stream. Returns its id.

        `question` starts a new agent loop; `loop_step` defaults to the calls counted since."""
        rid = response_id or f"r-{uuid.uuid4().hex}"
        if question is not None:
            self.new_loop(session_id)
        step = self._count_call(session_id, loop_step)
        ctx = (
            context
            if isinstance(context, ResponseContext)
            else ResponseContext.model_validate(dict(context or {}))
        )
        event = ResponseEvent(
            event_id=f"{rid}:response",
            session_id=session_id,
            response_id=rid,
            agent_id=self.agent_id,
            model=self.model,
            turn=turn,
            ts=datetime.now(UTC),
            text=text,
            context=ctx,
            question=question,
            usage=_usage(usage),
            loop_step=step,
        )
        self.emit(event, traceparent or new_traceparent())
        return rid

    def new_loop(self, session_id: str) -> None:
        """The user spoke: the session's next answer is step 0 of a new agent loop."""
        with self._lock:
            self._loop_calls[session_id] = 0
            self._loop_calls.move_to_end(session_id)

    def count_tool_call(self, session_id: str) -> None:
        """One tool call in the session's current loop (`ResponseStream.tool_result` calls it)."""
        self._count_call(session_id, None)

    def _count_call(self, session_id: str, explicit: int | None) -> int:
        """The calls before this one in the session's loop; records this one."""
        with self._lock:
            step = self._loop_calls.pop(session_id, 0) if explicit is None else explicit
            self._loop_calls[session_id] = step + 1
            while len(self._loop_calls) > MAX_TRACKED_LOOPS:
                self._loop_calls.popitem(last=False)
        return step

    def emit(self, event: TraceEventBase, traceparent: str | None) -> None:
        """Produce one event (key = session id), serving delivery reports as it goes."""
        headers = [("traceparent", traceparent.encode("ascii"))] if traceparent else []
        key = event.session_id.encode("utf-8")
        value = encode(event)
        while True:
            try:
                self._producer.produce(
                    self.topic, value=value, key=key, headers=headers, on_delivery=self._delivered
                )
                break
            except BufferError:
                # The local queue is full: wait for deliveries instead of failing the agent.
                self._producer.poll(0.1)
        self._producer.poll(0)

    def flush(self, timeout_s: float = 10.0) -> None:
        """Wait for every message; raise ProducerError naming what was not delivered."""
        left = self._producer.flush(timeout_s)
        with self._lock:
            failures, self._failures = self._failures, []
        if left:
            failures.append((self.topic, "*", f"{left} message(s) still queued after {timeout_s}s"))
        if failures:
            raise ProducerError(failures)

    # --- internals --------------------------------------------------------------------------

    def _delivered(self, err: Any, msg: Any) -> None:
        if err is None:
            return
        key = msg.key() if msg is not None else None
        with self._lock:
            self._failures.append(
                (self.topic, key.decode("utf-8", "replace") if key else "", str(err))
            )


class ResponseStream:
    """One answer being streamed. Each call produces one event; ids are derived, so a retried
    call of the same seq is recognised by the assembler as a duplicate."""

    def __init__(
        self,
        producer: TraceProducer,
        *,
        session_id: str,
        response_id: str,
        turn: int | None,
        traceparent: str,
        model: str | None,
        loop_step: int | None = None,
    ) -> None:
        self._producer = producer
        self.loop_step = loop_step
        self.session_id = session_id
        self.response_id = response_id
        self.turn = turn
        self.traceparent = traceparent
        self.model = model
        self._seq = 0
        self._items = 0
        self._done = False

    def _common(self, suffix: str) -> dict[str, Any]:
        if self._done:
            raise RuntimeError(
                f"response {self.response_id} is already complete; start_response() a new one"
            )
        return {
            "event_id": f"{self.response_id}:{suffix}",
            "session_id": self.session_id,
            "response_id": self.response_id,
            "agent_id": self._producer.agent_id,
            "model": self.model,
            "turn": self.turn,
            "ts": datetime.now(UTC),
            "loop_step": self.loop_step,
        }

    def _next_item(self, kind: str) -> str:
        self._items += 1
        return f"{kind}-{self._items}"

    def user_input(self, text: str) -> None:
        event = UserInputEvent(**self._common(self._next_item("user")), text=text)
        self._producer.emit(event, self.traceparent)

    def context(
        self,
        source_id: str,
        text: str,
        *,
        trust: float | None = None,
        locator: str | None = None,
    ) -> None:
        """A retrieved document or chunk the agent had."""
        event = ContextRetrievedEvent(
            **self._common(self._next_item("doc")),
            source_id=source_id,
            text=text,
            trust=trust,
            locator=locator,
        )
        self._producer.emit(event, self.traceparent)

    def tool_result(
        self,
        tool: str,
        call_id: str,
        output: str | dict[str, Any] | list[Any] | None,
        *,
        status: str = "ok",
        arguments: dict[str, Any] | None = None,
    ) -> None:
        self._producer.count_tool_call(self.session_id)
        event = ToolResultEvent.model_validate(
            {
                **self._common(self._next_item("tool")),
                "tool": tool,
                "call_id": call_id,
                "output": output,
                "status": status,
                "arguments": arguments,
            }
        )
        self._producer.emit(event, self.traceparent)

    def memory(self, memory_id: str, text: str, *, trust: float | None = None) -> None:
        event = MemoryRefEvent(
            **self._common(self._next_item("mem")), memory_id=memory_id, text=text, trust=trust
        )
        self._producer.emit(event, self.traceparent)

    def delta(self, text: str) -> int:
        """One chunk of the answer, as streamed to the user. Returns its seq."""
        seq = self._seq
        event = ResponseDeltaEvent(**self._common(f"delta-{seq}"), text=text, seq=seq)
        self._producer.emit(event, self.traceparent)
        self._seq += 1
        return seq

    def complete(
        self,
        *,
        usage: TokenUsage | Mapping[str, int] | None = None,
        finish_reason: str | None = "stop",
    ) -> None:
        """The stream has ended: hallmon verifies the answer now."""
        event = ResponseCompletedEvent(
            **self._common("completed"),
            final_seq=self._seq - 1 if self._seq else None,
            finish_reason=finish_reason,
            usage=_usage(usage),
        )
        self._producer.emit(event, self.traceparent)
        self._done = True
