"""The verifier worker: assembled responses in, one verdict event per answer out.

Several answers are in flight per worker so that their NLI pairs share batches
(`hallmon.workers.verifier.batching`); faust commits only the contiguous prefix of handled
offsets, so concurrency keeps at-least-once. The verifier needs no Redis: fatigue is its own
worker on the verdicts topic, so a Redis outage never holds verdicts back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import faust
from hallmon.schemas import AssembledResponse, ContractError, VerdictEvent, decode, encode
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.publishing import limits_of, publish, publish_dead_letter, raw_topic
from hallmon.workers.telemetry import Telemetry
from hallmon.workers.verifier.batching import BatchingConfig, NLIBatcher
from hallmon.workers.verifier.service import TwoPhaseVerifier, VerificationService

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


def batching_config(settings: HallmonSettings) -> BatchingConfig:
    v = settings.verifier_worker
    return BatchingConfig(
        max_batch_pairs=v.max_batch_pairs,
        max_wait_ms=v.max_wait_ms,
        max_pending_pairs=max(v.max_pending_pairs, v.max_batch_pairs),
        max_concurrent_batches=v.max_concurrent_batches,
    )


def install_verifier(
    app: faust.App, settings: HallmonSettings, verifier: TwoPhaseVerifier, model: Any
) -> VerifierRuntime:
    responses = raw_topic(app, settings.topics.responses)
    telemetry = Telemetry("verifier")
    batcher = NLIBatcher(model, batching_config(settings), on_batch=telemetry.batch)
    rt = VerifierRuntime(
        app=app,
        settings=settings,
        service=VerificationService(verifier, batcher, max_action=settings.verifier.max_action),
        telemetry=telemetry,
        verdicts=raw_topic(app, settings.topics.verdicts),
        dlq=raw_topic(app, settings.topics.dlq),
        batcher=batcher,
    )
    limits = limits_of(settings)

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
    return verdict


async def close_verifier(rt: VerifierRuntime) -> None:
    await rt.batcher.close()


__all__ = [
    "VerifierRuntime",
    "batching_config",
    "close_verifier",
    "handle_response",
    "install_verifier",
]
