"""The faust agents: decode, call a stage, publish. Thin on purpose.

Delivery guarantee (both agents): an input offset is committed only after everything it caused
is published. Each publish is awaited until the broker acknowledged it (acks=all), and faust
commits an offset only after the agent moved past the message and flushed its producer. A crash
in between re-runs the message: outputs are at-least-once, and every output carries an id
derived from its input (`verdict_id` from the response id, `alert_id` from the session and
response id) so consumers deduplicate. Fatigue counters are exactly once per response id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import faust
import redis.asyncio as aioredis

from hallmon.schemas import (
    AssembledResponse,
    ContractError,
    FatigueAlert,
    Limits,
    VerdictEvent,
    decode,
    decode_trace_event,
    encode,
)
from hallmon.streaming.batching import BatchingConfig, NLIBatcher
from hallmon.streaming.dlq import Stage, dead_letter, reason_of
from hallmon.streaming.fatigue_redis import FatigueConfig, FatigueStore, update_fatigue
from hallmon.streaming.telemetry import Telemetry, headers_dict
from hallmon.streaming.verify import TwoPhaseVerifier, VerificationService
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.assembler import Assembler, AssemblerConfig, AssemblyStep, StreamState
from hallmon.workers.fatigue import FatigueThresholds

log = logging.getLogger(__name__)


def limits_of(settings: HallmonSettings) -> Limits:
    return Limits(**settings.limits.model_dump())


def raw_topic(app: faust.App, name: str) -> Any:
    # Raw bytes in and out: malformed input must reach our code (and the dead-letter topic)
    # instead of failing inside faust's deserializer.
    return app.topic(
        name, key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw"
    )


async def publish(topic: Any, *, key: str, value: bytes, traceparent: str | None = None) -> None:
    """Send and wait for the broker's acknowledgement (not just the local buffer)."""
    headers = {"traceparent": traceparent.encode("ascii")} if traceparent else None
    pending = await topic.send(key=key.encode("utf-8"), value=value, headers=headers, force=True)
    await pending


async def publish_dead_letter(
    telemetry: Telemetry,
    dlq_topic: Any,
    *,
    stage: Stage,
    exc_or_reason: BaseException | tuple[Any, str],
    message: Any,
) -> None:
    if isinstance(exc_or_reason, BaseException):
        reason, error = reason_of(exc_or_reason), str(exc_or_reason)
    else:
        reason, error = exc_or_reason
    letter = dead_letter(
        reason=reason,
        error=error,
        stage=stage,
        topic=message.topic,
        partition=message.partition,
        offset=message.offset,
        key=message.key,
        value=message.value,
        headers=headers_dict(message.headers),
    )
    key = message.key.decode("utf-8", "replace") if message.key else f"{message.topic}"
    await publish(dlq_topic, key=key, value=encode(letter))
    telemetry.dead_letter(reason)
    log.warning(
        "dead letter %s from %s[%s]@%s: %s",
        reason,
        message.topic,
        message.partition,
        message.offset,
        error[:300],
    )


# --- assembler ------------------------------------------------------------------------------


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


