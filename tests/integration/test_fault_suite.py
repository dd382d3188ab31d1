"""The fault suite: `kill -9` of the assembler and of the verifier in the middle of a steady
load, on the real broker, Redis and model. Nothing may be lost: every answer gets a verdict, no
complete answer is reported `stream_incomplete`, fatigue counts each answer once; duplicate
verdict messages (same `verdict_id`, at-least-once) are counted and reported.

`HALLMON_FAULT_ANSWERS` sizes the load (default 1000 answers, about two minutes on a quiet
2-core machine); run with `-s` to see the fault table.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import cast

import pytest
import redis.asyncio as aioredis
from hallmon.schemas import VerdictEvent, decode
from hallmon.topology.kafka_client import make_producer
from hallmon.workers.fatigue.agent import fatigue_config
from hallmon.workers.fatigue.store import FatigueStore
from hallmon.workers.runner import ensure_hallmon_topics

from hallmon.producer import KafkaProducerLike, TraceProducer

from ..conftest import Services, TopicWatcher, WorkerProcess, pipeline_env, settings_from_env

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.timeout(900)]

POLICY = "Shoes can be returned within 30 days of delivery if they are unworn."
ANSWERS = int(os.environ.get("HALLMON_FAULT_ANSWERS", "1000"))
SESSIONS = max(1, ANSWERS // 5)
PRODUCE_S = 40.0  # the load is spread over this long, the kills fall inside it


def test_kill9_of_assembler_and_verifier_under_load_loses_nothing(
    services: Services, nli_model_dir: Path, tmp_path: Path
) -> None:
    prefix = f"test-{uuid.uuid4().hex[:10]}."
    env = pipeline_env(services, prefix, nli_model_dir, HALLMON_ASSEMBLER__STREAM_TIMEOUT_S="20")
    settings = settings_from_env(env)
    ensure_hallmon_topics(settings)
    t = settings.topics
    log = tmp_path / "workers.log"
    workers = {
        role: WorkerProcess(role, env, log).start() for role in ("assembler", "verifier", "fatigue")
    }
    watch = TopicWatcher(settings, [t.verdicts, t.responses])
    raw = make_producer(settings.kafka)
    traces = TraceProducer("load-bot", topic=t.traces, producer=cast(KafkaProducerLike, raw))
    sessions = [f"s-{uuid.uuid4().hex[:8]}" for _ in range(SESSIONS)]
    expected: dict[str, str] = {}  # response id -> session
    done = threading.Event()

    def produce() -> None:
        start = time.monotonic()
        for i in range(ANSWERS):
            sid = sessions[i % SESSIONS]
            stream = traces.start_response(sid, turn=i // SESSIONS, user_input="Returns?")
            stream.context("policy", POLICY)
            stream.delta("You can return the shoes ")
            stream.delta("within 30 days if they are unworn.")
            stream.complete()
            expected[stream.response_id] = sid
            lag = start + PRODUCE_S * (i + 1) / ANSWERS - time.monotonic()
            if lag > 0:
                traces.flush()
                time.sleep(lag)
        traces.flush()
        done.set()

    def verdicts() -> list[VerdictEvent]:
        return [decode(VerdictEvent, m.value()) for m in watch.on(t.verdicts)]

    t0 = time.monotonic()
    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    kills: list[tuple[str, float, float]] = []  # role, seconds into the run, wall clock
    try:
        for role, at in (("assembler", 0.3), ("verifier", 0.65)):
            watch.wait_for(
                f"{at:.0%} of the load verified before killing the {role}",
                lambda at=at: len(verdicts()) >= at * ANSWERS,
                300,
                list(workers.values()),
            )
            workers[role].kill()  # SIGKILL: no shutdown, no commit, no flush
            kills.append((role, time.monotonic() - t0, time.time()))
            workers[role] = WorkerProcess(role, env, log).start()
        assert done.wait(300), "the producer did not finish"
        watch.wait_for(
            "a verdict for every answer",
            lambda: {v.response_id for v in verdicts()} >= set(expected),
            240,
            list(workers.values()),
        )
        elapsed = time.monotonic() - t0
        time.sleep(3.0)  # late duplicates
        found = verdicts()
        by_id = Counter(v.response_id for v in found)
        lost = set(expected) - set(by_id)
        duplicates = sum(n - 1 for n in by_id.values())
        incomplete = [v.response_id for v in found if v.unavailable_reason == "stream_incomplete"]
        # Duplicates are redeliveries of the same answer: they carry the same verdict_id.
        ids_ok = len({(v.response_id, v.verdict_id) for v in found}) == len(by_id)

        async def fatigue_mismatches() -> int:
            client = aioredis.Redis.from_url(settings.redis.url)
            store = FatigueStore(client, fatigue_config(settings))
            want = Counter(expected.values())
            try:
                bad = 0
                for sid, n in want.items():
                    for _ in range(100):  # the fatigue worker may still be catching up
                        snap = await store.load(sid)
                        if snap is not None and snap.responses >= n:
                            break
                        await asyncio.sleep(0.2)
                    bad += snap is None or snap.responses != n
                return bad
            finally:
                await client.aclose()

        mismatches = asyncio.run(fatigue_mismatches())

        output_of = {"assembler": t.responses, "verifier": t.verdicts}

        def recovery_s(role: str, killed_at: float) -> float:
            # From the kill to the first message the restarted role published (its Kafka
            # timestamp): the killed process can publish nothing after the kill.
            stamps = [m.timestamp()[1] / 1000 for m in watch.on(output_of[role])]
            return min((ts - killed_at for ts in stamps if ts > killed_at), default=float("nan"))

        recoveries = ", ".join(
            f"{role} at {at:.0f}s: {recovery_s(role, wall):.1f}s" for role, at, wall in kills
        )
        print(
            f"\nfault suite: load {ANSWERS} streamed answers in {SESSIONS} sessions; "
            f"kill -9 of {' and '.join(k[0] for k in kills)}\n"
            f"  lost {len(lost)}, wrong stream_incomplete {len(incomplete)}, "
            f"duplicate verdict messages {duplicates}, fatigue mismatches {mismatches}, "
            f"all verdicts after {elapsed:.0f}s\n"
            f"  time to recover (kill to the restarted role's first output): {recoveries}"
        )
        assert not lost, f"{len(lost)} answers without a verdict"
        assert not incomplete, f"{len(incomplete)} complete answers reported stream_incomplete"
        assert mismatches == 0
        assert ids_ok
    finally:
        watch.close()
        for worker in workers.values():
            worker.stop()
