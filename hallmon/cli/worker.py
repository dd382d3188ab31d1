"""`hallmon worker`: run the assembler and the verifier (or one of them) until stopped."""

from __future__ import annotations

import logging
from typing import Annotated, Literal

import typer

from hallmon.cli import app

RoleChoice = Literal["all", "assembler", "verifier"]


@app.command()
def worker(
    role: Annotated[
        str,
        typer.Option(
            "--role",
            help="all: the assembler and the verifier, each in its own process; or just one.",
        ),
    ] = "all",
    loglevel: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "warning",
) -> None:
    """Consume agent traces, assemble answers, verify them, publish verdicts and fatigue."""
    from hallmon.streaming.runner import run_role, spawn_roles
    from hallmon.topology.settings import get_settings

    if role not in ("all", "assembler", "verifier"):
        raise typer.BadParameter(f"--role {role!r}: use all, assembler or verifier")
    logging.basicConfig(
        level=loglevel.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if role == "all":
        raise typer.Exit(spawn_roles(loglevel=loglevel))
    run_role(get_settings(), role, loglevel=loglevel)  # type: ignore[arg-type]
