"""The real services the fixture hands out: Kafka carries an event intact, Redis answers."""

from __future__ import annotations

import json
import uuid

import pytest
import redis
from confluent_kafka import KafkaError, Message, TopicPartition
from hallmon.topology.kafka_client import make_admin, make_consumer, make_producer
from hallmon.topology.settings import HallmonSettings
from hallmon.topology.topics import ensure_topics, topic_specs

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def _produce(
    settings: HallmonSettings,
    topic: str,
    key: bytes,
    value: bytes,
    headers: list[tuple[str, str | bytes | None]],
) -> Message:
    producer = make_producer(settings.kafka)
    delivered: list[Message] = []

    def on_delivery(error: KafkaError | None, message: Message) -> None:
        assert error is None, f"delivery failed: {error}"
        delivered.append(message)

    producer.produce(topic, value=value, key=key, headers=headers, on_delivery=on_delivery)
    assert producer.flush(30) == 0, "message still queued after 30 s"
    assert len(delivered) == 1
    return delivered[0]


def test_event_produced_is_consumed_back_unchanged(hallmon_settings: HallmonSettings) -> None:
    ensure_topics(make_admin(hallmon_settings.kafka), topic_specs(hallmon_settings.topics))
    topic = hallmon_settings.topics.traces
    session_id = f"session-{uuid.uuid4()}"
    key = session_id.encode()
    value = json.dumps(
        {"schema_version": "1", "type": "user.input", "session_id": session_id, "text": "Grüße ✓"},
        ensure_ascii=False,
    ).encode()
    headers: list[tuple[str, str | bytes | None]] = [
        ("traceparent", b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        ("content-type", b"application/json"),
        ("binary", bytes(range(256))),
    ]

    sent = _produce(hallmon_settings, topic, key, value, headers)
    again = _produce(hallmon_settings, topic, key, b"second", [])
    assert again.partition() == sent.partition(), "one key must stay on one partition"

    partition, offset = sent.partition(), sent.offset()
    assert partition is not None and offset is not None
    consumer = make_consumer(hallmon_settings.kafka, group_id=f"test-{uuid.uuid4().hex}")
    try:
        consumer.assign([TopicPartition(topic, partition, offset)])
        received = None
        for _ in range(60):
            message = consumer.poll(0.5)
            if message is None:
                continue
            assert message.error() is None, message.error()
            received = message
            break
    finally:
        consumer.close()

    assert received is not None, "nothing consumed within 30 s"
    assert received.topic() == topic
    assert received.key() == key
    assert received.value() == value
    assert received.headers() == headers
    assert (received.partition(), received.offset()) == (partition, offset)


def test_redis_answers_through_the_fixture(redis_client: redis.Redis) -> None:
    assert redis_client.ping() is True
    key = f"test:{uuid.uuid4().hex}"
    try:
        assert redis_client.set(key, "Grüße", ex=60) is True
        assert redis_client.get(key) == "Grüße".encode()
        assert 0 < redis_client.ttl(key) <= 60
    finally:
        redis_client.delete(key)
    assert redis_client.get(key) is None
