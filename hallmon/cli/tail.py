"""`hallmon tail`: verdicts (and fatigue alerts) as they arrive."""

from __future__ import annotations

import time
import uuid
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from hallmon.cli import app
from hallmon.schemas import ContractError, FatigueAlert, VerdictEvent, decode

_ACTION_STYLE = {"allow": "green", "warn": "yellow", "block": "bold red"}


def verdict_line(v: VerdictEvent) -> Text:
    """One line per verdict: who, what state, risk and action, counts, latency, worst claim."""
    line = Text()
    line.append(f"{v.session_id:<18.18} ", style="cyan")
    line.append(f"turn {v.turn if v.turn is not None else '-':>2}  ")
    if v.state == "checked":
        line.append(f"{v.action:<5}", style=_ACTION_STYLE.get(v.action, ""))
        line.append(f" risk {v.risk:.2f}  ")
        c = v.counts
        line.append(f"claims {c.total:>2}: {c.supported} ok")
        if c.unsupported:
            line.append(
                f", {c.contradicted} contradicted, {c.not_found} not found, {c.unclear} unclear",
                style="yellow",
            )
    else:
        reason = f" ({v.unavailable_reason})" if v.unavailable_reason else ""
        line.append(f"{v.state}{reason}", style="magenta")
    if v.timings.latency_ms is not None:
        line.append(f"  [{v.timings.latency_ms:.0f} ms]", style="dim")
    worst = next(
        (cv for cv in v.claims if cv.status in ("contradicted", "not_found")),
        None,
    )
    if v.state != "checked":
        worst = None
    if worst is not None:
        line.append(f"\n{'':<20}✗ {worst.status}: “{worst.claim.text[:90]}”", style="dim yellow")
    if v.session_conflicts:
        conflict = v.session_conflicts[0]
        line.append(
            f"\n{'':<20}↯ contradicts an earlier answer: “{conflict.earlier_claim[:60]}” "
            f"(contradiction {conflict.contradiction:.2f})",
            style="dim magenta",
        )
    if v.citation_precision is not None and v.citation_precision < 1.0:
        line.append(
            f"\n{'':<20}citation precision {v.citation_precision:.0%} of {len(v.citations)}",
            style="dim yellow",
        )
    return line


def alert_line(a: FatigueAlert) -> Text:
    s = a.snapshot
    return Text(
        f"⚠ fatigue alert  session {a.session_id}: {a.kind} ({a.measure}) = {a.value:.3f} "
        f"(threshold {a.threshold:.3f}) after {s.responses} answers, recent unsupported rate "
        f"{s.recent_rate:.0%}",
        style="bold red",
    )


@app.command()
def tail(
    from_beginning: Annotated[
        bool, typer.Option("--from-beginning", help="Replay the topic instead of new verdicts.")
    ] = False,
    session: Annotated[str | None, typer.Option(help="Only this session's verdicts.")] = None,
    seconds: Annotated[
        float | None, typer.Option(help="Stop after this many seconds (default: run until ^C).")
    ] = None,
) -> None:
    """Print verdicts and fatigue alerts as they are published."""
    from hallmon.topology.kafka_client import make_consumer
    from hallmon.topology.settings import get_settings

    settings = get_settings()
    console = Console()
    consumer = make_consumer(
        settings.kafka,
        f"hallmon-tail-{uuid.uuid4().hex[:8]}",
        {"auto.offset.reset": "earliest" if from_beginning else "latest", "log_level": 0},
    )
    consumer.subscribe([settings.topics.verdicts, settings.topics.fatigue])
    console.print(
        f"[dim]tailing {settings.topics.verdicts} and {settings.topics.fatigue} on "
        f"{settings.kafka.bootstrap_servers} (^C to stop)[/dim]"
    )
    deadline = time.monotonic() + seconds if seconds is not None else None
    try:
        while deadline is None or time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            try:
                if msg.topic() == settings.topics.fatigue:
                    alert = decode(FatigueAlert, msg.value() or b"")
                    if session is None or alert.session_id == session:
                        console.print(alert_line(alert))
                    continue
                verdict = decode(VerdictEvent, msg.value() or b"")
            except ContractError as exc:
                console.print(f"[red]unreadable message at {msg.topic()}@{msg.offset()}: {exc}")
                continue
            if session is None or verdict.session_id == session:
                console.print(verdict_line(verdict))
    except KeyboardInterrupt:
        pass
    finally:
        consumer.close()
