"""The consumer's delivery bookkeeping: read positions per seek epoch and commits that never
pass a message still being handled (`hallmon.topology.consumer`)."""

from __future__ import annotations

import asyncio
import tempfile
from collections import defaultdict
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest
from faust.transport.drivers.aiokafka import Consumer as FaustConsumer
from faust.types import TP
from hallmon.topology.consumer import (
    EXIT_UNWRITTEN,
    OrderedConsumer,
    ReadPositions,
    StalledTails,
    WriteBarrier,
    cleared_offsets,
    commit_offset,
    rewind_offset,
    write_barrier,
)
from intervaltree import IntervalTree

P0 = TP("agent.traces", 0)


def bookkeeping(cls: type, committed: int | None, acked: list[int]) -> Any:
    """A consumer object with only the offset bookkeeping `_new_offset` reads."""
    consumer = cls.__new__(cls)
    consumer._acked = defaultdict(list, {P0: list(acked)})
    consumer._acked_index = defaultdict(set, {P0: set(acked)})
    consumer._gap = defaultdict(IntervalTree)
    consumer._committed_offset = defaultdict(lambda: None, {P0: committed})
    consumer._positions = ReadPositions()
    return consumer


def test_faust_commits_past_the_message_still_in_flight() -> None:
    # The defect this module exists for: committed 37 (the next to read), 37 still being
    # handled, 38 and 39 done: faust commits 40, and a kill now loses 37.
    assert FaustConsumer._new_offset(bookkeeping(FaustConsumer, 37, [38, 39]), P0) == 40


def test_no_commit_past_an_unacked_head() -> None:
    consumer = bookkeeping(OrderedConsumer, 37, [38, 39])
    assert consumer._new_offset(P0) is None
    assert consumer._acked[P0] == [38, 39]  # kept for when 37 is done
    consumer._acked[P0].append(37)
    assert consumer._new_offset(P0) == 40


def test_before_the_first_commit_the_lowest_offset_read_is_the_head() -> None:
    consumer = bookkeeping(OrderedConsumer, None, [5, 6])
    consumer._positions.admit(P0, 0)  # offsets 0-4 were handed out and are still in flight
    assert consumer._new_offset(P0) is None
    # faust checks nothing before its first commit
    assert FaustConsumer._new_offset(bookkeeping(FaustConsumer, None, [5, 6]), P0) == 7


def test_gaps_in_the_log_count_as_handled() -> None:
    consumer = bookkeeping(OrderedConsumer, 10, [10, 13])
    consumer._gap[P0].addi(11, 13)  # 11 and 12 are not in the log (transaction markers)
    assert consumer._new_offset(P0) == 14


def test_commit_offset_rules() -> None:
    assert commit_offset([], 3) == (None, 0)
    assert commit_offset([3, 4, 6], 3) == (5, 2)
    assert commit_offset([4, 5], 3) == (None, 0)
    assert commit_offset([1, 2], 5) == (None, 2)  # stale acks from before a seek are dropped
    assert commit_offset([4, 5, 6], 5) == (7, 3)
    assert commit_offset([7, 8], None) == (9, 2)


def test_records_continue_from_the_next_offset() -> None:
    positions = ReadPositions()
    assert positions.admit(P0, 20) == ("deliver", None)
    positions.delivered(P0, 20, positions.epoch)
    assert positions.admit(P0, 20) == ("skip", None)  # the broker resent it after a seek
    assert positions.admit(P0, 21) == ("deliver", None)


def test_a_record_handed_out_across_a_seek_does_not_move_the_position() -> None:
    # The lost-event defect: a stale batch delivered 29 while the seek back to 28 ran; 29 was
    # then cleared from the agent's queue, and the resent 28 and 29 were skipped as read.
    positions = ReadPositions(next_offset={P0: 28})
    epoch = positions.epoch
    assert positions.admit(P0, 28) == ("deliver", None)
    with positions.seeking():
        positions.next_offset[P0] = 28
    positions.delivered(P0, 28, epoch)
    assert positions.next_offset[P0] == 28
    assert positions.admit(P0, 28) == ("deliver", None)