def assembler_config(settings: HallmonSettings) -> AssemblerConfig:
    a = settings.assembler
    return AssemblerConfig(
        stream_timeout_s=a.stream_timeout_s,
        max_open_streams=a.max_open_streams,
        max_stream_chars=min(a.max_stream_chars, settings.limits.max_answer_chars),
        max_stream_events=a.max_stream_events,
        closed_retention_s=a.closed_retention_s,
        limits=limits_of(settings),
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
    )
    limits = limits_of(settings)

    @app.agent(traces, name="hallmon.assemble")
    async def assemble(stream: Any) -> None:
        async for event in stream.events():
            msg = event.message
            headers = headers_dict(msg.headers)
            traceparent = headers.get("traceparent")
            try:
                trace = decode_trace_event(msg.value or b"", limits)
            except ContractError as exc:
                await publish_dead_letter(
                    rt.telemetry, rt.dlq, stage="assembler", exc_or_reason=exc, message=msg
                )
                continue
            with rt.telemetry.span(
                "hallmon.assemble",
                traceparent,
                **{"hallmon.response_id": trace.response_id, "hallmon.event": trace.type},
            ):
                raw = table.get(trace.response_id)
                state = StreamState.from_bytes(raw) if raw else None
                step = rt.assembler.apply(
                    state,
                    trace,
                    now=time.time(),
                    open_streams=rt.open_streams,
                    partition=msg.partition,
                    traceparent=traceparent,
                )
                if step.dead_letter is not None:
                    await publish_dead_letter(
                        rt.telemetry,
                        rt.dlq,
                        stage="assembler",
                        exc_or_reason=step.dead_letter,
                        message=msg,
                    )
                await _perform(rt, trace.response_id, state, step, in_stream=True)

    @app.timer(settings.assembler.scan_interval_s)  # type: ignore[untyped-decorator]
    async def close_quiet_streams() -> None:
        await scan_streams(rt)

    @app.timer(30.0)  # type: ignore[untyped-decorator]
    async def log_counts() -> None:
        if rt.telemetry.counts:
            log.info(
                "assembler counts: %s open_streams=%d", dict(rt.telemetry.counts), rt.open_streams
            )

    return rt


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
    open_count = 0
    for key, raw in list(rt.table.items()):
        state = StreamState.from_bytes(raw)
        if state.partition is not None and state.partition not in active:
            continue
        step = rt.assembler.expire(state, now=now)
        if step.emit is None and not step.changes_state:
            open_count += state.is_open
            continue
        with rt.telemetry.span(
            "hallmon.assemble.timeout", state.traceparent, **{"hallmon.response_id": key}
        ):
            await _perform(rt, key, state, step, in_stream=False)
    rt.open_streams = open_count


async def _perform(
    rt: AssemblerRuntime,
    key: str,
    old: StreamState | None,
    step: AssemblyStep,
    *,
    in_stream: bool,
) -> None:
    if step.dropped is not None:
        rt.telemetry.dropped(step.dropped)
    if step.emit is not None:
        await publish_response(rt, step.emit)
    was_open = old is not None and old.is_open
    if step.delete:
        _write(rt, key, None, old.partition if old else None, in_stream)
    elif step.state is not None:
        _write(rt, key, step.state.to_bytes(), step.state.partition, in_stream)
        rt.open_streams += int(step.state.is_open) - int(was_open)
    rt.open_streams = max(rt.open_streams, 0)


def _write(
    rt: AssemblerRuntime, key: str, value: bytes | None, partition: int | None, in_stream: bool
) -> None:
    if in_stream:
        if value is None:
            rt.table.pop(key, None)
        else:
            rt.table[key] = value
        return
    # From the timer there is no current event to take the partition from; the state recorded
    # its source partition, so the changelog stays co-partitioned with the traces topic.
    if partition is None:
        log.error("stream %s has no recorded partition; leaving it for the next event", key)
        return
    if value is None:
        rt.table.data.pop(key, None)
        rt.table.send_changelog(partition, key, None, value_serializer="raw")
    else:
        rt.table.data[key] = value
        rt.table.send_changelog(partition, key, value)


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


# --- verifier -------------------------------------------------------------------------------


