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
