"""`hallmon worker`: run the assembler, the verifier and the fatigue worker (or one)."""

from __future__ import annotations

import logging
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
    from hallmon.topology.settings import get_settings
    from hallmon.workers.runner import run_role

    if role not in ("all", "assembler", "verifier", "fatigue"):
        raise typer.BadParameter(f"--role {role!r}: use all, assembler, verifier or fatigue")
    logging.basicConfig(
        level=loglevel.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    from hallmon.workers.host import parse_roles

    try:
        sharing = parse_roles(host_roles or role)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--host-roles") from exc
    if role == "all":
        # Replace this process with the small supervisor: the CLI's imports (the model runtime,
        # rich, every command) would otherwise stay resident beside the three roles.
        supervisor = [sys.executable, "-m", "hallmon.workers.runner", "--loglevel", loglevel]
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, supervisor)
    from hallmon.topology.kafka_client import KafkaUnavailableError
    from hallmon.topology.redis_client import RedisRefusedError

    try:
        run_role(get_settings(), role, loglevel=loglevel, host_roles=sharing)  # type: ignore[arg-type]
    except (KafkaUnavailableError, RedisRefusedError) as exc:
        # Said once, without a traceback: the message names the setting to fix.
        typer.echo(f"hallmon worker --role {role}: error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
