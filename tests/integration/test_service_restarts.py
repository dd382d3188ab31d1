"""The fault suite, part two: a private broker and a private Redis (own ports and state, so the
shared services are never touched) are restarted in the middle of a run. The worker recovers
on its own: every answer gets its verdict, no worker process exits, and fatigue resumes.

Redis runs without persistence, so a restart empties it: the check is that every verdict
published after Redis went down is counted, once, when it is back.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest
import redis.asyncio as aioredis
from hallmon.schemas import VerdictEvent, decode
from hallmon.topology.kafka_client import make_producer
from hallmon.workers.fatigue.agent import fatigue_config
from hallmon.workers.fatigue.store import FatigueStore
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.producer import KafkaProducerLike, TraceProducer

from ..conftest import (
    REPO_ROOT,
    Services,
    TopicWatcher,
    WorkerProcess,
    pipeline_env,
    settings_from_env,
)

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.timeout(600)]

POLICY = "Shoes can be returned within 30 days of delivery if they are unworn."
LOCAL = REPO_ROOT / "deploy" / "local"
ANSWERS = 150
PRODUCE_S = 45.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateServices:
    def __init__(self, state: Path) -> None:
        self.env = {
            **os.environ,
            "HALLMON_LOCAL_KAFKA_PORT": str(free_port()),
            "HALLMON_LOCAL_KAFKA_CONTROLLER_PORT": str(free_port()),
            "HALLMON_LOCAL_REDIS_PORT": str(free_port()),
            "HALLMON_LOCAL_STATE_DIR": str(state),
            # Persistent, as a production Redis is: what was counted before the stop (a verdict
            # stamped just before it can be counted in the second the shutdown takes) must
            # still be there after the restart. The development default keeps no data.
            "HALLMON_LOCAL_REDIS_EXTRA_CONFIG": "appendonly yes\nappendfsync always",
        }

    def run(self, script: str, action: str) -> None:
        done = subprocess.run(
            ["bash", str(LOCAL / script), action],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, f"{script} {action}: {done.stdout}{done.stderr}"

    @property
    def services(self) -> Services:
        return Services(
            f"127.0.0.1:{self.env['HALLMON_LOCAL_KAFKA_PORT']}",
            f"redis://127.0.0.1:{self.env['HALLMON_LOCAL_REDIS_PORT']}/0",
            "local",
        )


@pytest.fixture
def private(tmp_path: Path) -> Iterator[PrivateServices]:
    svc = PrivateServices(tmp_path / "state")
    svc.run("kafka.sh", "start")
    svc.run("redis.sh", "start")
    try:
        yield svc
    finally:
        svc.run("kafka.sh", "stop")
        svc.run("redis.sh", "stop")


def test_broker_and_redis_restarts_mid_run_lose_nothing(
    private: PrivateServices, nli_model_dir: Path, tmp_path: Path
) -> None:
    services = private.services
    prefix = f"test-{uuid.uuid4().hex[:10]}."
    env = pipeline_env(services, prefix, nli_model_dir, HALLMON_ASSEMBLER__STREAM_TIMEOUT_S="60")
    settings = settings_from_env(env)
    ensure_hallmon_topics(settings)
    worker = WorkerProcess("all", env, tmp_path / "worker.log").start()
    watch = TopicWatcher(settings, [settings.topics.verdicts])
    raw = make_producer(settings.kafka, {"message.timeout.ms": 120_000, "log_level": 0})
    traces = TraceProducer(
        "restart-bot", topic=settings.topics.traces, producer=cast(KafkaProducerLike, raw)
    )
    expected: dict[str, str] = {}
    done = threading.Event()

    def produce() -> None:
        start = time.monotonic()
        for i in range(ANSWERS):
            sid = f"s-{uuid.uuid4().hex[:8]}"  # one answer per session: fatigue count 0 or 1
            rid = traces.send_response(
                sid,
                "You can return the shoes within 30 days if they are unworn.",
                context={"documents": [{"source_id": "policy", "text": POLICY}]},
            )
            expected[rid] = sid
            lag = start + PRODUCE_S * (i + 1) / ANSWERS - time.monotonic()
            if lag > 0:
                time.sleep(lag)
        traces.flush(timeout_s=120)
        done.set()

    def verdicts() -> list[VerdictEvent]:
        return [decode(VerdictEvent, m.value()) for m in watch.on(settings.topics.verdicts)]

    t0 = time.monotonic()
    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        watch.wait_for(
            "a third of the verdicts", lambda: len(verdicts()) >= ANSWERS // 3, 180, [worker]
        )
        redis_down = datetime.now(UTC)
        private.run("redis.sh", "stop")
        time.sleep(8)
        private.run("redis.sh", "start")

        watch.wait_for("two thirds", lambda: len(verdicts()) >= 2 * ANSWERS // 3, 180, [worker])
        private.run("kafka.sh", "stop")
        # Counted while the broker is down: the verdicts of the answers left can all land
        # before `start` returns (its readiness probe takes seconds), and a count taken after
        # it would then wait for one more verdict that never comes (a CI run timed out so).
        time.sleep(1.0)
        seen = len(verdicts())
        time.sleep(4)
        private.run("kafka.sh", "start")
        back = time.monotonic()
        watch.wait_for(
            "a verdict after the broker is back",
            lambda: len(verdicts()) > seen or seen >= len(expected),  # or none was left
            180,
            [worker],
        )
        recover_s = time.monotonic() - back

        assert done.wait(240), "the producer did not finish"
        watch.wait_for(
            "a verdict for every answer",
            lambda: {v.response_id for v in verdicts()} >= set(expected),
            240,
            [worker],
        )
        assert worker.proc is not None and worker.proc.poll() is None, worker.tail()
        after = {v.response_id for v in verdicts() if v.timings.verdict_at > redis_down}

        async def uncounted() -> int:
            client = aioredis.Redis.from_url(settings.redis.url)
            store = FatigueStore(client, fatigue_config(settings))
            try:
                missing = 0
                for rid in after:
                    sid = expected[rid]
                    for _ in range(150):
                        snap = await store.load(sid)
                        if snap is not None and snap.responses >= 1:
                            break
                        await asyncio.sleep(0.2)
                    missing += snap is None or snap.responses != 1
                return missing
            finally:
                await client.aclose()

        missing = asyncio.run(uncounted())
        print(
            f"\nrestarts: {ANSWERS} answers, Redis down 8 s, broker down 5 s (+ its restart); "
            f"lost 0, fatigue uncounted after the Redis restart {missing} of {len(after)}, "
            f"first verdict {recover_s:.1f}s after the broker was back, "
            f"total {time.monotonic() - t0:.0f}s, worker exits 0"
        )
        assert missing == 0
    finally:
        watch.close()
        worker.stop()
