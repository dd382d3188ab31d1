"""A worker killed (SIGKILL) in the middle of a stream and restarted: the verdict still arrives,
once. The open stream survives in the assembler's changelog-backed table."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import cast

import pytest
from hallmon.schemas import VerdictEvent, decode, verdict_id_for
from hallmon.topology.kafka_client import make_consumer, make_producer
from hallmon.topology.settings import KafkaSettings
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.producer import KafkaProducerLike, TraceProducer

from ..conftest import Services, TopicWatcher, WorkerProcess, pipeline_env, settings_from_env

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.timeout(300)]

POLICY = "Shoes can be returned within 30 days of delivery if they are unworn."


def changelog_messages(settings_kafka: KafkaSettings, topic: str) -> int:
    from confluent_kafka import KafkaException, TopicPartition

    consumer = make_consumer(settings_kafka, f"probe-{uuid.uuid4().hex[:6]}", {"log_level": 0})
    try:
        meta = consumer.list_topics(topic, timeout=5).topics.get(topic)
        if meta is None or meta.error is not None:
            return 0
        total = 0
        for p in meta.partitions:
            try:
                low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=5)
            except KafkaException:
                # faust creates the changelog on its own: until a leader is elected the broker
                # answers NOT_LEADER; the caller polls again.
                return 0
            total += high - low
        return total
    finally:
        consumer.close()


def test_worker_killed_mid_stream_still_gives_one_verdict(
    services: Services, nli_model_dir: Path, tmp_path: Path
) -> None:
    prefix = f"test-{uuid.uuid4().hex[:10]}."
    # The stream must outlive the restart (the dead member's session expires after ~10 s).
    env = pipeline_env(services, prefix, nli_model_dir, HALLMON_ASSEMBLER__STREAM_TIMEOUT_S="90")
    settings = settings_from_env(env)
    ensure_hallmon_topics(settings)
    log = tmp_path / "worker.log"
    worker = WorkerProcess("all", env, log).start()
    watch = TopicWatcher(settings, [settings.topics.verdicts, settings.topics.responses])
    raw = make_producer(settings.kafka)
    traces = TraceProducer(
        "support-bot", topic=settings.topics.traces, producer=cast(KafkaProducerLike, raw)
    )
    changelog = f"{settings.assembler.app_id}-streams-changelog"
    try:
        sid = f"s-{uuid.uuid4().hex[:8]}"
        stream = traces.start_response(sid, turn=1, user_input="Can I return my shoes?")
        stream.context("returns-policy", POLICY)
        first = ["You can return ", "the shoes within 30 days "]
        for chunk in first:
            stream.delta(chunk)
        traces.flush()
        # 1 user input + 1 document + 2 deltas are in the table's changelog: the stream is open.
        watch.wait_for(
            "the open stream in the changelog",
            lambda: changelog_messages(settings.kafka, changelog) >= 4,
            90,
            [worker],
        )
        worker.kill()  # SIGKILL the whole worker: no shutdown, no commit, no flush

        worker = WorkerProcess("all", env, log).start()
        for chunk in ["of delivery ", "if they are unworn."]:
            stream.delta(chunk)
        stream.complete()
        traces.flush()

        def verdicts() -> list[VerdictEvent]:
            return [
                v
                for v in (
                    decode(VerdictEvent, m.value()) for m in watch.on(settings.topics.verdicts)
                )
                if v.response_id == stream.response_id
            ]

        watch.wait_for("the verdict after the restart", lambda: bool(verdicts()), 120, [worker])
        time.sleep(3.0)
        found = verdicts()
        assert len(found) == 1, [v.verdict_id for v in found]
        assert found[0].verdict_id == verdict_id_for(stream.response_id)
        assembled = [
            r
            for r in watch.values(settings.topics.responses)
            if r["response_id"] == stream.response_id
        ]
        assert len(assembled) == 1
        # the chunks from before the crash came back from the changelog
        assert (
            assembled[0]["text"]
            == "You can return the shoes within 30 days of delivery if they are unworn."
        )
        assert assembled[0]["complete"] is True
        assert assembled[0]["context"]["documents"][0]["source_id"] == "returns-policy"
    finally:
        watch.close()
        worker.stop()
