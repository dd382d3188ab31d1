"""The faust workers (aiokafka) get the same security as the confluent-kafka clients."""

from __future__ import annotations

import ssl
from pathlib import Path

import certifi
import faust
from hallmon.topology.app import broker_credentials
from hallmon.topology.settings import KafkaSettings

CA = Path(certifi.where())


def test_sasl_ssl_scram_maps_to_a_verifying_sasl_login() -> None:
    creds = broker_credentials(
        KafkaSettings(
            security_protocol="SASL_SSL",
            sasl_mechanism="SCRAM-SHA-512",
            sasl_username="hallmon",
            sasl_password="pw",
            ssl_ca_location=CA,
        )
    )
    assert isinstance(creds, faust.SASLCredentials)
    assert (creds.mechanism.value, creds.protocol.value) == ("SCRAM-SHA-512", "SASL_SSL")
    assert (creds.username, creds.password) == ("hallmon", "pw")
    context = creds.ssl_context
    assert context is not None
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_tls_and_plaintext() -> None:
    assert broker_credentials(KafkaSettings()) is None
    tls = broker_credentials(KafkaSettings(security_protocol="SSL", ssl_ca_location=CA))
    assert isinstance(tls, faust.SSLCredentials)
    assert tls.context.verify_mode == ssl.CERT_REQUIRED
