"""The `hallmon` command line. Each command group lives in its own module and registers here."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="hallmon",
    help="Watches streaming AI agents for hallucinations and session fatigue.",
    no_args_is_help=True,
    add_completion=False,
)


def _register() -> None:
    # Imported for their side effect of adding commands to `app`; one line per module.
    from hallmon.cli import (
        calibrate,  # noqa: F401
        check,  # noqa: F401
        demo,  # noqa: F401
        dlq,  # noqa: F401
        eval,  # noqa: F401
        fatigue,  # noqa: F401
        serve,  # noqa: F401
        tail,  # noqa: F401
        topics,  # noqa: F401
        worker,  # noqa: F401
    )


_register()
