"""The whole pipeline on the real broker, Redis and NLI model: traces in, verdicts out.

One `hallmon worker` (both roles) serves the module; each test uses its own sessions, so the
scenarios run against the same worker and the module stays quick.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import re
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
    encode,
    verdict_id_for,
)
from hallmon.topology.kafka_client import make_producer
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.fatigue.agent import fatigue_config
from hallmon.workers.fatigue.store import FatigueStore
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.cli.demo_sessions import DOCS, FORGETFUL
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
    found = [a for a in alerts() if a["kind"] == "unsupported_rate"]
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


def fatigue_alerts(pipeline: Pipeline, sid: str, kind: str) -> list[dict[str, Any]]:
    return [
        a
        for a in pipeline.watch.values(pipeline.settings.topics.fatigue)
        if a["session_id"] == sid and a["kind"] == kind
    ]


def load_snapshot(settings: HallmonSettings, sid: str) -> Any:
    async def read() -> Any:
        store, client = fatigue_store(settings)
        try:
            return await store.load(sid)
        finally:
            await client.aclose()

    return asyncio.run(read())


REDELIVERED: set[str] = set()
"""Verdict ids a test republished on purpose."""

# The demo's `forgetful` session: four facts, then four answers that each contradict one of them.
FACTS = [t.answer for t in FORGETFUL.turns[:4]]
REVERSALS = [t.answer for t in FORGETFUL.turns[4:]]


def test_self_contradicting_session_raises_one_contradictions_alert(pipeline: Pipeline) -> None:
    sid = session()
    rids: list[str] = []
    # One answer at a time, as a conversation goes: each is checked against the ones before.
    for turn, t in enumerate(FORGETFUL.turns):
        rid = pipeline.traces.send_response(
            sid,
            t.answer,
            context={"documents": [{"source_id": d, "text": DOCS[d]} for d in t.docs]},
            turn=turn,
            question=t.question,
        )
        pipeline.traces.flush()
        pipeline.wait_verdict(rid)
        rids.append(rid)
    verdicts = [pipeline.verdicts_for(r)[0] for r in rids]
    assert all(v.conflict_check == "done" for v in verdicts), [v.notes for v in verdicts]
    assert all(v.loop_step == 0 for v in verdicts)  # each answer followed the user's input
    assert [len(v.session_conflicts) for v in verdicts[:4]] == [0, 0, 0, 0]
    first = verdicts[4].session_conflicts[0]
    assert first.earlier_response_id == rids[0] and first.earlier_claim == FACTS[0]
    assert first.claim == REVERSALS[0] and first.contradiction >= 0.7
    assert first.span.end > first.span.start and first.earlier_span.end > 0
    assert sum(bool(v.session_conflicts) for v in verdicts[4:]) >= 3

    pipeline.watch.wait_for(
        "a contradictions alert",
        lambda: bool(fatigue_alerts(pipeline, sid, "contradictions")),
        30,
        [pipeline.worker],
    )
    time.sleep(2.0)
    (alert,) = fatigue_alerts(pipeline, sid, "contradictions")
    assert alert["value"] >= alert["threshold"]
    snap = load_snapshot(pipeline.settings, sid)
    assert snap.conflicts >= 3 and snap.signals["contradictions"].level >= 0.2

    # Redelivered verdicts (a fatigue worker crash before its commit) change nothing: the same
    # messages again, then a marker on the same partition to know they have been read.
    before = snap.model_dump(exclude={"updated_at"})
    REDELIVERED.update(v.verdict_id for v in verdicts)
    for m in pipeline.watch.on(pipeline.settings.topics.verdicts):
        if m.key() == sid.encode():
            pipeline.raw.produce(
                pipeline.settings.topics.verdicts,
                key=m.key(),
                value=m.value(),
                headers=m.headers(),
            )
    marker = verdicts[0].model_copy(
        update={
            "session_id": f"{sid}-marker",
            "response_id": f"{rids[0]}-marker",
            "verdict_id": verdict_id_for(f"{rids[0]}-marker"),
        }
    )
    pipeline.raw.produce(pipeline.settings.topics.verdicts, key=sid.encode(), value=encode(marker))
    pipeline.raw.flush(10)
    pipeline.watch.wait_for(
        "the marker counted",
        lambda: load_snapshot(pipeline.settings, f"{sid}-marker") is not None,
        30,
        [pipeline.worker],
    )
    after = load_snapshot(pipeline.settings, sid)
    assert after.model_dump(exclude={"updated_at"}) == before
    assert len(fatigue_alerts(pipeline, sid, "contradictions")) == 1
    assert [a["alert_id"] for a in pipeline.watch.values(pipeline.settings.topics.fatigue)].count(
        alert["alert_id"]
    ) == 1


def test_spoofed_citations_raise_a_citation_precision_alert(pipeline: Pipeline) -> None:
    sid = session()
    grounded = (
        "Shoes can be returned within 30 days of delivery if they are unworn [returns-policy]."
    )
    spoofed = "Shoes can be returned within 30 days of delivery if they are unworn [doc-9]."
    rids = []
    for turn in range(8):
        rids.append(
            pipeline.traces.send_response(
                sid,
                grounded if turn < 4 else spoofed,
                context={"documents": [{"source_id": "returns-policy", "text": POLICY}]},
                turn=turn,
            )
        )
    pipeline.traces.flush()
    verdicts = [pipeline.wait_verdict(r) for r in rids]
    assert [v.citation_precision for v in verdicts] == [1.0] * 4 + [0.0] * 4
    assert verdicts[5].citations[0].source_id is None  # names no source it was given
    pipeline.watch.wait_for(
        "a citation_precision alert",
        lambda: bool(fatigue_alerts(pipeline, sid, "citation_precision")),
        30,
        [pipeline.worker],
    )
    time.sleep(1.0)
    (alert,) = fatigue_alerts(pipeline, sid, "citation_precision")
    assert alert["value"] <= alert["threshold"]  # precision (or its slope) under its floor
    snap = load_snapshot(pipeline.settings, sid)
    assert snap.citations == 8 and snap.precise_citations == 4


def test_no_verdict_is_duplicated_without_redelivery(pipeline: Pipeline) -> None:
    # Across every scenario above, only the deliberate double delivery has two verdicts.
    counts = Counter(v.verdict_id for v in pipeline.verdicts() if v.verdict_id not in REDELIVERED)
    assert all(n == 1 for vid, n in counts.items() if n != 2), counts


def test_the_verifier_logs_the_plan_it_chose_for_this_host(pipeline: Pipeline) -> None:
    """`hallmon worker` (all roles, through its supervisor) tells the verifier its siblings, and
    the verifier logs what it chose for the host's cores and those roles."""
    cores = len(os.sched_getaffinity(0))
    pattern = re.compile(
        r"verifier plan: (\d+) model thread.*\((\d+) core\(s\) for roles ([a-z+]+)"
    )

    def logged() -> str:
        return pipeline.worker.log_path.read_text(errors="replace")

    pipeline.watch.wait_for(
        "the verifier's plan", lambda: bool(pattern.search(logged())), 60, [pipeline.worker]
    )
    plan = pattern.search(logged())
    assert plan is not None
    assert plan.group(3) == "assembler+verifier+fatigue"
    assert int(plan.group(2)) == cores
    # The test environment pins the model threads; the plan says so and follows it.
    pinned = pipeline.settings.model.threads
    assert int(plan.group(1)) == (pinned if pinned is not None else max(1, cores - 2))
    if pinned is not None:
        assert "set by the environment: HALLMON_MODEL__THREADS" in logged()
