"""Redis that will not take writes (READONLY replica, OOM) pauses the fatigue update instead of
dropping it, on private redis-server instances (the shared one is never touched)."""

from __future__ import annotations

import asyncio
import logging
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis
from hallmon.schemas import ClaimCounts, FatigueAlert, MonitorResult, VerdictEvent, VerdictTimings
from hallmon.workers.fatigue.store import FatigueConfig, FatigueStore, update_fatigue
from hallmon.workers.redis_errors import with_redis_retries

from ..conftest import _unavailable

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateRedis:
    """A throwaway redis-server on a free port, no persistence, killed by its pid."""

    def __init__(self, workdir: Path, *args: str) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            _unavailable("redis-server is not installed (deploy/local/redis.sh install)")
        self.port = _free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"private redis-server on port {self.port} did not start")
                time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def private(caplog: pytest.LogCaptureFixture) -> Iterator[list[PrivateRedis]]:
    caplog.set_level(logging.WARNING, logger="hallmon.workers.redis_errors")
    started: list[PrivateRedis] = []
    yield started
    for r in started:
        r.stop()


def verdict(session: str) -> VerdictEvent:
    base = MonitorResult(
        state="checked",
        counts=ClaimCounts(total=2, supported=1, not_found=1),
        context_size_tokens=100,
    )
    return VerdictEvent(
        **base.model_dump(),
        verdict_id=f"v-{session}",
        response_id=f"{session}-r0",
        session_id=session,
        agent_id="bot",
        turn=0,
        timings=VerdictTimings(verdict_at=datetime.now(UTC)),
    )


async def paused_then_counted(url: str, let_writes_in: object) -> tuple[bool, int]:
    """Start an update against a Redis refusing writes; after a while let writes in. Returns
    (whether the update was still waiting before that, responses counted after)."""
    client = aioredis.Redis.from_url(url)
    store = FatigueStore(client, FatigueConfig(key_prefix=f"test-{uuid.uuid4().hex[:8]}"))

    async def publish(alert: FatigueAlert) -> None:
        raise AssertionError("one verdict raises no alert")

    try:
        task = asyncio.create_task(
            with_redis_retries(
                lambda: update_fatigue(store, verdict("s"), publish),
                what="fatigue update",
                paused_delay_s=0.1,
            )
        )
        await asyncio.sleep(1.0)
        waiting = not task.done()
        let_writes_in()  # type: ignore[operator]
        await asyncio.wait_for(task, timeout=10)
        snap = await store.load("s")
        return waiting, snap.responses if snap else 0
    finally:
        await client.aclose()


def test_readonly_replica_holds_the_update_until_it_is_promoted(
    private: list[PrivateRedis], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    primary = PrivateRedis(tmp_path / "primary")
    private.append(primary)
    replica = PrivateRedis(tmp_path / "replica", "--replicaof", "127.0.0.1", str(primary.port))
    private.append(replica)
    with pytest.raises(redis.exceptions.ReadOnlyError):
        replica.client.set("probe", "1")

    waiting, counted = asyncio.run(
        paused_then_counted(replica.url, lambda: replica.client.execute_command("REPLICAOF NO ONE"))
    )
    assert waiting and counted == 1  # held while read-only, then counted once: nothing dropped
    assert "Redis takes no writes (ReadOnlyError" in caplog.text


def test_out_of_memory_holds_the_update_until_memory_is_freed(
    private: list[PrivateRedis], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    r = PrivateRedis(tmp_path / "oom", "--maxmemory-policy", "noeviction")
    private.append(r)
    used = int(r.client.info("memory")["used_memory"])
    r.client.config_set("maxmemory", used + 256 * 1024)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        for i in range(100):
            r.client.set(f"ballast-{i}", "x" * 64 * 1024)

    waiting, counted = asyncio.run(
        paused_then_counted(r.url, lambda: r.client.config_set("maxmemory", 0))
    )
    assert waiting and counted == 1
    assert "Redis takes no writes (OutOfMemoryError" in caplog.text
