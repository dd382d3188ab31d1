"""The assembler worker: trace events in, one assembled response per stream out.

The faust agent decodes each event, hands it to the pure state machine
(`hallmon.workers.assembler.state`) with the stream's stored state, and performs the step it
returns: publish a response, a dead letter, write or delete the state in the changelog-backed
table. A timer closes streams that went quiet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import faust
from hallmon.schemas import AssembledResponse, Limits, decode_trace_event, encode
from hallmon.topology.consumer import WriteBarrier, write_barrier
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.assembler import store
from hallmon.workers.assembler.state import Assembler, AssemblerConfig, AssemblyStep, StreamState
from hallmon.workers.publishing import (
    guarded,
    handled_messages,
    limits_of,
    publish,
    publish_dead_letter,
    raw_topic,
)
from hallmon.workers.telemetry import Telemetry, headers_dict, valid_traceparent

log = logging.getLogger(__name__)


@dataclass
class AssemblerRuntime:
    app: faust.App
    settings: HallmonSettings
    assembler: Assembler
    telemetry: Telemetry
    table: Any
    responses: Any
    dlq: Any
    open_streams: int = 0
    stats: dict[str, int] = field(default_factory=dict)
    # Partition progress, for timeouts on stream time: the newest Kafka timestamp (ms) read
    # from each partition, and when (worker clock) this worker last read one or took it over.
    progress_ms: dict[int, int] = field(default_factory=dict)
    seen_at: dict[int, float] = field(default_factory=dict)
    locks: KeyLocks = field(default_factory=lambda: KeyLocks())
    # key -> (the stored header bytes, their state without chunks or context): the timeout
    # scan's view, refreshed only when the stored header changes.
    headers: dict[str, tuple[bytes, StreamState]] = field(default_factory=dict)
    # key -> (the stored header bytes, the whole state they head): open streams, so an event
    # does not rebuild its stream from its parts; stale once the table holds other bytes
    # (a write, or a table restored after a rebalance).
    states: dict[str, tuple[bytes, StreamState]] = field(default_factory=dict)
    # The table's header keys (not its parts), indexed once per consumer generation.
    stream_keys: set[str] = field(default_factory=set)
    keys_generation: int | None = None
    writes: WriteBarrier = field(default_factory=WriteBarrier)


class KeyLocks:
    """One lock per stream key, so the timer and the agent never close the same stream at
    once (each awaits a publish between reading the state and writing it back)."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}

    def busy(self, key: str) -> bool:
        lock = self._locks.get(key)
        return lock is not None and lock.locked()

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and self._locks.get(key) is lock:
                del self._locks[key]


def assembler_config(settings: HallmonSettings) -> AssemblerConfig:
    a = settings.assembler
    return AssemblerConfig(
        stream_timeout_s=a.stream_timeout_s,
        max_open_streams=a.max_open_streams,
        max_stream_chars=min(a.max_stream_chars, settings.limits.max_answer_chars),
        max_stream_events=a.max_stream_events,
        closed_retention_s=a.closed_retention_s,
        completion_wait_s=a.completion_wait_s,
        limits=limits_of(settings),
        max_stream_bytes=settings.limits.max_event_bytes * 8 // 9,
    )


def install_assembler(app: faust.App, settings: HallmonSettings) -> AssemblerRuntime:
    traces = raw_topic(app, settings.topics.traces)
    table = app.Table(
        "streams",
        # str keys travel as JSON, bytes values raw (faust derives both from the types).
        key_type=str,
        value_type=bytes,
        help="Open streams by response_id (StreamState JSON); tombstones of closed ones.",
    )
    rt = AssemblerRuntime(
        app=app,
        settings=settings,
        assembler=Assembler(assembler_config(settings)),
        telemetry=Telemetry("assembler", open_streams=lambda: rt.open_streams),
        table=table,
        responses=raw_topic(app, settings.topics.responses),
        dlq=raw_topic(app, settings.topics.dlq),
        writes=write_barrier(app),
    )
    limits = limits_of(settings)

    @app.agent(traces, name="hallmon.assemble")
    async def assemble(stream: Any) -> None:
        async for msg in handled_messages(stream):

            async def work(msg: Any = msg) -> None:
                await assemble_message(rt, msg, limits)

            await guarded(rt.telemetry, rt.dlq, stage="assembler", message=msg, work=work)

    @app.timer(settings.assembler.scan_interval_s)  # type: ignore[untyped-decorator]
    async def close_quiet_streams() -> None:
        try:
            await scan_streams(rt)
        except Exception:  # a failed scan is retried by the next tick; never crash the app
            log.exception("timeout scan failed")

    @app.timer(30.0)  # type: ignore[untyped-decorator]
    async def log_counts() -> None:
        if rt.telemetry.counts:
            log.info(
                "assembler counts: %s open_streams=%d", dict(rt.telemetry.counts), rt.open_streams
            )

    return rt


