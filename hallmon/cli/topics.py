"""`hallmon topics create` and `hallmon topics list`."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from hallmon.cli import app
from hallmon.topology.kafka_client import KafkaUnavailableError, check_reachable, make_admin
from hallmon.topology.settings import get_settings
from hallmon.topology.topics import (
    TopicAdminError,
    TopicState,
    ensure_topics,
    format_retention,
    topic_specs,
    topic_states,
)

topics_app = typer.Typer(help="Create and list hallmon's Kafka topics.", no_args_is_help=True)
app.add_typer(topics_app, name="topics")


def _console(stderr: bool = False) -> Console:
    # Outside a terminal (CI logs, pipes) rich would assume 80 columns and fold the topic names.
    console = Console(stderr=stderr)
    return console if console.is_terminal else Console(stderr=stderr, width=160)


console = _console()
err_console = _console(stderr=True)

TimeoutOption = Annotated[
    float, typer.Option("--timeout", help="Seconds to wait for the brokers.", min=1.0)
]

# librdkafka would print every failed connection attempt; check_reachable says it once, clearly.
_QUIET: dict[str, str | int | float | bool] = {"log_level": 0}

_STYLE = {"created": "green", "ok": "green", "drift": "yellow", "missing": "red"}


def _table(states: list[TopicState], title: str) -> Table:
    table = Table(title=title)
    for column in ("role", "topic", "state", "partitions", "replicas", "retention", "cleanup"):
        table.add_column(column, no_wrap=column != "topic", overflow="fold")
    table.add_column("key", overflow="fold")
    for state in states:
        spec, seen = state.spec, state.observed
        # Show "actual (spec)" where they differ, the spec alone where they agree.
        partitions = str(spec.partitions)
        replicas = str(spec.replication_factor)
        retention = format_retention(spec.retention_ms)
        cleanup: str = spec.cleanup_policy
        if seen is not None:
            if seen.partitions != spec.partitions:
                partitions = f"{seen.partitions} (spec {spec.partitions})"
            if seen.replication_factor != spec.replication_factor:
                replicas = f"{seen.replication_factor} (spec {spec.replication_factor})"
            actual_retention = seen.config.get("retention.ms")
            if actual_retention is not None and actual_retention != str(spec.retention_ms):
                retention = f"{format_retention(actual_retention)} (spec {retention})"
            actual_cleanup = seen.config.get("cleanup.policy")
            if actual_cleanup is not None and actual_cleanup != spec.cleanup_policy:
                cleanup = f"{actual_cleanup} (spec {cleanup})"
        status = f"[{_STYLE[state.status]}]{state.status}[/]"
        table.add_row(
            spec.role, spec.name, status, partitions, replicas, retention, cleanup, spec.key
        )
    return table


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}")
    return typer.Exit(code=1)


@topics_app.command("create")
def create(
    timeout: TimeoutOption = 30.0,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Exit with status 2 when a topic differs from its spec."),
    ] = False,
) -> None:
    """Create the topics that are missing; report those that differ from their spec."""
    settings = get_settings()
    admin = make_admin(settings.kafka, _QUIET)
    try:
        check_reachable(settings.kafka, timeout_s=min(timeout, 15.0))
        states = ensure_topics(admin, topic_specs(settings.topics), timeout_s=timeout)
    except (KafkaUnavailableError, TopicAdminError) as exc:
        raise _fail(str(exc)) from exc
    console.print(_table(states, f"hallmon topics on {settings.kafka.bootstrap_servers}"))
    created = [s.spec.name for s in states if s.status == "created"]
    drifted = [s for s in states if s.status == "drift"]
    console.print(
        f"created {len(created)}, unchanged {len(states) - len(created) - len(drifted)}, "
        f"differing from spec {len(drifted)}"
    )
    for state in drifted:
        for drift in state.drifts:
            err_console.print(f"[yellow]drift:[/] {drift} (left as it is; change it deliberately)")
    if drifted and strict:
        raise typer.Exit(code=2)


@topics_app.command("list")
def list_topics(timeout: TimeoutOption = 10.0) -> None:
    """Show hallmon's topics: spec, and what the cluster has."""
    settings = get_settings()
    admin = make_admin(settings.kafka, _QUIET)
    try:
        check_reachable(settings.kafka, timeout_s=timeout)
        states = topic_states(admin, topic_specs(settings.topics), timeout_s=timeout)
    except (KafkaUnavailableError, TopicAdminError) as exc:
        raise _fail(str(exc)) from exc
    console.print(_table(states, f"hallmon topics on {settings.kafka.bootstrap_servers}"))
    missing = [s.spec.name for s in states if s.status == "missing"]
    if missing:
        console.print(f"{len(missing)} missing: run `hallmon topics create`")
