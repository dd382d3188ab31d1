"""The verifier worker: assembled responses in, one verdict event per answer out.

Several answers are in flight per worker so that their NLI pairs share batches
(`hallmon.workers.verifier.batching`); faust commits only the contiguous prefix of handled
offsets, so concurrency keeps at-least-once. Fatigue is its own worker on the verdicts topic;
the verifier uses Redis only for the session conflict check (`session_conflicts`), whose
failure marks the check as not done and never holds a verdict back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import faust
import redis.asyncio as aioredis
from hallmon.schemas import AssembledResponse, Limits, VerdictEvent, decode, encode
from hallmon.topology.redis_client import make_redis
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.host import HostPlan, plan_host
from hallmon.workers.publishing import guarded, handled_messages, limits_of, publish, raw_topic
from hallmon.workers.telemetry import Telemetry
from hallmon.workers.verifier.batching import BatchingConfig, NLIBatcher
from hallmon.workers.verifier.budget import ProcessPreparer
from hallmon.workers.verifier.claim_store import ClaimStore
from hallmon.workers.verifier.service import (
    TwoPhaseVerifier,
    VerificationService,
    failed_verdict,
    fit_to_budget,
)
from hallmon.workers.verifier.session_conflicts import SessionConflictCheck

from hallmon.verification.conflicts import ConflictConfig

log = logging.getLogger(__name__)


@dataclass
class VerifierRuntime:
    app: faust.App
    settings: HallmonSettings
    service: VerificationService
    telemetry: Telemetry
    verdicts: Any
    dlq: Any
    batcher: NLIBatcher
    plan: HostPlan
    preparer: ProcessPreparer | None = None
    redis: aioredis.Redis | None = None


def batching_config(settings: HallmonSettings, plan: HostPlan | None = None) -> BatchingConfig:
    v = settings.verifier_worker
    plan = plan or plan_host(settings)
    batch = plan.max_batch_pairs
    return BatchingConfig(
        max_batch_pairs=batch,
        max_wait_ms=plan.max_wait_ms,
        max_pending_pairs=max(v.max_pending_pairs, batch),
        max_concurrent_batches=v.max_concurrent_batches,
        pair_cache_size=v.pair_cache_size,
    )


def conflict_check(
    settings: HallmonSettings, client: aioredis.Redis, batcher: NLIBatcher
) -> SessionConflictCheck:
    c = settings.conflicts
    store = ClaimStore(client, window=c.window, ttl_s=c.ttl_s, key_prefix=c.key_prefix)
    return SessionConflictCheck(
        store,
        batcher.predict,
        ConflictConfig(
            max_pairs=c.max_pairs,
            min_shared=c.min_shared_words,
            min_overlap=c.min_overlap,
            threshold=c.threshold,
        ),
        max_claims_per_answer=c.max_claims_per_answer,
        redis_timeout_s=c.redis_timeout_s,
    )


def install_verifier(
    app: faust.App,
    settings: HallmonSettings,
    verifier: TwoPhaseVerifier,
    model: Any,
    *,
    redis_client: aioredis.Redis | None = None,
    plan: HostPlan | None = None,
) -> VerifierRuntime:
    """The verifier agent on `app`; `plan` (threads, batch, concurrency) defaults to a host that
    runs the verifier alone."""
    plan = plan or plan_host(settings)
    responses = raw_topic(app, settings.topics.responses)
    telemetry = Telemetry("verifier")
    batcher = NLIBatcher(model, batching_config(settings, plan), on_batch=telemetry.batch)
    budget_s = settings.verifier.answer_budget_s
    preparer = (
        ProcessPreparer(verifier, budget_s, settings.verifier.prepare_processes)
        if budget_s > 0
        else None
    )
    client = None
    conflicts = None
    if settings.conflicts.enabled:
        client = redis_client or make_redis(settings.redis)
        conflicts = conflict_check(settings, client, batcher)
    rt = VerifierRuntime(
        app=app,
        settings=settings,
        service=VerificationService(
            verifier,
            batcher,
            preparer=preparer,
            conflicts=conflicts,
            max_action=settings.verifier.max_action,
        ),
        telemetry=telemetry,
        verdicts=raw_topic(app, settings.topics.verdicts),
        dlq=raw_topic(app, settings.topics.dlq),
        batcher=batcher,
        preparer=preparer,
        redis=client,
        plan=plan,
    )

    async def _close(app: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
        await close_verifier(rt)

    app.on_before_shutdown.connect(_close)

    limits = limits_of(settings)

    @app.agent(responses, name="hallmon.verify", concurrency=plan.concurrency)
    async def verify(stream: Any) -> None:
        async for msg in handled_messages(stream):
            await verify_message(rt, msg, limits)

    @app.timer(30.0)  # type: ignore[untyped-decorator]
    async def log_counts() -> None:
        if telemetry.counts:
            log.info("verifier counts: %s", dict(telemetry.counts))

    return rt


async def verify_message(rt: VerifierRuntime, msg: Any, limits: Limits) -> None:
    """One assembled answer in, its verdict (or a dead letter and an `unavailable` verdict) out;
    never raises, so faust never acks a message whose outputs were lost."""
    response: AssembledResponse | None = None

    async def work() -> None:
        nonlocal response
        response = decode(AssembledResponse, msg.value or b"", limits)
        await handle_response(rt, response)

    async def fallback(exc: BaseException) -> None:
        # The answer exists: publish an `unavailable` verdict so it is never silently missing.
        if response is not None:
            verdict = failed_verdict(response, f"{type(exc).__name__}: {exc}")
            await publish(rt.verdicts, key=verdict.session_id, value=encode(verdict))
            rt.telemetry.verdict(verdict.state, 0, 0, verdict.timings.latency_ms)

    await guarded(
        rt.telemetry, rt.dlq, stage="verifier", message=msg, work=work, on_failure=fallback
    )


async def handle_response(rt: VerifierRuntime, response: AssembledResponse) -> VerdictEvent:
    telemetry = rt.telemetry
    with telemetry.span(
        "hallmon.verify",
        response.traceparent,
        **{"hallmon.response_id": response.response_id, "hallmon.session_id": response.session_id},
    ) as span:
        verdict = fit_to_budget(
            await rt.service.verify(response), rt.settings.limits.max_event_bytes
        )
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
    if verdict.conflict_check is not None:
        telemetry.count(f"conflict_checks.{verdict.conflict_check}")
        telemetry.count("session_conflicts", len(verdict.session_conflicts))
    return verdict


async def close_verifier(rt: VerifierRuntime) -> None:
    """Stop the NLI batcher and the budget processes (called when the worker shuts down)."""
    await rt.batcher.close()
    if rt.preparer is not None:
        rt.preparer.close()
    if rt.redis is not None:
        await rt.redis.aclose()


__all__ = [
    "VerifierRuntime",
    "batching_config",
    "close_verifier",
    "conflict_check",
    "handle_response",
    "install_verifier",
    "verify_message",
]
