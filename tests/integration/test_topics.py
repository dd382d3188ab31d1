"""`hallmon topics create|list` against a real broker, run as the installed command."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from hallmon.topology.settings import HallmonSettings
from hallmon.topology.topics import TopicSpec, observe, topic_specs

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _hallmon_command() -> list[str]:
    # The console script next to this interpreter (the venv's), else the one on PATH.
    beside = Path(sys.executable).with_name("hallmon")
    found = str(beside) if beside.exists() else shutil.which("hallmon")
    if found is None:
        pytest.fail("the `hallmon` command is not installed: run `make install`")
    return [found]


def hallmon(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_hallmon_command(), *args],
        env={**env, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _assert_matches_spec(admin: AdminClient, specs: list[TopicSpec]) -> None:
    observed = observe(admin, [s.name for s in specs], timeout_s=10)
    for spec in specs:
        assert spec.name in observed, f"{spec.name} was not created"
        topic = observed[spec.name]
        assert topic.partitions == spec.partitions, spec.name
        assert topic.replication_factor == spec.replication_factor, spec.name
        assert topic.config["retention.ms"] == str(spec.retention_ms), spec.name
        assert topic.config["cleanup.policy"] == spec.cleanup_policy, spec.name


def test_create_makes_every_topic_as_specified(
    hallmon_env: dict[str, str], hallmon_settings: HallmonSettings, kafka_admin: AdminClient
) -> None:
    specs = topic_specs(hallmon_settings.topics)
    assert all(s.name.startswith(hallmon_settings.topics.prefix) for s in specs)

    run = hallmon(hallmon_env, "topics", "create")

    assert run.returncode == 0, run.stderr
    assert "created 5, unchanged 0, differing from spec 0" in run.stdout
    _assert_matches_spec(kafka_admin, specs)
    traces = next(s for s in specs if s.role == "traces")
    assert traces.partitions == 6


def test_second_create_changes_nothing(
    hallmon_env: dict[str, str], hallmon_settings: HallmonSettings, kafka_admin: AdminClient
) -> None:
    specs = topic_specs(hallmon_settings.topics)
    first = hallmon(hallmon_env, "topics", "create")
    assert first.returncode == 0, first.stderr
    before = observe(kafka_admin, [s.name for s in specs], timeout_s=10)

    second = hallmon(hallmon_env, "topics", "create")

    assert second.returncode == 0, second.stderr
    assert "created 0, unchanged 5, differing from spec 0" in second.stdout
    assert "drift" not in second.stderr
    after = observe(kafka_admin, [s.name for s in specs], timeout_s=10)
    assert after == before


def test_create_reports_a_differing_topic_and_leaves_it_alone(
    hallmon_env: dict[str, str], hallmon_settings: HallmonSettings, kafka_admin: AdminClient
) -> None:
    from confluent_kafka.cimpl import NewTopic

    traces = hallmon_settings.topics.traces
    made = kafka_admin.create_topics(
        [
            NewTopic(
                traces, num_partitions=2, replication_factor=1, config={"retention.ms": "3600000"}
            )
        ]
    )
    made[traces].result(timeout=30)

    run = hallmon(hallmon_env, "topics", "create")

    assert run.returncode == 0, run.stderr
    assert "created 4, unchanged 0, differing from spec 1" in run.stdout
    assert f"{traces}: partitions is 2, spec says 6" in run.stderr
    assert f"{traces}: retention.ms is 3600000, spec says 604800000" in run.stderr
    assert observe(kafka_admin, [traces], timeout_s=10)[traces].partitions == 2

    strict = hallmon(hallmon_env, "topics", "create", "--strict")
    assert strict.returncode == 2, strict.stdout + strict.stderr


def test_list_shows_missing_then_present_topics(
    hallmon_env: dict[str, str], hallmon_settings: HallmonSettings
) -> None:
    before = hallmon(hallmon_env, "topics", "list")
    assert before.returncode == 0, before.stderr
    assert "5 missing: run `hallmon topics create`" in before.stdout

    assert hallmon(hallmon_env, "topics", "create").returncode == 0
    after = hallmon(hallmon_env, "topics", "list")

    assert after.returncode == 0, after.stderr
    assert "missing" not in after.stdout
    for name in hallmon_settings.topics.by_role().values():
        line = next(line for line in after.stdout.splitlines() if name in line)
        assert " ok " in line, line


def test_unreachable_broker_is_a_clear_error(hallmon_env: dict[str, str]) -> None:
    env = {**hallmon_env, "HALLMON_KAFKA__BOOTSTRAP_SERVERS": "127.0.0.1:1"}

    run = hallmon(env, "topics", "list", "--timeout", "2")

    assert run.returncode == 1
    message = " ".join(run.stderr.split())
    assert "cannot reach Kafka at 127.0.0.1:1 (HALLMON_KAFKA__BOOTSTRAP_SERVERS)" in message
    assert "make services" in message
