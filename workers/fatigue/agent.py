"""The fatigue worker: verdict events in, per-session fatigue in Redis, alerts out.

It consumes `hallmon.verdicts` in its own consumer group, so verdicts keep flowing while Redis
is down: this worker pauses its partitions (retries with back-off, offsets not committed) and
catches up when Redis is back. One agent instance per partition (concurrency 1) keeps the
verdicts of a session in order, so two of them can never both see the session armed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import faust
import redis.asyncio as aioredis
from hallmon.schemas import FatigueAlert, VerdictEvent, decode, encode
from hallmon.topology.redis_client import make_redis
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.fatigue.recent import RecentConfig, RecentStore
from hallmon.workers.fatigue.store import FatigueConfig, FatigueStore, update_fatigue
from hallmon.workers.fatigue.trend import FatigueThresholds, SignalThresholds
from hallmon.workers.publishing import guarded, handled_messages, limits_of, publish, raw_topic
from hallmon.workers.redis_errors import RedisAuthError, with_redis_retries
from hallmon.workers.telemetry import Telemetry, headers_dict, valid_traceparent
from redis.asyncio.client import Pipeline

log = logging.getLogger(__name__)


@dataclass
class FatigueRuntime:
    app: faust.App
    settings: HallmonSettings
    telemetry: Telemetry
    store: FatigueStore
    alerts: Any
    dlq: Any
    recent: RecentStore | None = None
    """The dashboard's latest verdicts and alert marks; None turns them off."""


def fatigue_config(settings: HallmonSettings) -> FatigueConfig:
    f = settings.fatigue
    return FatigueConfig(
        thresholds=FatigueThresholds(
            window=f.window,
            min_points=f.min_points,
            rearm_fraction=f.rearm_fraction,
            unsupported=SignalThresholds(
                level=f.recent_rate,
                turn_slope=f.turn_slope,
                context_slope=f.context_slope,
                loop_slope=f.loop_slope,
                slope_gate=f.slope_min_rate,
            ),
            # In badness terms: 1 - precision, so a falling precision is a rising badness.
            citation=SignalThresholds(
                level=1.0 - f.citation_min_precision,
                turn_slope=f.citation_slope,
                context_slope=f.citation_slope,
                loop_slope=f.citation_slope,
                slope_gate=1.0 - f.citation_slope_max_precision,
            ),
            contradictions=SignalThresholds(
                level=f.contradiction_rate,
                turn_slope=f.contradiction_slope,
                context_slope=f.contradiction_slope,
                loop_slope=f.contradiction_slope,
                slope_gate=f.contradiction_slope_min_rate,
            ),
        ),
        ttl_s=f.ttl_s,
        max_series=f.max_series,
        turn_ranges=f.turn_ranges,
        context_ranges=f.context_ranges,
        loop_ranges=f.loop_ranges,
        key_prefix=f.key_prefix,
    )


def recent_config(settings: HallmonSettings) -> RecentConfig:
    f = settings.fatigue
    return RecentConfig(keep=f.recent_verdicts, ttl_s=f.ttl_s, key_prefix=f.key_prefix)


def install_fatigue(
    app: faust.App, settings: HallmonSettings, redis_client: aioredis.Redis | None = None
) -> FatigueRuntime:
    verdicts = raw_topic(app, settings.topics.verdicts)
    client = redis_client or make_redis(settings.redis)
    rt = FatigueRuntime(
        app=app,
        settings=settings,
        telemetry=Telemetry("fatigue"),
        store=FatigueStore(client, fatigue_config(settings)),
        alerts=raw_topic(app, settings.topics.fatigue),
        dlq=raw_topic(app, settings.topics.dlq),
        recent=RecentStore(client, recent_config(settings)),
    )
    limits = limits_of(settings)

    @app.agent(verdicts, name="hallmon.fatigue", concurrency=1)
    async def track(stream: Any) -> None:
        async for msg in handled_messages(stream):

            async def work(msg: Any = msg) -> None:
                verdict = decode(VerdictEvent, msg.value or b"", limits)
                traceparent = valid_traceparent(headers_dict(msg.headers).get("traceparent"))
                await handle_verdict(rt, verdict, traceparent)

            try:
                await guarded(
                    rt.telemetry,
                    rt.dlq,
                    stage="fatigue",
                    message=msg,
                    work=work,
                    fatal=(RedisAuthError,),
                )
            except RedisAuthError as exc:
                # Configuration, not an outage: stop the worker so an operator sees it.
                log.critical("%s", exc)
                await app.crash(exc)
                raise

    @app.timer(30.0)  # type: ignore[untyped-decorator]
    async def log_counts() -> None:
        if rt.telemetry.counts:
            log.info("fatigue counts: %s", dict(rt.telemetry.counts))

    return rt


async def handle_verdict(
    rt: FatigueRuntime, verdict: VerdictEvent, traceparent: str | None = None
) -> None:
    async def publish_alert(alert: FatigueAlert) -> None:
        await publish(rt.alerts, key=alert.session_id, value=encode(alert), traceparent=traceparent)
        if rt.recent is not None:
            await rt.recent.add_alert(alert)
        rt.telemetry.fatigue_alert(alert.kind)
        log.warning(
            "fatigue alert for session %s: %s %s=%.3f (threshold %.3f)",
            alert.session_id,
            alert.kind,
            alert.measure,
            alert.value,
            alert.threshold,
        )

    recent = rt.recent

    def also(pipe: Pipeline) -> None:
        # the recent verdicts ride in the fatigue update's pipeline: one round trip fewer
        if recent is not None:
            recent.queue_verdict(pipe, verdict)

    await with_redis_retries(
        lambda: update_fatigue(rt.store, verdict, publish_alert, also=also),
        what="fatigue update in Redis",
    )


async def close_fatigue(rt: FatigueRuntime) -> None:
    await rt.store.redis.aclose()


__all__ = [
    "FatigueRuntime",
    "close_fatigue",
    "fatigue_config",
    "handle_verdict",
    "install_fatigue",
    "recent_config",
]
