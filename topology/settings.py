"""hallmon's one settings object, read from `HALLMON_*` environment variables.

Each concern is a nested group, reached as `settings.kafka`, `settings.topics`, `settings.redis`,
`settings.otel`; a group's fields are set as `HALLMON_<GROUP>__<FIELD>`, e.g.
`HALLMON_KAFKA__BOOTSTRAP_SERVERS=broker-1:9092,broker-2:9092`. Defaults run against the local
services that `deploy/local/services.sh` starts.

To add a group: define a `BaseModel` subclass with defaults for every field and add it as a
plain (not Optional) field of `HallmonSettings`; environment parsing, validation and the
unknown-variable check follow.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Self
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "HALLMON_"
ENV_NESTED_DELIMITER = "__"

SecurityProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI"]

# confluent-kafka accepts str, int, float, bool and callables as config values.
KafkaConfig = dict[str, str | int | float | bool]


def env_name(group: str, field: str) -> str:
    """The environment variable that sets `settings.<group>.<field>`."""
    return f"{ENV_PREFIX}{group.upper()}{ENV_NESTED_DELIMITER}{field.upper()}"


class _Group(BaseModel):
    # A misspelt key in a JSON value (HALLMON_KAFKA='{"bootstrap_server": ...}') is an error,
    # not a silently ignored setting.
    # Inputs stay out of error messages: they can hold passwords.
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)


class KafkaSettings(_Group):
    """How to reach the Kafka cluster (`HALLMON_KAFKA__*`)."""

    bootstrap_servers: str = Field(
        default="127.0.0.1:9092",
        description="Comma-separated host:port list of brokers to bootstrap from.",
    )
    client_id: str = Field(default="hallmon", description="Client id the brokers see in logs.")
    linger_ms: float = Field(
        default=0.0,
        ge=0.0,
        le=1000.0,
        description="How long the workers' producer waits to gather records into one request. "
        "Every output and every assembler table write waits up to this long before it is "
        "sent; larger values mean fewer, larger requests under load.",
    )
    recovery_stall_s: float = Field(
        default=60.0,
        ge=5.0,
        le=3600.0,
        description="How long a table restore may receive no changelog record before its "
        "reads are restarted; after twice this long the worker exits (75) to be restarted.",
    )
    security_protocol: SecurityProtocol = Field(
        default="PLAINTEXT", description="PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."
    )
    sasl_mechanism: SaslMechanism | None = Field(
        default=None,
        description="SASL mechanism; PLAIN when a SASL protocol is chosen and this is unset.",
    )
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    ssl_ca_location: Path | None = Field(
        default=None, description="CA bundle (PEM) to verify the brokers; system CAs when unset."
    )
    ssl_certificate_location: Path | None = Field(
        default=None, description="Client certificate (PEM) for mutual TLS."
    )
    ssl_key_location: Path | None = Field(
        default=None, description="Client private key (PEM) for mutual TLS."
    )
    ssl_key_password: SecretStr | None = None

    @field_validator("bootstrap_servers")
    @classmethod
    def _check_bootstrap(cls, value: str) -> str:
        servers = [s.strip() for s in value.split(",") if s.strip()]
        bad = [
            s for s in servers if s.rpartition(":")[0] == "" or not s.rpartition(":")[2].isdigit()
        ]
        if not servers or bad:
            raise ValueError(
                f"{env_name('kafka', 'bootstrap_servers')}={value!r}: expected a comma-separated "
                f"list of host:port, e.g. 127.0.0.1:9092 (bad entries: {bad or 'none given'})"
            )
        return ",".join(servers)

    @model_validator(mode="after")
    def _check_security(self) -> Self:
        uses_sasl = self.security_protocol.startswith("SASL_")
        uses_ssl = self.security_protocol.endswith("SSL")
        proto = f"{env_name('kafka', 'security_protocol')}={self.security_protocol}"
        if not uses_sasl:
            for field in ("sasl_mechanism", "sasl_username", "sasl_password"):
                if getattr(self, field) is not None:
                    raise ValueError(
                        f"{env_name('kafka', field)} is set but {proto} does not use SASL: "
                        "set the protocol to SASL_PLAINTEXT or SASL_SSL, or unset the variable"
                    )
        if not uses_ssl:
            for field in (
                "ssl_ca_location",
                "ssl_certificate_location",
                "ssl_key_location",
                "ssl_key_password",
            ):
                if getattr(self, field) is not None:
                    raise ValueError(
                        f"{env_name('kafka', field)} is set but {proto} does not use TLS: "
                        "set the protocol to SSL or SASL_SSL, or unset the variable"
                    )
        mechanism = self.effective_sasl_mechanism
        if mechanism == "OAUTHBEARER":
            # Nothing in hallmon supplies a token: the workers would fail at the first
            # connection instead of here.
            raise ValueError(
                f"{env_name('kafka', 'sasl_mechanism')}=OAUTHBEARER is not supported: hallmon "
                "ships no OAuth token provider; use SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN over "
                "SASL_SSL"
            )
        if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
            for field in ("sasl_username", "sasl_password"):
                if getattr(self, field) is None:
                    raise ValueError(
                        f"{env_name('kafka', field)} is required with {proto} and SASL "
                        f"mechanism {mechanism}"
                    )
        if (self.ssl_certificate_location is None) != (self.ssl_key_location is None):
            raise ValueError(
                f"mutual TLS needs both {env_name('kafka', 'ssl_certificate_location')} and "
                f"{env_name('kafka', 'ssl_key_location')}; only one is set"
            )
        for field in ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location"):
            path: Path | None = getattr(self, field)
            if path is not None and not path.is_file():
                raise ValueError(f"{env_name('kafka', field)}={path}: no such file")
        return self

    @property
    def effective_sasl_mechanism(self) -> SaslMechanism | None:
        if not self.security_protocol.startswith("SASL_"):
            return None
        return self.sasl_mechanism or "PLAIN"

    def client_config(self) -> KafkaConfig:
        """The confluent-kafka (librdkafka) configuration common to producers, consumers, admin."""
        config: KafkaConfig = {
            "bootstrap.servers": self.bootstrap_servers,
            "client.id": self.client_id,
            "security.protocol": self.security_protocol,
        }
        mechanism = self.effective_sasl_mechanism
        if mechanism is not None:
            config["sasl.mechanism"] = mechanism
            if self.sasl_username is not None:
                config["sasl.username"] = self.sasl_username
            if self.sasl_password is not None:
                config["sasl.password"] = self.sasl_password.get_secret_value()
        optional: dict[str, Path | SecretStr | None] = {
            "ssl.ca.location": self.ssl_ca_location,
            "ssl.certificate.location": self.ssl_certificate_location,
            "ssl.key.location": self.ssl_key_location,
            "ssl.key.password": self.ssl_key_password,
        }
        for key, value in optional.items():
            if isinstance(value, SecretStr):
                config[key] = value.get_secret_value()
            elif value is not None:
                config[key] = str(value)
        return config


TOPIC_ROLES = ("traces", "responses", "verdicts", "fatigue", "dlq")


class TopicNames(_Group):
    """The one place that knows topic names (`HALLMON_TOPICS__*`).

    `prefix` is prepended to every name (e.g. `staging.` on a shared cluster, or a unique prefix
    per test run), so `settings.topics.traces` is always the full name to use.
    """

    prefix: str = Field(default="", description="Prepended to every topic name.")
    traces: str = Field(default="agent.traces", description="Input: agents' trace events.")
    responses: str = Field(default="hallmon.responses", description="Assembled responses.")
    verdicts: str = Field(default="hallmon.verdicts", description="Verdicts (advice, not gates).")
    fatigue: str = Field(default="hallmon.fatigue", description="Session fatigue alerts.")
    dlq: str = Field(default="hallmon.dlq", description="Dead letters: reason + original bytes.")
    replication_factor: int = Field(
        default=1, ge=1, description="Replicas per partition when hallmon creates its topics."
    )

    @model_validator(mode="before")
    @classmethod
    def _apply_prefix(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or not data.get("prefix"):
            return data
        prefix = str(data["prefix"])
        resolved = dict(data)
        for role in TOPIC_ROLES:
            if role not in data:
                # A default name always gets the prefix, even one that starts like it
                # (prefix "hallmon." on "hallmon.verdicts" gives "hallmon.hallmon.verdicts").
                resolved[role] = prefix + str(cls.model_fields[role].default)
                continue
            name = str(data[role])
            # startswith keeps this idempotent when a resolved model is validated again.
            resolved[role] = name if name.startswith(prefix) else prefix + name
        return resolved

    @model_validator(mode="after")
    def _check_names(self) -> Self:
        for role in TOPIC_ROLES:
            name: str = getattr(self, role)
            legal = all(c.isalnum() or c in "._-" for c in name)
            if not name or len(name) > 249 or not legal or name in (".", ".."):
                raise ValueError(
                    f"{env_name('topics', role)}: {name!r} is not a legal Kafka topic name "
                    "(1-249 characters from a-z A-Z 0-9 . _ -)"
                )
        names = [getattr(self, role) for role in TOPIC_ROLES]
        if len(set(names)) != len(names):
            raise ValueError(f"{ENV_PREFIX}TOPICS__*: two roles share one topic name: {names}")
        return self

    def by_role(self) -> dict[str, str]:
        return {role: getattr(self, role) for role in TOPIC_ROLES}


class RedisSettings(_Group):
    """How to reach Redis (`HALLMON_REDIS__*`)."""

    url: str = Field(
        default="redis://127.0.0.1:6379/0",
        description="redis://[user:password@]host:port/db; rediss:// for TLS.",
    )
    password: SecretStr | None = Field(
        default=None, description="Password, if it is kept out of the URL."
    )
    ssl_ca_certs: Path | None = Field(
        default=None, description="CA bundle (PEM) to verify a rediss:// server."
    )
    ssl_certfile: Path | None = Field(
        default=None, description="Client certificate (PEM) for a server that verifies clients."
    )
    ssl_keyfile: Path | None = Field(default=None, description="Client private key (PEM).")
    socket_timeout_s: float = Field(default=5.0, gt=0)

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(
                f"{env_name('redis', 'url')}: scheme {parts.scheme!r} is not supported; use "
                "redis:// (plain), rediss:// (TLS) or unix://"
            )
        return value

    @model_validator(mode="after")
    def _check_tls(self) -> Self:
        tls_files = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile")
        for field in tls_files:
            path: Path | None = getattr(self, field)
            if path is None:
                continue
            if urlsplit(self.url).scheme != "rediss":
                raise ValueError(
                    f"{env_name('redis', field)} is set but {env_name('redis', 'url')} "
                    "does not use TLS: use a rediss:// URL or unset the variable"
                )
            if not path.is_file():
                raise ValueError(f"{env_name('redis', field)}={path}: no such file")
        if (self.ssl_certfile is None) != (self.ssl_keyfile is None):
            raise ValueError(
                f"a client certificate needs both {env_name('redis', 'ssl_certfile')} and "
                f"{env_name('redis', 'ssl_keyfile')}; only one is set"
            )
        return self

    @property
    def uses_tls(self) -> bool:
        return urlsplit(self.url).scheme == "rediss"

    def redacted_url(self) -> str:
        """The URL with any password replaced, for logs and error messages."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))

    def client_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `redis.Redis.from_url(settings.redis.url, **kwargs)`."""
        kwargs: dict[str, Any] = {
            "socket_timeout": self.socket_timeout_s,
            "socket_connect_timeout": self.socket_timeout_s,
        }
        if self.password is not None:
            kwargs["password"] = self.password.get_secret_value()
        if self.ssl_ca_certs is not None:
            kwargs["ssl_ca_certs"] = str(self.ssl_ca_certs)
        if self.ssl_certfile is not None and self.ssl_keyfile is not None:
            kwargs["ssl_certfile"] = str(self.ssl_certfile)
            kwargs["ssl_keyfile"] = str(self.ssl_keyfile)
        return kwargs


class OtelSettings(_Group):
    """OpenTelemetry export (`HALLMON_OTEL__*`); nothing is exported while the endpoint is unset."""

    exporter_endpoint: str | None = Field(
        default=None, description="OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318."
    )
    service_name: str = "hallmon"
    prometheus_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Workers serve Prometheus /metrics on this port when set.",
    )


class AssemblerSettings(_Group):
    """The assembler of streamed answers (`HALLMON_ASSEMBLER__*`)."""

    app_id: str = Field(
        default="hallmon-assembler",
        description="faust app id: the consumer group on the traces topic and the table's prefix.",
    )
    stream_timeout_s: float = Field(
        default=30.0, gt=0, description="An open stream with no event for this long is closed."
    )
    completion_wait_s: float = Field(
        default=5.0,
        gt=0,
        description="After response.completed, how long (stream time) missing chunks are waited "
        "for; a stream spread over partitions (events not keyed by session) also waits this long "
        "for its context.",
    )
    max_open_streams: int = Field(default=10_000, gt=0, description="Open streams per worker.")
    max_stream_chars: int = Field(default=50_000, gt=0, description="Answer characters a stream.")
    max_stream_events: int = Field(default=4_096, gt=0, description="Events (deltas + context).")
    closed_retention_s: float = Field(
        default=900.0, gt=0, description="How long a closed stream's tombstone stops late events."
    )
    scan_interval_s: float = Field(default=1.0, gt=0, description="Timeout scan period.")


class VerifierWorkerSettings(_Group):
    """The verifier agent (`HALLMON_VERIFIER_WORKER__*`)."""

    app_id: str = Field(
        default="hallmon-verifier", description="faust app id: the consumer group on responses."
    )
    concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Answers verified at once per worker; from the host plan when unset.",
    )
    max_batch_pairs: int | None = Field(
        default=None, ge=1, description="NLI pairs per model call; from the host plan when unset."
    )
    max_wait_ms: float | None = Field(
        default=None,
        ge=0,
        description="Wait to fill an NLI batch; from the host plan when unset (0 with one row "
        "per model call, where a fuller batch saves nothing, else 5).",
    )
    max_pending_pairs: int = Field(
        default=2_048, ge=1, description="NLI pairs queued or running before answers wait."
    )
    max_concurrent_batches: int = Field(default=1, ge=1, description="Model calls at once.")
    pair_cache_size: int = Field(
        default=4_096,
        ge=0,
        description="Recently judged (passage, claim) pairs remembered across answers (0: off).",
    )


class FatigueSettings(_Group):
    """Session fatigue in Redis (`HALLMON_FATIGUE__*`)."""

    app_id: str = Field(
        default="hallmon-fatigue", description="faust app id: the consumer group on verdicts."
    )

    ttl_s: int = Field(default=7 * 24 * 3600, gt=0, description="Fatigue keys expire after this.")
    max_series: int = Field(default=200, gt=0, description="Answers kept per session series.")
    window: int = Field(default=8, ge=2, description="Recent answers the trend is computed over.")
    min_points: int = Field(default=4, ge=2, description="Fewest recent answers for a trend.")
    recent_rate: float = Field(default=0.5, gt=0, description="Recent unsupported rate alert.")
    turn_slope: float = Field(default=0.05, gt=0, description="Rate rise per turn alert.")
    context_slope: float = Field(default=0.05, gt=0, description="Rate rise per 1k tokens alert.")
    rearm_fraction: float = Field(default=0.8, gt=0, le=1, description="Re-arm below this share.")
    slope_min_rate: float = Field(
        default=0.25, ge=0, le=1, description="Slopes alert only from this recent rate up."
    )
    turn_ranges: tuple[int, ...] = Field(
        default=(0, 5, 10, 20, 40), description="Fleet bucket edges by turn (JSON list)."
    )
    context_ranges: tuple[int, ...] = Field(
        default=(0, 2_000, 8_000, 32_000, 128_000),
        description="Fleet bucket edges by context tokens (JSON list).",
    )
    key_prefix: str = Field(default="hallmon", min_length=1, description="Redis key prefix.")
    loop_slope: float = Field(default=0.05, gt=0, description="Rate rise per loop step alert.")
    loop_ranges: tuple[int, ...] = Field(
        default=(0, 1, 3, 6, 11), description="Fleet bucket edges by loop step (JSON list)."
    )
    citation_min_precision: float = Field(
        default=0.5, ge=0, lt=1, description="Recent citation precision at or under this alerts."
    )
    citation_slope: float = Field(
        default=0.05, gt=0, description="Precision fall per turn / 1k tokens / loop step alert."
    )
    citation_slope_max_precision: float = Field(
        default=0.75, ge=0, le=1, description="Precision slopes alert only under this precision."
    )
    contradiction_rate: float = Field(
        default=0.2, gt=0, le=1, description="Recent share of claims contradicting earlier ones."
    )
    contradiction_slope: float = Field(
        default=0.03, gt=0, description="Contradiction rate rise per turn / 1k tokens / step."
    )
    contradiction_slope_min_rate: float = Field(
        default=0.1, ge=0, le=1, description="Contradiction slopes alert only from this rate up."
    )

    recent_verdicts: int = Field(
        default=200, ge=0, description="Latest verdicts kept in Redis for the dashboard."
    )


class ConflictSettings(_Group):
    """Internal contradictions, checked by the verifier (`HALLMON_CONFLICTS__*`)."""

    enabled: bool = Field(default=True, description="Compare claims with the session's earlier.")
    window: int = Field(default=20, ge=1, le=200, description="Earlier answers compared with.")
    max_claims_per_answer: int = Field(
        default=32, ge=1, le=256, description="Claims of one answer kept for later answers."
    )
    max_pairs: int = Field(
        default=16,
        ge=2,
        le=256,
        description="NLI pairs per answer (candidates read both ways).",
    )
    min_shared_words: int = Field(
        default=2, ge=1, description="Content words a pair must share to be compared."
    )
    min_overlap: float = Field(
        default=0.5, ge=0, le=1, description="Share of the shorter claim's words shared too."
    )
    threshold: float = Field(
        default=0.7,
        gt=0,
        lt=1,
        description="Mean contradiction of both ways that is a conflict.",
    )
    ttl_s: int = Field(default=7 * 24 * 3600, gt=0, description="Claim store keys expire after.")
    redis_timeout_s: float = Field(
        default=1.0, gt=0, description="Wait for the claim store; then the check is not done."
    )
    key_prefix: str = Field(default="hallmon", min_length=1, description="Redis key prefix.")


class LimitsSettings(_Group):
    """Contract size limits (`HALLMON_LIMITS__*`); see `hallmon.schemas.Limits`."""

    max_text_chars: int = Field(default=200_000, gt=0)
    max_context_items: int = Field(default=256, gt=0)
    max_answer_chars: int = Field(default=50_000, gt=0)
    max_event_bytes: int = Field(default=900_000, gt=0)
    max_json_depth: int = Field(default=32, gt=0, le=128)


class ModelSettings(_Group):
    """The NLI model (`HALLMON_MODEL__*`); `path` is also read by `onnx_models.runtime`."""

    path: Path | None = Field(
        default=None,
        description="NLI model directory with manifest.json; the shipped one if unset.",
    )
    labels: tuple[str, str, str] | None = Field(
        default=None, description="The model's logits order, overriding the manifest (JSON list)."
    )
    max_length: int | None = Field(
        default=None, ge=8, description="Token window, overriding the manifest."
    )
    threads: int | None = Field(
        default=None,
        ge=1,
        description="onnxruntime intra-op threads; the host plan's (workers/host.py) when unset.",
    )
    rows_per_call: int = Field(
        default=1,
        ge=1,
        le=256,
        description="Pairs per onnxruntime call; 1 keeps each pair's scores independent of the "
        "others in its batch, more buckets rows by length.",
    )


class VerifierSettings(_Group):
    """Verification itself (`HALLMON_VERIFIER__*`): the stages in hallmon/verification/."""

    calibration_path: Path | None = Field(
        default=None,
        description="Calibration file; hallmon/verification/calibration.json if unset.",
    )
    top_k: int | None = Field(
        default=None,
        ge=1,
        le=32,
        description="Passages per claim; the calibration file's if unset.",
    )
    max_claims: int = Field(
        default=256, ge=1, description="Claims judged per answer; the rest are reported unclear."
    )
    batch_size: int = Field(default=32, ge=1, description="NLI pairs per model call in verify().")
    answer_budget_s: float = Field(
        default=10.0,
        ge=0,
        description="Hard limit on one answer's CPU-bound verification (claims, evidence, "
        "checks) in the verifier worker; over it the verdict is unavailable/evaluation_failed. "
        "0 runs it inline without a limit.",
    )
    prepare_processes: int = Field(
        default=1, ge=1, description="Processes that run answers under the budget."
    )
    skip_decided_claims: bool = Field(
        default=True,
        description="Skip the NLI model for claims a failed deterministic check already decides.",
    )
    retrieval_ratio: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="Judge a claim's passages down to this share of its best retrieval score "
        "(0: all top_k; 0.3 kept the regression gate's F1 with a third fewer pairs).",
    )
    early_stop_entailment: float = Field(
        default=0.9,
        ge=0,
        le=1,
        description="A claim whose best passage entails it with this probability is settled "
        "without judging its other passages (0: off).",
    )
    unsupported_actions: tuple[Literal["allow", "warn", "block"], ...] = Field(
        default=("warn", "block"),
        description="Actions that count an answer as unsupported (eval, fatigue; JSON list).",
    )
    max_action: Literal["allow", "warn", "block"] = Field(
        default="block",
        description="Safe mode: the strongest action published; `warn` stops `block` advice.",
    )


class ServeSettings(_Group):
    """`hallmon serve`, the HTTP API and dashboard (`HALLMON_SERVE__*`)."""

    host: str = Field(default="127.0.0.1", description="Address to bind.")
    port: int = Field(default=8080, ge=1, le=65535, description="Port to bind.")
    token: SecretStr | None = Field(
        default=None,
        description="Bearer token every API call must carry (probes excepted); off when unset.",
    )
    cors_origins: tuple[str, ...] = Field(
        default=(), description="Origins allowed by CORS (JSON list); CORS is off when empty."
    )
    max_request_bytes: int = Field(
        default=4_000_000, gt=0, description="Largest request body; larger ones get 413."
    )
    check_timeout_s: float = Field(
        default=15.0, gt=0, description="Time budget of one check; over it the answer is 503."
    )
    max_concurrent_checks: int = Field(
        default=8, ge=1, description="Checks prepared at once; the rest wait inside the budget."
    )
    max_sessions_ranked: int = Field(
        default=500, ge=1, description="Most recent sessions /sessions ranks by trend."
    )


class HallmonSettings(BaseSettings):
    """All of hallmon's configuration. Build it with `get_settings()`."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_NESTED_DELIMITER,
        case_sensitive=False,
        frozen=True,
        hide_input_in_errors=True,
    )

    kafka: KafkaSettings = KafkaSettings()
    topics: TopicNames = TopicNames()
    redis: RedisSettings = RedisSettings()
    otel: OtelSettings = OtelSettings()
    assembler: AssemblerSettings = AssemblerSettings()
    verifier_worker: VerifierWorkerSettings = VerifierWorkerSettings()
    fatigue: FatigueSettings = FatigueSettings()
    limits: LimitsSettings = LimitsSettings()
    model: ModelSettings = ModelSettings()
    verifier: VerifierSettings = VerifierSettings()
    conflicts: ConflictSettings = ConflictSettings()
    serve: ServeSettings = ServeSettings()

    @model_validator(mode="after")
    def _reject_unknown_env(self) -> Self:
        unknown = unknown_env_vars(os.environ, type(self))
        if unknown:
            raise ValueError(
                f"unknown setting(s) {', '.join(unknown)}: check the spelling against the "
                "configuration table in README.md, or unset them"
            )
        return self


