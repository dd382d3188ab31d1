"""`hallmon worker`: the host-roles option and the supervisor of all roles."""

from __future__ import annotations

import os
import sys

import pytest
from typer.testing import CliRunner

from hallmon.cli import app

runner = CliRunner()


def test_unknown_host_role_is_refused_with_the_roles_to_use() -> None:
    result = runner.invoke(app, ["worker", "--role", "verifier", "--host-roles", "scheduler"])
    assert result.exit_code == 2
    assert "'scheduler' is not a hallmon role" in " ".join(result.output.split())


def test_all_roles_exec_the_small_supervisor(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def fake_execv(path: str, argv: list[str]) -> None:
        seen.append([path, *argv])
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", fake_execv)
    result = runner.invoke(app, ["worker", "--loglevel", "info"])
    assert result.exit_code == 0
    assert seen == [
        [sys.executable, sys.executable, "-m", "hallmon.workers.runner", "--loglevel", "info"]
    ]


def test_the_supervisor_imports_no_heavy_module() -> None:
    import subprocess

    code = (
        "import sys, hallmon.workers.runner; "
        "print(sorted(m for m in ('faust', 'onnxruntime', 'pydantic', 'confluent_kafka', 'numpy') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_one_role_execs_the_runner_with_its_host_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def fake_execv(path: str, argv: list[str]) -> None:
        seen.append(argv)
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", fake_execv)
    result = runner.invoke(app, ["worker", "--role", "verifier", "--host-roles", "all"])
    assert result.exit_code == 0
    assert seen == [
        [
            sys.executable,
            "-m",
            "hallmon.workers.runner",
            "--loglevel",
            "warning",
            "--role",
            "verifier",
            "--host-roles",
            "assembler,verifier,fatigue",
        ]
    ]


def test_a_role_process_keeps_neither_the_cli_nor_confluent_kafka() -> None:
    """The roles run on aiokafka (faust); the topic check that needs confluent-kafka runs once,
    in a process of its own, so each role is ~20 MB smaller."""
    import subprocess

    code = (
        "import sys\n"
        "from hallmon.topology.settings import HallmonSettings\n"
        "from hallmon.workers.runner import build_app\n"
        "for role in ('assembler', 'fatigue'):\n"
        "    build_app(HallmonSettings(), role)\n"
        "print(sorted(m for m in ('confluent_kafka', 'typer', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_topic_step_says_in_one_line_that_kafka_is_unreachable() -> None:
    import subprocess

    env = {**os.environ, "HALLMON_KAFKA__BOOTSTRAP_SERVERS": "127.0.0.1:1"}
    out = subprocess.run(
        [sys.executable, "-m", "hallmon.workers.runner", "--ensure-topics"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 2
    assert "hallmon worker: error: cannot reach Kafka at 127.0.0.1:1" in out.stderr
    assert "Traceback" not in out.stderr