async def assemble_message(rt: AssemblerRuntime, msg: Any, limits: Limits) -> None:
    """Fold one trace message into its stream; raises ContractError for bad input."""
    # Invalid trace context is ignored, never fatal: only a valid W3C traceparent travels on.
    traceparent = valid_traceparent(headers_dict(msg.headers).get("traceparent"))
    trace = decode_trace_event(msg.value or b"", limits)
    event_ms = _note_progress(rt, msg)
    with rt.telemetry.span(
        "hallmon.assemble",
        traceparent,
        **{"hallmon.response_id": trace.response_id, "hallmon.event": trace.type},
    ):
        async with rt.locks.hold(store.header_key(trace.response_id)):
            await _assemble_locked(rt, msg, trace, traceparent, event_ms)


def _note_progress(rt: AssemblerRuntime, msg: Any) -> int | None:
    """Advance the partition's stream time with this message; its Kafka timestamp in ms."""
    rt.seen_at[msg.partition] = time.time()
    ts = getattr(msg, "timestamp", None)
    if not isinstance(ts, int | float) or ts <= 0:
        return None
    event_ms = int(ts * 1000)
    rt.progress_ms[msg.partition] = max(rt.progress_ms.get(msg.partition, event_ms), event_ms)
    return event_ms


async def _assemble_locked(
    rt: AssemblerRuntime, msg: Any, trace: Any, traceparent: str | None, event_ms: int | None
) -> None:
    key = store.header_key(trace.response_id)
    state = load_state(rt, key)
    step = rt.assembler.apply(
        state,
        trace,
        now=time.time(),
        open_streams=rt.open_streams,
        partition=msg.partition,
        traceparent=traceparent,
        event_ms=event_ms,
    )
    if step.dead_letter is not None:
        await publish_dead_letter(
            rt.telemetry,
            rt.dlq,
            stage="assembler",
            exc_or_reason=step.dead_letter,
            message=msg,
        )
    await _perform(rt, key, state, step)


def load_state(rt: AssemblerRuntime, key: str) -> StreamState | None:
    """The stream's whole state as stored: from the cache while the table still holds the
    header it was cached for, else rebuilt from the header and its parts."""
    raw = rt.table.data.get(key)
    if not raw:
        rt.states.pop(key, None)
        return None
    cached = rt.states.get(key)
    if cached is not None and cached[0] is raw:
        return cached[1]
    state = store.load(raw, rt.table.data.get)
    if state.is_open:
        rt.states[key] = (raw, state)
    return state


def _active_partitions(rt: AssemblerRuntime) -> set[int] | None:
    try:
        actives = rt.app.assignor.assigned_actives()
    except Exception:  # no assignment yet
        return None
    return {tp.partition for tp in actives if tp.topic == rt.settings.topics.traces}


async def scan_streams(rt: AssemblerRuntime) -> None:
    """Close streams that went quiet and forget old tombstones (the timeout timer)."""
    app = rt.app
    recovery: Any = app.tables.recovery  # type: ignore[attr-defined]
    if app.rebalancing or app.in_recovery or not recovery.completed.is_set():
        # A half-recovered table may show an older value of a key: never act on it.
        return
    active = _active_partitions(rt)
    if active is None:
        return
    now = time.time()
    # A partition this worker just took over starts its quiet clock now: its backlog is read
    # before any of its restored streams can time out on the worker clock.
    for gone in set(rt.seen_at) - active:
        del rt.seen_at[gone]
        rt.progress_ms.pop(gone, None)
    for partition in active:
        rt.seen_at.setdefault(partition, now)
    open_count = 0
    keys: set[str] = set()
    for key in list(_stream_keys(rt)):
        raw = rt.table.data.get(key)
        if raw is None:
            rt.stream_keys.discard(key)
            continue
        keys.add(key)
        head = _header(rt, key, raw)
        if head.partition is not None and head.partition not in active:
            continue
        step = _expire(rt, head, now)
        if step.emit is None and not step.changes_state:
            open_count += head.is_open
            continue
        if rt.locks.busy(key):
            continue  # an event of this stream is being handled; look again next tick
        async with rt.locks.hold(key):
            # Compare-and-set: act only on the state as it is now, not the snapshot; the
            # whole state is parsed only here, for a stream that is due.
            state = load_state(rt, key)
            if state is None:
                continue
            step = _expire(rt, state, time.time())
            if step.emit is None and not step.changes_state:
                continue
            with rt.telemetry.span(
                "hallmon.assemble.timeout", state.traceparent, **{"hallmon.response_id": key}
            ):
                await _perform(rt, key, state, step)
    for stale in set(rt.headers) - keys:
        del rt.headers[stale]
    for stale in set(rt.states) - keys:
        del rt.states[stale]
    rt.open_streams = open_count