def test_a_jump_is_read_again_once_then_taken_as_a_gap_in_the_log() -> None:
    positions = ReadPositions(next_offset={P0: 18})
    # Records 18-21 were fetched and lost before a seek: read again from 18 instead of
    # counting them as handled.
    assert positions.admit(P0, 22) == ("reseek", None)
    # The broker answers from 18 with the same jump: 18-21 are not in the log.
    assert positions.admit(P0, 22) == ("deliver", (18, 21))
    positions.delivered(P0, 22, positions.epoch)
    assert positions.admit(P0, 24) == ("reseek", None)  # a new jump is checked again
    assert positions.admit(P0, 23) == ("deliver", None)


def test_the_lowest_offset_read_is_kept() -> None:
    positions = ReadPositions()
    positions.admit(P0, 7)
    positions.admit(P0, 3)
    assert positions.first_read[P0] == 3


class FakeThread:
    """The consumer thread: committed offsets and the seeks asked of it."""

    def __init__(self, committed: dict[Any, int | None], beginning: int) -> None:
        self.committed, self.beginning = committed, beginning
        self.sought: list[Any] = []

    async def seek_to_beginning(self, *tps: Any) -> None:
        self.sought.extend(tps)

    async def position(self, tp: Any) -> int:
        # The fetch position: the running fetch loop has already read past what it queued.
        return self.beginning + 7

    async def earliest_offsets(self, *tps: Any) -> dict[Any, int]:
        return {tp: self.beginning for tp in tps}


def test_partitions_without_a_commit_start_from_the_beginning_after_a_seek() -> None:
    # aiokafka seeks only committed offsets above 0; the others stayed where a dropped fetch
    # ended (a new group's first rebalance lost every record fetched before it).
    changelog = TP("hallmon-assembler-streams-changelog", 0)
    thread = FakeThread({P0: None, TP("agent.traces", 1): 42, changelog: None}, beginning=3)
    consumer = OrderedConsumer.__new__(OrderedConsumer)
    consumer._thread = thread
    consumer.app = SimpleNamespace(
        conf=SimpleNamespace(consumer_auto_offset_reset="earliest"),
        topics=SimpleNamespace(acks_enabled_for=lambda topic: topic == "agent.traces"),
    )

    async def committed(self: Any) -> dict[Any, int | None]:
        return dict(thread.committed)

    with patch.object(FaustConsumer, "seek_to_committed", committed):
        result = asyncio.run(consumer.seek_to_committed())
    assert thread.sought == [P0]  # not the committed one, not the changelog (table recovery's)
    # where reading starts (the log's start, not the fetch position), so a stale record is
    # seen as out of place and nothing queued before the seek is taken as read
    assert result[P0] == 3


def queued(topic: str, partition: int, offset: int) -> Any:
    return SimpleNamespace(message=SimpleNamespace(tp=TP(topic, partition), offset=offset))


def test_a_queue_clear_notes_the_oldest_input_record_it_throws_away() -> None:
    # A restarted assembler queued offsets 5 and 6 (the last chunk and the end of a stream)
    # while its partitions were being sought; the resume cleared them unhandled.
    items = [
        queued("agent.traces", 4, 6),
        queued("agent.traces", 4, 5),
        queued("agent.traces", 1, 9),
        queued("hallmon-assembler-streams-changelog", 4, 2),  # table recovery's, not an input
        "an item that is not an event",
    ]
    oldest = cleared_offsets(items, lambda topic: topic == "agent.traces")
    assert oldest == {TP("agent.traces", 4): 5, TP("agent.traces", 1): 9}


def test_a_rewind_goes_back_to_the_cleared_record_but_not_below_the_commit() -> None:
    assert rewind_offset(5, None, 7) == 5  # the loop had moved past them: read them again
    assert rewind_offset(5, 6, 7) == 6  # 5 was handled and committed (a stale record)
    assert rewind_offset(5, None, 3) == 3  # the loop already continues from before them
    assert rewind_offset(5, None, None) == 5


