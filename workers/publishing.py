"""What every worker does with Kafka: raw topics, acknowledged publishes, dead letters.

Delivery guarantee (every agent): an input offset is committed only after everything it caused
is published. Each publish is awaited until the broker acknowledged it (acks=all), and faust
commits an offset only after the agent moved past the message and flushed its producer. A crash
in between re-runs the message: outputs are at-least-once, and every output carries an id
derived from its input (`verdict_id` from the response id, `alert_id` from the session and
response id) so consumers deduplicate.

No exception may reach faust: this faust acks a message whose handler raised (its
`stream_ack_exceptions` setting no longer has any effect), so an escaped exception is a lost
output. `guarded` runs each message's work: transient Kafka errors are retried with back-off
inside `publish`; any other failure becomes a size-capped dead letter (and, through the
caller's `on_failure`, an `unavailable` verdict where an answer exists). When not even the dead
letter can be published within `PUBLISH_RETRY_S`, the process exits at once, without acking,
so the message is read again after the restart instead of being lost.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import faust
from aiokafka.errors import KafkaError, KafkaTimeoutError
from hallmon.schemas import ContractError, Limits, encode
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.dead_letters import Stage, dead_letter, reason_of
from hallmon.workers.telemetry import Telemetry, headers_dict, valid_traceparent

log = logging.getLogger(__name__)

PUBLISH_RETRY_S = 300.0
"""How long a publish keeps retrying transient broker errors before the worker gives up."""
EXIT_UNPUBLISHABLE = 75  # EX_TEMPFAIL: a supervisor should restart the worker


class PublishFailed(RuntimeError):
    """A publish failed for good (not a transient broker error), e.g. a record over the size
    the broker accepts; the message that caused it becomes a dead letter."""


def limits_of(settings: HallmonSettings) -> Limits:
    return Limits(**settings.limits.model_dump())


def raw_topic(app: faust.App, name: str) -> Any:
    # Raw bytes in and out: malformed input must reach our code (and the dead-letter topic)
    # instead of failing inside faust's deserializer.
    return app.topic(
        name, key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw"
    )


async def handled_messages(stream: Any) -> AsyncIterator[Any]:
    """The stream's messages, each acknowledged only once the loop body is done with it.

    faust acks an event in a `finally` when the next one is asked for, so a handler that raised
    or was cancelled (a worker stopping, an actor restarting) had its message acked and, at the
    next commit, lost. Here the ack is the step after the body returned: a body that raises or
    is cancelled leaves its message unacknowledged, to be read again after the restart.
    """
    async for event in stream.noack().events():
        yield event.message
        event.ack()


def is_transient(exc: BaseException) -> bool:
    """Errors that go away by themselves (broker restarting, leader moving, timeouts)."""
    if isinstance(exc, KafkaError):
        return bool(getattr(exc, "retriable", False)) or isinstance(exc, KafkaTimeoutError)
    return isinstance(exc, asyncio.TimeoutError | ConnectionError)


async def publish(
    topic: Any,
    *,
    key: str,
    value: bytes,
    traceparent: str | None = None,
    retry_s: float = PUBLISH_RETRY_S,
) -> None:
    """Send and wait for the broker's acknowledgement (not just the local buffer).

    Transient errors are retried with back-off for up to `retry_s`; a permanent error, or a
    transient one past the bound, raises `PublishFailed`.
    """
    valid = valid_traceparent(traceparent)
    headers = {"traceparent": valid.encode("ascii")} if valid else None
    key_bytes = key.encode("utf-8", "replace")
    deadline = time.monotonic() + retry_s
    delay = 0.2
    while True:
        try:
            pending = await topic.send(key=key_bytes, value=value, headers=headers, force=True)
            await pending
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not is_transient(exc) or time.monotonic() + delay > deadline:
                raise PublishFailed(
                    f"publishing {len(value)} bytes to {getattr(topic, 'get_topic_name', str)()}"
                    f" failed: {type(exc).__name__}: {exc}"
                ) from exc
            log.warning("publish failed (%s); retrying in %.1fs", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def publish_dead_letter(
    telemetry: Telemetry,
    dlq_topic: Any,
    *,
    stage: Stage,
    exc_or_reason: BaseException | tuple[Any, str],
    message: Any,
) -> None:
    """Publish a size-capped dead letter for `message`; exits the process (without acking the
    message) if even that is impossible, since the alternative is losing it silently."""
    if isinstance(exc_or_reason, BaseException):
        reason = reason_of(exc_or_reason)
        error = str(exc_or_reason) or type(exc_or_reason).__name__
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
    key = message.key.decode("utf-8", "replace")[:1024] if message.key else f"{message.topic}"
    try:
        await publish(dlq_topic, key=key, value=encode(letter))
    except PublishFailed as exc:
        _give_up(f"dead letter for {message.topic}[{message.partition}]@{message.offset}", exc)
    telemetry.dead_letter(reason)
    log.warning(
        "dead letter %s from %s[%s]@%s: %s",
        reason,
        message.topic,
        message.partition,
        message.offset,
        error[:300],
    )


def _give_up(what: str, exc: BaseException) -> None:
    log.critical(
        "%s could not be published (%s); exiting without committing, so the message is read "
        "again after the restart. Check the broker.",
        what,
        exc,
    )
    logging.shutdown()
    os._exit(EXIT_UNPUBLISHABLE)


async def guarded(
    telemetry: Telemetry,
    dlq_topic: Any,
    *,
    stage: Stage,
    message: Any,
    work: Callable[[], Awaitable[None]],
    on_failure: Callable[[BaseException], Awaitable[None]] | None = None,
    fatal: tuple[type[BaseException], ...] = (),
) -> None:
    """Run one message's work so that no exception reaches faust.

    A failure is logged, `on_failure` gets a chance to publish what it can (the verifier's
    `unavailable` verdict), and the message becomes a dead letter naming the error. Exceptions
    in `fatal` (a configuration error such as wrong Redis credentials) are re-raised instead.
    """
    try:
        await work()
        return
    except asyncio.CancelledError:
        raise
    except fatal:
        raise  # the caller stops the worker: no dead letter, the offset stays uncommitted
    except Exception as exc:
        failure: BaseException = exc
    if not isinstance(failure, ContractError):  # bad input is logged with its dead letter
        log.error(
            "%s: handling %s[%s]@%s failed: %s: %s",
            stage,
            message.topic,
            message.partition,
            message.offset,
            type(failure).__name__,
            str(failure)[:500],
            exc_info=failure,
        )
    if on_failure is not None:
        try:
            await on_failure(failure)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s: publishing the fallback for a failed message failed too", stage)
    await publish_dead_letter(
        telemetry, dlq_topic, stage=stage, exc_or_reason=failure, message=message
    )


__all__ = [
    "PUBLISH_RETRY_S",
    "PublishFailed",
    "guarded",
    "handled_messages",
    "is_transient",
    "limits_of",
    "publish",
    "publish_dead_letter",
    "raw_topic",
]
