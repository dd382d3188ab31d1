"""`hallmon fatigue [SESSION]`: a session's curve, or the sessions ranked by trend."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from hallmon.cli import app
from hallmon.schemas import FatigueSnapshot
from hallmon.workers.fatigue.trend import sparkline


def console_for_output() -> Console:
    # Outside a terminal rich assumes 80 columns and would fold the tables.
    console = Console()
    return console if console.is_terminal else Console(width=120)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def session_table(snap: FatigueSnapshot) -> Table:
    """One row per answer: turn, context size, claims, unsupported, rate and its bar."""
    rates = [p.unsupported_rate for p in snap.series]
    table = Table(
        title=f"session {snap.session_id} ({snap.agent_id})  {sparkline(rates)}",
        caption=(
            f"{snap.responses} answers, {snap.claims} claims, "
            f"unsupported {snap.unsupported_rate:.0%} (recent {snap.recent_rate:.0%}); "
            f"slope {_fmt(snap.slope_per_turn)}/turn, "
            f"{_fmt(snap.slope_per_1k_tokens)}/1k tokens"
        ),
    )
    for column in ("turn", "context tokens", "claims", "unsupported", "contradicted", "rate", ""):
        table.add_column(column, justify="right" if column else "left")
    for p in snap.series:
        table.add_row(
            str(p.turn),
            f"{p.context_tokens:,}",
            str(p.claims),
            str(p.unsupported),
            str(p.contradicted),
            f"{p.unsupported_rate:.0%}" if p.claims else "-",
            "█" * round(p.unsupported_rate * 10),
        )
    return table


def ranking_table(snaps: list[FatigueSnapshot]) -> Table:
    table = Table(title="sessions by fatigue trend (unsupported rate per turn)")
    for column in (
        "session",
        "agent",
        "answers",
        "recent rate",
        "slope/turn",
        "slope/1k tok",
        "curve",
    ):
        table.add_column(
            column, justify="left" if column in ("session", "agent", "curve") else "right"
        )
    for s in snaps:
        table.add_row(
            s.session_id,
            s.agent_id,
            str(s.responses),
            f"{s.recent_rate:.0%}",
            _fmt(s.slope_per_turn),
            _fmt(s.slope_per_1k_tokens),
            sparkline([p.unsupported_rate for p in s.series]),
        )
    return table


def trend_key(s: FatigueSnapshot) -> tuple[float, float]:
    return (s.slope_per_turn if s.slope_per_turn is not None else float("-inf"), s.recent_rate)


async def load_snapshots(session: str | None, limit: int) -> list[FatigueSnapshot]:
    import redis.asyncio as aioredis

    from hallmon.topology.settings import get_settings
    from hallmon.workers.fatigue.agent import fatigue_config
    from hallmon.workers.fatigue.store import FatigueStore

    settings = get_settings()
    client = aioredis.Redis.from_url(settings.redis.url, **settings.redis.client_kwargs())
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
) -> None:
    """Show how a session's unsupported-claim rate moves with turns and context size."""
    console = console_for_output()
    snaps = asyncio.run(load_snapshots(session, limit))
    if session is not None:
        if not snaps:
            console.print(f"[red]no fatigue data for session {session!r} (expired or never seen)")
            raise typer.Exit(1)
        console.print(session_table(snaps[0]))
        return
    if not snaps:
        console.print("[yellow]no sessions with fatigue data yet; run `hallmon demo` or a worker")
        return
    console.print(ranking_table(sorted(snaps, key=trend_key, reverse=True)[:top]))