def test_the_consumer_reads_cleared_records_again() -> None:
    consumer = OrderedConsumer.__new__(OrderedConsumer)
    consumer._positions = ReadPositions(next_offset={P0: 7})
    consumer._rewinds = {}
    consumer._committed_offset = defaultdict(lambda: None)
    sought: list[dict[Any, int]] = []

    async def seek_wait(offsets: dict[Any, int]) -> None:
        sought.append(offsets)

    class FlowControl:
        def __init__(self) -> None:
            self._queues = [SimpleNamespace(_queue=[queued("agent.traces", 0, 5)])]
            self.cleared = 0

        def clear(self) -> None:
            self.cleared += 1

    flow = FlowControl()
    consumer.app = SimpleNamespace(
        topics=SimpleNamespace(acks_enabled_for=lambda topic: topic == "agent.traces")
    )
    consumer.seek_wait = seek_wait  # type: ignore[method-assign]
    consumer.assignment = lambda: {P0}  # type: ignore[method-assign]
    consumer.log = SimpleNamespace(info=lambda *args: None)
    consumer._watch_queue_clears(flow)
    flow.clear()  # what faust's resume does
    assert flow.cleared == 1  # faust's clear still runs
    assert consumer._rewinds == {P0: 5}
    asyncio.run(consumer._rewind_cleared())
    assert sought == [{P0: 5}]
    assert consumer._positions.next_offset[P0] == 5
    assert consumer._positions.seeks_running == 0
    assert consumer._rewinds == {}


def test_a_tail_returned_and_never_handled_is_read_again_once() -> None:
    tails = StalledTails(quiet_s=5.0)
    # Committed 40, the client already returned up to 52 and nothing of it is in flight.
    assert tails.observe(P0, 40, 52, now=0.0) is None  # just seen: records may still come
    assert tails.observe(P0, 40, 52, now=4.0) is None
    assert tails.observe(P0, 40, 52, now=5.5) == 40  # quiet for 5 s: read again from 40
    # The head did not move after that read again: the log has no records there (a
    # transaction marker); never seek for it again.
    assert tails.observe(P0, 40, 52, now=20.0) is None
    assert tails.observe(P0, 40, 52, now=40.0) is None
    # A later loss, at another head, is repaired too.
    assert tails.observe(P0, 60, 70, now=50.0) is None
    assert tails.observe(P0, 60, 70, now=56.0) == 60


def test_a_transaction_marker_is_read_again_once_per_partition() -> None:
    # A transactional producer: each transaction ends with a commit marker, one offset the
    # client passes and no agent ever sees.
    tails = StalledTails(quiet_s=5.0)
    tails.observe(P0, 10, 11, now=0.0)
    assert tails.observe(P0, 10, 11, now=6.0) == 10  # not known yet: read again once
    assert tails.observe(P0, 10, 11, now=20.0) is None  # nothing there: a marker
    tails.observe(P0, 14, 15, now=30.0)  # the next transaction's marker
    assert tails.observe(P0, 14, 15, now=40.0) is None
    # Lost records past a marker are still read again.
    tails.observe(P0, 15, 22, now=50.0)
    assert tails.observe(P0, 15, 22, now=56.0) == 15


def test_a_tail_being_handled_or_moving_is_not_stalled() -> None:
    tails = StalledTails(quiet_s=5.0)
    assert tails.observe(P0, 40, 52, now=0.0) is None
    assert tails.observe(P0, 45, 52, now=6.0) is None  # the head moved: commits going on
    tails.busy(P0)  # messages of the partition in flight: its clock starts again
    assert tails.observe(P0, 45, 52, now=12.0) is None
    assert tails.observe(P0, 45, 52, now=13.0) is None
    assert tails.observe(P0, 52, 52, now=30.0) is None  # all handled
    assert tails.observe(P0, None, 52, now=40.0) is None  # no head known
    assert tails.observe(P0, 52, None, now=50.0) is None  # no position (a reset running)
    tails.observe(P0, 40, 52, now=60.0)
    tails.forget([])  # the partition was given away
    assert tails.observe(P0, 40, 52, now=70.0) is None


def ticks_of(consumer: Any, *times: float) -> None:
    async def ticks() -> None:
        for now in times:
            await consumer._reread_stalled_tails(now)

    asyncio.run(ticks())


