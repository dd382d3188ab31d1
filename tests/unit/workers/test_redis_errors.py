"""Redis failures are classified: transient ones retried with back-off, READONLY/OOM held
(never dropped), credentials failing loudly, bugs raised."""

from __future__ import annotations

import asyncio
import ssl

import pytest
import redis.exceptions as rexc
from hallmon.workers.redis_errors import RedisAuthError, classify, with_redis_retries


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (rexc.ConnectionError("refused"), "transient"),
        (rexc.TimeoutError("slow"), "transient"),
        (rexc.BusyLoadingError("LOADING"), "transient"),
        (ConnectionResetError(), "transient"),
        (rexc.AuthenticationError("WRONGPASS invalid username-password pair"), "auth"),
        (rexc.NoPermissionError("NOPERM no permission to run 'evalsha'"), "auth"),
        (rexc.ReadOnlyError("READONLY You can't write against a read only replica."), "paused"),
        (rexc.OutOfMemoryError("OOM command not allowed"), "paused"),
        (rexc.ResponseError("OOM command not allowed when used memory > 'maxmemory'"), "paused"),
        (rexc.ResponseError("WRONGTYPE Operation against a key"), "fatal"),
        (ValueError("bug"), "fatal"),
    ],
)
def test_classify(exc: BaseException, kind: str) -> None:
    assert classify(exc) == kind


class Flaky:
    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def retry(call: Flaky) -> tuple[str, list[float]]:
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    result = asyncio.run(with_redis_retries(call, what="test", sleep=sleep, paused_delay_s=5.0))
    return result, slept


def test_transient_errors_back_off_exponentially() -> None:
    call = Flaky(rexc.ConnectionError(), rexc.ConnectionError(), rexc.TimeoutError())
    assert retry(call) == ("ok", [0.2, 0.4, 0.8])


def test_readonly_and_oom_hold_the_update_instead_of_dropping_it() -> None:
    call = Flaky(rexc.ReadOnlyError("READONLY"), rexc.OutOfMemoryError("OOM"))
    assert retry(call) == ("ok", [5.0, 5.0]) and call.calls == 3


def test_wrong_credentials_fail_loudly_with_what_to_fix() -> None:
    with pytest.raises(RedisAuthError, match="HALLMON_REDIS__PASSWORD"):
        retry(Flaky(rexc.AuthenticationError("WRONGPASS")))


def test_a_script_bug_is_raised_not_retried() -> None:
    call = Flaky(rexc.ResponseError("ERR user_script:1: oops"))
    with pytest.raises(rexc.ResponseError):
        retry(call)
    assert call.calls == 1


def test_a_rejected_server_certificate_fails_loudly_naming_the_ca_setting() -> None:
    cert = ssl.SSLCertVerificationError(1, "certificate verify failed")
    try:
        try:
            raise cert
        except OSError as exc:
            raise rexc.ConnectionError("Error 1 connecting to 127.0.0.1:6380.") from exc
    except rexc.ConnectionError as outer:
        wrapped = outer
    assert classify(wrapped) == "auth"
    with pytest.raises(RedisAuthError, match="HALLMON_REDIS__SSL_CA_CERTS"):
        retry(Flaky(wrapped))
