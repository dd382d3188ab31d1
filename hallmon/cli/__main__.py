"""`python -m hallmon.cli ...`: the same as the `hallmon` command."""

from hallmon.cli import app

app()
