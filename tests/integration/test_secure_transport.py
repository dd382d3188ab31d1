"""The fault suite, secure transport: Kafka over SASL_SSL (SCRAM-SHA-512) and over TLS with
client certificates, Redis with a password over TLS with client certificates, all with
certificates this module makes itself (openssl), on a private broker and a private Redis (own
ports and state; the shared services are never touched).

The pipeline runs end to end on them (an answer produced, its verdict read back, its fatigue
written to the TLS Redis, `hallmon serve`'s readiness over the same settings), and each wrong
setting (password, CA, missing client certificate) stops `hallmon worker` within seconds with
a message that names the variable to fix, instead of a worker that retries forever.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, cast

import pytest
from fastapi.testclient import TestClient
from hallmon.schemas import VerdictEvent, decode
from hallmon.topology.kafka_client import KafkaRefusedError, check_reachable, make_producer
from hallmon.topology.redis_client import RedisRefusedError, check_redis, make_redis
from hallmon.workers.fatigue.agent import fatigue_config
from hallmon.workers.fatigue.store import FatigueStore
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.producer import KafkaProducerLike, TraceProducer
from hallmon.serve.app import create_app
from hallmon.verification.verifier import load_model

from ..conftest import (
    REPO_ROOT,
    Services,
    TopicWatcher,
    WorkerProcess,
    in_ci,
    pipeline_env,
    settings_from_env,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

LOCAL = REPO_ROOT / "deploy" / "local"
POLICY = "Shoes can be returned within 30 days of delivery if they are unworn."
SCRAM_USER, SCRAM_PASSWORD = "hallmon", "scram-secret-1"
REDIS_PASSWORD = "redis-secret-1"
# A refused setting must stop the worker this fast (the import of faust alone takes seconds on
# a loaded 2-core machine); a worker that retried forever would hit it.
REFUSAL_BUDGET_S = 60.0


def _unavailable(reason: str) -> NoReturn:
    if in_ci():
        pytest.fail(f"secure-transport services unavailable under CI=true: {reason}", pytrace=False)
    pytest.skip(f"secure-transport services unavailable: {reason}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- certificates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Certs:
    ca: Path
    server_cert: Path
    server_key: Path
    server_keystore: Path
    """Key and certificate in one PEM file, Kafka's PEM keystore."""
    client_cert: Path
    client_key: Path
    other_ca: Path
    """A CA that signed nothing here: verifying the servers with it must fail."""


def make_certs(folder: Path) -> Certs:
    openssl = shutil.which("openssl")
    if openssl is None:
        _unavailable("openssl is not installed (deploy/local/system-deps.sh installs it)")
    folder.mkdir(parents=True, exist_ok=True)

    def run(*args: str | Path) -> None:
        done = subprocess.run(
            [openssl, *map(str, args)], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, f"openssl {args[0]}: {done.stderr}"

    def self_signed(name: str) -> tuple[Path, Path]:
        cert, key = folder / f"{name}.pem", folder / f"{name}.key"
        subj = f"/CN=hallmon test {name}"
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", subj,
            "-keyout", key, "-out", cert)  # fmt: skip
        return cert, key

    def signed(name: str, cn: str, extensions: str, ca: tuple[Path, Path]) -> tuple[Path, Path]:
        cert, key, csr = (folder / f"{name}{ext}" for ext in (".pem", ".key", ".csr"))
        ext = folder / f"{name}.ext"
        ext.write_text(extensions + "\n")
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", key,
            "-out", csr)  # fmt: skip
        run("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial",
            "-days", "2", "-extfile", ext, "-out", cert)  # fmt: skip
        return cert, key

    ca = self_signed("ca")
    other_ca, _ = self_signed("other-ca")
    # The servers are reached as 127.0.0.1: the name both TLS stacks check.
    server = signed("server", "127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost", ca)
    client = signed("client", "hallmon-worker", "extendedKeyUsage=clientAuth", ca)
    keystore = folder / "server-keystore.pem"
    keystore.write_text(server[1].read_text() + server[0].read_text())
    return Certs(ca[0], server[0], server[1], keystore, client[0], client[1], other_ca)


# --- private services -------------------------------------------------------------------------


