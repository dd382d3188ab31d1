"""`hallmon check [FILE|-]`: verify one answer with its context and show the verdict."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hallmon.cli import app
from hallmon.cli.eval import console, load_verifier_or_exit

if TYPE_CHECKING:
    from hallmon.schemas import MonitorResult

_STATUS_STYLE = {
    "supported": "green",
    "unclear": "yellow",
    "not_found": "red",
    "contradicted": "bold red",
}
_ACTION_STYLE = {"allow": "green", "warn": "yellow", "block": "bold red"}


@app.command("check")
def check_command(
    file: Annotated[
        str,
        typer.Argument(
            help="JSON file with a `response` event or assembled response; - reads stdin."
        ),
    ] = "-",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the MonitorResult as JSON.")
    ] = False,
    model_dir: Annotated[
        Path | None, typer.Option("--model", help="NLI model directory (default: settings).")
    ] = None,
    calibration: Annotated[
        Path | None, typer.Option(help="Calibration file (default: the committed one).")
    ] = None,
) -> None:
    """Claims, verdicts, evidence, risk and action of one answer."""
    from hallmon.verification.verifier import parse_response

    try:
        raw = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        console.print(f"[red]error:[/red] cannot read {file}: {exc}")
        raise typer.Exit(2) from exc
    try:
        response = parse_response(json.loads(raw))
    except json.JSONDecodeError as exc:
        console.print(f"[red]error:[/red] {file} is not JSON: {exc}")
        raise typer.Exit(2) from exc
    except (ValidationError, ValueError) as exc:
        console.print(
            f"[red]error:[/red] {file} is not a `response` event or assembled response "
            f"(needs at least `text`, and `context` with documents/tool_results/memory):\n{exc}"
        )
        raise typer.Exit(2) from exc

    verifier = load_verifier_or_exit(model_dir, calibration)
    result = verifier.verify(response)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=1) + "\n")
    else:
        render(result, Console())
    if result.state == "unavailable" and result.unavailable_reason == "evaluation_failed":
        raise typer.Exit(1)


def render(result: MonitorResult, out: Console) -> None:
    state = result.state + (f" / {result.unavailable_reason}" if result.unavailable_reason else "")
    style = _ACTION_STYLE[result.action]
    out.print(
        f"state [bold]{state}[/bold]   risk [bold]{result.risk:.2f}[/bold]   action "
        f"[{style}]{result.action}[/{style}]   claims {result.counts.total} (supported "
        f"{result.counts.supported}, contradicted {result.counts.contradicted}, not found "
        f"{result.counts.not_found}, unclear {result.counts.unclear}), skipped "
        f"{result.counts.skipped}"
    )
    if result.error:
        out.print(f"[red]error:[/red] {escape(result.error)}")
    table = Table(show_lines=True)
    for col in ("claim", "type", "verdict", "conf", "evidence", "reason"):
        table.add_column(col, overflow="fold")
    for v in result.claims:
        best = v.evidence[0] if v.evidence else None
        evidence = ""
        if best is not None:
            scores = (
                f" (E {best.nli.entailment:.2f} / C {best.nli.contradiction:.2f})"
                if best.nli
                else ""
            )
            snippet = best.text if len(best.text) <= 160 else best.text[:157] + "..."
            evidence = escape(f"[{best.source_id}]{scores} {snippet}")
        status_style = _STATUS_STYLE[v.status]
        # Answer and context text is data: never let rich read "[...]" in it as markup.
        table.add_row(
            escape(v.claim.text),
            f"{v.claim.type}/{v.claim.severity}",
            f"[{status_style}]{v.status}[/{status_style}]",
            f"{v.confidence:.2f}",
            evidence,
            escape(v.reason),
        )
    if result.claims:
        out.print(table)
    for seg in result.skipped:
        out.print(f"[dim]skipped ({seg.reason}): {escape(seg.text)}[/dim]")
    for note in result.notes:
        out.print(f"[yellow]note:[/yellow] {escape(note)}")
