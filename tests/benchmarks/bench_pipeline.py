"""Pipeline throughput against the bare model, latency against offered load, and scale-out.

    .venv/bin/python tests/benchmarks/bench_pipeline.py [--answers 200] [--seconds 8] \
        [--out docs/bench_pipeline.json] [--png docs/bench_pipeline.png] [--parts ...]

Runs against the real broker and Redis (deploy/local) and the shipped model (or
HALLMON_MODEL__PATH), everything on this machine's cores.

Always: the bare model, i.e. exactly the pairs the pipeline judges for the benchmark answers
(budgeted, early-stopped, deduped) through `model.predict` in this process with the host
plan's model threads, and pairs per answer with every retrieved pair judged (before the pair
budget). The machine is shared and its speed drifts, so every pipeline throughput run
(`--repeats` per configuration) is paired with a bare-model pass just before it; ratios are
medians of those pairs. Parts (`--parts`, comma-separated; all by default):

- `pipeline`: the same answers streamed into `agent.traces` as fast as the producer can, through
  `hallmon worker` at default settings, until every verdict is published (answers/s end to
  end, ratio to the bare model, resident memory of all roles);
- `today`: the same with the settings of the release before the host plan and the pair budget
  (model threads = all cores, 64 pairs per batch, 32 rows per model call, every retrieved pair
  judged, no early stop, no pair cache; its calls now get tight length buckets, so this is a
  little faster than that release was);
- `latency`: one answer at a time (the time to verify one answer alone), then answers at
  fractions of the default pipeline's saturation rate, `--seconds` each: p50/p95/p99 of
  `timings.latency_ms` (stream end, as the producer stamped it, to the published verdict);
- `scaleout`: two verifier processes in one consumer group with one model thread each, against
  one verifier process with two model threads (assembler and fatigue beside them).

The answers are the demo's support-bot turns, cycled; each answer's documents carry its own
reference tag, so no two answers share a (passage, claim) pair and the cross-answer pair cache
never flatters the figures. The JSON report and a PNG (throughput bars, latency against load)
are written where --out and --png say.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hallmon.schemas import AssembledResponse, ResponseContext, VerdictEvent, decode  # noqa: E402
from hallmon.topology.kafka_client import make_admin, make_consumer, make_producer  # noqa: E402
from hallmon.topology.settings import HallmonSettings  # noqa: E402
from hallmon.workers.host import available_cores, plan_host  # noqa: E402
from hallmon.workers.runner import ensure_hallmon_topics  # noqa: E402

from hallmon.cli.demo_sessions import DOCS, SESSIONS, Turn, chunks  # noqa: E402
from hallmon.producer import KafkaProducerLike, TraceProducer  # noqa: E402

# The four sessions of the published figures (README), not the demo's later additions, so that
# runs stay comparable.
BENCH_SESSIONS = ("steady", "tired", "orders", "dropped")
TURNS: list[Turn] = [t for s in SESSIONS if s.name in BENCH_SESSIONS for t in s.turns if t.complete]
PARTS = ("pipeline", "today", "latency", "scaleout")
LOAD_FRACTIONS = (0.25, 0.5, 0.75, 1.0)


def today_env(cores: int) -> dict[str, str]:
    """The defaults of the release before the host plan and the pair budget."""
    return {
        "HALLMON_MODEL__THREADS": str(cores),
        "HALLMON_VERIFIER_WORKER__MAX_BATCH_PAIRS": "64",
        "HALLMON_VERIFIER_WORKER__CONCURRENCY": "16",
        "HALLMON_VERIFIER_WORKER__PAIR_CACHE_SIZE": "0",
        "HALLMON_VERIFIER__SKIP_DECIDED_CLAIMS": "false",
        "HALLMON_VERIFIER__RETRIEVAL_RATIO": "0",
        "HALLMON_VERIFIER__EARLY_STOP_ENTAILMENT": "0",
        # Batched calls as before (now with tight length buckets, so a little faster than then).
        "HALLMON_MODEL__ROWS_PER_CALL": "32",
    }


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def docs_of(turn: Turn, i: int) -> list[tuple[str, str]]:
    # The tag makes every answer's passages its own: no pair repeats across answers.
    return [(d, f"{DOCS[d]} (Reference R-{i}.)") for d in turn.docs]


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
            documents=[{"source_id": d, "text": t} for d, t in docs_of(turn, i)],  # type: ignore[misc]
            tool_results=[
                {"tool": t, "call_id": c, "output": o}  # type: ignore[misc]
                for t, c, o in turn.tools
            ],
        ),
    )


def answers(n: int, offset: int = 0) -> list[tuple[int, Turn]]:
    return [(offset + i, t) for i, t in enumerate(itertools.islice(itertools.cycle(TURNS), n))]


class BareModel:
    """The model alone on exactly the pairs the pipeline judges for the benchmark answers."""

    def __init__(self, settings: HallmonSettings, n: int, threads: int) -> None:
        from hallmon.verification.pair_budget import PairBudget, drive, unique_pairs
        from hallmon.verification.verifier import Verifier, load_model

        self.model = load_model(settings.model.model_copy(update={"threads": threads}))
        verifier = Verifier(self.model, settings=settings.verifier)
        full = Verifier(self.model, settings=settings.verifier)
        full.pair_budget = PairBudget.full()
        self.pairs: list[tuple[str, str]] = []
        full_pairs = 0
        for i, turn in answers(n):
            response = response_of(turn, i)
            # The pairs the pipeline judges for this answer: budgeted, early-stopped, deduped
            # (found by running the rounds once, untimed).
            prepared = verifier.prepare(response)
            drive(verifier.pair_rounds([prepared]), verifier.predict)
            self.pairs += unique_pairs(prepared.pairs)[0]
            full_pairs += len(full.prepare(response).pairs)
        self.n, self.threads = n, threads
        self.batch = plan_host(settings).max_batch_pairs
        self.model.predict(self.pairs[: self.batch])  # warm-up
        self.summary: dict[str, Any] = {
            "model": self.model.version,
            "model_threads": threads,
            "batch_pairs": self.batch,
            "answers": n,
            "pairs": len(self.pairs),
            "pairs_per_answer": round(len(self.pairs) / n, 2),
            "pairs_per_answer_every_retrieved_pair": round(full_pairs / n, 2),
            "answers_per_s_runs": [],
        }

    def measure(self) -> float:
        """Answers/s of one pass over the pairs."""
        t0 = time.perf_counter()
        for start in range(0, len(self.pairs), self.batch):
            self.model.predict(self.pairs[start : start + self.batch])
        rate = round(self.n / (time.perf_counter() - t0), 2)
        self.summary["answers_per_s_runs"].append(rate)
        return rate


def rss_mb(pids: Sequence[int]) -> float:
    """Resident memory of these processes and all their descendants, in MB."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    todo, total = list(pids), 0
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return round(total / 1024, 1)


