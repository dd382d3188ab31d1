"""`hallmon dlq replay` against a real broker and Redis: the filter picks, the original bytes,
key and headers go back to the source topic, and a second run replays nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from hallmon.schemas import DeadLetter, encode
from hallmon.topology.kafka_client import make_consumer, make_producer
from hallmon.topology.settings import FatigueSettings, HallmonSettings
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.cli.dlq import REPLAY_HEADER, DeadLetterFilter, replay_dead_letters

pytestmark = pytest.mark.integration


@pytest.fixture
def settings(
    hallmon_settings: HallmonSettings, redis_client: redis.Redis
) -> Iterator[HallmonSettings]:
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    yield hallmon_settings.model_copy(update={"fatigue": FatigueSettings(key_prefix=prefix)})
    redis_client.delete(f"{prefix}:dlq:replayed")


def test_replay_is_filtered_and_idempotent(settings: HallmonSettings) -> None:
    ensure_hallmon_topics(settings)
    topics = settings.topics
    letters = [
        DeadLetter.of(
            reason="schema_violation",
            error="field 'turn'",
            stage="assembler",
            topic=topics.traces,
            value=b'{"n": 1}',
            key=b"s-1",
            headers={"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"},
        ),
        DeadLetter.of(
            reason="processing_error",
            error="boom",
            stage="verifier",
            topic=topics.responses,
            value=b'{"n": 2}',
            key=b"s-2",
        ),
        DeadLetter.of(
            reason="schema_violation",
            error="field 'seq'",
            stage="assembler",
            topic=topics.traces,
            value=b'{"n": 3}',
            key=b"s-3",
        ),
    ]
    producer = make_producer(settings.kafka)
    for dl in letters:
        producer.produce(topics.dlq, value=encode(dl))
    assert producer.flush(30) == 0

    which = DeadLetterFilter(reasons=frozenset({"schema_violation"}))
    dry = replay_dead_letters(settings, which, dry_run=True)
    assert (dry.matched, len(dry.ids), dry.replayed) == (2, 2, 0)
    first = replay_dead_letters(settings, which)
    again = replay_dead_letters(settings, which)
    assert (first.matched, first.replayed) == (2, 2)
    assert (again.matched, again.replayed, again.already) == (2, 0, 2)

    consumer = make_consumer(settings.kafka, f"check-{uuid.uuid4().hex[:8]}", {"log_level": 0})
    consumer.subscribe([topics.traces, topics.responses])
    got = []
    for _ in range(60):
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            got.append(msg)
        if len(got) == 2:
            break
    extra = consumer.poll(2.0)
    consumer.close()
    assert extra is None, "a dead letter was replayed twice, or one outside the filter"
    assert sorted((m.topic(), m.key(), m.value()) for m in got) == [
        (topics.traces, b"s-1", b'{"n": 1}'),
        (topics.traces, b"s-3", b'{"n": 3}'),
    ]
    headers = dict(next(m for m in got if m.key() == b"s-1").headers())
    assert headers["traceparent"].startswith(b"00-") and headers[REPLAY_HEADER].startswith(
        topics.dlq.encode()
    )