@dataclass(frozen=True)
class SecureServices:
    certs: Certs
    sasl_ssl: str
    """bootstrap of the SASL_SSL (SCRAM-SHA-512) listener"""
    ssl: str
    """bootstrap of the TLS listener that requires client certificates"""
    redis_tls_port: int

    def kafka_env(self, **overrides: str) -> dict[str, str]:
        env = {
            "HALLMON_KAFKA__BOOTSTRAP_SERVERS": self.sasl_ssl,
            "HALLMON_KAFKA__SECURITY_PROTOCOL": "SASL_SSL",
            "HALLMON_KAFKA__SASL_MECHANISM": "SCRAM-SHA-512",
            "HALLMON_KAFKA__SASL_USERNAME": SCRAM_USER,
            "HALLMON_KAFKA__SASL_PASSWORD": SCRAM_PASSWORD,
            "HALLMON_KAFKA__SSL_CA_LOCATION": str(self.certs.ca),
        }
        env.update(overrides)
        return env

    def mtls_kafka_env(self, **overrides: str) -> dict[str, str]:
        env = {
            "HALLMON_KAFKA__BOOTSTRAP_SERVERS": self.ssl,
            "HALLMON_KAFKA__SECURITY_PROTOCOL": "SSL",
            "HALLMON_KAFKA__SSL_CA_LOCATION": str(self.certs.ca),
            "HALLMON_KAFKA__SSL_CERTIFICATE_LOCATION": str(self.certs.client_cert),
            "HALLMON_KAFKA__SSL_KEY_LOCATION": str(self.certs.client_key),
        }
        env.update(overrides)
        return env

    def redis_env(self, **overrides: str) -> dict[str, str]:
        env = {
            "HALLMON_REDIS__URL": f"rediss://127.0.0.1:{self.redis_tls_port}/0",
            "HALLMON_REDIS__PASSWORD": REDIS_PASSWORD,
            "HALLMON_REDIS__SSL_CA_CERTS": str(self.certs.ca),
            "HALLMON_REDIS__SSL_CERTFILE": str(self.certs.client_cert),
            "HALLMON_REDIS__SSL_KEYFILE": str(self.certs.client_key),
        }
        env.update(overrides)
        return env

    @property
    def services(self) -> Services:
        return Services(self.sasl_ssl, f"rediss://127.0.0.1:{self.redis_tls_port}/0", "local")


def _run_script(env: dict[str, str], script: str, action: str) -> str:
    try:
        done = subprocess.run(
            ["bash", str(LOCAL / script), action],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        _unavailable(f"{script} {action}: {exc}")
    if done.returncode != 0:
        _unavailable(f"{script} {action} exited {done.returncode}: {done.stdout}{done.stderr}")
    return done.stdout


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureServices]:
    root = tmp_path_factory.mktemp("secure")
    certs = make_certs(root / "certs")
    plain, controller, sasl_ssl, ssl_port = (free_port() for _ in range(4))
    redis_port, redis_tls = free_port(), free_port()
    host = "127.0.0.1"
    listeners = f"PLAINTEXT://{host}:{plain},SASL_SSL://{host}:{sasl_ssl},SSL://{host}:{ssl_port}"
    broker = "\n".join(
        [
            # The PLAINTEXT listener stays for kafka.sh's readiness probe and the broker itself;
            # hallmon's clients are only ever given the secure ones.
            f"listeners={listeners},CONTROLLER://{host}:{controller}",
            f"advertised.listeners={listeners}",
            "listener.security.protocol.map="
            "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL",
            "sasl.enabled.mechanisms=SCRAM-SHA-512",
            "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config="
            "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            "ssl.keystore.type=PEM",
            f"ssl.keystore.location={certs.server_keystore}",
            "ssl.truststore.type=PEM",
            f"ssl.truststore.location={certs.ca}",
            "listener.name.ssl.ssl.client.auth=required",
        ]
    )
    redis_conf = "\n".join(
        [
            f"tls-port {redis_tls}",
            f"tls-cert-file {certs.server_cert}",
            f"tls-key-file {certs.server_key}",
            f"tls-ca-cert-file {certs.ca}",
            "tls-auth-clients yes",
        ]
    )
    env = {
        **os.environ,
        "HALLMON_LOCAL_STATE_DIR": str(root / "state"),
        "HALLMON_LOCAL_KAFKA_PORT": str(plain),
        "HALLMON_LOCAL_KAFKA_CONTROLLER_PORT": str(controller),
        "HALLMON_LOCAL_KAFKA_EXTRA_PROPERTIES": broker,
        "HALLMON_LOCAL_KAFKA_SCRAM_USERS": f"SCRAM-SHA-512:{SCRAM_USER}:{SCRAM_PASSWORD}",
        "HALLMON_LOCAL_REDIS_PORT": str(redis_port),
        "HALLMON_LOCAL_REDIS_PASSWORD": REDIS_PASSWORD,
        "HALLMON_LOCAL_REDIS_EXTRA_CONFIG": redis_conf,
    }
    t0 = time.monotonic()
    try:
        _run_script(env, "kafka.sh", "start")
        _run_script(env, "redis.sh", "start")
        print(f"\nsecure services up in {time.monotonic() - t0:.1f}s")
        yield SecureServices(certs, f"{host}:{sasl_ssl}", f"{host}:{ssl_port}", redis_tls)
    finally:
        for script in ("kafka.sh", "redis.sh"):
            subprocess.run(
                ["bash", str(LOCAL / script), "stop"],
                env=env,
                capture_output=True,
                timeout=60,
                check=False,
            )


