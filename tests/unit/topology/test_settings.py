"""HALLMON_* environment parsing and the confluent-kafka config built from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hallmon.topology.settings import (
    HallmonSettings,
    KafkaSettings,
    RedisSettings,
    TopicNames,
    get_settings,
    unknown_env_vars,
)
from pydantic import ValidationError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an environment without a developer's HALLMON_ settings."""
    import os

    for key in list(os.environ):
        if key.upper().startswith("HALLMON_"):
            monkeypatch.delenv(key)
    get_settings.cache_clear()


def test_defaults_point_at_the_local_services() -> None:
    settings = HallmonSettings()
    assert settings.kafka.bootstrap_servers == "127.0.0.1:9092"
    assert settings.redis.url == "redis://127.0.0.1:6379/0"
    assert settings.topics.by_role() == {
        "traces": "agent.traces",
        "responses": "hallmon.responses",
        "verdicts": "hallmon.verdicts",
        "fatigue": "hallmon.fatigue",
        "dlq": "hallmon.dlq",
    }
    assert settings.kafka.client_config() == {
        "bootstrap.servers": "127.0.0.1:9092",
        "client.id": "hallmon",
        "security.protocol": "PLAINTEXT",
    }
    assert settings.otel.exporter_endpoint is None


def test_nested_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_KAFKA__BOOTSTRAP_SERVERS", " b1:9092 , b2:9093 ")
    monkeypatch.setenv("HALLMON_TOPICS__VERDICTS", "team.verdicts")
    monkeypatch.setenv("HALLMON_REDIS__URL", "rediss://:pw@cache:6380/2")
    monkeypatch.setenv("hallmon_otel__exporter_endpoint", "http://collector:4318")

    settings = get_settings()

    assert settings.kafka.bootstrap_servers == "b1:9092,b2:9093"
    assert settings.topics.verdicts == "team.verdicts"
    assert settings.redis.uses_tls
    assert settings.redis.redacted_url() == "rediss://:***@cache:6380/2"
    assert settings.otel.exporter_endpoint == "http://collector:4318"
    assert get_settings() is settings  # cached


def test_topic_prefix_applies_to_every_name_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_TOPICS__PREFIX", "stg.")
    monkeypatch.setenv("HALLMON_TOPICS__DLQ", "dead")

    topics = HallmonSettings().topics

    assert topics.traces == "stg.agent.traces"
    assert topics.dlq == "stg.dead"
    assert TopicNames.model_validate(topics.model_dump()) == topics  # no double prefix


@pytest.mark.parametrize("name", ["", "has space", "a/b", "x" * 250])
def test_illegal_topic_name_is_rejected(name: str) -> None:
    with pytest.raises(ValidationError, match="HALLMON_TOPICS__TRACES"):
        TopicNames(traces=name)


def test_two_roles_on_one_topic_are_rejected() -> None:
    with pytest.raises(ValidationError, match="share one topic name"):
        TopicNames(verdicts="same", fatigue="same")


