"""What every worker does with Kafka: raw topics, acknowledged publishes, dead letters.

Delivery guarantee (every agent): an input offset is committed only after everything it caused
is published. Each publish is awaited until the broker acknowledged it (acks=all), and faust
commits an offset only after the agent moved past the message and flushed its producer. A crash
in between re-runs the message: outputs are at-least-once, and every output carries an id
derived from its input (`verdict_id` from the response id, `alert_id` from the session and
response id) so consumers deduplicate.
"""

from __future__ import annotations

import logging
from typing import Any

import faust
from hallmon.schemas import Limits, encode
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.dead_letters import Stage, dead_letter, reason_of
from hallmon.workers.telemetry import Telemetry, headers_dict

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


__all__ = [
    "limits_of",
    "publish",
    "publish_dead_letter",
    "raw_topic",
]