def unknown_env_vars(environ: Mapping[str, str], model: type[BaseSettings]) -> list[str]:
    """`HALLMON_<GROUP>__<FIELD>` variables that name no group or field (typos would be ignored).

    Variables without the nested delimiter (e.g. `HALLMON_LOCAL_KAFKA_PORT`, read by the local
    service scripts) are not settings and are left alone.
    """
    unknown = []
    for key in environ:
        upper = key.upper()
        if not upper.startswith(ENV_PREFIX) or ENV_NESTED_DELIMITER not in upper:
            continue
        group, _, rest = upper[len(ENV_PREFIX) :].partition(ENV_NESTED_DELIMITER)
        field = rest.split(ENV_NESTED_DELIMITER, 1)[0]
        group_field = model.model_fields.get(group.lower())
        annotation = group_field.annotation if group_field is not None else None
        is_group = isinstance(annotation, type) and issubclass(annotation, BaseModel)
        if not is_group or field.lower() not in annotation.model_fields:  # type: ignore[union-attr]
            unknown.append(key)
    return sorted(unknown)


@lru_cache(maxsize=1)
def get_settings() -> HallmonSettings:
    """The process-wide settings, read from the environment once.

    Tests that change the environment call `get_settings.cache_clear()`.
    """
    return HallmonSettings()