def test_sasl_ssl_config_for_confluent_kafka(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    kafka = KafkaSettings(
        bootstrap_servers="broker:9094",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="hallmon",
        sasl_password="s3cret",
        ssl_ca_location=ca,
    )

    assert kafka.client_config() == {
        "bootstrap.servers": "broker:9094",
        "client.id": "hallmon",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "hallmon",
        "sasl.password": "s3cret",
        "ssl.ca.location": str(ca),
    }
    assert "s3cret" not in repr(kafka)


def test_sasl_plaintext_defaults_to_plain_mechanism(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_KAFKA__SECURITY_PROTOCOL", "SASL_PLAINTEXT")
    monkeypatch.setenv("HALLMON_KAFKA__SASL_USERNAME", "u")
    monkeypatch.setenv("HALLMON_KAFKA__SASL_PASSWORD", "p")

    config = HallmonSettings().kafka.client_config()

    assert config["sasl.mechanism"] == "PLAIN"
    assert config["security.protocol"] == "SASL_PLAINTEXT"


def test_mutual_tls_config(tmp_path: Path) -> None:
    cert, key = tmp_path / "client.pem", tmp_path / "client.key"
    cert.write_text("c")
    key.write_text("k")
    kafka = KafkaSettings(
        security_protocol="SSL", ssl_certificate_location=cert, ssl_key_location=key
    )

    config = kafka.client_config()

    assert config["ssl.certificate.location"] == str(cert)
    assert config["ssl.key.location"] == str(key)
    assert "sasl.mechanism" not in config


def test_sasl_without_password_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_KAFKA__SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("HALLMON_KAFKA__SASL_USERNAME", "u")

    with pytest.raises(ValidationError, match="HALLMON_KAFKA__SASL_PASSWORD is required"):
        HallmonSettings()


def test_tls_file_with_plaintext_is_rejected(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    with pytest.raises(ValidationError, match="HALLMON_KAFKA__SSL_CA_LOCATION is set but"):
        KafkaSettings(ssl_ca_location=ca)


def test_missing_tls_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match=r"HALLMON_KAFKA__SSL_CA_LOCATION=.*no such file"):
        KafkaSettings(security_protocol="SSL", ssl_ca_location=tmp_path / "absent.pem")


def test_password_stays_out_of_validation_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_KAFKA__SASL_PASSWORD", "top-secret-value")

    with pytest.raises(ValidationError) as raised:
        HallmonSettings()

    assert "top-secret-value" not in str(raised.value)
    assert "HALLMON_KAFKA__SASL_PASSWORD is set but" in str(raised.value)


@pytest.mark.parametrize("value", ["broker", "broker:port", ",", ""])
def test_bad_bootstrap_servers_are_named(value: str) -> None:
    with pytest.raises(ValidationError, match="HALLMON_KAFKA__BOOTSTRAP_SERVERS"):
        KafkaSettings(bootstrap_servers=value)


def test_unknown_group_variable_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_KAFK__BOOTSTRAP_SERVERS", "x:1")
    monkeypatch.setenv("HALLMON_LOCAL_KAFKA_PORT", "19092")  # a script variable, not a setting

    with pytest.raises(ValidationError, match="HALLMON_KAFK__BOOTSTRAP_SERVERS"):
        HallmonSettings()


def test_unknown_env_vars_lists_only_settings_typos() -> None:
    environ = {
        "HALLMON_KAFKA__BOOTSTRAP_SERVERS": "ok",
        "HALLMON_KAFKA__BOOTSTRAP_SERVER": "typo",
        "HALLMON_NOPE__X": "typo",
        "HALLMON_LOCAL_REDIS_PORT": "6380",
        "PATH": "/usr/bin",
    }
    assert unknown_env_vars(environ, HallmonSettings) == [
        "HALLMON_KAFKA__BOOTSTRAP_SERVER",
        "HALLMON_NOPE__X",
    ]


def test_redis_scheme_and_tls_options_are_checked(tmp_path: Path) -> None:
    for name in ("ca.pem", "client.pem", "client.key"):
        (tmp_path / name).write_text("PEM")
    with pytest.raises(ValidationError, match="HALLMON_REDIS__URL"):
        RedisSettings(url="http://cache:6379")
    with pytest.raises(ValidationError, match="HALLMON_REDIS__SSL_CA_CERTS is set but"):
        RedisSettings(url="redis://cache:6379", ssl_ca_certs=tmp_path / "ca.pem")
    with pytest.raises(ValidationError, match=r"HALLMON_REDIS__SSL_CA_CERTS=.*no such file"):
        RedisSettings(url="rediss://cache:6380", ssl_ca_certs=tmp_path / "missing.pem")
    with pytest.raises(ValidationError, match="needs both HALLMON_REDIS__SSL_CERTFILE"):
        RedisSettings(url="rediss://cache:6380", ssl_certfile=tmp_path / "client.pem")
    kwargs = RedisSettings(
        url="rediss://cache:6380",
        password="pw",
        ssl_ca_certs=tmp_path / "ca.pem",
        ssl_certfile=tmp_path / "client.pem",
        ssl_keyfile=tmp_path / "client.key",
    ).client_kwargs()
    assert kwargs["password"] == "pw"
    assert kwargs["ssl_ca_certs"] == str(tmp_path / "ca.pem")
    assert (kwargs["ssl_certfile"], kwargs["ssl_keyfile"]) == (
        str(tmp_path / "client.pem"),
        str(tmp_path / "client.key"),
    )


def test_prefix_that_looks_like_a_default_name_still_prefixes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HALLMON_TOPICS__PREFIX", "hallmon.")
    topics = HallmonSettings().topics
    assert topics.verdicts == "hallmon.hallmon.verdicts"
    assert topics.traces == "hallmon.agent.traces"
    assert TopicNames.model_validate(topics.model_dump()) == topics


def test_producers_hash_keys_like_the_java_client() -> None:
    from hallmon.topology.kafka_client import PRODUCER_DEFAULTS

    assert PRODUCER_DEFAULTS["partitioner"] == "murmur2_random"


def test_oauthbearer_is_refused_with_what_to_use_instead() -> None:
    from hallmon.topology.settings import KafkaSettings
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="SCRAM-SHA-512"):
        KafkaSettings(security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER")