def _settings_env(
    secure: SecureServices, model_dir: Path, kafka: dict[str, str], redis: dict[str, str]
) -> dict[str, str]:
    prefix = f"test-{uuid.uuid4().hex[:10]}."
    env = pipeline_env(secure.services, prefix, model_dir)
    env.update(kafka)
    env.update(redis)
    return env


# --- the pipeline on secure transports ---------------------------------------------------------


@pytest.mark.model
@pytest.mark.parametrize("listener", ["sasl_ssl", "mtls"])
def test_pipeline_runs_end_to_end_on_secure_kafka_and_redis(
    secure: SecureServices, nli_model_dir: Path, tmp_path: Path, listener: str
) -> None:
    kafka = secure.kafka_env() if listener == "sasl_ssl" else secure.mtls_kafka_env()
    env = _settings_env(secure, nli_model_dir, kafka, secure.redis_env())
    settings = settings_from_env(env)
    t0 = time.monotonic()
    ensure_hallmon_topics(settings)  # confluent-kafka's AdminClient
    worker = WorkerProcess("all", env, tmp_path / "worker.log").start()  # faust / aiokafka
    watch = TopicWatcher(settings, [settings.topics.verdicts])  # confluent-kafka Consumer
    raw = make_producer(settings.kafka, {"log_level": 0})  # confluent-kafka Producer
    traces = TraceProducer(
        "secure-bot", topic=settings.topics.traces, producer=cast(KafkaProducerLike, raw)
    )
    try:
        session = f"s-{uuid.uuid4().hex[:8]}"
        response_id = traces.send_response(
            session,
            "You can return the shoes within 30 days if they are unworn.",
            context={"documents": [{"source_id": "policy", "text": POLICY}]},
        )
        traces.flush(timeout_s=60)  # raises when the answer was not delivered

        def verdicts() -> list[VerdictEvent]:
            return [decode(VerdictEvent, m.value()) for m in watch.on(settings.topics.verdicts)]

        watch.wait_for(
            "the verdict", lambda: any(v.response_id == response_id for v in verdicts()), 180,
            [worker],
        )  # fmt: skip
        verdict = next(v for v in verdicts() if v.response_id == response_id)
        assert verdict.state == "checked", verdict
        assert verdict.counts.supported >= 1, verdict

        async def redis_state() -> tuple[int, int]:
            """The session's fatigue count (fatigue worker) and claim-store keys (verifier)."""
            client = make_redis(settings.redis)  # rediss://, password, client certificate
            store = FatigueStore(client, fatigue_config(settings))
            claims = f"{settings.conflicts.key_prefix}:claims:{{{session}}}:*"
            try:
                for _ in range(150):
                    snap = await store.load(session)
                    if snap is not None:
                        return snap.responses, len(await client.keys(claims))
                    await asyncio.sleep(0.2)
                return 0, 0
            finally:
                await client.aclose()

        responses, claim_keys = asyncio.run(redis_state())
        assert responses == 1, worker.tail()
        assert claim_keys >= 1, worker.tail()
        assert worker.proc is not None and worker.proc.poll() is None, worker.tail()
        print(f"\n{listener}: verdict and fatigue over TLS in {time.monotonic() - t0:.1f}s")
    finally:
        watch.close()
        worker.stop()


