"""The whole pipeline on the real broker, Redis and NLI model: traces in, verdicts out.

One `hallmon worker` (both roles) serves the module; each test uses its own sessions, so the
scenarios run against the same worker and the module stays quick.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
import redis.asyncio as aioredis
from confluent_kafka import Producer
from hallmon.schemas import (
    ResponseCompletedEvent,
    ResponseDeltaEvent,
    VerdictEvent,
    decode,
    verdict_id_for,
)
from hallmon.topology.kafka_client import make_producer
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.fatigue.agent import fatigue_config
from hallmon.workers.fatigue.store import FatigueStore
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.producer import KafkaProducerLike, TraceProducer

from ..conftest import Services, TopicWatcher, WorkerProcess, pipeline_env, settings_from_env

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.timeout(300)]

POLICY = (
    "Shoes can be returned within 30 days of delivery if they are unworn. "
    "Refunds are issued to the original payment method within 5 business days."
)
MAX_TEXT = 2_000


@dataclass
class Pipeline:
    settings: HallmonSettings
    worker: WorkerProcess
    watch: TopicWatcher
    traces: TraceProducer
    raw: Producer

    def verdicts(self) -> list[VerdictEvent]:
        return [
            decode(VerdictEvent, m.value()) for m in self.watch.on(self.settings.topics.verdicts)
        ]

    def verdicts_for(self, response_id: str) -> list[VerdictEvent]:
        return [v for v in self.verdicts() if v.response_id == response_id]

    def wait_verdict(self, response_id: str, timeout_s: float = 60) -> VerdictEvent:
        self.watch.wait_for(
            f"a verdict for {response_id}",
            lambda: bool(self.verdicts_for(response_id)),
            timeout_s,
            [self.worker],
        )
        return self.verdicts_for(response_id)[0]


@pytest.fixture(scope="module")
def pipeline(
    services: Services, nli_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pipeline]:
    prefix = f"test-{uuid.uuid4().hex[:10]}."
    env = pipeline_env(
        services,
        prefix,
        nli_model_dir,
        HALLMON_LIMITS__MAX_TEXT_CHARS=str(MAX_TEXT),
        HALLMON_FATIGUE__MIN_POINTS="4",
    )
    settings = settings_from_env(env)
    ensure_hallmon_topics(settings)
    worker = WorkerProcess("all", env, tmp_path_factory.mktemp("worker") / "worker.log").start()
    topics = settings.topics
    watch = TopicWatcher(settings, [topics.responses, topics.verdicts, topics.dlq, topics.fatigue])
    raw = make_producer(settings.kafka)
    traces = TraceProducer(
        "support-bot", topic=topics.traces, producer=cast(KafkaProducerLike, raw), model="demo-llm"
    )
    yield Pipeline(settings, worker, watch, traces, raw)
    watch.close()
    worker.stop()


def fatigue_store(settings: HallmonSettings) -> tuple[FatigueStore, aioredis.Redis]:
    client = aioredis.Redis.from_url(settings.redis.url)
    return FatigueStore(client, fatigue_config(settings)), client


def session() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def test_streamed_answer_gives_exactly_one_verdict_with_its_fields(pipeline: Pipeline) -> None:
    sid = session()
    stream = pipeline.traces.start_response(sid, turn=1, user_input="Can I return my shoes?")
    stream.context("returns-policy", POLICY, trust=0.9)
    for chunk in ["You can return ", "the shoes within 30 days ", "of delivery if unworn."]:
        stream.delta(chunk)
    stream.complete(usage={"completion_tokens": 14})
    pipeline.traces.flush()

    verdict = pipeline.wait_verdict(stream.response_id)
    time.sleep(2.0)  # anything extra would have arrived by now
    assert len(pipeline.verdicts_for(stream.response_id)) == 1
    assert verdict.verdict_id == verdict_id_for(stream.response_id)
    assert verdict.enforcement == "not_enforced_streaming"
    assert (verdict.session_id, verdict.agent_id, verdict.turn) == (sid, "support-bot", 1)
    assert verdict.state == "checked", verdict
    assert verdict.counts.total >= 1 and verdict.claims
    assert verdict.timings.stream_ended_at is not None
    assert verdict.timings.latency_ms is not None and verdict.timings.latency_ms >= 0
    assert verdict.timings.verdict_at >= verdict.timings.stream_ended_at
    assert "nli" in verdict.model_versions
    msg = next(
        m
        for m in pipeline.watch.on(pipeline.settings.topics.verdicts)
        if json.loads(m.value())["response_id"] == stream.response_id
    )
    assert msg.key() == sid.encode()
    assert dict(msg.headers() or [])["traceparent"].decode() == stream.traceparent


def test_out_of_order_and_duplicated_deltas(pipeline: Pipeline) -> None:
    sid, rid = session(), f"r-{uuid.uuid4().hex[:8]}"
    chunks = ["Refunds are issued ", "to the original payment method ", "within 5 business days."]
    common = {"session_id": sid, "response_id": rid, "agent_id": "support-bot", "turn": 2}
    from hallmon.schemas import ContextRetrievedEvent

    events: list[Any] = [
        ResponseDeltaEvent(event_id=f"{rid}:d{i}", seq=i, text=t, **common)
        for i, t in enumerate(chunks)
    ]
    random.Random(3).shuffle(events)
    events = [
        ContextRetrievedEvent(
            event_id=f"{rid}:doc", source_id="returns-policy", text=POLICY, **common
        ),
        *events,
        events[0],
        events[2],
        ResponseCompletedEvent(event_id=f"{rid}:end", final_seq=2, **common),
    ]
    for e in events:
        pipeline.traces.emit(e, traceparent=None)
    pipeline.traces.flush()

    pipeline.wait_verdict(rid)
    time.sleep(2.0)
    assert len(pipeline.verdicts_for(rid)) == 1
    assembled = [
        r
        for r in pipeline.watch.values(pipeline.settings.topics.responses)
        if r["response_id"] == rid
    ]
    assert len(assembled) == 1
    assert assembled[0]["text"] == "".join(chunks)
    assert assembled[0]["missing_seqs"] == [] and assembled[0]["complete"] is True


def test_stream_that_never_ends_is_verified_as_incomplete(pipeline: Pipeline) -> None:
    sid = session()
    stream = pipeline.traces.start_response(sid, turn=1)
    stream.context("returns-policy", POLICY)
    stream.delta("You can return the shoes within 30 ")
    pipeline.traces.flush()
    verdict = pipeline.wait_verdict(stream.response_id, timeout_s=60)
    assert verdict.state == "unavailable"
    assert verdict.unavailable_reason == "stream_incomplete"
    assert verdict.verdict_id == verdict_id_for(stream.response_id)


def test_bad_input_goes_to_dead_letters_while_valid_events_flow(pipeline: Pipeline) -> None:
    sid = session()
    topic = pipeline.settings.topics.traces
    bad = [
        (b"{this is not json", "malformed_json"),
        (json.dumps({"type": "response.delta", "session_id": sid}).encode(), "schema_violation"),
        (
            json.dumps(
                {
                    "type": "context.retrieved",
                    "event_id": "big",
                    "session_id": sid,
                    "response_id": "r-big",
                    "agent_id": "support-bot",
                    "source_id": "huge",
                    "text": "x" * (MAX_TEXT + 1),
                }
            ).encode(),
            "over_limit",
        ),
    ]
    for value, _ in bad:
        pipeline.raw.produce(topic, value=value, key=sid.encode())
    # a valid answer of the same session, behind the bad events on the same partition
    stream = pipeline.traces.start_response(sid, turn=1)
    stream.context("returns-policy", POLICY)
    stream.delta("Refunds take 5 business days.")
    stream.complete()
    pipeline.traces.flush()

    pipeline.wait_verdict(stream.response_id)
    dlq_topic = pipeline.settings.topics.dlq

    def mine() -> list[dict[str, Any]]:
        return [d for d in pipeline.watch.values(dlq_topic) if d.get("key_b64") == _b64(sid)]

    pipeline.watch.wait_for("3 dead letters", lambda: len(mine()) >= 3, 30, [pipeline.worker])
    letters = mine()
    assert sorted(d["reason"] for d in letters) == sorted(r for _, r in bad)
    for d in letters:
        original = base64.b64decode(d["value_b64"])
        reason = next(r for v, r in bad if v == original)
        assert d["reason"] == reason and d["error"]
        assert d["topic"] == topic and d["partition"] is not None and d["offset"] is not None
        assert d["stage"] == "assembler"
    over = next(d for d in letters if d["reason"] == "over_limit")
    assert "max_text_chars" in over["error"]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_same_answer_delivered_twice_counts_once_in_fatigue(pipeline: Pipeline) -> None:
    sid = session()
    rid = f"r-{uuid.uuid4().hex[:8]}"
    for _ in range(2):  # the producer retried the whole answer: same ids
        pipeline.traces.send_response(
            sid,
            "Refunds are issued within 5 business days.",
            context={"documents": [{"source_id": "returns-policy", "text": POLICY}]},
            turn=4,
            response_id=rid,
        )
    pipeline.traces.flush()
    pipeline.watch.wait_for(
        "both deliveries verified",
        lambda: len(pipeline.verdicts_for(rid)) == 2,
        60,
        [pipeline.worker],
    )
    verdicts = pipeline.verdicts_for(rid)
    assert {v.verdict_id for v in verdicts} == {verdict_id_for(rid)}  # consumers dedupe on it

    async def read() -> Any:
        store, client = fatigue_store(pipeline.settings)
        try:
            return await store.load(sid)
        finally:
            await client.aclose()

    snap = asyncio.run(read())
    assert snap is not None
    assert snap.responses == 1 and len(snap.series) == 1
    assert snap.claims == verdicts[0].counts.total


def test_session_whose_unsupported_rate_climbs_raises_one_alert(pipeline: Pipeline) -> None:
    sid = session()
    supported = "Shoes can be returned within 30 days of delivery."
    # Each later turn swaps a grounded sentence for a commitment and numbers nobody gave.
    made_up = [
        "We will refund you 250 dollars today.",
        "Your replacement ships in 2 hours.",
        "I have already issued a store credit of 75 dollars.",
        "We will make an exception and extend your return window to 365 days.",
    ]
    rids = []
    for turn in range(10):
        bad = min(len(made_up), max(0, turn - 3))
        sentences = [supported] * (len(made_up) - bad) + made_up[:bad]
        stream = pipeline.traces.start_response(sid, turn=turn)
        stream.context("returns-policy", POLICY)
        for k in range(turn):  # the context grows with the conversation
            stream.context(f"faq-{k}", f"FAQ entry {k}: gift cards never expire. " * 8)
        for sentence in sentences:
            stream.delta(sentence + " ")
        stream.complete()
        rids.append(stream.response_id)
    pipeline.traces.flush()
    for rid in rids:
        pipeline.wait_verdict(rid)
    fatigue_topic = pipeline.settings.topics.fatigue

    def alerts() -> list[dict[str, Any]]:
        return [a for a in pipeline.watch.values(fatigue_topic) if a["session_id"] == sid]

    pipeline.watch.wait_for("a fatigue alert", lambda: bool(alerts()), 30, [pipeline.worker])
    time.sleep(2.0)
    found = alerts()
    assert len(found) == 1, [
        (a["kind"], a["value"], a["threshold"], a["snapshot"]["recent_rate"],
         [(p["turn"], p["claims"], p["unsupported"]) for p in a["snapshot"]["series"]])
        for a in found
    ]  # fmt: skip
    assert found[0]["enforcement"] == "not_enforced_streaming"
    assert found[0]["value"] >= found[0]["threshold"]
    rates = [
        v.counts.unsupported / max(1, v.counts.total)
        for r in rids
        for v in pipeline.verdicts_for(r)
    ]
    assert rates[-1] > rates[0]


def test_no_verdict_is_duplicated_without_redelivery(pipeline: Pipeline) -> None:
    # Across every scenario above, only the deliberate double delivery has two verdicts.
    counts = Counter(v.verdict_id for v in pipeline.verdicts())
    assert all(n == 1 for vid, n in counts.items() if n != 2), counts
