"""hallmon's Kafka topics: what each one is, and creating the missing ones.

The specs are code; names come from `settings.topics` (so a prefix or a renamed topic applies
everywhere). `ensure_topics` creates what is missing and reports, without changing anything, the
topics that exist with other partitions, replication or configuration: altering a live topic
(fewer partitions is impossible, more partitions re-shuffles keys) is an operator's decision.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from hallmon.topology.settings import TopicNames, env_name

# confluent-kafka is imported where the admin calls are, not here: the worker roles read the
# specs (partitions of the changelog) and need not keep the library (~15 MB) resident.
if TYPE_CHECKING:
    from confluent_kafka.admin import AdminClient

DAY_MS = 24 * 60 * 60 * 1000
MAX_MESSAGE_BYTES = 1_048_588
"""`max.message.bytes` of every hallmon topic, set explicitly (Kafka's default, 1 MiB + the
batch overhead) so the byte budget does not depend on a broker's defaults: the contract's
`max_event_bytes` (900,000) and the assembler's stream budget stay under it, and dead letters
are capped far below it."""

CleanupPolicy = Literal["delete", "compact", "compact,delete"]
TopicStatus = Literal["created", "ok", "drift", "missing"]


@dataclass(frozen=True)
class TopicSpec:
    role: str
    name: str
    partitions: int
    replication_factor: int
    retention_ms: int  # -1 keeps messages forever
    cleanup_policy: CleanupPolicy
    key: str
    purpose: str
    max_message_bytes: int = MAX_MESSAGE_BYTES

    def config(self) -> dict[str, str]:
        """Topic-level configs hallmon sets, and checks, as the broker spells them."""
        return {
            "retention.ms": str(self.retention_ms),
            "cleanup.policy": self.cleanup_policy,
            "max.message.bytes": str(self.max_message_bytes),
        }


def topic_specs(names: TopicNames) -> list[TopicSpec]:
    """All of hallmon's topics, in pipeline order."""
    rf = names.replication_factor
    return [
        TopicSpec(
            role="traces",
            name=names.traces,
            # Input from many agents; the unit of parallelism for the assembler.
            partitions=6,
            replication_factor=rf,
            retention_ms=7 * DAY_MS,
            cleanup_policy="delete",
            key="session_id",
            # Keyed by session: one session stays on one partition, in order.
            purpose="agents' trace events: context, streamed deltas, completions",
        ),
        TopicSpec(
            role="responses",
            name=names.responses,
            partitions=6,
            replication_factor=rf,
            retention_ms=7 * DAY_MS,
            cleanup_policy="delete",
            key="session_id",
            purpose="complete responses assembled from the traces, to verify",
        ),
        TopicSpec(
            role="verdicts",
            name=names.verdicts,
            partitions=6,
            replication_factor=rf,
            retention_ms=30 * DAY_MS,
            cleanup_policy="delete",
            key="session_id",
            purpose="verdicts (not_enforced_streaming): advice to downstream consumers",
        ),
        TopicSpec(
            role="fatigue",
            name=names.fatigue,
            partitions=3,
            replication_factor=rf,
            retention_ms=30 * DAY_MS,
            cleanup_policy="delete",
            key="session_id",
            purpose="session fatigue alerts",
        ),
        TopicSpec(
            role="dlq",
            name=names.dlq,
            partitions=3,
            replication_factor=rf,
            # As long as the traces they come from: a dead letter keeps (up to 64 KiB of) an
            # input's original bytes, which must not outlive the input itself.
            retention_ms=7 * DAY_MS,
            cleanup_policy="delete",
            key="original key",
            purpose="dead letters: reason and the original bytes",
        ),
    ]


@dataclass(frozen=True)
class ObservedTopic:
    """A topic as the cluster reports it."""

    name: str
    partitions: int
    replication_factor: int
    config: Mapping[str, str]


@dataclass(frozen=True)
class Drift:
    topic: str
    setting: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return f"{self.topic}: {self.setting} is {self.actual}, spec says {self.expected}"


@dataclass(frozen=True)
class TopicState:
    spec: TopicSpec
    status: TopicStatus
    observed: ObservedTopic | None = None
    drifts: tuple[Drift, ...] = field(default_factory=tuple)


class TopicAdminError(RuntimeError):
    """Creating or describing topics failed; the message names the topic and what to do."""


def compare(spec: TopicSpec, observed: ObservedTopic) -> list[Drift]:
    """Where an existing topic differs from its spec (empty when it matches)."""
    drifts = []
    if observed.partitions != spec.partitions:
        drifts.append(
            Drift(spec.name, "partitions", str(spec.partitions), str(observed.partitions))
        )
    if observed.replication_factor != spec.replication_factor:
        drifts.append(
            Drift(
                spec.name,
                "replication_factor",
                str(spec.replication_factor),
                str(observed.replication_factor),
            )
        )
    for key, expected in spec.config().items():
        actual = observed.config.get(key, "<unset>")
        if actual != expected:
            drifts.append(Drift(spec.name, key, expected, actual))
    return drifts