# Settings given with --worker-env, for every worker process (the caller's HALLMON_ variables
# are not passed on, so a stray one cannot skew a run).
WORKER_ENV: dict[str, str] = {}


class Workers:
    """`hallmon worker` processes on their own topics and consumer groups."""

    def __init__(self, name: str, processes: Sequence[tuple[str, dict[str, str]]]) -> None:
        self.prefix = f"bench-{uuid.uuid4().hex[:8]}-{name}."
        base = {k: v for k, v in os.environ.items() if not k.startswith("HALLMON_")}
        base.update(
            {
                "HALLMON_TOPICS__PREFIX": self.prefix,
                "HALLMON_ASSEMBLER__APP_ID": f"{self.prefix}assembler",
                "HALLMON_VERIFIER_WORKER__APP_ID": f"{self.prefix}verifier",
                "HALLMON_FATIGUE__APP_ID": f"{self.prefix}fatigue",
                "HALLMON_FATIGUE__KEY_PREFIX": self.prefix.rstrip("."),
                "HALLMON_CONFLICTS__KEY_PREFIX": self.prefix.rstrip("."),
                # The benchmark's fatigue keys leave the shared Redis soon.
                "HALLMON_FATIGUE__TTL_S": "600",
            }
        )
        for key in (
            "HALLMON_KAFKA__BOOTSTRAP_SERVERS",
            "HALLMON_REDIS__URL",
            "HALLMON_CONFLICTS__ENABLED",
        ):
            if key in os.environ:
                base[key] = os.environ[key]
        base.update(WORKER_ENV)
        self.settings = HallmonSettings.model_validate({"topics": {"prefix": self.prefix}})
        ensure_hallmon_topics(self.settings)
        self.log = Path(tempfile.gettempdir()) / f"{self.prefix}worker.log"
        self.procs: list[subprocess.Popen[bytes]] = []
        with self.log.open("wb") as log:
            for args, extra in processes:
                self.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "hallmon.cli", "worker", *args.split()],
                        env={**base, **extra},
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        self.run = Run(self.settings)

    def stop(self) -> None:
        self.run.consumer.close()
        for proc in self.procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        # faust leaves a data folder per app id in the working directory.
        for folder in Path.cwd().glob(f"{self.prefix}*-data"):
            shutil.rmtree(folder, ignore_errors=True)
        # The run's topics (and the assembler's changelog) go too: hundreds of leftover
        # partitions keep the broker busy and slow the runs after this one.
        admin = make_admin(self.settings.kafka, {"log_level": 0})
        mine = [t for t in admin.list_topics(timeout=10).topics if t.startswith(self.prefix)]
        if mine:
            for future in admin.delete_topics(mine, operation_timeout=30).values():
                try:
                    future.result(timeout=30)
                except Exception as exc:  # a topic left behind costs the broker, not the run
                    print(f"could not delete a benchmark topic: {exc}", file=sys.stderr)

    def plan_lines(self) -> list[str]:
        lines = self.log.read_text(errors="replace").splitlines()
        return [line[line.index("verifier plan:") :] for line in lines if "verifier plan:" in line]