class KeyedLocks:
    """One asyncio lock per key, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


@dataclass
class VerifierRuntime:
    app: faust.App
    settings: HallmonSettings
    service: VerificationService
    telemetry: Telemetry
    verdicts: Any
    fatigue: Any
    dlq: Any
    store: FatigueStore
    batcher: NLIBatcher
    session_locks: KeyedLocks = field(default_factory=lambda: KeyedLocks())


def fatigue_config(settings: HallmonSettings) -> FatigueConfig:
    f = settings.fatigue
    return FatigueConfig(
        thresholds=FatigueThresholds(
            window=f.window,
            min_points=f.min_points,
            recent_rate=f.recent_rate,
            turn_slope=f.turn_slope,
            context_slope=f.context_slope,
            rearm_fraction=f.rearm_fraction,
            slope_min_rate=f.slope_min_rate,
        ),
        ttl_s=f.ttl_s,
        max_series=f.max_series,
        turn_ranges=f.turn_ranges,
        context_ranges=f.context_ranges,
        key_prefix=f.key_prefix,
    )


def batching_config(settings: HallmonSettings) -> BatchingConfig:
    v = settings.verifier_worker
    return BatchingConfig(
        max_batch_pairs=v.max_batch_pairs,
        max_wait_ms=v.max_wait_ms,
        max_pending_pairs=max(v.max_pending_pairs, v.max_batch_pairs),
        max_concurrent_batches=v.max_concurrent_batches,
    )


def install_verifier(
    app: faust.App,
    settings: HallmonSettings,
    verifier: TwoPhaseVerifier,
    model: Any,
    redis_client: aioredis.Redis | None = None,
) -> VerifierRuntime:
    responses = raw_topic(app, settings.topics.responses)
    telemetry = Telemetry("verifier")
    batcher = NLIBatcher(model, batching_config(settings), on_batch=telemetry.batch)
    client = redis_client or aioredis.Redis.from_url(
        settings.redis.url, **settings.redis.client_kwargs()
    )
    rt = VerifierRuntime(
        app=app,
        settings=settings,
        service=VerificationService(verifier, batcher),
        telemetry=telemetry,
        verdicts=raw_topic(app, settings.topics.verdicts),
        fatigue=raw_topic(app, settings.topics.fatigue),
        dlq=raw_topic(app, settings.topics.dlq),
        store=FatigueStore(client, fatigue_config(settings)),
        batcher=batcher,
    )
    limits = limits_of(settings)

    # Several answers in flight per worker, so their NLI pairs share batches. faust commits
    # only the contiguous prefix of handled offsets, so concurrency keeps at-least-once.
    @app.agent(responses, name="hallmon.verify", concurrency=settings.verifier_worker.concurrency)
    async def verify(stream: Any) -> None:
        async for event in stream.events():
            msg = event.message
            try:
                response = decode(AssembledResponse, msg.value or b"", limits)
            except ContractError as exc:
                await publish_dead_letter(
                    telemetry, rt.dlq, stage="verifier", exc_or_reason=exc, message=msg
                )
                continue
            try:
                await handle_response(rt, response)
            except Exception as exc:  # a bug in a stage must not stop the partition
                log.exception("verifying %s failed", response.response_id)
                await publish_dead_letter(
                    telemetry, rt.dlq, stage="verifier", exc_or_reason=exc, message=msg
                )

    @app.timer(30.0)  # type: ignore[untyped-decorator]
    async def log_counts() -> None:
        if telemetry.counts:
            log.info("verifier counts: %s", dict(telemetry.counts))

    return rt


async def handle_response(rt: VerifierRuntime, response: AssembledResponse) -> VerdictEvent:
    telemetry = rt.telemetry
    with telemetry.span(
        "hallmon.verify",
        response.traceparent,
        **{"hallmon.response_id": response.response_id, "hallmon.session_id": response.session_id},
    ) as span:
        verdict = await rt.service.verify(response)
        span.set_attribute("hallmon.state", verdict.state)
        span.set_attribute("hallmon.risk", verdict.risk)
    with telemetry.span("hallmon.publish", response.traceparent, **{"hallmon.topic": "verdicts"}):
        await publish(
            rt.verdicts,
            key=verdict.session_id,
            value=encode(verdict),
            traceparent=response.traceparent,
        )
    telemetry.verdict(
        verdict.state, verdict.counts.total, verdict.counts.unsupported, verdict.timings.latency_ms
    )

    async def publish_alert(alert: FatigueAlert) -> None:
        await publish(
            rt.fatigue, key=alert.session_id, value=encode(alert), traceparent=response.traceparent
        )
        telemetry.count("fatigue_alerts")
        log.warning(
            "fatigue alert for session %s: %s=%.3f >= %.3f",
            alert.session_id,
            alert.kind,
            alert.value,
            alert.threshold,
        )

    # Answers of one session are verified concurrently; their fatigue updates must not
    # interleave, or two of them could both see the session armed and both alert.
    async with rt.session_locks.hold(verdict.session_id):
        await with_retries(
            lambda: update_fatigue(rt.store, verdict, publish_alert),
            what="fatigue update in Redis",
        )
    return verdict


async def with_retries(call: Callable[[], Awaitable[Any]], *, what: str) -> Any:
    """Retry a call to Redis until it succeeds: the offset is not committed meanwhile, so a
    Redis outage pauses this partition instead of losing fatigue updates."""
    delay = 0.2
    while True:
        try:
            return await call()
        except (aioredis.ConnectionError, aioredis.TimeoutError, OSError) as exc:
            log.warning("%s failed (%s); retrying in %.1fs", what, exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def close_verifier(rt: VerifierRuntime) -> None:
    await rt.batcher.close()
    await rt.store.redis.aclose()


__all__ = [
    "AssemblerRuntime",
    "VerifierRuntime",
    "close_verifier",
    "handle_response",
    "install_assembler",
    "install_verifier",
    "scan_streams",
]
