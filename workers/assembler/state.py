"""Assemble streamed answers: one `StreamState` per `response_id`, transport-free.

The faust agent keeps a `StreamState` per open stream in a changelog-backed table and calls
`Assembler.apply` for each trace event and `Assembler.expire` from a timer. Both return an
`AssemblyStep` that says what to store, what to emit to `hallmon.responses` and what to
dead-letter; the agent only does the I/O. Nothing here reads a clock: callers pass `now`.

A closed stream leaves a small tombstone (status != "open", no chunks) for
`closed_retention_s`, so a redelivered or late event of an answer that was already emitted
neither opens a new stream nor produces a second verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypeVar

from hallmon.schemas import (
    DEFAULT_LIMITS,
    AssembledResponse,
    ContextRetrievedEvent,
    DocumentItem,
    Limits,
    MemoryItem,
    MemoryRefEvent,
    ResponseCompletedEvent,
    ResponseContext,
    ResponseDeltaEvent,
    ResponseEvent,
    TokenUsage,
    ToolResultEvent,
    ToolResultItem,
    TraceEvent,
    UserInputEvent,
)
from hallmon.schemas.events import IncompleteReason
from pydantic import BaseModel, Field

StreamStatus = Literal["open", "completed", "timed_out", "too_large", "refused"]
DropReason = Literal["duplicate", "late"]
RefusalReason = Literal["stream_too_large", "too_many_open_streams"]


@dataclass(frozen=True)
class AssemblerConfig:
    """Bounds of the assembler. Defaults follow the contract's `Limits`."""

    stream_timeout_s: float = 30.0
    max_open_streams: int = 10_000
    max_stream_chars: int = DEFAULT_LIMITS.max_answer_chars
    max_stream_events: int = 4_096
    closed_retention_s: float = 900.0
    completion_wait_s: float = 5.0
    """After `response.completed`, how long (stream time) chunks that have not arrived are
    waited for; a stream whose events came on more than one partition (a producer that does
    not key by session) also waits this long for its context before it is emitted."""
    limits: Limits = DEFAULT_LIMITS
    max_stream_bytes: int = DEFAULT_LIMITS.max_event_bytes * 8 // 9
    """UTF-8 bytes of answer and context one stream may gather: its state (changelog) and its
    assembled answer must stay under the topics' max.message.bytes."""

    def __post_init__(self) -> None:
        if self.max_stream_chars > self.limits.max_answer_chars:
            raise ValueError(
                f"max_stream_chars={self.max_stream_chars} exceeds limits.max_answer_chars="
                f"{self.limits.max_answer_chars}; an assembled answer that long could not be "
                "published. Lower HALLMON_ASSEMBLER__MAX_STREAM_CHARS or raise the limit"
            )


