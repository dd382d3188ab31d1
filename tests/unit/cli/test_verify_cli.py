"""`hallmon check`, `hallmon eval`, `hallmon calibrate`: input errors and a missing model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hallmon.cli import app

runner = CliRunner()


def said(output: str) -> str:
    """The output with rich's line wrapping undone."""
    return " ".join(output.split())


ANSWER = {
    "text": "Returns are accepted within 14 days of delivery.",
    "context": {"documents": [{"source_id": "policy", "text": "Returns within 14 days."}]},
}


@pytest.fixture
def no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    missing = tmp_path / "no-model"
    monkeypatch.setenv("HALLMON_MODEL__PATH", str(missing))
    from hallmon.topology.settings import get_settings

    get_settings.cache_clear()
    yield missing
    get_settings.cache_clear()


def test_check_without_a_model_says_how_to_get_one(tmp_path: Path, no_model: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(ANSWER), encoding="utf-8")
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 2
    assert "no NLI model" in said(result.output)
    assert "HALLMON_MODEL__PATH" in said(result.output)


def test_check_rejects_input_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text("{not json", encoding="utf-8")
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 2
    assert "is not JSON" in said(result.output)


def test_check_names_the_missing_field(tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps({"context": {}}), encoding="utf-8")
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 2
    assert "text" in said(result.output)


def test_eval_rejects_an_unknown_split(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["eval", str(data), "--split", "dev"])
    assert result.exit_code == 2
    assert "not one of" in said(result.output)


def test_eval_rejects_unknown_actions(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", str(tmp_path / "d.jsonl"), "--unsupported-actions", "x"])
    assert result.exit_code == 2
    assert "allow, warn, block" in said(result.output)


def test_eval_names_a_missing_dataset(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2
    assert "does not exist" in said(result.output)
