"""The one place that builds confluent-kafka clients from settings.

Everything that talks to Kafka through confluent-kafka gets its Producer, Consumer or AdminClient
here, so security options, client ids and sane defaults are set once. Per-use options go in
`overrides` (librdkafka property names, e.g. `{"linger.ms": 20}`).
"""

from __future__ import annotations

from collections.abc import Mapping

from confluent_kafka import Consumer, KafkaException, Producer
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
    settings: KafkaSettings, overrides: Mapping[str, str | int | float | bool] | None = None
) -> AdminClient:
    return AdminClient(_config(settings, {}, overrides or {}))


def check_reachable(admin: AdminClient, settings: KafkaSettings, timeout_s: float = 10.0) -> None:
    """Fail fast with a useful message instead of letting every later call time out."""
    try:
        metadata = admin.list_topics(timeout=timeout_s)
    except KafkaException as exc:
        raise KafkaUnavailableError(
            f"cannot reach Kafka at {settings.bootstrap_servers} "
            f"({env_name('kafka', 'bootstrap_servers')}) within {timeout_s:g}s: {exc}. "
            "Start the local services with `make services`, or point the variable at your cluster."
        ) from exc
    if not metadata.brokers:
        raise KafkaUnavailableError(
            f"Kafka at {settings.bootstrap_servers} answered without any broker; "
            "is it still starting?"
        )
