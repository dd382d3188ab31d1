"""Timeouts on stream time: a worker that was down or busy never closes a healthy stream; the
timeout scan re-reads a stream before closing it (compare-and-set)."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, NamedTuple

from hallmon.schemas import AssembledResponse, TraceEvent, decode, decode_trace_event
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.assembler import store
from hallmon.workers.assembler.agent import AssemblerRuntime, KeyLocks, scan_streams
from hallmon.workers.assembler.state import Assembler, AssemblerConfig, StreamState
from hallmon.workers.telemetry import Telemetry

IDS = {"session_id": "s-1", "response_id": "r-1", "agent_id": "bot"}
ASM = Assembler(AssemblerConfig(stream_timeout_s=30.0))


def ev(kind: str, event_id: str, **fields: Any) -> TraceEvent:
    return decode_trace_event(json.dumps({"type": kind, "event_id": event_id, **IDS, **fields}))


def open_stream(event_ms: int = 1_000_000, now: float = 100.0) -> StreamState:
    step = ASM.apply(
        None,
        ev("response.delta", "e1", text="Hi ", seq=0),
        now=now,
        open_streams=0,
        partition=0,
        event_ms=event_ms,
    )
    assert step.state is not None and step.state.last_event_ms == event_ms
    return step.state


def test_restored_stream_waits_while_its_partition_is_read() -> None:
    state = open_stream()
    # The worker restarted 35 s later and just took the partition over (quiet 0 s); the
    # backlog read so far is only 5 s newer than the stream: not a timeout.
    step = ASM.expire(state, now=135.0, progress_ms=1_005_000, quiet_s=0.0)
    assert step.emit is None and not step.changes_state


def test_stream_times_out_on_stream_time_even_when_the_partition_is_busy() -> None:
    state = open_stream()
    step = ASM.expire(state, now=100.5, progress_ms=1_030_000, quiet_s=0.0)
    assert step.emit is not None and step.emit.incomplete_reason == "stream_timeout"


def test_stream_times_out_when_its_partition_is_quiet() -> None:
    state = open_stream()
    assert ASM.expire(state, now=125.0, progress_ms=1_000_000, quiet_s=25.0).emit is None
    assert ASM.expire(state, now=130.0, progress_ms=1_000_000, quiet_s=30.0).emit is not None


@dataclass
class FakeTable:
    snapshot: dict[str, bytes]
    data: dict[str, bytes]
    changelog: list[tuple[int, str, Any]] = field(default_factory=list)

    def items(self) -> list[tuple[str, bytes]]:
        return list(self.snapshot.items())

    def send_changelog(self, partition: int, key: str, value: Any, **_: Any) -> Any:
        self.changelog.append((partition, key, value))
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        sent.set_result(None)
        return sent


@dataclass
class FakeTopic:
    sent: list[bytes] = field(default_factory=list)

    async def send(self, *, key: bytes, value: bytes, headers: Any, force: bool) -> Any:
        self.sent.append(value)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done


class TP(NamedTuple):
    topic: str
    partition: int


def runtime(table: FakeTable) -> AssemblerRuntime:
    settings = HallmonSettings()
    tp = TP(settings.topics.traces, 0)
    completed = asyncio.Event()
    completed.set()
    app = SimpleNamespace(
        rebalancing=False,
        in_recovery=False,
        tables=SimpleNamespace(recovery=SimpleNamespace(completed=completed)),
        assignor=SimpleNamespace(assigned_actives=lambda: {tp}),
    )
    return AssemblerRuntime(
        app=app,  # type: ignore[arg-type]
        settings=settings,
        assembler=ASM,
        telemetry=Telemetry("test"),
        table=table,
        responses=FakeTopic(),
        dlq=FakeTopic(),
        locks=KeyLocks(),
    )


def test_scan_re_reads_a_stream_before_closing_it() -> None:
    async def scenario() -> None:
        stale = open_stream(now=0.0).to_bytes()
        # Meanwhile the agent completed the stream: the table holds its tombstone.
        done = ASM.apply(
            StreamState.from_bytes(stale),
            ev("response.completed", "e2"),
            now=time.time(),
            open_streams=1,
        )
        assert done.state is not None
        table = FakeTable(snapshot={"r-1": stale}, data={"r-1": done.state.to_bytes()})
        rt = runtime(table)
        rt.seen_at[0] = -1_000.0  # the partition has been quiet for long
        await scan_streams(rt)
        assert rt.responses.sent == []  # no second, incomplete answer
        assert table.changelog == []

        # Without the concurrent completion, the same snapshot does time out.
        table = FakeTable(snapshot={"r-1": stale}, data={"r-1": stale})
        rt = runtime(table)
        rt.seen_at[0] = -1_000.0
        await scan_streams(rt)
        (sent,) = rt.responses.sent
        assert decode(AssembledResponse, sent).incomplete_reason == "stream_timeout"

    asyncio.run(scenario())


def test_scan_parses_a_stored_state_once_per_write(monkeypatch: Any) -> None:
    async def scenario() -> None:
        raw = open_stream(now=time.time()).to_bytes()
        table = FakeTable(snapshot={"r-1": raw}, data={"r-1": raw})
        rt = runtime(table)
        parsed: list[bytes] = []
        original = store.load

        def counting(data: bytes, lookup: Any) -> StreamState:
            parsed.append(data)
            return original(data, lookup)

        monkeypatch.setattr(store, "load", counting)
        for _ in range(5):
            await scan_streams(rt)
        assert len(parsed) == 1 and rt.open_streams == 1 and rt.responses.sent == []

    asyncio.run(scenario())


def test_scan_walks_stream_headers_not_their_parts() -> None:
    async def scenario() -> None:
        state = ASM.apply(
            open_stream(now=time.time()),
            ev("context.retrieved", "e9", source_id="policy", text="Refunds take 5 days."),
            now=time.time(),
            open_streams=1,
            partition=0,
        ).state
        assert state is not None
        table = FakeTable(snapshot={}, data={})
        for key, value in store.changes(None, state):
            assert value is not None
            table.data[key] = value
        assert len(table.data) > 1  # the header and its parts
        rt = runtime(table)
        rt.app.consumer_generation_id = 1  # type: ignore[attr-defined]
        await scan_streams(rt)
        assert rt.stream_keys == {"r-1"} and rt.open_streams == 1
        # A rebalance restored another stream into the table: indexed at the next generation.
        other = store.header_bytes(state.model_copy(update={"response_id": "r-2"}))
        table.data["r-2"] = other
        await scan_streams(rt)
        assert rt.stream_keys == {"r-1"}
        rt.app.consumer_generation_id = 2  # type: ignore[attr-defined]
        await scan_streams(rt)
        assert rt.stream_keys == {"r-1", "r-2"} and rt.open_streams == 2

    asyncio.run(scenario())


def test_a_stream_stored_whole_is_written_in_parts_at_its_next_event() -> None:
    from hallmon.workers.assembler.agent import _store, load_state

    async def scenario() -> None:
        whole = open_stream(now=time.time())
        table = FakeTable(snapshot={}, data={"r-1": whole.to_bytes()})  # the previous layout
        rt = runtime(table)
        old = load_state(rt, "r-1")
        assert old == whole
        step = ASM.apply(old, ev("response.delta", "e2", text="there", seq=1), now=1.0,
                         open_streams=1, partition=0)  # fmt: skip
        assert step.state is not None
        await _store(rt, "r-1", old, step.state)
        rt.states.clear()
        again = load_state(rt, "r-1")
        assert again is not None and again.chunks == {0: "Hi ", 1: "there"}

    asyncio.run(scenario())


def test_table_writes_join_the_commit_barrier_and_are_awaited() -> None:
    from hallmon.workers.assembler.agent import _store

    class SlowTable(FakeTable):
        def send_changelog(self, partition: int, key: str, value: Any, **_: Any) -> Any:
            self.changelog.append((partition, key, value))
            return asyncio.get_running_loop().create_future()  # the broker has not answered

    async def scenario() -> None:
        table = SlowTable(snapshot={}, data={})
        rt = runtime(table)
        step = ASM.apply(None, ev("response.delta", "e1", text="Hi ", seq=0), now=1.0,
                         open_streams=0, partition=0)  # fmt: skip
        assert step.state is not None
        storing = asyncio.ensure_future(_store(rt, "r-1", None, step.state))
        await asyncio.sleep(0.01)
        assert table.changelog and len(rt.writes) == len(table.changelog)
        assert not storing.done()  # the handler waits until the changelog has the state
        for future in list(rt.writes._pending):
            future.set_result(None)  # type: ignore[attr-defined]
        await asyncio.wait_for(storing, 1.0)
        assert len(rt.writes) == 0

    asyncio.run(scenario())
