"""`hallmon fatigue [SESSION]`: a session's signals (table + sparklines), or the sessions
ranked by any signal; `--json` for machines."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Literal

import typer
from rich.console import Console, Group
from rich.table import Table

from hallmon.cli import app
from hallmon.schemas import FatiguePoint, FatigueSnapshot
from hallmon.schemas.fatigue import SIGNALS, Signal
from hallmon.workers.fatigue.trend import sparkline

RankBy = Literal["unsupported_rate", "citation_precision", "contradictions", "unchecked"]


def console_for_output() -> Console:
    # Outside a terminal rich assumes 80 columns and would fold the tables.
    console = Console()
    return console if console.is_terminal else Console(width=120)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def point_value(p: FatiguePoint, signal: Signal) -> float | None:
    """The answer's value of a signal (None when it does not carry it)."""
    if not p.checked:
        return None
    if signal == "unsupported_rate":
        return p.unsupported_rate if p.claims else None
    if signal == "citation_precision":
        return p.citation_precision
    return p.contradiction_rate


def curve(snap: FatigueSnapshot, signal: Signal) -> str:
    """One character per answer in turn order; a blank where the answer has no value."""
    return sparkline([point_value(p, signal) for p in snap.series])


def alert_cell(snap: FatigueSnapshot, signal: Signal) -> str:
    """ "⚠ turn 5" when the signal is in alert (the turn of the answer that raised it)."""
    rid = snap.alerted.get(signal)
    if rid is None:
        return ""
    turn = next((p.turn for p in snap.series if p.response_id == rid), None)
    return "⚠" if turn is None else f"⚠ turn {turn}"


def signals_table(snap: FatigueSnapshot) -> Table:
    """One row per signal: recent level, slopes against the three axes, curve, alert."""
    table = Table(title="signals (recent window; citation precision falls when it degrades)")
    for column in ("signal", "answers", "recent", "/turn", "/1k tokens", "/loop step", "curve"):
        table.add_column(column, justify="left" if column in ("signal", "curve") else "right")
    table.add_column("alert", justify="left")
    for signal in SIGNALS:
        t = snap.signals.get(signal)
        if t is None:
            continue
        table.add_row(
            signal,
            str(t.points),
            _pct(t.level),
            _fmt(t.slope_per_turn),
            _fmt(t.slope_per_1k_tokens),
            _fmt(t.slope_per_loop_step),
            curve(snap, signal),
            alert_cell(snap, signal),
        )
    return table


def answers_table(snap: FatigueSnapshot) -> Table:
    """One row per answer: the three axes, the three signals, and unchecked answers."""
    unchecked = ", ".join(f"{n} {reason}" for reason, n in sorted(snap.unchecked.items()))
    table = Table(
        title=f"session {snap.session_id} ({snap.agent_id})",
        caption=(
            f"{snap.responses} answers, {snap.claims} claims, unsupported "
            f"{snap.unsupported_rate:.0%}; citation precision {_pct(snap.citation_precision)} "
            f"of {snap.citations}; {snap.conflicts} claims contradicting earlier ones; "
            f"not checked {snap.unchecked_share:.0%}" + (f" ({unchecked})" if unchecked else "")
        ),
    )
    columns = (
        "turn",
        "step",
        "context tokens",
        "claims",
        "unsupported",
        "rate",
        "citations",
        "precision",
        "conflicts",
        "",
    )
    for column in columns:
        table.add_column(column, justify="right" if column else "left")
    for p in snap.series:
        if not p.checked:
            row = ["-"] * 6 + [f"not checked: {p.unavailable_reason or 'unknown'}"]
        else:
            row = [
                str(p.claims),
                str(p.unsupported),
                _pct(p.unsupported_rate if p.claims else None),
                f"{p.precise_citations}/{p.citations}" if p.citations else "-",
                _pct(p.citation_precision),
                "-" if p.conflicts is None else str(p.conflicts),
                "█" * round(p.unsupported_rate * 10),
            ]
        step = "-" if p.loop_step is None else str(p.loop_step)
        table.add_row(str(p.turn), step, f"{p.context_tokens:,}", *row)
    return table


def session_table(snap: FatigueSnapshot) -> Group:
    return Group(signals_table(snap), answers_table(snap))


def rank_value(snap: FatigueSnapshot, by: RankBy) -> float:
    """Larger is worse: the sort key of the ranking."""
    if by == "unchecked":
        return snap.unchecked_share
    trend = snap.signals.get(by)
    if trend is None or trend.level is None:
        return float("-inf")
    return 1.0 - trend.level if by == "citation_precision" else trend.level


