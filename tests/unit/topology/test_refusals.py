"""A refused Kafka login or TLS handshake, or a refused Redis, is explained by the settings to
fix; an outage is not mistaken for one."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
import redis.exceptions as rexc
from confluent_kafka import KafkaError
from hallmon.topology.kafka_client import refusal as kafka_refusal
from hallmon.topology.redis_client import certificate_rejected
from hallmon.topology.redis_client import refusal as redis_refusal
from hallmon.topology.settings import KafkaSettings


def wrapped(cause: BaseException) -> rexc.ConnectionError:
    """A ConnectionError raised from `cause`, as redis-py raises a failed TLS handshake."""
    try:
        try:
            raise cause
        except OSError as exc:
            raise rexc.ConnectionError("Error 1 connecting to 127.0.0.1:6380.") from exc
    except rexc.ConnectionError as outer:
        return outer


def sasl_ssl(tmp_path: Path) -> KafkaSettings:
    ca = tmp_path / "ca.pem"
    ca.write_text("PEM")
    return KafkaSettings(
        bootstrap_servers="broker:9094",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="hallmon",
        sasl_password="secret-pw",
        ssl_ca_location=ca,
    )


def test_kafka_login_refusal_names_the_sasl_settings(tmp_path: Path) -> None:
    error = KafkaError(KafkaError._AUTHENTICATION, "SASL authentication error: invalid credentials")
    reason = kafka_refusal(sasl_ssl(tmp_path), error)
    assert reason is not None
    assert "HALLMON_KAFKA__SASL_PASSWORD" in reason and "SCRAM-SHA-512" in reason
    assert "secret-pw" not in reason


@pytest.mark.parametrize(
    "error",
    [
        KafkaError(KafkaError._SSL, "SSL handshake failed: certificate verify failed"),
        KafkaError(KafkaError._TRANSPORT, "SSL handshake failed: connecting to a PLAINTEXT"),
    ],
)
def test_kafka_tls_refusal_names_the_ca_and_client_certificate(
    tmp_path: Path, error: KafkaError
) -> None:
    reason = kafka_refusal(sasl_ssl(tmp_path), error)
    assert reason is not None
    assert "HALLMON_KAFKA__SSL_CA_LOCATION" in reason
    assert "HALLMON_KAFKA__SSL_CERTIFICATE_LOCATION" in reason


def test_kafka_outage_is_not_a_refusal(tmp_path: Path) -> None:
    for error in (
        KafkaError(KafkaError._TRANSPORT, "Connection refused"),
        KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"),
    ):
        assert kafka_refusal(sasl_ssl(tmp_path), error) is None


def test_redis_refusals_name_what_to_set() -> None:
    login = redis_refusal(rexc.AuthenticationError("WRONGPASS"), "Redis at x")
    assert login is not None and "HALLMON_REDIS__PASSWORD" in login
    cert = wrapped(ssl.SSLCertVerificationError(1, "certificate verify failed"))
    assert certificate_rejected(cert)
    ca = redis_refusal(cert)
    assert ca is not None and "HALLMON_REDIS__SSL_CA_CERTS" in ca


def test_other_tls_errors_are_refusals_only_at_the_handshake() -> None:
    eof = wrapped(ssl.SSLEOFError(8, "EOF occurred in violation of protocol"))
    assert not certificate_rejected(eof)
    # Later, the same error can be a server going away: an outage, retried.
    assert redis_refusal(eof) is None
    handshake = redis_refusal(eof, handshake=True)
    assert handshake is not None and "HALLMON_REDIS__SSL_CERTFILE" in handshake


def test_redis_outage_is_not_a_refusal() -> None:
    assert redis_refusal(wrapped(ConnectionRefusedError(111, "refused")), handshake=True) is None
    assert redis_refusal(rexc.TimeoutError("Timeout connecting to server")) is None
