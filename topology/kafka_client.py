"""The one place that builds confluent-kafka clients from settings.

Everything that talks to Kafka through confluent-kafka gets its Producer, Consumer or AdminClient
here, so security options, client ids and sane defaults are set once. Per-use options go in
`overrides` (librdkafka property names, e.g. `{"linger.ms": 20}`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient
from hallmon.topology.settings import KafkaConfig, KafkaSettings, env_name

# Durable by default: the broker acknowledges once all in-sync replicas have the write, and
# retries cannot duplicate or reorder within a partition.
# murmur2 (as the Java client, aiokafka and faust hash keys), so a session produced from two
# client stacks lands on one partition; librdkafka's own default (crc32) would split it.
PRODUCER_DEFAULTS: KafkaConfig = {
    "acks": "all",
    "enable.idempotence": True,
    "linger.ms": 5,
    "partitioner": "murmur2_random",
}
# hallmon commits what it has processed itself; a new group reads a topic from its start.
CONSUMER_DEFAULTS: KafkaConfig = {"enable.auto.commit": False, "auto.offset.reset": "earliest"}


class KafkaUnavailableError(RuntimeError):
    """The brokers did not answer; the message says where hallmon looked and what to do."""


def _config(
    settings: KafkaSettings,
    defaults: KafkaConfig,
    overrides: Mapping[str, str | int | float | bool],
) -> KafkaConfig:
    return {**settings.client_config(), **defaults, **overrides}


def make_producer(
    settings: KafkaSettings, overrides: Mapping[str, str | int | float | bool] | None = None
) -> Producer:
    return Producer(_config(settings, PRODUCER_DEFAULTS, overrides or {}))


def make_consumer(
    settings: KafkaSettings,
    group_id: str,
    overrides: Mapping[str, str | int | float | bool] | None = None,
) -> Consumer:
    return Consumer(_config(settings, {**CONSUMER_DEFAULTS, "group.id": group_id}, overrides or {}))


def make_admin(
    settings: KafkaSettings,
    overrides: Mapping[str, str | int | float | bool] | None = None,
    *,
    on_error: Callable[[KafkaError], None] | None = None,
) -> AdminClient:
    """`on_error` receives the client's errors (served by `poll`), e.g. a refused login."""
    config: dict[str, Any] = dict(_config(settings, {}, overrides or {}))
    if on_error is not None:
        config["error_cb"] = on_error
    return AdminClient(config)


class KafkaRefusedError(KafkaUnavailableError):
    """A broker answered but refused hallmon: the SASL login or the TLS handshake failed.

    Configuration, not an outage: retrying cannot fix it, so callers stop and say what to set.
    """


def refusal(settings: KafkaSettings, error: KafkaError) -> str | None:
    """What to fix when `error` (from a client's error_cb) is a refused login or handshake."""
    detail = error.str()
    where = f"Kafka at {settings.bootstrap_servers}"
    if error.code() == KafkaError._AUTHENTICATION:
        return (
            f"{where} refused the SASL login (mechanism {settings.effective_sasl_mechanism}, "
            f"user {settings.sasl_username!r}): {detail}. Check "
            f"{env_name('kafka', 'sasl_username')} and {env_name('kafka', 'sasl_password')}, and "
            f"that {env_name('kafka', 'sasl_mechanism')} is one the broker enables"
        )
    if error.code() == KafkaError._SSL or (
        error.code() == KafkaError._TRANSPORT and "SSL" in detail
    ):
        return (
            f"TLS with {where} failed: {detail}. Check {env_name('kafka', 'ssl_ca_location')} "
            "(the CA that signed the brokers' certificates, whose names must match the "
            f"bootstrap host), {env_name('kafka', 'ssl_certificate_location')} and "
            f"{env_name('kafka', 'ssl_key_location')} where the listener requires client "
            f"certificates, and that {env_name('kafka', 'security_protocol')}="
            f"{settings.security_protocol} is the listener's protocol"
        )
    return None


def check_reachable(settings: KafkaSettings, timeout_s: float = 10.0) -> None:
    """Fail fast with a useful message instead of letting every later call time out.

    librdkafka retries a refused login or handshake forever and reports it only through the
    error callback, so this probe has its own client that listens to it: a refusal raises
    `KafkaRefusedError` at once, naming the settings to fix, instead of a timeout.
    """
    errors: list[KafkaError] = []
    probe = make_admin(settings, {"log_level": 0}, on_error=errors.append)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            # The cluster's brokers only: a full metadata request grows with every topic (a
            # broker with 3,000 topics could not answer one within 0.5 s on a busy host).
            wait = min(2.0, max(deadline - time.monotonic(), 0.05))
            nodes = probe.describe_cluster(request_timeout=wait).result().nodes
        except KafkaException as exc:
            probe.poll(0)  # serves the error callback
            for error in errors:
                reason = refusal(settings, error)
                if reason is not None:
                    raise KafkaRefusedError(reason) from exc
            if time.monotonic() < deadline:
                continue
            seen = "; ".join(dict.fromkeys(e.str() for e in errors)) or str(exc)
            hint = (
                f" If the listener uses TLS or SASL, set {env_name('kafka', 'security_protocol')}."
                if settings.security_protocol == "PLAINTEXT"
                else ""
            )
            raise KafkaUnavailableError(
                f"cannot reach Kafka at {settings.bootstrap_servers} "
                f"({env_name('kafka', 'bootstrap_servers')}) within {timeout_s:g}s: {seen}. "
                "Start the local services with `make services`, or point the variable at your "
                f"cluster.{hint}"
            ) from exc
        if not nodes:
            raise KafkaUnavailableError(
                f"Kafka at {settings.bootstrap_servers} answered without any broker; "
                "is it still starting?"
            )
        return