def ranking_table(snaps: list[FatigueSnapshot], by: RankBy = "unsupported_rate") -> Table:
    table = Table(title=f"sessions by {by} (worst first)")
    for column in (
        "session",
        "agent",
        "answers",
        "unsupported",
        "/turn",
        "precision",
        "contradictions",
        "not checked",
        "curve",
        "alerts",
    ):
        table.add_column(
            column, justify="left" if column in ("session", "agent", "curve", "alerts") else "right"
        )
    for s in snaps:

        def level(signal: Signal, s: FatigueSnapshot = s) -> float | None:
            t = s.signals.get(signal)
            return t.level if t is not None else None

        table.add_row(
            s.session_id,
            s.agent_id,
            str(s.responses),
            _pct(level("unsupported_rate")),
            _fmt(s.slope_per_turn),
            _pct(level("citation_precision")),
            _pct(level("contradictions")),
            _pct(s.unchecked_share),
            curve(s, "unsupported_rate" if by == "unchecked" else by),
            ", ".join(sorted(s.alerted)),
        )
    return table


def ranked(snaps: list[FatigueSnapshot], by: RankBy) -> list[FatigueSnapshot]:
    return sorted(snaps, key=lambda s: (rank_value(s, by), s.slope_per_turn or 0.0), reverse=True)


Buckets = dict[str, dict[str, dict[str, int]]]


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def fleet_table(agent: str, axis: str, buckets: dict[str, dict[str, int]]) -> Table:
    """One row per range of the axis: the fleet's three signals and its unchecked answers."""
    table = Table(title=f"agent {agent}, by {axis.removeprefix('by_').replace('_', ' ')}")
    for column in (
        "range",
        "answers",
        "not checked",
        "claims",
        "unsupported",
        "citations",
        "precision",
        "contradictions",
    ):
        table.add_column(column, justify="left" if column == "range" else "right")

    def lower(label: str) -> int:
        return int(label.split("-", 1)[0].rstrip("+"))

    for label in sorted(buckets, key=lower):
        b = buckets[label]
        table.add_row(
            label,
            str(b.get("responses", 0)),
            _share(b.get("unchecked", 0), b.get("responses", 0)),
            str(b.get("claims", 0)),
            _share(b.get("unsupported", 0), b.get("claims", 0)),
            str(b.get("citations", 0)),
            _share(b.get("precise_citations", 0), b.get("citations", 0)),
            _share(b.get("conflicts", 0), b.get("conflict_claims", 0)),
        )
    return table


async def load_fleet(agent: str) -> Buckets:
    from hallmon.topology.redis_client import make_redis
    from hallmon.topology.settings import get_settings
    from hallmon.workers.fatigue.agent import fatigue_config
    from hallmon.workers.fatigue.store import FatigueStore

    settings = get_settings()
    client = make_redis(settings.redis)
    try:
        return await FatigueStore(client, fatigue_config(settings)).fleet(agent)
    finally:
        await client.aclose()


async def load_snapshots(session: str | None, limit: int) -> list[FatigueSnapshot]:
    from hallmon.topology.redis_client import make_redis
    from hallmon.topology.settings import get_settings
    from hallmon.workers.fatigue.agent import fatigue_config
    from hallmon.workers.fatigue.store import FatigueStore

    settings = get_settings()
    client = make_redis(settings.redis)
    store = FatigueStore(client, fatigue_config(settings))
    try:
        ids = [session] if session else await store.sessions(limit)
        snaps = [await store.load(i) for i in ids]
        return [s for s in snaps if s is not None]
    finally:
        await client.aclose()


@app.command()
def fatigue(
    session: Annotated[
        str | None, typer.Argument(help="A session id; all sessions if omitted.")
    ] = None,
    limit: Annotated[int, typer.Option(help="Sessions to rank (most recent first).")] = 200,
    top: Annotated[int, typer.Option(help="Rows in the ranking.")] = 20,
    by: Annotated[
        RankBy,
        typer.Option(help="Signal the ranking sorts by, worst first."),
    ] = "unsupported_rate",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the snapshot(s) as JSON instead of tables.")
    ] = False,
    agent: Annotated[
        str | None,
        typer.Option(help="Show this agent's fleet buckets (by turn, context size, loop step)."),
    ] = None,
) -> None:
    """Show a session's fatigue signals (unsupported rate, citation precision, contradictions
    against turn, context size and loop step), the sessions ranked by one of them, or an
    agent's fleet buckets."""
    if agent is not None:
        buckets = asyncio.run(load_fleet(agent))
        if as_json:
            typer.echo(json.dumps(buckets, indent=2, sort_keys=True))
            return
        if not any(buckets.values()):
            typer.echo(f"no fleet data for agent {agent!r} (expired or never seen)", err=True)
            raise typer.Exit(1)
        console = console_for_output()
        for axis, by_range in buckets.items():
            console.print(fleet_table(agent, axis, by_range))
        return
    snaps = asyncio.run(load_snapshots(session, limit))
    if session is not None and not snaps:
        typer.echo(f"no fatigue data for session {session!r} (expired or never seen)", err=True)
        raise typer.Exit(1)
    if session is None:
        snaps = ranked(snaps, by)[:top]
    if as_json:
        docs = [s.model_dump(mode="json") for s in snaps]
        typer.echo(json.dumps(docs[0] if session is not None else docs, indent=2))
        return
    console = console_for_output()
    if session is not None:
        console.print(session_table(snaps[0]))
    elif not snaps:
        console.print("[yellow]no sessions with fatigue data yet; run `hallmon demo` or a worker")
    else:
        console.print(ranking_table(snaps, by))
