"""`hallmon topics ...` (filled in by the foundation work)."""

from __future__ import annotations

import typer

from hallmon.cli import app

topics_app = typer.Typer(help="Create and list hallmon's Kafka topics.", no_args_is_help=True)
app.add_typer(topics_app, name="topics")
