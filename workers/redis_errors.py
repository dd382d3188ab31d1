"""What a worker does when Redis fails: each error class has one answer.

- `auth` (wrong password, NOAUTH, a missing ACL permission, a server certificate that fails
  verification): fail loudly; retrying cannot fix configuration.
- `paused` (READONLY: a replica, a failover in progress; OOM: maxmemory reached): wait and retry
  slowly, never drop; Redis is up but takes no writes yet.
- `transient` (connection refused or reset, timeouts, LOADING, cluster TRYAGAIN): retry with
  exponential back-off.
- `fatal` (anything else: a script error, a wrong type): raise; a bug, not an outage.

While a call is retried, the agent does not move past its message, so faust does not commit the
offset: the partition pauses and catches up when Redis is back, and nothing is lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import redis.exceptions as rexc
from hallmon.topology.redis_client import certificate_rejected, refusal

log = logging.getLogger(__name__)

RedisFailure = Literal["auth", "paused", "transient", "fatal"]
T = TypeVar("T")


class RedisAuthError(RuntimeError):
    """Redis refused hallmon's credentials or permissions; the message says what to fix."""


def classify(exc: BaseException) -> RedisFailure:
    if isinstance(exc, rexc.AuthenticationError | rexc.AuthorizationError | rexc.NoPermissionError):
        return "auth"
    # A certificate that fails verification is configuration too (wrong CA, wrong host).
    if certificate_rejected(exc):
        return "auth"
    if isinstance(exc, rexc.ReadOnlyError | rexc.OutOfMemoryError):
        return "paused"
    if isinstance(exc, rexc.ResponseError) and str(exc).startswith(("READONLY", "OOM")):
        return "paused"
    if isinstance(
        exc,
        rexc.ConnectionError
        | rexc.TimeoutError
        | rexc.BusyLoadingError
        | rexc.TryAgainError
        | rexc.ClusterDownError
        | OSError
        | asyncio.TimeoutError,
    ):
        return "transient"
    return "fatal"


async def with_redis_retries(
    call: Callable[[], Awaitable[T]],
    *,
    what: str,
    first_delay_s: float = 0.2,
    max_delay_s: float = 5.0,
    paused_delay_s: float = 5.0,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Run `call` until it succeeds, retrying transient and paused failures (see the table)."""
    delay = first_delay_s
    while True:
        try:
            return await call()
        except Exception as exc:
            kind = classify(exc)
            if kind == "auth":
                raise RedisAuthError(f"{what}: {refusal(exc)}") from exc
            if kind == "fatal":
                raise
            if kind == "paused":
                log.warning(
                    "%s: Redis takes no writes (%s: %s); holding the partition, retrying in %.1fs",
                    what,
                    type(exc).__name__,
                    exc,
                    paused_delay_s,
                )
                await sleep(paused_delay_s)
                continue
            log.warning(
                "%s failed (%s: %s); retrying in %.1fs", what, type(exc).__name__, exc, delay
            )
            await sleep(delay)
            delay = min(delay * 2, max_delay_s)


__all__ = ["RedisAuthError", "RedisFailure", "classify", "with_redis_retries"]
