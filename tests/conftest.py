"""Fixtures shared by all of hallmon's tests.

Sections (add yours at the end, under its own banner, rather than in between):
  1. Real services: Kafka and Redis (`services`, `kafka_settings`, `kafka_admin`, `redis_client`)
  2. Per-test isolation (`unique_topic_prefix`, `hallmon_settings`, `hallmon_env`)

Where the services come from (printed at the start of the run):
  - testcontainers (Kafka and Redis containers) when a Docker engine answers;
  - otherwise the local services of deploy/local/, started with services.sh if they are down.
  HALLMON_TEST_SERVICES=local|containers forces one path (default: auto).
When a service cannot be reached the tests that need it are skipped with the reason on a
developer's machine, and fail under CI=true, where a skipped integration test would hide a
broken setup.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn

import pytest
import redis
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient
from hallmon.topology.kafka_client import make_admin
from hallmon.topology.settings import (
    ENV_NESTED_DELIMITER,
    ENV_PREFIX,
    HallmonSettings,
    KafkaSettings,
    RedisSettings,
    TopicNames,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
SERVICES_SCRIPT = REPO_ROOT / "deploy" / "local" / "services.sh"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _say(request: pytest.FixtureRequest, line: str) -> None:
    # Written past pytest's capture so the chosen path shows in every run's output.
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if reporter is None:
        return
    if capture is None:
        reporter.write_line(f"[hallmon services] {line}")
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(f"[hallmon services] {line}")


def _unavailable(reason: str) -> NoReturn:
    if in_ci():
        pytest.fail(f"real services unavailable under CI=true: {reason}", pytrace=False)
    pytest.skip(f"real services unavailable: {reason}")


# ======================================================================================
# 1. Real services: Kafka and Redis
# ======================================================================================


@dataclass(frozen=True)
class Services:
    kafka_bootstrap: str
    redis_url: str
    source: Literal["testcontainers", "local"]


def _kafka_answers(bootstrap: str, timeout_s: float = 3.0) -> bool:
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    try:
        return bool(admin.list_topics(timeout=timeout_s).brokers)
    except KafkaException:
        return False


def _redis_answers(url: str) -> bool:
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2) as client:
            return bool(client.ping())
    except (redis.RedisError, OSError):
        return False


def _docker_answers() -> bool:
    try:
        import docker  # type: ignore[import-untyped]  # no stubs; only ping is used

        client = docker.from_env(timeout=2)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # no SDK, no socket, no engine: all mean "no Docker here"
        return False


def _containers(stack: ExitStack) -> Services:
    from testcontainers.community.kafka import KafkaContainer
    from testcontainers.community.redis import RedisContainer

    kafka = stack.enter_context(KafkaContainer("confluentinc/cp-kafka:7.6.0").with_kraft())
    cache = stack.enter_context(RedisContainer("redis:7"))
    host, port = cache.get_container_host_ip(), cache.get_exposed_port(6379)
    return Services(kafka.get_bootstrap_server(), f"redis://{host}:{port}/0", "testcontainers")


def _local(request: pytest.FixtureRequest) -> Services:
    kafka_port = os.environ.get("HALLMON_LOCAL_KAFKA_PORT", "9092")
    redis_port = os.environ.get("HALLMON_LOCAL_REDIS_PORT", "6379")
    found = Services(f"127.0.0.1:{kafka_port}", f"redis://127.0.0.1:{redis_port}/0", "local")
    if _kafka_answers(found.kafka_bootstrap) and _redis_answers(found.redis_url):
        return found
    _say(request, f"local services are down; starting them with {SERVICES_SCRIPT} start")
    try:
        run = subprocess.run(
            ["bash", str(SERVICES_SCRIPT), "start"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        _unavailable(f"{SERVICES_SCRIPT} start did not finish: {exc}")
    if run.returncode != 0:
        _unavailable(
            f"{SERVICES_SCRIPT} start exited {run.returncode}:\n{run.stdout}{run.stderr}\n"
            "Run `make services` to see the full error."
        )
    for line in run.stdout.splitlines():
        _say(request, line)
    if not _kafka_answers(found.kafka_bootstrap, timeout_s=10):
        _unavailable(f"Kafka does not answer on {found.kafka_bootstrap} after starting it")
    if not _redis_answers(found.redis_url):
        _unavailable(f"Redis does not answer on {found.redis_url} after starting it")
    return found


@pytest.fixture(scope="session")
def services(request: pytest.FixtureRequest) -> Iterator[Services]:
    """Kafka bootstrap servers and a Redis URL of real, running services."""
    choice = os.environ.get("HALLMON_TEST_SERVICES", "auto").strip().lower()
    if choice not in ("auto", "local", "containers"):
        pytest.fail(f"HALLMON_TEST_SERVICES={choice!r}: use auto, local or containers")
    use_containers = choice == "containers" or (choice == "auto" and _docker_answers())
    with ExitStack() as stack:
        if use_containers:
            _say(request, "path: testcontainers (a Docker engine answers)")
            try:
                found = _containers(stack)
            except Exception as exc:  # image pull, engine or startup failure
                _unavailable(f"testcontainers could not start Kafka and Redis: {exc}")
        else:
            why = "forced by HALLMON_TEST_SERVICES" if choice == "local" else "no Docker engine"
            _say(request, f"path: local services of deploy/local ({why})")
            found = _local(request)
        _say(request, f"kafka={found.kafka_bootstrap} redis={found.redis_url}")
        yield found


@pytest.fixture(scope="session")
def kafka_settings(services: Services) -> KafkaSettings:
    return KafkaSettings(bootstrap_servers=services.kafka_bootstrap)


@pytest.fixture(scope="session")
def kafka_admin(kafka_settings: KafkaSettings) -> AdminClient:
    return make_admin(kafka_settings)


@pytest.fixture(scope="session")
def redis_client(services: Services) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(services.redis_url, socket_timeout=5)
    yield client
    client.close()


# ======================================================================================
# 2. Per-test isolation
# ======================================================================================


@pytest.fixture
def unique_topic_prefix(kafka_admin: AdminClient) -> Iterator[str]:
    """A topic-name prefix no other test uses; the test's topics are deleted afterwards."""
    prefix = f"test-{uuid.uuid4().hex[:12]}."
    yield prefix
    # Best effort: the local broker keeps its data between runs, so leftovers would pile up.
    try:
        names = [t for t in kafka_admin.list_topics(timeout=10).topics if t.startswith(prefix)]
        if names:
            for future in kafka_admin.delete_topics(names, operation_timeout=30).values():
                future.result(timeout=30)
    except KafkaException as exc:
        print(f"could not delete the topics of {prefix!r}: {exc}")