def test_serve_is_ready_on_secure_kafka_and_redis(
    secure: SecureServices, nli_model_dir: Path
) -> None:
    env = _settings_env(secure, nli_model_dir, secure.kafka_env(), secure.redis_env())
    settings = settings_from_env(env)
    model = load_model(settings.model)
    with TestClient(create_app(settings, model=model)) as client:
        body = client.get("/readyz").json()
    assert body["ready"] is True, body
    assert (body["redis"], body["kafka"]) == ("ok", "ok")

    wrong = env | {"HALLMON_REDIS__PASSWORD": "wrong", "HALLMON_KAFKA__SASL_PASSWORD": "wrong"}
    with TestClient(create_app(settings_from_env(wrong), model=model)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["redis"].startswith("refused:") and "HALLMON_REDIS__PASSWORD" in body["redis"]
    assert body["kafka"].startswith("refused:") and "HALLMON_KAFKA__SASL_PASSWORD" in body["kafka"]


# --- wrong settings: a clear error, within seconds ----------------------------------------------


def _bad(secure: SecureServices, case: str) -> tuple[dict[str, str], str]:
    """The environment of one wrong setting, and the variable its error must name."""
    certs = secure.certs
    kafka, redis = secure.kafka_env(), secure.redis_env()
    expected = {
        "kafka password": "HALLMON_KAFKA__SASL_PASSWORD",
        "kafka user": "HALLMON_KAFKA__SASL_USERNAME",
        "kafka CA": "HALLMON_KAFKA__SSL_CA_LOCATION",
        "kafka client certificate": "HALLMON_KAFKA__SSL_CERTIFICATE_LOCATION",
        "redis password": "HALLMON_REDIS__PASSWORD",
        "redis CA": "HALLMON_REDIS__SSL_CA_CERTS",
        "redis client certificate": "HALLMON_REDIS__SSL_CERTFILE",
    }[case]
    if case == "kafka password":
        kafka["HALLMON_KAFKA__SASL_PASSWORD"] = "wrong"
    elif case == "kafka user":
        kafka["HALLMON_KAFKA__SASL_USERNAME"] = "nobody"
    elif case == "kafka CA":
        kafka["HALLMON_KAFKA__SSL_CA_LOCATION"] = str(certs.other_ca)
    elif case == "kafka client certificate":
        kafka = secure.mtls_kafka_env()
        del kafka["HALLMON_KAFKA__SSL_CERTIFICATE_LOCATION"]
        del kafka["HALLMON_KAFKA__SSL_KEY_LOCATION"]
    elif case == "redis password":
        redis["HALLMON_REDIS__PASSWORD"] = "wrong"
    elif case == "redis CA":
        redis["HALLMON_REDIS__SSL_CA_CERTS"] = str(certs.other_ca)
    else:
        del redis["HALLMON_REDIS__SSL_CERTFILE"]
        del redis["HALLMON_REDIS__SSL_KEYFILE"]
    return kafka | redis, expected


CASES = [
    "kafka password",
    "kafka user",
    "kafka CA",
    "kafka client certificate",
    "redis password",
    "redis CA",
    "redis client certificate",
]


@pytest.mark.parametrize("case", CASES)
def test_a_refused_setting_raises_at_once_naming_the_variable(
    secure: SecureServices, case: str
) -> None:
    settings_env, variable = _bad(secure, case)
    settings = settings_from_env(_settings_env(secure, Path("."), {}, {}) | settings_env)
    t0 = time.monotonic()
    if case.startswith("kafka"):
        with pytest.raises(KafkaRefusedError, match=variable):
            check_reachable(settings.kafka, 30.0)
    else:
        with pytest.raises(RedisRefusedError, match=variable):
            check_redis(settings.redis)
    # librdkafka reports a refusal within a second; the probe must not wait for its timeout.
    assert time.monotonic() - t0 < 10.0


@pytest.mark.parametrize("case", ["kafka password", "redis CA"])
def test_worker_stops_with_a_clear_error_on_wrong_credentials(
    secure: SecureServices, nli_model_dir: Path, case: str
) -> None:
    settings_env, variable = _bad(secure, case)
    env = _settings_env(secure, nli_model_dir, {}, {}) | settings_env
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "hallmon.cli", "worker", "--role", "fatigue"],
        env=env,
        capture_output=True,
        text=True,
        timeout=REFUSAL_BUDGET_S,
        check=False,
    )
    took = time.monotonic() - t0
    print(f"\n{case}: worker exited {done.returncode} after {took:.1f}s: {done.stderr.strip()}")
    assert done.returncode == 2, done.stderr
    assert variable in done.stderr and "Traceback" not in done.stderr, done.stderr
    # Never a password in the message.
    assert SCRAM_PASSWORD not in done.stderr and REDIS_PASSWORD not in done.stderr


def test_topics_command_says_which_setting_the_broker_refused(secure: SecureServices) -> None:
    settings_env, variable = _bad(secure, "kafka CA")
    env = _settings_env(secure, Path("."), {}, {}) | settings_env
    done = subprocess.run(
        [sys.executable, "-m", "hallmon.cli", "topics", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=REFUSAL_BUDGET_S,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    output = " ".join((done.stdout + done.stderr).split())  # rich wraps long lines
    assert variable in output and "certificate verify failed" in output, output
