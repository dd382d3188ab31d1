"""`hallmon serve`: the HTTP API, probes, Prometheus metrics and the fatigue dashboard."""

from __future__ import annotations

import ipaddress
from typing import Annotated

import typer

from hallmon.cli import app


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (HALLMON_SERVE__HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (HALLMON_SERVE__PORT).")] = None,
    no_auth: Annotated[
        bool,
        typer.Option(
            "--no-auth", help="Allow binding a non-loopback address without HALLMON_SERVE__TOKEN."
        ),
    ] = False,
    loglevel: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
) -> None:
    """Serve POST /monitor/check, the fatigue API, /healthz, /readyz, /metrics and the dashboard."""
    import uvicorn

    from hallmon.serve.app import create_app
    from hallmon.topology.settings import get_settings

    settings = get_settings()
    host = host or settings.serve.host
    port = port or settings.serve.port
    if not is_loopback(host) and settings.serve.token is None and not no_auth:
        typer.echo(
            f"hallmon serve: refusing to bind {host} without a token: set HALLMON_SERVE__TOKEN "
            "(clients send `Authorization: Bearer <token>`), or pass --no-auth when a proxy in "
            "front authenticates",
            err=True,
        )
        raise typer.Exit(2)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    typer.echo(f"hallmon serve: dashboard at http://{shown}:{port}/ (API docs at /docs)")
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=loglevel.lower(),
        timeout_graceful_shutdown=10,
    )
