"""`hallmon dlq list|replay`: look at dead letters and send the ones a fix now handles back.

`replay` reads `hallmon.dlq` from its start up to the end it had when the command started (a
replayed message that fails again lands in the DLQ after that end, so one run never loops),
keeps the dead letters that match the filter, and publishes each one's original key, value and
headers to the topic it came from (or `--to`), with a `hallmon-replayed-from` header.

Idempotent: every dead letter is known by `<dlq topic>:<partition>:<offset>`; a Redis set
(`<key prefix>:dlq:replayed`, expiring with the DLQ's retention) records those replayed, after
the broker acknowledged them, so a second run skips them. A crash in between replays a message
twice at most, which the pipeline absorbs (duplicate event ids are dropped by the assembler,
verdicts deduplicate on `verdict_id`, fatigue counts a response id once).
"""

from __future__ import annotations

import base64
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any

import typer

from hallmon.cli import app
from hallmon.schemas import ContractError, DeadLetter, decode

REPLAY_HEADER = "hallmon-replayed-from"
REPLAYED_TTL_S = 90 * 24 * 3600  # the DLQ's retention (topology/topics.py)

dlq_app = typer.Typer(help="Dead letters: list them, replay them once fixed.", no_args_is_help=True)
app.add_typer(dlq_app, name="dlq")


@dataclass(frozen=True)
class DeadLetterFilter:
    """Which dead letters to act on; an empty field matches everything."""

    reasons: frozenset[str] = frozenset()
    stages: frozenset[str] = frozenset()
    topics: frozenset[str] = frozenset()
    since: datetime | None = None
    error_contains: str | None = None

    def matches(self, dl: DeadLetter) -> bool:
        return (
            (not self.reasons or dl.reason in self.reasons)
            and (not self.stages or dl.stage in self.stages)
            and (not self.topics or dl.topic in self.topics)
            and (self.since is None or dl.at >= self.since)
            and (self.error_contains is None or self.error_contains in dl.error)
        )


@dataclass
class ReplayReport:
    matched: int = 0
    replayed: int = 0
    already: int = 0
    unreadable: int = 0
    ids: list[str] = field(default_factory=list)


def _dead_letters(settings: Any, idle_s: float = 2.0) -> Iterator[tuple[str, DeadLetter | None]]:
    """(id, dead letter or None if unreadable) from the DLQ's start to its end at call time."""
    from confluent_kafka import TopicPartition

    from hallmon.topology.kafka_client import make_consumer

    topic = settings.topics.dlq
    consumer = make_consumer(
        settings.kafka, f"hallmon-dlq-read-{uuid.uuid4().hex[:8]}", {"log_level": 0}
    )
    try:
        parts = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        ends: dict[int, int] = {}
        assign = []
        for p in parts:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            if high > low:
                ends[p] = high
                assign.append(TopicPartition(topic, p, low))
        if not assign:
            return
        consumer.assign(assign)
        last = time.monotonic()
        while ends and time.monotonic() - last < idle_s:
            msg = consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            last = time.monotonic()
            p, offset = msg.partition(), msg.offset()
            end = ends.get(p) if p is not None else None
            if p is None or offset is None or end is None or offset >= end:
                continue  # past the end this run started with
            if offset == end - 1:
                ends.pop(p)
            try:
                yield f"{topic}:{p}:{offset}", decode(DeadLetter, msg.value() or b"")
            except ContractError:
                yield f"{topic}:{p}:{offset}", None
    finally:
        consumer.close()