def stalled_consumer(position: int, committed: int | None, in_flight: list[Any]) -> Any:
    consumer = OrderedConsumer.__new__(OrderedConsumer)
    consumer._positions = ReadPositions(next_offset={P0: position})
    consumer._committed_offset = defaultdict(lambda: None, {P0: committed})
    consumer._read_offset = defaultdict(lambda: None, {P0: committed})
    consumer._acked = defaultdict(list)
    consumer._unacked_messages = list(in_flight)
    consumer._tails = StalledTails(quiet_s=5.0)
    consumer._tails_checked = 0.0
    consumer._paused_since = {}
    consumer.flow_active = True
    consumer.sought = []

    async def seek_wait(offsets: dict[Any, int]) -> None:
        consumer.sought.append(offsets)

    def client_state(tp: Any) -> Any:
        assert tp == P0
        return SimpleNamespace(_position=position)

    client = SimpleNamespace(
        _subscription=SimpleNamespace(
            subscription=SimpleNamespace(assignment=SimpleNamespace(state_value=client_state))
        )
    )
    changelog = TP("hallmon-assembler-streams-changelog", 0)
    consumer.app = SimpleNamespace(
        rebalancing=False,
        tables=SimpleNamespace(recovery=SimpleNamespace(completed=asyncio.Event())),
        topics=SimpleNamespace(acks_enabled_for=lambda topic: topic == "agent.traces"),
    )
    consumer.app.tables.recovery.completed.set()
    consumer._thread = SimpleNamespace(_ensure_consumer=lambda: client)
    consumer.seek_wait = seek_wait
    consumer.assignment = lambda: {P0, changelog}
    consumer._get_active_partitions = lambda: {P0, changelog}
    consumer.log = SimpleNamespace(warning=lambda *args: None)
    return consumer


def test_the_consumer_reads_a_stalled_tail_again_from_its_commit_head() -> None:
    consumer = stalled_consumer(position=52, committed=40, in_flight=[])

    ticks_of(consumer, 10.0, 12.0, 14.0, 16.0)
    # Read again from the head, once; the changelog (table recovery's) is never touched.
    assert consumer.sought == [{P0: 40}]
    assert consumer._positions.next_offset[P0] == 40


def test_with_nothing_committed_the_head_is_where_the_last_seek_put_the_partition() -> None:
    consumer = stalled_consumer(position=12, committed=None, in_flight=[])
    consumer._read_offset[P0] = 0  # faust keeps a committed 0 as None; the seek said 0

    ticks_of(consumer, 10.0, 12.0, 14.0, 16.0)
    assert consumer.sought == [{P0: 0}]


def test_an_input_left_paused_after_a_rebalance_is_resumed() -> None:
    consumer = stalled_consumer(position=40, committed=40, in_flight=[])
    active: set[Any] = set()  # the rebalance ended with P0 still paused
    consumer._get_active_partitions = lambda: active
    consumer.resume_partitions = active.update

    ticks_of(consumer, 10.0, 12.0)
    assert active == set()  # paused for a moment (a restore, a seek) is left alone
    ticks_of(consumer, 14.0, 16.0)
    assert active == {P0}
    assert consumer.sought == []


def test_a_commit_that_failed_is_no_stalled_tail() -> None:
    # The broker was away: 40-51 were handed to the agents and handled, their commit failed.
    consumer = stalled_consumer(position=52, committed=40, in_flight=[])
    for offset in range(40, 52):
        consumer._positions.delivered(P0, offset, consumer._positions.epoch)
    ticks_of(consumer, 10.0, 12.0, 14.0, 16.0, 18.0)
    assert consumer.sought == []


def test_records_handed_out_then_returned_and_dropped_are_read_from_the_first_dropped() -> None:
    consumer = stalled_consumer(position=52, committed=40, in_flight=[])
    for offset in range(40, 45):
        consumer._positions.delivered(P0, offset, consumer._positions.epoch)
    ticks_of(consumer, 10.0, 12.0, 14.0, 16.0)
    assert consumer.sought == [{P0: 45}]


def test_a_partition_given_away_and_back_is_read_from_where_it_is_sought() -> None:
    # This consumer read P0 up to 75 before it was given away; another member committed 31.
    positions = ReadPositions()
    for offset in range(0, 75):
        positions.admit(P0, offset)
        positions.delivered(P0, offset, positions.epoch)
    assert positions.admit(P0, 31) == ("skip", None)  # what a stale position would do
    positions.forget([P0])
    # Back again: a record the new seek makes the client return is not taken as read before.
    assert positions.admit(P0, 31) == ("deliver", None)
    positions.sought(P0, 31)
    assert positions.handed_to[P0] == 31 and positions.next_offset[P0] == 31


