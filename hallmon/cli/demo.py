"""`hallmon demo`: the whole job on the local services, start to finish, in about a minute.

Starts Kafka and Redis if they are down, creates the topics, runs a worker (all three roles, in
child processes), streams a support bot's sessions into `agent.traces` with the producer
helper, prints each verdict as it arrives and ends with every session's fatigue curve.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from hallmon.cli import app
from hallmon.cli.demo_sessions import DOCS, SESSIONS, Session, chunks
from hallmon.cli.fatigue import console_for_output, load_snapshots, session_table
from hallmon.cli.tail import alert_line, verdict_line

SERVICES_SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "local" / "services.sh"


def _services_up(console: Console) -> None:
    if not SERVICES_SCRIPT.is_file():
        console.print("[dim]no deploy/local scripts here; using the configured services[/dim]")
        return
    status = subprocess.run(["bash", str(SERVICES_SCRIPT), "status"], capture_output=True)
    if status.returncode == 0:
        console.print("[dim]local Kafka and Redis are running[/dim]")
        return
    console.print("starting local Kafka and Redis (deploy/local/services.sh start) ...")
    started = subprocess.run(["bash", str(SERVICES_SCRIPT), "start"])
    if started.returncode != 0:
        console.print("[red]could not start the local services; see the output above")
        raise typer.Exit(1)


def _produce(traces: Any, run: str, pace_s: float) -> list[str]:
    """Stream every session, interleaving them turn by turn. Returns the response ids."""
    rids: list[str] = []
    longest = max(len(s.turns) for s in SESSIONS)
    for t in range(longest):
        for session in SESSIONS:
            if t < len(session.turns):
                rids.append(_stream_turn(traces, session, t, run, pace_s))
    traces.flush()
    return rids


def _stream_turn(traces: Any, session: Session, t: int, run: str, pace_s: float) -> str:
    turn = session.turns[t]
    stream = traces.start_response(f"{session.name}-{run}", turn=t, user_input=turn.question)
    for source_id in turn.docs:
        stream.context(source_id, DOCS[source_id], trust=0.9)
    if session.history_in_context:
        for i, earlier in enumerate(session.turns[:t]):
            stream.memory(f"turn-{i}", f"User: {earlier.question}\nAssistant: {earlier.answer}")
    for tool, call_id, output in turn.tools:
        stream.tool_result(tool, call_id, output)
    for piece in chunks(turn.answer):
        stream.delta(piece)
        time.sleep(pace_s)
    if turn.complete:
        stream.complete(usage={"completion_tokens": len(turn.answer.split())})
    return str(stream.response_id)


@app.command()
def demo(
    timeout: Annotated[float, typer.Option(help="Give up waiting for verdicts after (s).")] = 120,
    pace_ms: Annotated[float, typer.Option(help="Pause between streamed chunks (ms).")] = 15,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve/--no-serve",
            help="Afterwards, keep the worker running and serve the dashboard until Ctrl-C.",
        ),
    ] = False,
) -> None:
    """Run hallmon end to end on local Kafka and Redis with a sample support bot."""
    from hallmon.onnx_models.runtime import ModelNotFound, resolve_model_dir
    from hallmon.producer import TraceProducer
    from hallmon.schemas import FatigueAlert, VerdictEvent, decode
    from hallmon.topology.kafka_client import make_consumer, make_producer
    from hallmon.topology.settings import get_settings
    from hallmon.workers.runner import ensure_hallmon_topics

    console = console_for_output()
    started = time.monotonic()
    settings = get_settings()
    try:
        resolve_model_dir(settings.model.path)
    except ModelNotFound as exc:
        console.print(f"[red]{exc}")
        raise typer.Exit(1) from exc
    _services_up(console)
    ensure_hallmon_topics(settings)
    console.print(f"topics ready on {settings.kafka.bootstrap_servers}; starting the worker ...")

    env = os.environ.copy()
    # The dropped stream should be closed within the demo, not after the 30 s default.
    env.setdefault("HALLMON_ASSEMBLER__STREAM_TIMEOUT_S", "6")
    log_path = Path(tempfile.gettempdir()) / f"hallmon-demo-worker-{os.getpid()}.log"
    log_file = log_path.open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "hallmon.cli", "worker", "--role", "all", "--loglevel", "info"],
        env=env,
        stdout=log_file,
        stderr=subprocess.STDOUT,
    )
    console.print(f"[dim]worker log: {log_path}[/dim]")
    consumer = make_consumer(
        settings.kafka, f"hallmon-demo-{uuid.uuid4().hex[:8]}", {"log_level": 0}
    )
    consumer.subscribe([settings.topics.verdicts, settings.topics.fatigue])
    run = uuid.uuid4().hex[:6]
    sessions = {f"{s.name}-{run}" for s in SESSIONS}
    alerts: list[FatigueAlert] = []
    try:
        traces = TraceProducer(
            "acme-support",
            model="acme-llm-1",
            topic=settings.topics.traces,
            producer=_producer(make_producer(settings.kafka)),
        )
        # Wait for one answer to come back first, so the latencies shown are the pipeline's,
        # not the worker's start-up (consumer group join, model load).
        warm = traces.send_response(
            f"warmup-{run}", "Standard delivery takes 3 to 5 business days.", turn=0
        )
        traces.flush()
        ready_by = time.monotonic() + timeout
        while time.monotonic() < ready_by:
            if worker.poll() is not None:
                console.print(f"[red]the worker exited with {worker.returncode}; see {log_path}")
                raise typer.Exit(1)
            msg = consumer.poll(0.3)
            if msg is None or msg.error() or msg.topic() != settings.topics.verdicts:
                continue
            if decode(VerdictEvent, msg.value() or b"").response_id == warm:
                break
        console.print(f"worker ready after {time.monotonic() - started:.0f}s")
        console.print(
            f"streaming {len(SESSIONS)} sessions of run {run} into {settings.topics.traces}"
        )
        expected = set(_produce(traces, run, pace_ms / 1000.0))
        console.print(f"[dim]{len(expected)} answers sent; verdicts as they arrive:[/dim]\n")
        seen: set[str] = set()
        deadline = time.monotonic() + timeout
        while seen < expected and time.monotonic() < deadline:
            if worker.poll() is not None:
                console.print(f"[red]the worker exited with {worker.returncode}; see {log_path}")
                raise typer.Exit(1)
            msg = consumer.poll(0.3)
            if msg is None or msg.error():
                continue
            if msg.topic() == settings.topics.fatigue:
                alert = decode(FatigueAlert, msg.value() or b"")
                if alert.session_id in sessions:
                    alerts.append(alert)
                    console.print(alert_line(alert))
                continue
            verdict = decode(VerdictEvent, msg.value() or b"")
            if verdict.response_id in expected and verdict.response_id not in seen:
                seen.add(verdict.response_id)
                console.print(verdict_line(verdict))
        # An alert is published right after the verdict that raised it.
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            msg = consumer.poll(0.2)
            if msg is not None and not msg.error() and msg.topic() == settings.topics.fatigue:
                alert = decode(FatigueAlert, msg.value() or b"")
                if alert.session_id in sessions:
                    alerts.append(alert)
                    console.print(alert_line(alert))
        missing = len(expected - seen)
        if missing:
            console.print(f"[red]{missing} verdict(s) did not arrive within {timeout:g}s")
        console.print()
        for snap in asyncio.run(_snapshots(sorted(sessions))):
            console.print(session_table(snap))
        console.print(
            f"\n{len(seen)} verdicts, {len(alerts)} fatigue alert(s) in "
            f"{time.monotonic() - started:.0f}s. Verdicts are advice "
            "(enforcement: not_enforced_streaming). Try `hallmon tail --from-beginning` and "
            "`hallmon fatigue`."
        )
        if missing:
            raise typer.Exit(1)
        url = f"http://{settings.serve.host}:{settings.serve.port}/"
        if not serve:
            console.print(f"Dashboard: run `hallmon serve`, then open {url}")
            return
        console.print(
            f"\n[bold]Dashboard: {url}[/bold] (hallmon serve; the worker keeps running, "
            "so new traces show up). Ctrl-C to stop."
        )
        _serve_until_interrupted(settings)
    finally:
        consumer.close()
        if worker.poll() is None:
            worker.terminate()
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        log_file.close()


def _serve_until_interrupted(settings: Any) -> None:
    import uvicorn

    from hallmon.serve.app import create_app

    uvicorn.run(
        create_app(settings),
        host=settings.serve.host,
        port=settings.serve.port,
        log_level="warning",
        timeout_graceful_shutdown=5,
    )


def _producer(producer: Any) -> Any:
    from typing import cast

    from hallmon.producer import KafkaProducerLike

    return cast(KafkaProducerLike, producer)


async def _snapshots(sessions: list[str]) -> list[Any]:
    out = []
    for sid in sessions:
        out += await load_snapshots(sid, 1)
    return out
