"""The faust app factory: one app per worker role, each its own consumer group.

The assembler, the verifier and the fatigue worker are separate faust apps (ids
`settings.assembler.app_id`, `settings.verifier_worker.app_id`, `settings.fatigue.app_id`), so
each scales on its own and a Redis outage never holds verdicts back; `hallmon worker` runs each
in its own process. Tables live in memory and are rebuilt from their changelog
topic after a crash or a rebalance.
"""

from __future__ import annotations

import ssl
import tempfile
from pathlib import Path
from typing import Any, Literal

import faust
from hallmon.topology.consumer import install_ordered_consumer
from hallmon.topology.recovery_watch import install_recovery_watch
from hallmon.topology.settings import HallmonSettings, KafkaSettings
from hallmon.topology.topics import topic_specs

Role = Literal["assembler", "verifier", "fatigue"]


def broker_url(kafka: KafkaSettings) -> str:
    return ";".join(f"kafka://{server}" for server in kafka.bootstrap_servers.split(","))


def broker_credentials(kafka: KafkaSettings) -> Any:
    """faust credentials matching the confluent-kafka security settings, or None."""
    if kafka.security_protocol == "PLAINTEXT":
        return None
    context: ssl.SSLContext | None = None
    if kafka.security_protocol.endswith("SSL"):
        context = ssl.create_default_context(
            cafile=str(kafka.ssl_ca_location) if kafka.ssl_ca_location else None
        )
        if kafka.ssl_certificate_location and kafka.ssl_key_location:
            context.load_cert_chain(
                str(kafka.ssl_certificate_location),
                str(kafka.ssl_key_location),
                kafka.ssl_key_password.get_secret_value() if kafka.ssl_key_password else None,
            )
    if kafka.security_protocol == "SSL":
        return faust.SSLCredentials(context)
    mechanism = kafka.effective_sasl_mechanism
    if mechanism == "GSSAPI":
        return faust.GSSAPICredentials(ssl_context=context)
    return faust.SASLCredentials(
        username=kafka.sasl_username,
        password=kafka.sasl_password.get_secret_value() if kafka.sasl_password else None,
        mechanism=mechanism,
        ssl_context=context,
    )


def traces_partitions(settings: HallmonSettings) -> int:
    spec = next(s for s in topic_specs(settings.topics) if s.role == "traces")
    return spec.partitions


def make_app(settings: HallmonSettings, role: Role, **overrides: Any) -> faust.App:
    app_id = {
        "assembler": settings.assembler.app_id,
        "verifier": settings.verifier_worker.app_id,
        "fatigue": settings.fatigue.app_id,
    }[role]
    conf: dict[str, Any] = {
        "broker": broker_url(settings.kafka),
        "broker_credentials": broker_credentials(settings.kafka),
        "store": "memory://",
        # Tables live in memory (their changelog is the durable copy): faust's data folder
        # holds nothing worth keeping, so it goes to the temp dir, not the worker's cwd.
        "datadir": str(Path(tempfile.gettempdir()) / "{conf.id}-data"),
        "web_enabled": False,
        "autodiscover": False,
        # A table's changelog must have as many partitions as the topic it is built from.
        "topic_partitions": traces_partitions(settings),
        "topic_replication_factor": settings.topics.replication_factor,
        # No standby copies: the timeout scan walks the table and must see only active streams.
        "table_standby_replicas": 0,
        "producer_acks": -1,
        "producer_linger_ms": settings.kafka.linger_ms,
        "consumer_auto_offset_reset": "earliest",
        "broker_commit_interval": 1.0,
        "broker_client_id": f"{settings.kafka.client_id}-{role}",
        # The assembler waits for the event in hand (and the write barrier) before it gives a
        # partition away, so no changelog write can land after the new owner restored the
        # table (and bury the new owner's later state on the next restore). The other roles
        # keep no table.
        "stream_wait_empty": role == "assembler",
        # A killed worker's partitions move to the others (or to its restart) within ~10 s.
        "broker_session_timeout": 10.0,
        "broker_heartbeat_interval": 3.0,
    }
    conf.update(overrides)
    app = faust.App(app_id, **conf)
    install_ordered_consumer(app)  # faust's own loses messages across seeks and commits
    if role == "assembler":  # the one role with a table to restore
        install_recovery_watch(app, stall_s=settings.kafka.recovery_stall_s)
    return app
