"""Pipeline throughput against raw NLI throughput, and stream-end-to-verdict latency.

    .venv/bin/python tests/benchmarks/bench_pipeline.py [--answers 300] [--rate 5] [--seconds 30]

Runs against the real broker and Redis (deploy/local) and the shipped model (or
HALLMON_MODEL__PATH). In one run it measures:

1. raw NLI: the claim-evidence pairs of the same answers (as the verifier prepares them) through
   `model.predict` in batches of `max_batch_pairs`, in this process: answers/s the model alone
   could sustain;
2. pipeline: the same answers streamed into `agent.traces` as fast as the producer can, through
   a `hallmon worker` (assembler + verifier processes), until every verdict is published:
   answers/s end to end, and the ratio pipeline / raw (target >= 0.8);
3. latency at a fixed load: answers streamed at `--rate` per second for `--seconds`; p50 / p95 /
   p99 of `timings.latency_ms` (stream end, as the producer stamped it, to verdict published).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hallmon.schemas import AssembledResponse, ResponseContext, VerdictEvent, decode  # noqa: E402
from hallmon.topology.kafka_client import make_consumer, make_producer  # noqa: E402
from hallmon.topology.settings import HallmonSettings  # noqa: E402
from hallmon.workers.runner import ensure_hallmon_topics  # noqa: E402

from hallmon.cli.demo_sessions import DOCS, SESSIONS, Turn, chunks  # noqa: E402
from hallmon.producer import KafkaProducerLike, TraceProducer  # noqa: E402

# The four sessions of the published figures (README), not the demo's later additions, so that
# runs stay comparable.
BENCH_SESSIONS = ("steady", "tired", "orders", "dropped")
TURNS: list[Turn] = [t for s in SESSIONS if s.name in BENCH_SESSIONS for t in s.turns if t.complete]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def response_of(turn: Turn, i: int) -> AssembledResponse:
    return AssembledResponse(
        response_id=f"bench-{i}",
        session_id=f"bench-s{i % 50}",
        agent_id="bench-bot",
        turn=i // 50,
        text=turn.answer,
        question=turn.question,
        context=ResponseContext(
            user_input=turn.question,
            documents=[{"source_id": d, "text": DOCS[d]} for d in turn.docs],  # type: ignore[misc]
            tool_results=[
                {"tool": t, "call_id": c, "output": o}  # type: ignore[misc]
                for t, c, o in turn.tools
            ],
        ),
    )


def raw_nli(settings: HallmonSettings, answers: int) -> dict[str, Any]:
    from hallmon.verification.verifier import Verifier, load_model

    model = load_model(settings.model)
    verifier = Verifier(model, settings=settings.verifier)
    turns = list(itertools.islice(itertools.cycle(TURNS), answers))
    pairs: list[tuple[str, str]] = []
    for i, turn in enumerate(turns):
        pairs += verifier.prepare(response_of(turn, i)).pairs
    size = settings.verifier_worker.max_batch_pairs
    model.predict(pairs[:size])  # warm-up
    t0 = time.perf_counter()
    for start in range(0, len(pairs), size):
        model.predict(pairs[start : start + size])
    seconds = time.perf_counter() - t0
    return {
        "model": model.version,
        "answers": answers,
        "pairs": len(pairs),
        "seconds": round(seconds, 3),
        "pairs_per_s": round(len(pairs) / seconds, 1),
        "answers_per_s": round(answers / seconds, 2),
    }


class Run:
    def __init__(self, settings: HallmonSettings) -> None:
        self.settings = settings
        self.consumer = make_consumer(
            settings.kafka, f"bench-{uuid.uuid4().hex[:6]}", {"log_level": 0}
        )
        self.consumer.subscribe([settings.topics.verdicts])
        self.traces = TraceProducer(
            "bench-bot",
            topic=settings.topics.traces,
            producer=cast(KafkaProducerLike, make_producer(settings.kafka, {"linger.ms": 2})),
        )
        self.verdicts: dict[str, VerdictEvent] = {}
        self.arrived: dict[str, float] = {}

    def stream(self, turn: Turn, session: str, n: int) -> str:
        s = self.traces.start_response(session, turn=n, user_input=turn.question)
        for d in turn.docs:
            s.context(d, DOCS[d])
        for tool, call_id, output in turn.tools:
            s.tool_result(tool, call_id, output)
        for piece in chunks(turn.answer):
            s.delta(piece)
        s.complete()
        return s.response_id

    def drain(self, until: set[str], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not until <= self.verdicts.keys() and time.monotonic() < deadline:
            self.poll(0.2)
        missing = until - self.verdicts.keys()
        if missing:
            raise SystemExit(f"{len(missing)} verdicts missing after {timeout_s}s")

    def poll(self, timeout: float) -> None:
        msg = self.consumer.poll(timeout)
        if msg is None or msg.error():
            return
        v = decode(VerdictEvent, msg.value() or b"")
        self.verdicts.setdefault(v.response_id, v)
        self.arrived.setdefault(v.response_id, time.time())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--rate", type=float, default=5.0, help="answers/s for the latency run")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument(
        "--no-conflicts",
        action="store_true",
        help="run the verifier without the session conflict check (HALLMON_CONFLICTS__ENABLED)",
    )
    args = parser.parse_args()

    prefix = f"bench-{uuid.uuid4().hex[:8]}."
    env = {k: v for k, v in os.environ.items() if not k.startswith("HALLMON_TOPICS__")}
    env.update(
        {
            "HALLMON_TOPICS__PREFIX": prefix,
            "HALLMON_ASSEMBLER__APP_ID": f"{prefix}assembler",
            "HALLMON_VERIFIER_WORKER__APP_ID": f"{prefix}verifier",
            "HALLMON_FATIGUE__KEY_PREFIX": prefix.rstrip("."),
            "HALLMON_CONFLICTS__KEY_PREFIX": prefix.rstrip("."),
            "HALLMON_CONFLICTS__ENABLED": "false" if args.no_conflicts else "true",
        }
    )
    os.environ.update(env)
    settings = HallmonSettings()
    ensure_hallmon_topics(settings)

    print("raw NLI ...", flush=True)
    raw = raw_nli(settings, args.answers)
    print(json.dumps(raw), flush=True)

    log = Path(tempfile.gettempdir()) / f"{prefix}worker.log"
    worker = subprocess.Popen(
        [sys.executable, "-m", "hallmon.cli", "worker", "--role", "all", "--loglevel", "info"],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    run = Run(settings)
    try:
        warm = {run.stream(TURNS[i], f"warm-{i}", 0) for i in range(10)}
        run.traces.flush()
        run.drain(warm, 180)
        print("worker warm; pipeline throughput ...", flush=True)

        turns = list(itertools.islice(itertools.cycle(TURNS), args.answers))
        t0 = time.time()
        ids = {run.stream(t, f"tp-s{i % 50}", i // 50) for i, t in enumerate(turns)}
        run.traces.flush()
        run.drain(ids, 600)
        t_end = max(run.arrived[i] for i in ids)
        seconds = t_end - t0
        pipeline = {
            "answers": args.answers,
            "seconds": round(seconds, 3),
            "answers_per_s": round(args.answers / seconds, 2),
        }
        ratio = round(pipeline["answers_per_s"] / raw["answers_per_s"], 3)
        print(json.dumps(pipeline), f"ratio={ratio}", flush=True)
        conflict_ms = [
            run.verdicts[i].stage_ms["conflicts"]
            for i in ids
            if "conflicts" in run.verdicts[i].stage_ms
        ]
        conflicts = {
            "checked": len(conflict_ms),
            "mean_ms": round(statistics.fmean(conflict_ms), 1) if conflict_ms else None,
            "p95_ms": round(percentile(conflict_ms, 0.95), 1) if conflict_ms else None,
            "found": sum(len(run.verdicts[i].session_conflicts) for i in ids),
        }
        print("session conflict check:", json.dumps(conflicts), flush=True)

        print(f"latency at {args.rate}/s for {args.seconds}s ...", flush=True)
        n = int(args.rate * args.seconds)
        ids = set()
        start = time.monotonic()
        for i, turn in enumerate(itertools.islice(itertools.cycle(TURNS), n)):
            due = start + i / args.rate
            while time.monotonic() < due:
                run.poll(min(0.05, max(0.0, due - time.monotonic())))
            ids.add(run.stream(turn, f"lat-s{i % 20}", i // 20))
            run.traces._producer.poll(0)
        run.traces.flush()
        run.drain(ids, 300)
        lat = [run.verdicts[i].timings.latency_ms or 0.0 for i in ids]
        latency = {
            "rate_per_s": args.rate,
            "answers": n,
            "p50_ms": round(percentile(lat, 0.50), 1),
            "p95_ms": round(percentile(lat, 0.95), 1),
            "p99_ms": round(percentile(lat, 0.99), 1),
            "mean_ms": round(statistics.fmean(lat), 1),
        }
        print(json.dumps(latency), flush=True)
        result = {
            "raw_nli": raw,
            "pipeline": pipeline,
            "ratio": ratio,
            "conflicts": conflicts,
            "latency": latency,
        }
        print(json.dumps(result, indent=2))
        if args.out:
            args.out.write_text(json.dumps(result, indent=2) + "\n")
    finally:
        run.consumer.close()
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)


if __name__ == "__main__":
    main()