def observe(admin: AdminClient, names: Iterable[str], timeout_s: float) -> dict[str, ObservedTopic]:
    """Partitions, replication and configs of those of `names` that exist."""
    from confluent_kafka import KafkaException

    # confluent_kafka.admin re-exports it without __all__, which strict mypy reads as private;
    # imported from where it is defined.
    from confluent_kafka.admin._config import ConfigResource

    wanted = list(names)
    metadata = admin.list_topics(timeout=timeout_s)
    present = {n: metadata.topics[n] for n in wanted if n in metadata.topics}
    present = {n: t for n, t in present.items() if t.error is None}
    if not present:
        return {}
    futures = admin.describe_configs(
        [ConfigResource(ConfigResource.Type.TOPIC, n) for n in present], request_timeout=timeout_s
    )
    configs: dict[str, dict[str, str]] = {}
    for resource, future in futures.items():
        try:
            entries = future.result(timeout=timeout_s)
        except KafkaException as exc:
            raise TopicAdminError(
                f"describing the configs of topic {resource.name!r}: {exc}"
            ) from exc
        configs[resource.name] = {
            key: entry.value for key, entry in entries.items() if entry.value is not None
        }
    observed = {}
    for name, topic in present.items():
        replicas = {len(p.replicas) for p in topic.partitions.values()}
        observed[name] = ObservedTopic(
            name=name,
            partitions=len(topic.partitions),
            # Partitions normally share one factor; report the smallest, the weakest link.
            replication_factor=min(replicas) if replicas else 0,
            config=configs.get(name, {}),
        )
    return observed


def topic_states(
    admin: AdminClient, specs: Sequence[TopicSpec], timeout_s: float = 10.0
) -> list[TopicState]:
    """Each spec with what the cluster has for it; changes nothing."""
    observed = observe(admin, [s.name for s in specs], timeout_s)
    states = []
    for spec in specs:
        seen = observed.get(spec.name)
        if seen is None:
            states.append(TopicState(spec, "missing"))
            continue
        drifts = tuple(compare(spec, seen))
        states.append(TopicState(spec, "drift" if drifts else "ok", seen, drifts))
    return states


def ensure_topics(
    admin: AdminClient, specs: Sequence[TopicSpec], timeout_s: float = 30.0
) -> list[TopicState]:
    """Create the missing topics; report the others as `ok` or `drift`. Safe to run again."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.cimpl import NewTopic

    before = topic_states(admin, specs, timeout_s)
    missing = [s.spec for s in before if s.status == "missing"]
    created: set[str] = set()
    if missing:
        futures = admin.create_topics(
            [
                NewTopic(
                    s.name,
                    num_partitions=s.partitions,
                    replication_factor=s.replication_factor,
                    config=s.config(),
                )
                for s in missing
            ],
            operation_timeout=timeout_s,
            request_timeout=timeout_s,
        )
        for spec in missing:
            try:
                futures[spec.name].result(timeout=timeout_s)
                created.add(spec.name)
            except KafkaException as exc:
                error = exc.args[0] if exc.args else None
                code = error.code() if isinstance(error, KafkaError) else None
                if code == KafkaError.TOPIC_ALREADY_EXISTS:
                    continue  # someone else created it meanwhile; compared below like the others
                hint = ""
                if code == KafkaError.INVALID_REPLICATION_FACTOR:
                    variable = env_name("topics", "replication_factor")
                    hint = f"; set {variable} to at most the number of brokers"
                raise TopicAdminError(f"creating topic {spec.name!r}: {exc}{hint}") from exc
        _wait_for_leaders(admin, [s for s in missing if s.name in created], timeout_s)
    after = {s.spec.name: s for s in topic_states(admin, specs, timeout_s)}
    result = []
    for spec in specs:
        state = after[spec.name]
        if spec.name in created and state.status == "ok":
            state = TopicState(spec, "created", state.observed)
        elif state.status == "missing":
            raise TopicAdminError(f"topic {spec.name!r} still missing after creating it")
        result.append(state)
    return result


def _wait_for_leaders(admin: AdminClient, specs: Sequence[TopicSpec], timeout_s: float) -> None:
    """Return once every new partition has a leader, so clients can use the topics at once."""
    deadline = time.monotonic() + timeout_s
    pending = {s.name: s.partitions for s in specs}
    while pending:
        topics = admin.list_topics(timeout=timeout_s).topics
        for name, partitions in list(pending.items()):
            topic = topics.get(name)
            if (
                topic is not None
                and topic.error is None
                and len(topic.partitions) == partitions
                and all(p.leader >= 0 for p in topic.partitions.values())
            ):
                del pending[name]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise TopicAdminError(
                f"created topics {sorted(pending)} have no leader after {timeout_s:g}s; "
                "check the broker log"
            )
        time.sleep(0.1)


def format_retention(retention_ms: int | str) -> str:
    """`604800000` -> `7d`, for tables."""
    ms = int(retention_ms)
    if ms < 0:
        return "forever"
    for unit, size in (("d", DAY_MS), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"
