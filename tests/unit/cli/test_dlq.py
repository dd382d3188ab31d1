"""The dead-letter filter of `hallmon dlq`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hallmon.schemas import DeadLetter

from hallmon.cli.dlq import DeadLetterFilter

AT = datetime(2026, 5, 1, tzinfo=UTC)


def letter(**kw: object) -> DeadLetter:
    base: dict[str, object] = dict(
        reason="schema_violation",
        error="field 'turn': must be >= 0",
        stage="assembler",
        topic="agent.traces",
        value=b"{}",
    )
    base.update(kw)
    dl = DeadLetter.of(**base)  # type: ignore[arg-type]
    return dl.model_copy(update={"at": AT})


def test_an_empty_filter_matches_everything() -> None:
    assert DeadLetterFilter().matches(letter())


def test_each_field_narrows() -> None:
    dl = letter()
    assert DeadLetterFilter(reasons=frozenset({"schema_violation"})).matches(dl)
    assert not DeadLetterFilter(reasons=frozenset({"malformed_json"})).matches(dl)
    assert not DeadLetterFilter(stages=frozenset({"verifier"})).matches(dl)
    assert not DeadLetterFilter(topics=frozenset({"hallmon.responses"})).matches(dl)
    assert DeadLetterFilter(since=AT - timedelta(seconds=1)).matches(dl)
    assert not DeadLetterFilter(since=AT + timedelta(seconds=1)).matches(dl)
    assert DeadLetterFilter(error_contains="'turn'").matches(dl)
    assert not DeadLetterFilter(error_contains="'seq'").matches(dl)


def test_an_unknown_reason_or_stage_is_refused_with_the_choices() -> None:
    from typer.testing import CliRunner

    from hallmon.cli import app

    result = CliRunner().invoke(app, ["dlq", "replay", "--reason", "malformed"])
    assert result.exit_code == 2 and "malformed_json" in result.output
    result = CliRunner().invoke(app, ["dlq", "list", "--stage", "verify"])
    assert result.exit_code == 2 and "verifier" in result.output
