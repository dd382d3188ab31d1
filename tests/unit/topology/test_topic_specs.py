"""Topic specs and the drift comparison, without a broker."""

from __future__ import annotations

from hallmon.topology.settings import TopicNames
from hallmon.topology.topics import (
    DAY_MS,
    MAX_MESSAGE_BYTES,
    Drift,
    ObservedTopic,
    compare,
    format_retention,
    topic_specs,
)


def test_every_role_has_one_spec_with_the_configured_name() -> None:
    names = TopicNames(prefix="p.", replication_factor=3)
    specs = topic_specs(names)

    assert [s.role for s in specs] == ["traces", "responses", "verdicts", "fatigue", "dlq"]
    assert {s.role: s.name for s in specs} == names.by_role()
    assert all(s.replication_factor == 3 for s in specs)


def test_traces_are_keyed_by_session_on_six_partitions() -> None:
    traces = next(s for s in topic_specs(TopicNames()) if s.role == "traces")
    assert traces.name == "agent.traces"
    assert traces.partitions == 6
    assert traces.key == "session_id"


def test_dead_letters_do_not_outlive_the_traces_they_copy() -> None:
    specs = {s.role: s for s in topic_specs(TopicNames())}
    assert specs["dlq"].retention_ms == specs["traces"].retention_ms == 7 * DAY_MS
    assert specs["dlq"].config() == {
        "retention.ms": str(specs["dlq"].retention_ms),
        "cleanup.policy": "delete",
        "max.message.bytes": str(MAX_MESSAGE_BYTES),
    }


def test_every_topic_sets_its_byte_limit_above_the_contract_budget() -> None:
    from hallmon.schemas import DEFAULT_LIMITS
    from hallmon.schemas.deadletter import DEAD_LETTER_VALUE_BYTES

    for spec in topic_specs(TopicNames()):
        assert spec.config()["max.message.bytes"] == str(MAX_MESSAGE_BYTES)
    assert DEFAULT_LIMITS.max_event_bytes < MAX_MESSAGE_BYTES
    assert DEAD_LETTER_VALUE_BYTES * 4 // 3 + 20_000 < MAX_MESSAGE_BYTES


def test_compare_finds_nothing_when_the_topic_matches() -> None:
    spec = topic_specs(TopicNames())[0]
    observed = ObservedTopic(spec.name, spec.partitions, spec.replication_factor, spec.config())
    assert compare(spec, observed) == []


def test_compare_names_each_difference() -> None:
    spec = topic_specs(TopicNames())[0]
    observed = ObservedTopic(
        spec.name, partitions=2, replication_factor=1, config={"cleanup.policy": "compact"}
    )

    drifts = compare(spec, observed)

    assert drifts == [
        Drift(spec.name, "partitions", "6", "2"),
        Drift(spec.name, "retention.ms", str(7 * DAY_MS), "<unset>"),
        Drift(spec.name, "cleanup.policy", "delete", "compact"),
        Drift(spec.name, "max.message.bytes", str(MAX_MESSAGE_BYTES), "<unset>"),
    ]
    assert str(drifts[0]) == "agent.traces: partitions is 2, spec says 6"


def test_format_retention() -> None:
    assert format_retention(7 * DAY_MS) == "7d"
    assert format_retention("3600000") == "1h"
    assert format_retention(1500) == "1500ms"
    assert format_retention(-1) == "forever"