def replay_dead_letters(
    settings: Any,
    which: DeadLetterFilter,
    *,
    to: str | None = None,
    dry_run: bool = False,
    limit: int | None = None,
) -> ReplayReport:
    from hallmon.topology.kafka_client import make_producer
    from hallmon.topology.redis_client import make_sync_redis

    report = ReplayReport()
    client = make_sync_redis(settings.redis)
    replayed_key = f"{settings.fatigue.key_prefix}:dlq:replayed"
    producer = None if dry_run else make_producer(settings.kafka)
    try:
        for dl_id, dl in _dead_letters(settings):
            if dl is None:
                report.unreadable += 1
                continue
            if not which.matches(dl):
                continue
            report.matched += 1
            if client.sismember(replayed_key, dl_id):
                report.already += 1
                continue
            if limit is not None and report.replayed >= limit:
                continue
            report.ids.append(dl_id)
            if producer is None:
                continue
            headers = [(k, v.encode()) for k, v in dl.headers.items() if k != REPLAY_HEADER]
            producer.produce(
                to or dl.topic,
                value=dl.original_value(),
                key=base64.b64decode(dl.key_b64) if dl.key_b64 is not None else None,
                headers=[*headers, (REPLAY_HEADER, dl_id.encode())],
            )
            # Acknowledged before it is recorded: a crash replays again, never loses it.
            if producer.flush(30) != 0:
                raise RuntimeError(f"the broker did not acknowledge the replay of {dl_id}")
            client.sadd(replayed_key, dl_id)
            client.expire(replayed_key, REPLAYED_TTL_S)
            report.replayed += 1
    finally:
        client.close()
    return report


def _filter(
    reason: list[str] | None,
    stage: list[str] | None,
    topic: list[str] | None,
    since: datetime | None,
    error_contains: str | None,
) -> DeadLetterFilter:
    from datetime import UTC
    from typing import get_args

    from hallmon.schemas.deadletter import DeadLetterReason, WorkerStage

    for option, given, allowed in (
        ("--reason", reason, get_args(DeadLetterReason)),
        ("--stage", stage, get_args(WorkerStage)),
    ):
        unknown = sorted(set(given or ()) - set(allowed))
        if unknown:
            raise typer.BadParameter(
                f"{unknown}: use one of {', '.join(allowed)}", param_hint=option
            )
    return DeadLetterFilter(
        reasons=frozenset(reason or ()),
        stages=frozenset(stage or ()),
        topics=frozenset(topic or ()),
        since=since.replace(tzinfo=since.tzinfo or UTC) if since else None,
        error_contains=error_contains,
    )


ReasonOpt = Annotated[
    list[str] | None, typer.Option("--reason", help="Dead-letter reason (repeatable).")
]
StageOpt = Annotated[
    list[str] | None, typer.Option("--stage", help="assembler, verifier or fatigue (repeatable).")
]
TopicOpt = Annotated[list[str] | None, typer.Option("--topic", help="Source topic (repeatable).")]
SinceOpt = Annotated[
    datetime | None, typer.Option(help="Only dead letters from this time on (UTC if no zone).")
]
ContainsOpt = Annotated[str | None, typer.Option("--error-contains", help="Text in the error.")]


@dlq_app.command("replay")
def replay(
    reason: ReasonOpt = None,
    stage: StageOpt = None,
    topic: TopicOpt = None,
    since: SinceOpt = None,
    error_contains: ContainsOpt = None,
    to: Annotated[
        str | None, typer.Option(help="Publish here instead of the source topic.")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Replay at most this many.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would go.")] = False,
) -> None:
    """Send matching dead letters back to their source topic, each at most once."""
    from hallmon.topology.settings import get_settings

    which = _filter(reason, stage, topic, since, error_contains)
    report = replay_dead_letters(get_settings(), which, to=to, dry_run=dry_run, limit=limit)
    verb = "would replay" if dry_run else "replayed"
    for dl_id in report.ids:
        typer.echo(f"{verb} {dl_id}")
    typer.echo(
        f"{report.matched} matched, {len(report.ids) if dry_run else report.replayed} {verb}, "
        f"{report.already} replayed before (skipped), {report.unreadable} unreadable"
    )


@dlq_app.command("list")
def list_(
    reason: ReasonOpt = None,
    stage: StageOpt = None,
    topic: TopicOpt = None,
    since: SinceOpt = None,
    error_contains: ContainsOpt = None,
) -> None:
    """Dead letters matching the filter, oldest first: id, reason, stage, source, error."""
    from hallmon.topology.settings import get_settings

    which = _filter(reason, stage, topic, since, error_contains)
    n = 0
    for dl_id, dl in _dead_letters(get_settings()):
        if dl is not None and which.matches(dl):
            n += 1
            typer.echo(
                f"{dl_id}  {dl.at:%Y-%m-%d %H:%M:%S}  {dl.reason:<20} {dl.stage:<9} "
                f"{dl.topic}  {dl.error[:120]}"
            )
    typer.echo(f"{n} dead letter(s)")
