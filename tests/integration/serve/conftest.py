"""One real pipeline run shared by the API, fuzz and dashboard tests of `hallmon serve`.

`served_pipeline` (session scope): topics of its own, `hallmon worker --role all` with the
shipped model, the demo's support-bot sessions streamed through it with the producer helper,
every verdict waited for in Redis; then `hallmon serve`'s app under uvicorn on a free port in
this process (real model, real Redis, real Kafka). Torn down at the end of the run.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import redis
from hallmon.topology.kafka_client import make_admin
from hallmon.topology.settings import HallmonSettings

from tests.conftest import Services, WorkerProcess, pipeline_env, settings_from_env


@dataclass
class ServedPipeline:
    base_url: str
    settings: HallmonSettings
    run: str
    sessions: list[str]
    response_ids: list[str]
    app: Any
    extra: dict[str, Any] = field(default_factory=dict)

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=30.0, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """uvicorn serving an app in a thread of the test process."""

    def __init__(self, app: Any, port: int) -> None:
        import uvicorn

        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{port}"

    def start(self, timeout_s: float = 120.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.server.started:
                return self
            if not self.thread.is_alive():
                pytest.fail("hallmon serve (uvicorn) exited during start-up")
            time.sleep(0.1)
        pytest.fail(f"hallmon serve did not start within {timeout_s}s")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def _produce(env: dict[str, str], run: str) -> list[str]:
    from hallmon.topology.kafka_client import make_producer

    from hallmon.cli.demo import _produce as produce_demo
    from hallmon.producer import KafkaProducerLike, TraceProducer

    settings = settings_from_env(env)
    traces = TraceProducer(
        "acme-support",
        model="acme-llm-1",
        topic=settings.topics.traces,
        producer=cast(KafkaProducerLike, make_producer(settings.kafka)),
    )
    return produce_demo(traces, run, 0.0)


def _wait_for_verdicts(url: str, prefix: str, rids: list[str], worker: WorkerProcess) -> None:
    """Until the fatigue worker stored every verdict (the dashboard's data), or fail."""
    client = redis.Redis.from_url(url)
    keys = [f"{prefix}:recent:verdict:{{{rid}}}" for rid in rids]
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline:
            if client.exists(*keys) == len(keys):
                return
            if worker.proc is not None and worker.proc.poll() is not None:
                pytest.fail(f"the worker exited:\n{worker.tail()}")
            time.sleep(0.5)
        missing = len(keys) - int(client.exists(*keys))
        pytest.fail(f"{missing} of {len(keys)} verdicts never reached Redis:\n{worker.tail()}")
    finally:
        client.close()


@pytest.fixture(scope="session")
def served_pipeline(
    services: Services, nli_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServedPipeline]:
    prefix = f"test-{uuid.uuid4().hex[:12]}."
    key_prefix = prefix.rstrip(".")
    env = pipeline_env(services, prefix, nli_model_dir, HALLMON_FATIGUE__APP_ID=f"{prefix}fatigue")
    log_path = tmp_path_factory.mktemp("serve") / "worker.log"
    from hallmon.workers.runner import ensure_hallmon_topics

    ensure_hallmon_topics(settings_from_env(env))
    worker = WorkerProcess("all", env, log_path).start()
    server: ServerThread | None = None
    try:
        run = uuid.uuid4().hex[:6]
        rids = _produce(env, run)
        _wait_for_verdicts(services.redis_url, key_prefix, rids, worker)
        from hallmon.cli.demo_sessions import SESSIONS
        from hallmon.serve.app import create_app

        # A wider batch window than the workers' 5 ms, so that the concurrent-checks test sees
        # shared batches even on a loaded CI machine.
        settings = settings_from_env({**env, "HALLMON_VERIFIER_WORKER__MAX_WAIT_MS": "25"})
        app = create_app(settings)
        server = ServerThread(app, free_port()).start()
        yield ServedPipeline(
            base_url=server.url,
            settings=settings,
            run=run,
            sessions=[f"{s.name}-{run}" for s in SESSIONS],
            response_ids=rids,
            app=app,
        )
    finally:
        if server is not None:
            server.stop()
        worker.stop()
        _cleanup(services, prefix, key_prefix)


def _cleanup(services: Services, prefix: str, key_prefix: str) -> None:
    from hallmon.topology.settings import KafkaSettings

    admin = make_admin(KafkaSettings(bootstrap_servers=services.kafka_bootstrap))
    names = [t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)]
    if names:
        for fut in admin.delete_topics(names, operation_timeout=30).values():
            try:
                fut.result(timeout=30)
            except Exception as exc:  # best effort: leftovers only cost disk
                print(f"could not delete {names}: {exc}")
    client = redis.Redis.from_url(services.redis_url)
    try:
        for key in client.scan_iter(f"{key_prefix}:*", count=500):
            client.delete(key)
    finally:
        client.close()
