"""The one place that builds Redis clients from settings, and says what to fix when Redis
refuses them.

Every Redis client hallmon opens (the fatigue worker, the verifier's claim store, `hallmon
serve`, `hallmon fatigue`, `hallmon dlq`) comes from `make_redis` or `make_sync_redis`, so the
URL, password, TLS files and timeouts of `HALLMON_REDIS__*` apply everywhere.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import redis
import redis.asyncio as aioredis
import redis.exceptions as rexc
from hallmon.topology.settings import RedisSettings, env_name

_AUTH_ERRORS = (rexc.AuthenticationError, rexc.AuthorizationError, rexc.NoPermissionError)


class RedisRefusedError(RuntimeError):
    """Redis answered but refused hallmon: its login, a permission, or the TLS handshake.

    Configuration, not an outage: retrying cannot fix it; the message says what to set.
    """


def make_redis(settings: RedisSettings) -> aioredis.Redis:
    return aioredis.Redis.from_url(settings.url, **settings.client_kwargs())


def make_sync_redis(settings: RedisSettings) -> redis.Redis:
    return redis.Redis.from_url(settings.url, **settings.client_kwargs())


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    # redis-py wraps the ssl error in a ConnectionError; a few links at most.
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def certificate_rejected(exc: BaseException) -> bool:
    """The server's certificate failed verification: a wrong CA or host name, never an outage."""
    return any(isinstance(e, ssl.SSLCertVerificationError) for e in _chain(exc))


def refusal(exc: BaseException, where: str = "Redis", *, handshake: bool = False) -> str | None:
    """What to fix when `exc` means Redis refused hallmon, else None (an outage, a bug).

    `handshake`: also read any other TLS error as a refusal (a server that wants a client
    certificate closes the connection during the handshake). Only a first connection should:
    later, the same error can be a server going away.
    """
    if isinstance(exc, _AUTH_ERRORS):
        return (
            f"{where} refused hallmon's login or a permission ({exc}); set "
            f"{env_name('redis', 'password')} (or the password in {env_name('redis', 'url')}, "
            "with the user name for an ACL user) to a user allowed EVALSHA, HINCRBY, SADD, RPUSH, "
            "ZADD and EXPIRE on the hallmon keys"
        )
    if certificate_rejected(exc):
        return (
            f"TLS with {where} failed: the server's certificate could not be verified ({exc}); "
            f"set {env_name('redis', 'ssl_ca_certs')} to the CA that signed it (the certificate "
            "must name the URL's host)"
        )
    if handshake and any(isinstance(e, ssl.SSLError) for e in _chain(exc)):
        return (
            f"TLS with {where} failed ({exc}); where the server verifies clients "
            f"(tls-auth-clients) set {env_name('redis', 'ssl_certfile')} and "
            f"{env_name('redis', 'ssl_keyfile')}, and check that the port in "
            f"{env_name('redis', 'url')} is the server's tls-port"
        )
    return None


def check_redis(settings: RedisSettings) -> str | None:
    """Ping Redis once, within the socket timeout: raise `RedisRefusedError` when it refuses
    hallmon, return a warning when it does not answer (an outage the workers wait out), None
    when it answers."""
    where = f"Redis at {settings.redacted_url()}"
    client = make_sync_redis(settings)
    try:
        client.ping()
    except Exception as exc:
        reason = refusal(exc, where, handshake=settings.uses_tls)
        if reason is not None:
            raise RedisRefusedError(reason) from exc
        hint = (
            f"; if the server only speaks TLS, use a rediss:// {env_name('redis', 'url')} "
            "with its tls-port"
            if not settings.uses_tls
            else f"; check that the port in {env_name('redis', 'url')} is the server's tls-port"
        )
        return f"{where} does not answer ({type(exc).__name__}: {exc}){hint}"
    finally:
        client.close()
    return None


__all__ = [
    "RedisRefusedError",
    "certificate_rejected",
    "check_redis",
    "make_redis",
    "make_sync_redis",
    "refusal",
]
