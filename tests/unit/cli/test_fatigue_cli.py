"""`hallmon fatigue`: every signal in the session view and in JSON; ranking by any signal."""

from __future__ import annotations

import json

import pytest
from hallmon.schemas import FatiguePoint, FatigueSnapshot
from hallmon.workers.fatigue.trend import FatigueThresholds, SessionTotals, snapshot
from typer.testing import CliRunner

from hallmon.cli import app
from hallmon.cli import fatigue as fatigue_cli

runner = CliRunner()


def snap(sid: str, unsupported: int, precise: int, conflicts: int) -> FatigueSnapshot:
    points = [
        FatiguePoint(
            response_id=f"{sid}-{t}",
            turn=t,
            context_tokens=1000 * t,
            claims=4,
            unsupported=min(4, unsupported * t // 4),
            contradicted=0,
            loop_step=t % 3,
            citations=2,
            precise_citations=precise if t > 2 else 2,
            conflicts=conflicts if t > 2 else 0,
        )
        for t in range(6)
    ]
    points.append(
        FatiguePoint(
            response_id=f"{sid}-x",
            turn=6,
            context_tokens=0,
            claims=0,
            unsupported=0,
            contradicted=0,
            state="unavailable",
            unavailable_reason="evaluation_failed",
        )
    )
    checked = [p for p in points if p.checked]
    totals = SessionTotals(
        session_id=sid,
        agent_id="bot",
        responses=len(points),
        claims=sum(p.claims for p in checked),
        unsupported=sum(p.unsupported for p in checked),
        citations=12,
        precise_citations=sum(p.precise_citations for p in checked),
        conflicts=sum(p.conflicts or 0 for p in checked),
        unchecked={"evaluation_failed": 1},
    )
    return snapshot(totals, points, FatigueThresholds(), {"contradictions": f"{sid}-3"})


SNAPS = [snap("calm", 0, 2, 0), snap("drifting", 1, 0, 0), snap("liar", 0, 2, 3)]


@pytest.fixture(autouse=True)
def fake_store(monkeypatch: pytest.MonkeyPatch) -> None:
    async def load(session: str | None, limit: int) -> list[FatigueSnapshot]:
        return [s for s in SNAPS if session in (None, s.session_id)]

    monkeypatch.setattr(fatigue_cli, "load_snapshots", load)


def test_session_view_shows_every_signal_and_unchecked_answers() -> None:
    result = runner.invoke(app, ["fatigue", "liar"])
    assert result.exit_code == 0, result.output
    for text in ("unsupported_rate", "citation_precision", "contradictions", "/loop step"):
        assert text in result.output
    assert "not checked:" in result.output and "(1 evaluation_failed)" in result.output
    assert "⚠ turn 3" in result.output


def test_session_json_is_the_snapshot() -> None:
    result = runner.invoke(app, ["fatigue", "drifting", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["session_id"] == "drifting" and doc["unchecked"] == {"evaluation_failed": 1}
    assert set(doc["signals"]) == {"unsupported_rate", "citation_precision", "contradictions"}
    assert FatigueSnapshot.model_validate(doc).signals["citation_precision"].level is not None


@pytest.mark.parametrize(
    ("by", "worst"),
    [
        ("unsupported_rate", "drifting"),
        ("citation_precision", "drifting"),
        ("contradictions", "liar"),
    ],
)
def test_ranking_sorts_by_any_signal(by: str, worst: str) -> None:
    result = runner.invoke(app, ["fatigue", "--by", by, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["session_id"] == worst
    table = runner.invoke(app, ["fatigue", "--by", by])
    assert table.exit_code == 0 and f"sessions by {by}" in table.output


def test_unknown_session_fails_with_a_message() -> None:
    result = runner.invoke(app, ["fatigue", "nobody"])
    assert result.exit_code == 1 and "no fatigue data" in result.output


FLEET = {
    "by_turn": {
        "5-9": {"responses": 4, "unchecked": 1, "claims": 6, "unsupported": 3, "citations": 4,
                "precise_citations": 1, "conflicts": 2, "conflict_claims": 6},
        "0-4": {"responses": 5, "claims": 10, "unsupported": 1, "citations": 2,
                "precise_citations": 2, "conflicts": 0, "conflict_claims": 10},
    },
    "by_context": {},
    "by_loop": {"1-2": {"responses": 1, "claims": 1, "unsupported": 0}},
}  # fmt: skip


def test_fleet_view_shows_every_signal_by_range(monkeypatch: pytest.MonkeyPatch) -> None:
    async def load(agent: str) -> dict[str, dict[str, dict[str, int]]]:
        return FLEET if agent == "bot" else {"by_turn": {}, "by_context": {}, "by_loop": {}}

    monkeypatch.setattr(fatigue_cli, "load_fleet", load)
    result = runner.invoke(app, ["fatigue", "--agent", "bot"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "│ 0-4" in line or "│ 5-9" in line]
    assert "0-4" in rows[0] and "5-9" in rows[1]  # ranges in order
    assert "25%" in rows[1] and "50%" in rows[1] and "33%" in rows[1]  # unchecked, unsup., conf.
    assert json.loads(runner.invoke(app, ["fatigue", "--agent", "bot", "--json"]).output) == FLEET
    assert runner.invoke(app, ["fatigue", "--agent", "nobody"]).exit_code == 1