def _stream_keys(rt: AssemblerRuntime) -> set[str]:
    """The table's stream (header) keys, without walking every part key on each tick: indexed
    once per consumer generation (a rebalance restores the table from the changelog), then
    kept by this worker's own writes, the only other way the table changes."""
    generation = getattr(rt.app, "consumer_generation_id", None)
    if generation is None or generation != rt.keys_generation:
        rt.stream_keys = {key for key in list(rt.table.data) if not store.is_part_key(key)}
        rt.keys_generation = generation
    return rt.stream_keys


def _header(rt: AssemblerRuntime, key: str, raw: bytes) -> StreamState:
    """The stream's state without its chunks and context, parsed once per write of the key
    (the scan runs every second and must not re-parse every stored answer each time)."""
    cached = rt.headers.get(key)
    if cached is not None and cached[0] is raw:
        return cached[1]
    head = store.load(raw, lambda _: None).model_copy(
        update={
            "chunks": {},
            "seen_event_ids": [],
            "user_input": [],
            "documents": [],
            "tool_results": [],
            "memory": [],
        }
    )
    rt.headers[key] = (raw, head)
    return head


def _expire(rt: AssemblerRuntime, state: StreamState, now: float) -> AssemblyStep:
    partition = state.partition
    if partition is None:
        return rt.assembler.expire(state, now=now)
    return rt.assembler.expire(
        state,
        now=now,
        progress_ms=rt.progress_ms.get(partition),
        quiet_s=now - rt.seen_at.get(partition, now),
    )


async def _perform(
    rt: AssemblerRuntime,
    key: str,
    old: StreamState | None,
    step: AssemblyStep,
) -> None:
    if step.dropped is not None:
        rt.telemetry.dropped(step.dropped)
    if step.emit is not None:
        await publish_response(rt, step.emit)
    was_open = old is not None and old.is_open
    if step.delete:
        await _store(rt, key, old, None)
    elif step.state is not None:
        await _store(rt, key, old, step.state)
        rt.open_streams += int(step.state.is_open) - int(was_open)
    rt.open_streams = max(rt.open_streams, 0)


async def _store(
    rt: AssemblerRuntime, key: str, old: StreamState | None, new: StreamState | None
) -> None:
    """Write what changed from `old` to `new` (None: forget the stream) and wait until the
    changelog has acknowledged all of it.

    Awaited on purpose: faust commits an input offset once the handler returned, so the state
    an event changed is durable before its offset is; a crash or a rebalance in between can
    no longer lose a chunk. The writes also join the app's write barrier, which every offset
    commit waits for (`hallmon.topology.consumer.WriteBarrier`): a failed write stops the
    worker without committing. Not awaiting here (pipelined writes, ack before each commit
    and hand-over) was measured 15-25 % faster but lost the first chunk of open streams in 2
    of 9 graceful-stop rebalances on a loaded host (0 of 5 awaited), for a reason not yet
    found: do not pipeline these writes without that test green under load. The state
    records its source partition, so the timer (which has no current event) keeps the
    changelog co-partitioned with the traces topic too. Only the parts the event added and
    the small header are written (`store`), not the whole state.
    """
    latest = new if new is not None else old
    partition = latest.partition if latest is not None else None
    if partition is None:
        log.error("stream %s has no recorded partition; leaving it for the next event", key)
        return
    stored = rt.table.data.get(key)
    if stored is not None and store.is_whole(stored):
        old = None  # the previous layout: none of its parts is in the table yet
    sent = []
    for part, value in store.changes(old, new):
        if value is None:
            rt.table.data.pop(part, None)
            pending = rt.table.send_changelog(partition, part, None, value_serializer="raw")
        else:
            rt.table.data[part] = value
            pending = rt.table.send_changelog(partition, part, value)
        rt.writes.add(pending)
        sent.append(pending)
    if new is None:
        rt.stream_keys.discard(key)
    else:
        rt.stream_keys.add(key)
    header = rt.table.data.get(key)
    if new is not None and new.is_open and header is not None:
        rt.states[key] = (header, new)
    else:
        rt.states.pop(key, None)
    for pending in sent:
        await pending


async def publish_response(rt: AssemblerRuntime, response: AssembledResponse) -> None:
    attrs: dict[str, str | bool] = {
        "hallmon.topic": rt.settings.topics.responses,
        "hallmon.complete": response.complete,
    }
    with rt.telemetry.span("hallmon.publish", response.traceparent, **attrs):
        await publish(
            rt.responses,
            key=response.session_id,
            value=encode(response),
            traceparent=response.traceparent,
        )
    rt.telemetry.count("responses.complete" if response.complete else "responses.incomplete")


__all__ = ["AssemblerRuntime", "install_assembler", "scan_streams"]
