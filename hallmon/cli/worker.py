"""`hallmon worker`: run the assembler, the verifier and the fatigue worker (or one)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Literal

import typer

from hallmon.cli import app

RoleChoice = Literal["all", "assembler", "verifier", "fatigue"]


@app.command()
def worker(
    role: Annotated[
        str,
        typer.Option(
            "--role",
            help="all: assembler, verifier and fatigue worker, each in its own process; or one.",
        ),
    ] = "all",
    loglevel: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "warning",
    host_roles: Annotated[
        str,
        typer.Option(
            "--host-roles",
            help="Roles sharing this host's cores (comma-separated, or all), so the verifier "
            "sizes its model threads and batches to what they leave; default: the --role given.",
        ),
    ] = "",
) -> None:
    """Consume agent traces, assemble answers, verify them, publish verdicts and fatigue."""
    if role not in ("all", "assembler", "verifier", "fatigue"):
        raise typer.BadParameter(f"--role {role!r}: use all, assembler, verifier or fatigue")
    from hallmon.workers.host import parse_roles

    try:
        sharing = parse_roles(host_roles or role)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--host-roles") from exc
    # Replace this process with the small runner (the supervisor of all roles, or the one role):
    # the CLI's imports (typer, rich, every command, confluent-kafka) would otherwise stay
    # resident beside the worker.
    runner = [sys.executable, "-m", "hallmon.workers.runner", "--loglevel", loglevel]
    if role != "all":
        runner += ["--role", role, "--host-roles", ",".join(sharing)]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, runner)