@pytest.fixture
def hallmon_settings(services: Services, unique_topic_prefix: str) -> HallmonSettings:
    """Settings pointed at the test services, with topic names of this test only."""
    return HallmonSettings(
        kafka=KafkaSettings(bootstrap_servers=services.kafka_bootstrap),
        topics=TopicNames(prefix=unique_topic_prefix),
        redis=RedisSettings(url=services.redis_url),
    )


@pytest.fixture
def hallmon_env(services: Services, unique_topic_prefix: str) -> dict[str, str]:
    """The environment for a `hallmon ...` subprocess that matches `hallmon_settings`.

    The caller's own HALLMON_<GROUP>__<FIELD> variables are dropped so a developer's
    configuration cannot leak into a test.
    """
    return service_env(services, unique_topic_prefix)


def service_env(services: Services, prefix: str) -> dict[str, str]:
    """This process's environment without any HALLMON_<GROUP>__<FIELD> variable, pointed at
    the test services and a topic prefix of the test's own."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not (key.upper().startswith(ENV_PREFIX) and ENV_NESTED_DELIMITER in key)
    }
    env.update(
        {
            "HALLMON_KAFKA__BOOTSTRAP_SERVERS": services.kafka_bootstrap,
            "HALLMON_REDIS__URL": services.redis_url,
            "HALLMON_TOPICS__PREFIX": prefix,
        }
    )
    return env


# ======================================================================================
# 3. Streaming pipeline: the NLI model, worker processes, topic watchers
# ======================================================================================

import json  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

FAKE_MODEL_ENV = "HALLMON_TEST_FAKE_MODEL"


@pytest.fixture(scope="session")
def nli_model_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped NLI model. Missing: a failure under CI, a skip elsewhere, unless
    HALLMON_TEST_FAKE_MODEL=1 asks for a tiny hand-built stand-in (development only)."""
    from hallmon.onnx_models.runtime import default_model_dir

    shipped = default_model_dir()
    if (shipped / "manifest.json").is_file():
        return shipped
    if in_ci():
        pytest.fail(f"the shipped NLI model is missing under CI=true: {shipped}", pytrace=False)
    if os.environ.get(FAKE_MODEL_ENV) == "1":
        from tests.unit.onnx_models.test_runtime import make_model_dir

        _say(request, f"NLI model: tiny FAKE model ({FAKE_MODEL_ENV}=1); {shipped} is missing")
        return make_model_dir(tmp_path_factory.mktemp("fake-nli"))
    pytest.skip(
        f"the shipped NLI model is not built yet ({shipped}); build it, or set "
        f"{FAKE_MODEL_ENV}=1 to develop against a stand-in"
    )