def test_the_consumer_leaves_a_partition_with_messages_in_flight_alone() -> None:
    consumer = stalled_consumer(
        position=52, committed=40, in_flight=[SimpleNamespace(tp=P0, offset=40)]
    )

    ticks_of(consumer, 10.0, 20.0, 30.0)
    assert consumer.sought == []


def test_every_role_gets_the_ordered_consumer() -> None:
    from hallmon.topology.app import make_app
    from hallmon.topology.settings import HallmonSettings

    settings = HallmonSettings()
    for role in ("assembler", "verifier", "fatigue"):
        app = make_app(settings, role)  # type: ignore[arg-type]
        assert app.transport.Consumer is OrderedConsumer
        # only the assembler keeps a table whose writes must not outlive a revocation
        assert app.conf.stream_wait_empty is (role == "assembler")
        # faust's data folder (nothing in it: tables are in memory) stays out of the cwd
        assert str(app.conf.datadir).startswith(tempfile.gettempdir())


def test_the_write_barrier_waits_for_every_write_added_before_it() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        barrier = WriteBarrier()
        first, second = loop.create_future(), loop.create_future()
        barrier.add(first)
        barrier.add(second)
        settling = asyncio.ensure_future(barrier.settled())
        first.set_result(None)
        await asyncio.sleep(0.01)
        assert not settling.done() and len(barrier) == 1  # landed writes are forgotten
        second.set_result(None)
        await asyncio.wait_for(settling, 1.0)
        assert len(barrier) == 0

    asyncio.run(scenario())


def test_a_failed_or_stuck_write_fails_the_barrier() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        barrier = WriteBarrier()
        failed = loop.create_future()
        barrier.add(failed)
        failed.set_exception(OSError("broker gone"))
        try:
            await barrier.settled()
        except OSError as exc:
            assert "broker gone" in str(exc)
        else:
            raise AssertionError("a failed write must fail the barrier")
        stuck = WriteBarrier(timeout_s=0.05)
        stuck.add(loop.create_future())
        try:
            await stuck.settled()
        except TimeoutError as exc:
            assert "1 table writes unacknowledged" in str(exc)
        else:
            raise AssertionError("a write that never lands must fail the barrier")

    asyncio.run(scenario())


def test_the_consumer_commits_only_after_the_writes_landed() -> None:
    consumer = OrderedConsumer.__new__(OrderedConsumer)
    consumer.app = SimpleNamespace()
    events: list[str] = []

    async def faust_commit(self: Any, offsets: Any, start_new_transaction: bool = True) -> bool:
        events.append(f"commit {offsets}")
        return True

    async def scenario() -> None:
        write = asyncio.get_running_loop().create_future()
        write_barrier(consumer.app).add(write)
        assert write_barrier(consumer.app) is write_barrier(consumer.app)  # one per app
        committing = asyncio.ensure_future(consumer._commit_offsets({P0: 3}))
        await asyncio.sleep(0.01)
        assert events == []  # the write has not landed: no commit yet
        write.set_result(None)
        events.append("landed")
        assert await asyncio.wait_for(committing, 1.0) is True
        assert events == ["landed", "commit {" + repr(P0) + ": 3}"]

    with patch.object(FaustConsumer, "_commit_offsets", faust_commit):
        asyncio.run(scenario())


def test_a_failed_write_stops_the_worker_without_committing() -> None:
    consumer = OrderedConsumer.__new__(OrderedConsumer)
    consumer.app = SimpleNamespace()
    exits: list[int] = []
    commits: list[Any] = []

    async def faust_commit(self: Any, offsets: Any, start_new_transaction: bool = True) -> bool:
        commits.append(offsets)
        return True

    async def scenario() -> None:
        write = asyncio.get_running_loop().create_future()
        write_barrier(consumer.app).add(write)
        write.set_exception(OSError("broker gone"))
        await consumer._commit_offsets({P0: 3})

    def fake_exit(code: int) -> None:
        exits.append(code)
        raise SystemExit(code)  # os._exit never returns

    with (
        patch.object(FaustConsumer, "_commit_offsets", faust_commit),
        patch("hallmon.topology.restart.os._exit", side_effect=fake_exit),
        pytest.raises(SystemExit),
    ):
        asyncio.run(scenario())
    assert exits == [EXIT_UNWRITTEN] and commits == []