class StreamState(BaseModel):
    """What the assembler knows about one answer. Stored as JSON bytes in the faust table."""

    response_id: str
    session_id: str
    agent_id: str
    model: str | None = None
    turn: int | None = None
    partition: int | None = Field(
        None, description="Source partition, so a timer can write the changelog outside a stream"
    )
    status: StreamStatus = "open"
    chunks: dict[int, str] = Field(default_factory=dict)
    seen_event_ids: list[str] = Field(
        default_factory=list,
        description="Ids of the events other than deltas (a delta is known by its seq)",
    )
    user_input: list[str] = Field(default_factory=list)
    documents: list[DocumentItem] = Field(default_factory=list)
    tool_results: list[ToolResultItem] = Field(default_factory=list)
    memory: list[MemoryItem] = Field(default_factory=list)
    answer_chars: int = 0
    content_bytes: int = Field(0, description="UTF-8 bytes of the answer and context so far")
    final_seq: int | None = None
    usage: TokenUsage | None = None
    started_at: datetime | None = None
    opened_at: float = Field(0.0, description="Worker clock (s) when the first event arrived")
    updated_at: float = Field(0.0, description="Worker clock (s) of the latest event")
    last_event_ms: int | None = Field(
        None, description="Kafka timestamp (ms) of the stream's newest event: its stream time"
    )
    closed_at: float | None = None
    traceparent: str | None = None
    loop_step: int | None = None
    spread: bool = Field(False, description="Events came on more than one partition")
    completed_at: float | None = Field(
        None, description="Worker clock (s) when response.completed arrived, while still open"
    )
    completed_ms: int | None = Field(None, description="Kafka timestamp of response.completed")
    ended_at: datetime | None = Field(None, description="The stream's end as its producer said")

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    @property
    def event_count(self) -> int:
        return len(self.seen_event_ids) + len(self.chunks)

    def to_bytes(self) -> bytes:
        return self.model_dump_json(exclude_defaults=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> StreamState:
        return cls.model_validate_json(data)


def missing_seqs(state: StreamState) -> list[int]:
    """The seqs below the highest one known (or `final_seq`) that never arrived."""
    last = max([*state.chunks, state.final_seq if state.final_seq is not None else -1])
    return [s for s in range(last + 1) if s not in state.chunks]


def _due(
    last_ms: int | None,
    last_at: float,
    timeout: float,
    now: float,
    progress_ms: int | None,
    quiet_s: float,
) -> bool:
    """Whether `timeout` has passed since an event (Kafka time `last_ms`, worker clock
    `last_at`): by the partition's stream time, or by the worker clock while the partition
    itself has been quiet that long (see `Assembler.expire`)."""
    behind = progress_ms is not None and last_ms is not None
    by_stream_time = behind and (progress_ms or 0) - (last_ms or 0) >= timeout * 1000
    by_quiet = quiet_s >= timeout and now - last_at >= timeout
    return by_stream_time or by_quiet


@dataclass(frozen=True)
class AssemblyStep:
    """The outcome of one event or timer tick; the agent performs it in this order:

    dead_letter (if any), emit (if any, awaited), then store `state` or delete the key.
    """

    state: StreamState | None = None
    delete: bool = False
    emit: AssembledResponse | None = None
    dead_letter: tuple[RefusalReason, str] | None = None
    dropped: DropReason | None = None

    @property
    def changes_state(self) -> bool:
        return self.state is not None or self.delete


NOTHING = AssemblyStep()


_Item = TypeVar("_Item", DocumentItem, ToolResultItem, MemoryItem)


def _item(kind: type[_Item], event: BaseModel) -> _Item:
    # The event subclasses the item; keep only the item's fields so the state stays small.
    return kind.model_validate(event.model_dump(include=set(kind.model_fields)))


def _context_item(
    event: ContextRetrievedEvent | ToolResultEvent | MemoryRefEvent,
) -> DocumentItem | ToolResultItem | MemoryItem:
    if isinstance(event, ContextRetrievedEvent):
        return _item(DocumentItem, event)
    if isinstance(event, ToolResultEvent):
        return _item(ToolResultItem, event)
    return _item(MemoryItem, event)


def _utc(ts: datetime | None, now: float) -> datetime:
    if ts is not None:
        return ts if ts.tzinfo else ts.replace(tzinfo=UTC)
    return datetime.fromtimestamp(now, UTC)


class Assembler:
    """Pure transitions of `StreamState`s. One instance serves all streams of a worker."""

    def __init__(self, config: AssemblerConfig | None = None) -> None:
        self.config = config or AssemblerConfig()

    # --- events -----------------------------------------------------------------------------

    def apply(
        self,
        state: StreamState | None,
        event: TraceEvent,
        *,
        now: float,
        open_streams: int,
        partition: int | None = None,
        traceparent: str | None = None,
        event_ms: int | None = None,
    ) -> AssemblyStep:
        """Fold one event into its stream. `open_streams` is the worker's current count;
        `event_ms` the message's Kafka timestamp (the stream time of the event)."""
        if isinstance(event, ResponseEvent):
            # A producer that does not stream: the whole answer passes straight through.
            whole = AssembledResponse.from_response_event(event)
            return AssemblyStep(emit=whole.model_copy(update={"traceparent": traceparent}))

        if state is not None and not state.is_open:
            # Already emitted (or refused): a redelivery or a straggler must not emit again.
            dup = event.event_id in state.seen_event_ids or state.status == "completed"
            return AssemblyStep(dropped="duplicate" if dup else "late")

        if state is None:
            state = StreamState(
                response_id=event.response_id,
                session_id=event.session_id,
                agent_id=event.agent_id,
                partition=partition,
                opened_at=now,
                updated_at=now,
                started_at=event.ts,
                traceparent=traceparent,
            )
            if open_streams >= self.config.max_open_streams:
                return self._refuse(
                    state,
                    "too_many_open_streams",
                    f"{open_streams} streams are open on this worker, the limit "
                    f"max_open_streams={self.config.max_open_streams}; add worker processes or "
                    "partitions, or raise HALLMON_ASSEMBLER__MAX_OPEN_STREAMS",
                    now,
                    event.ts,
                )
        elif event.event_id in state.seen_event_ids or (
            isinstance(event, ResponseDeltaEvent) and event.seq in state.chunks
        ):
            # A redelivery, or a producer retry of a chunk under a new event_id: the first
            # text stays.
            return AssemblyStep(dropped="duplicate")
        else:
            state = state.model_copy(deep=True)

        if not isinstance(event, ResponseDeltaEvent):
            # Deltas are known by their seq: their ids would grow the state by one per chunk.
            state.seen_event_ids.append(event.event_id)
        state.updated_at = now
        if event_ms is not None:
            state.last_event_ms = max(state.last_event_ms or event_ms, event_ms)
        state.model = state.model or event.model
        state.turn = state.turn if state.turn is not None else event.turn
        state.loop_step = state.loop_step if state.loop_step is not None else event.loop_step
        state.traceparent = state.traceparent or traceparent
        if state.partition is None:
            state.partition = partition
        elif partition is not None and partition != state.partition:
            state.spread = True  # the rest of this stream may still be on its way elsewhere

        if isinstance(event, ResponseDeltaEvent):
            if event.seq >= self.config.max_stream_events:
                return self._refuse(
                    state,
                    "stream_too_large",
                    self._seq_error(state, "seq", event.seq),
                    now,
                    event.ts,
                )
            if event.seq in state.chunks:
                # Same seq under a new event_id: a producer retry. Keep the first text.
                return AssemblyStep(state=state, dropped="duplicate")
            state.chunks[event.seq] = event.text
            state.answer_chars += len(event.text)
            state.content_bytes += len(event.text.encode("utf-8"))
        elif isinstance(event, UserInputEvent):
            state.user_input.append(event.text)
            state.content_bytes += len(event.text.encode("utf-8"))
        elif isinstance(event, ContextRetrievedEvent | ToolResultEvent | MemoryRefEvent):
            item = _context_item(event)
            state.content_bytes += len(item.model_dump_json().encode("utf-8"))
            if isinstance(item, DocumentItem):
                state.documents.append(item)
            elif isinstance(item, ToolResultItem):
                state.tool_results.append(item)
            else:
                state.memory.append(item)
        elif isinstance(event, ResponseCompletedEvent):
            final = event.final_seq
            if final is not None and final >= self.config.max_stream_events:
                return self._refuse(
                    state,
                    "stream_too_large",
                    self._seq_error(state, "final_seq", final),
                    now,
                    event.ts,
                )
            state.final_seq = final
            state.usage = event.usage
            state.ended_at = _utc(event.ts, now)
            state.completed_at = now
            state.completed_ms = event_ms
            return self._settle(state, now)

        overflow = self._overflow(state)
        if overflow is not None:
            return self._refuse(state, "stream_too_large", overflow, now, event.ts)
        if state.completed_at is not None:
            return self._settle(state, now)
        return AssemblyStep(state=state)

    def _settle(self, state: StreamState, now: float) -> AssemblyStep:
        """A completed stream is emitted once every chunk is in, unless its events are spread
        over partitions (its context may still be on its way: the timer emits it after
        `completion_wait_s`); with chunks missing it waits for them as long."""
        if missing_seqs(state) or state.spread:
            return AssemblyStep(state=state)
        return self._close(state, "completed", now, ended_at=state.ended_at)

    # --- timer ------------------------------------------------------------------------------

    def expire(
        self,
        state: StreamState,
        *,
        now: float,
        progress_ms: int | None = None,
        quiet_s: float = math.inf,
    ) -> AssemblyStep:
        """Close a stream that went quiet; forget a tombstone past its retention.

        Quiet is judged by the stream's partition, not the wall clock alone, so a worker that
        was down or busy never closes a healthy stream whose next events wait in the backlog:
        - stream time: the partition has delivered events `stream_timeout_s` newer than this
          stream's newest (`progress_ms`, the newest Kafka timestamp read from it), or
        - the partition itself has been quiet in this worker for `stream_timeout_s` (`quiet_s`,
          counted from when this worker started reading it) and the stream's last event is
          that old on the worker clock too.
        Without partition information (`progress_ms` None, `quiet_s` inf) only the wall clock
        is used.
        """
        if state.is_open and state.completed_at is not None:
            # Completed, waiting for chunks or for the rest of a spread stream: what came is
            # the answer (holes are reported), once the wait is over on the stream's clock.
            wait = self.config.completion_wait_s
            if _due(state.completed_ms, state.completed_at, wait, now, progress_ms, quiet_s):
                return self._close(
                    state.model_copy(deep=True), "completed", now, ended_at=state.ended_at
                )
            return NOTHING
        if state.is_open:
            timeout = self.config.stream_timeout_s
            if _due(state.last_event_ms, state.updated_at, timeout, now, progress_ms, quiet_s):
                return self._close(state.model_copy(deep=True), "timed_out", now)
            return NOTHING
        if state.closed_at is not None and now - state.closed_at >= self.config.closed_retention_s:
            return AssemblyStep(delete=True)
        return NOTHING

    # --- helpers ----------------------------------------------------------------------------

    def _seq_error(self, state: StreamState, field: str, seq: int) -> str:
        # Chunks are stored sparsely, but a seq this far out can never be filled within the
        # stream's event limit, and listing the gap would grow without bound.
        return (
            f"stream {state.response_id}: {field}={seq} is not below max_stream_events="
            f"{self.config.max_stream_events} (seq counts chunks from 0); number chunks "
            "consecutively or raise HALLMON_ASSEMBLER__MAX_STREAM_EVENTS"
        )

    def _overflow(self, state: StreamState) -> str | None:
        cfg = self.config
        if state.answer_chars > cfg.max_stream_chars:
            return (
                f"stream {state.response_id} reached {state.answer_chars} answer characters, "
                f"over max_stream_chars={cfg.max_stream_chars}; split the answer or raise "
                "HALLMON_ASSEMBLER__MAX_STREAM_CHARS"
            )
        if state.content_bytes > cfg.max_stream_bytes:
            return (
                f"stream {state.response_id} gathered {state.content_bytes} bytes of answer and "
                f"context, over max_stream_bytes={cfg.max_stream_bytes} (from "
                "HALLMON_LIMITS__MAX_EVENT_BYTES, under the topics' max.message.bytes); send "
                "less context or raise both"
            )
        items = len(state.documents) + len(state.tool_results) + len(state.memory)
        if items > cfg.limits.max_context_items:
            return (
                f"stream {state.response_id} carries {items} context items, over "
                f"max_context_items={cfg.limits.max_context_items}; send fewer or raise "
                "HALLMON_LIMITS__MAX_CONTEXT_ITEMS"
            )
        if state.event_count > cfg.max_stream_events:
            return (
                f"stream {state.response_id} has {state.event_count} events, over "
                f"max_stream_events={cfg.max_stream_events}; send larger deltas or raise "
                "HALLMON_ASSEMBLER__MAX_STREAM_EVENTS"
            )
        return None

    def _refuse(
        self,
        state: StreamState,
        reason: RefusalReason,
        error: str,
        now: float,
        ts: datetime | None,
    ) -> AssemblyStep:
        status: StreamStatus = "too_large" if reason == "stream_too_large" else "refused"
        step = self._close(state, status, now, ended_at=_utc(ts, now))
        return AssemblyStep(state=step.state, emit=step.emit, dead_letter=(reason, error))

    def _close(
        self, state: StreamState, status: StreamStatus, now: float, ended_at: datetime | None = None
    ) -> AssemblyStep:
        reason: IncompleteReason | None = {
            "completed": None,
            "timed_out": "stream_timeout",
            "too_large": "stream_too_large",
            "refused": "too_many_open_streams",
        }.get(status)
        emitted = self.build(state, incomplete_reason=reason, now=now, ended_at=ended_at)
        tombstone = StreamState(
            response_id=state.response_id,
            session_id=state.session_id,
            agent_id=state.agent_id,
            partition=state.partition,
            status=status,
            seen_event_ids=[] if status == "completed" else state.seen_event_ids,
            opened_at=state.opened_at,
            updated_at=now,
            closed_at=now,
        )
        return AssemblyStep(state=tombstone, emit=emitted)

    def build(
        self,
        state: StreamState,
        *,
        incomplete_reason: IncompleteReason | None,
        now: float,
        ended_at: datetime | None = None,
    ) -> AssembledResponse:
        """The answer so far, chunks in `seq` order, with the seqs that never arrived."""
        seqs = sorted(state.chunks)
        missing = missing_seqs(state)
        text = "".join(state.chunks[s] for s in seqs)
        if len(text) > self.config.limits.max_answer_chars:
            # Only reachable for a refused oversized stream: keep what fits, say so.
            text = text[: self.config.limits.max_answer_chars]
        user_input = "\n".join(state.user_input) or None
        items = len(state.documents) + len(state.tool_results) + len(state.memory)
        if state.content_bytes > self.config.max_stream_bytes:
            # Only for a stream refused for its size: what it gathered cannot be published;
            # the verdict is `unavailable` anyway and the dead letter says why.
            context = ResponseContext()
            user_input = None
        elif items <= self.config.limits.max_context_items:
            context = ResponseContext(
                user_input=user_input,
                documents=state.documents,
                tool_results=state.tool_results,
                memory=state.memory,
            )
        else:
            # Only for a stream refused for carrying too many items: the verdict is
            # `unavailable` anyway, and the dead letter says why.
            context = ResponseContext(user_input=user_input)
        return AssembledResponse(
            response_id=state.response_id,
            session_id=state.session_id,
            agent_id=state.agent_id,
            model=state.model,
            turn=state.turn,
            text=text,
            question=user_input,
            context=context,
            complete=incomplete_reason is None,
            incomplete_reason=incomplete_reason,
            missing_seqs=missing,
            chunk_count=len(seqs),
            origin="stream",
            stream_started_at=state.started_at or datetime.fromtimestamp(state.opened_at, UTC),
            stream_ended_at=ended_at or datetime.fromtimestamp(now, UTC),
            usage=state.usage,
            traceparent=state.traceparent,
            loop_step=state.loop_step,
        )