def pipeline_env(services: Services, prefix: str, model_dir: Path, **extra: str) -> dict[str, str]:
    """Environment of a `hallmon worker` subprocess with topics, groups and keys of its own."""
    env = service_env(services, prefix)
    env.update(
        {
            "HALLMON_ASSEMBLER__APP_ID": f"{prefix}assembler",
            "HALLMON_VERIFIER_WORKER__APP_ID": f"{prefix}verifier",
            "HALLMON_FATIGUE__APP_ID": f"{prefix}fatigue",
            "HALLMON_MODEL__PATH": str(model_dir),
            "HALLMON_MODEL__THREADS": "1",
            "HALLMON_FATIGUE__KEY_PREFIX": prefix.rstrip("."),
            "HALLMON_CONFLICTS__KEY_PREFIX": prefix.rstrip("."),
            "HALLMON_ASSEMBLER__STREAM_TIMEOUT_S": "3",
            "HALLMON_ASSEMBLER__SCAN_INTERVAL_S": "0.5",
        }
    )
    env.update(extra)
    return env


def settings_from_env(env: dict[str, str]) -> HallmonSettings:
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        return HallmonSettings()
    finally:
        os.environ.clear()
        os.environ.update(saved)


class WorkerProcess:
    """`python -m hallmon.cli worker --role ROLE` with its log kept for failure reports."""

    def __init__(self, role: str, env: dict[str, str], log_path: Path) -> None:
        self.role, self.env, self.log_path = role, env, log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        log = self.log_path.open("ab")
        cmd = [
            sys.executable,
            "-m",
            "hallmon.cli",
            "worker",
            "--role",
            self.role,
            "--loglevel",
            "info",
        ]
        # A session of its own, so a kill reaches the role processes `--role all` starts.
        self.proc = subprocess.Popen(
            cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()

    def tail(self, lines: int = 60) -> str:
        if not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])


class TopicWatcher:
    """Collects every message of some topics from their start, in a background thread."""

    def __init__(self, settings: HallmonSettings, topics: list[str]) -> None:
        from hallmon.topology.kafka_client import make_consumer

        self._consumer = make_consumer(
            settings.kafka, f"watch-{uuid.uuid4().hex[:8]}", {"log_level": 0}
        )
        self._consumer.subscribe(topics)
        self.messages: list[Any] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            msg = self._consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            with self._lock:
                self.messages.append(msg)
        self._consumer.close()

    def on(self, topic: str) -> list[Any]:
        with self._lock:
            return [m for m in self.messages if m.topic() == topic]

    def values(self, topic: str) -> list[dict[str, Any]]:
        return [json.loads(m.value()) for m in self.on(topic)]

    def wait_for(
        self, what: str, check: Callable[[], bool], timeout_s: float, worker: Any = None
    ) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.2)
        tail = "\n".join(w.tail() for w in (worker or [])) if worker else ""
        pytest.fail(f"timed out after {timeout_s}s waiting for {what}\n--- worker log ---\n{tail}")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