class Run:
    def __init__(self, settings: HallmonSettings) -> None:
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

    def stream(self, turn: Turn, i: int, session: str) -> str:
        s = self.traces.start_response(session, turn=i // 20, user_input=turn.question)
        for d, text in docs_of(turn, i):
            s.context(d, text)
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

    def warm(self, offset: int) -> None:
        ids = {self.stream(t, i, f"warm-{i}") for i, t in answers(10, offset)}
        self.traces.flush()
        self.drain(ids, 240)

    def throughput(self, n: int, offset: int, pids: Sequence[int]) -> dict[str, Any]:
        peak = [0.0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.5):
                peak[0] = max(peak[0], rss_mb(pids))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.time()
        ids = {self.stream(t, i, f"tp-s{i % 50}") for i, t in answers(n, offset)}
        self.traces.flush()
        self.drain(ids, 600)
        done.set()
        sampler.join()
        seconds = max(self.arrived[i] for i in ids) - t0
        pairs = sum(self.verdicts[i].counts.total for i in ids)
        return {
            "answers": n,
            "claims": pairs,
            "seconds": round(seconds, 3),
            "answers_per_s": round(n / seconds, 2),
            "peak_rss_mb_all_roles": peak[0],
        }

    def latency(self, rate: float, seconds: float, offset: int) -> dict[str, Any]:
        n = max(5, int(rate * seconds))
        ids: set[str] = set()
        start = time.monotonic()
        for k, (i, turn) in enumerate(answers(n, offset)):
            due = start + k / rate
            while time.monotonic() < due:
                self.poll(min(0.05, max(0.0, due - time.monotonic())))
            ids.add(self.stream(turn, i, f"lat-s{i % 20}"))
            self.traces._producer.poll(0)
        self.traces.flush()
        self.drain(ids, 300)
        lat = [self.verdicts[i].timings.latency_ms or 0.0 for i in ids]
        return {
            "offered_per_s": round(rate, 2),
            "answers": n,
            "p50_ms": round(percentile(lat, 0.50), 1),
            "p95_ms": round(percentile(lat, 0.95), 1),
            "p99_ms": round(percentile(lat, 0.99), 1),
            "mean_ms": round(statistics.fmean(lat), 1),
        }

    def alone(self, n: int, offset: int) -> dict[str, Any]:
        """One answer at a time: stream it, wait for its verdict, then the next."""
        lat = []
        for i, turn in answers(n, offset):
            rid = self.stream(turn, i, f"alone-{i}")
            self.traces.flush()
            self.drain({rid}, 60)
            lat.append(self.verdicts[rid].timings.latency_ms or 0.0)
        return {"answers": n, "p50_ms": round(percentile(lat, 0.5), 1), "max_ms": max(lat)}


def pipeline(
    name: str,
    processes: Sequence[tuple[str, dict[str, str]]],
    n: int,
    bare: BareModel,
    *,
    repeats: int = 3,
    latency_s: float | None = None,
) -> dict[str, Any]:
    print(f"{name}: starting workers ...", flush=True)
    workers = Workers(name, processes)
    try:
        workers.run.warm(900_000)
        result: dict[str, Any] = {"plan": workers.plan_lines()}
        pids = [p.pid for p in workers.procs]
        # The machine is shared and its speed drifts by 2x within minutes: each pipeline run is
        # paired with a bare-model pass just before it, and the ratios of the pairs are compared.
        runs, ratios = [], []
        for k in range(repeats):
            bare_rate = bare.measure()
            runs.append(workers.run.throughput(n, 100_000 * k, pids))
            ratios.append(round(runs[-1]["answers_per_s"] / bare_rate, 3))
        result |= max(runs, key=lambda r: r["answers_per_s"])
        result["answers_per_s_runs"] = [r["answers_per_s"] for r in runs]
        result["ratio_to_bare_model_runs"] = ratios
        result["ratio_to_bare_model"] = statistics.median(ratios)
        result["peak_rss_mb_all_roles"] = max(r["peak_rss_mb_all_roles"] for r in runs)
        print(f"{name}: {json.dumps(result)}", flush=True)
        if latency_s:
            result["alone"] = workers.run.alone(8, 910_000)
            saturation = statistics.median(result["answers_per_s_runs"])
            result["latency"] = []
            for k, fraction in enumerate(LOAD_FRACTIONS):
                point = workers.run.latency(saturation * fraction, latency_s, 920_000 + 10_000 * k)
                point["fraction_of_saturation"] = fraction
                print(f"{name} latency: {json.dumps(point)}", flush=True)
                result["latency"].append(point)
        return result
    finally:
        workers.stop()


def draw(report: dict[str, Any], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, lines) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels, values = [], []
    if "raw" in report:
        labels.append(f"bare model\n({report['raw']['model_threads']} thread)")
        values.append(report["bare_model_answers_per_s"])
    named = [
        ("pipeline", "defaults"),
        ("today", "previous\ndefaults"),
        ("scaleout_two_processes", "2 verifiers\n× 1 thread"),
        ("scaleout_one_process", "1 verifier\n× 2 threads"),
    ]
    for key, label in named:
        if key in report:
            labels.append(f"{label}\n({report[key]['ratio_to_bare_model']:.2f}× bare)")
            values.append(report[key]["answers_per_s"])
    bars.bar(labels, values, color=["#777", "#2a7", "#c84", "#48c", "#8ac"][: len(values)])
    for x, v in enumerate(values):
        bars.text(x, v, f"{v:.1f}", ha="center", va="bottom")
    bars.set_ylabel("answers / s (best run; ratio: median of paired runs)")
    bars.set_title(f"Throughput ({report['cores']} cores, everything on them)")
    points = report.get("pipeline", {}).get("latency", [])
    if points:
        x = [p["offered_per_s"] for p in points]
        for key, style in (("p50_ms", "o-"), ("p95_ms", "s-"), ("p99_ms", "^-")):
            lines.plot(x, [p[key] for p in points], style, label=key.split("_")[0])
        alone = report["pipeline"]["alone"]["p50_ms"]
        lines.axhline(2 * alone, color="#c44", ls="--", label="2 × one answer alone")
        lines.set_xlabel("offered load (answers / s)")
        lines.set_ylabel("stream end → verdict (ms)")
        lines.set_yscale("log")
        lines.set_title("Latency against load, default settings")
        lines.legend()
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=8.0, help="per latency load point")
    parser.add_argument("--repeats", type=int, default=3, help="throughput runs; best counts")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"of {', '.join(PARTS)}")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--png", type=Path, default=None, help="draw them")
    parser.add_argument(
        "--no-conflicts",
        action="store_true",
        help="run the verifier without the session conflict check (HALLMON_CONFLICTS__ENABLED)",
    )
    parser.add_argument(
        "--worker-env",
        action="append",
        default=[],
        metavar="HALLMON_X=VALUE",
        help="a setting for every worker process of the run (repeatable), e.g. "
        "HALLMON_KAFKA__LINGER_MS=5",
    )
    args = parser.parse_args()
    if args.no_conflicts:
        os.environ["HALLMON_CONFLICTS__ENABLED"] = "false"
    for item in args.worker_env:
        key, sep, value = item.partition("=")
        if not sep or not key.startswith("HALLMON_"):
            parser.error(f"--worker-env {item!r}: give HALLMON_NAME=VALUE")
        WORKER_ENV[key] = value
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if parts - set(PARTS):
        parser.error(f"--parts: unknown {sorted(parts - set(PARTS))}; use {', '.join(PARTS)}")

    settings = HallmonSettings()
    cores = available_cores()
    host = plan_host(settings, ("assembler", "verifier", "fatigue"))
    report: dict[str, Any] = {
        "cores": cores,
        "load_average_at_start": os.getloadavg(),
        "answers": args.answers,
        "worker_env": dict(WORKER_ENV),
    }
    print("bare model ...", flush=True)
    bare = BareModel(settings, args.answers, host.model_threads)
    bare.measure()
    report["raw"] = bare.summary
    all_roles = [("--role all", {})]
    repeats = args.repeats
    if "pipeline" in parts or "latency" in parts:
        latency_s = args.seconds if "latency" in parts else None
        report["pipeline"] = pipeline(
            "pipeline", all_roles, args.answers, bare, repeats=repeats, latency_s=latency_s
        )
    if "today" in parts:
        today = [("--role all", today_env(cores))]
        report["today"] = pipeline("today", today, args.answers, bare, repeats=repeats)
    if "scaleout" in parts:
        sides = [("--role assembler --host-roles all", {}), ("--role fatigue", {})]
        one = {"HALLMON_MODEL__THREADS": "1"}
        two_procs = [*sides, ("--role verifier", one), ("--role verifier", one)]
        one_proc = [*sides, ("--role verifier", {"HALLMON_MODEL__THREADS": "2"})]
        report["scaleout_two_processes"] = pipeline(
            "scaleout-2x1", two_procs, args.answers, bare, repeats=repeats
        )
        report["scaleout_one_process"] = pipeline(
            "scaleout-1x2", one_proc, args.answers, bare, repeats=repeats
        )
        two, one_p = report["scaleout_two_processes"], report["scaleout_one_process"]
        report["scaleout_ratio"] = round(
            two["ratio_to_bare_model"] / one_p["ratio_to_bare_model"], 3
        )
    report["bare_model_answers_per_s"] = max(bare.summary["answers_per_s_runs"])
    if "pipeline" in report:
        report["ratio_pipeline_to_bare_model"] = report["pipeline"]["ratio_to_bare_model"]
    if "today" in report and "pipeline" in report:
        report["ratio_defaults_to_previous_defaults"] = round(
            report["pipeline"]["ratio_to_bare_model"] / report["today"]["ratio_to_bare_model"], 3
        )
    report["load_average_at_end"] = os.getloadavg()
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.png:
        draw(report, args.png)


if __name__ == "__main__":
    main()
