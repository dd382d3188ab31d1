"""faust's Kafka consumer with its delivery bookkeeping made safe for at-least-once.

faust-streaming (0.15) loses messages in four ways, each observed in hallmon's fault tests
(two assemblers and a rebalance: 0 to 21 of 60 streams lost an event; `kill -9` of a worker
under load: an answer lost in about one run in three):

1. **A stale batch read past a seek.** After a rebalance faust resumes the partitions *before*
   it seeks them to their committed offsets, while its fetch loop is already running. The loop
   keeps delivering the rest of a batch fetched from the old position after the seek, and moves
   its read offset past the seek; the records that the seek makes the broker send again are then
   dropped as already read, and those delivered before the seek were cleared from the agents'
   queues when flow resumed. Here the loop knows the offset each partition must continue from:
   a record handed out across a seek never moves it, a record below it is skipped, and a record
   past it makes the loop seek back (once; the same jump again is a real gap in the log).
   This holds for the agents' input topics; a changelog's records go to the table restore
   as they come (replaying one sets the same value again; skipping one stalls the restore).
2. **No seek without a commit.** aiokafka seeks only partitions with a committed offset above 0;
   the others stay where the last fetch stopped, past the records fetched before the rebalance
   and dropped (a new group's first rebalance lost all of them). Here those start again from the
   beginning of the log, as `auto_offset_reset=earliest` says.
3. **A commit past an unfinished message.** faust commits the first run of consecutive acked
   offsets when the message right at the committed offset is still being handled (its gap check
   allows a hole of one), and checks no hole at all before the first commit. With several
   messages in flight (the verifier handles 16 at once), a kill right after such a commit loses
   the unfinished one. Here nothing is committed past the oldest offset that was not acked.
4. **Gaps off by one.** faust's read offset means "last read" after a record but "next to read"
   after a seek, so a real gap in the log (transaction markers, compaction) was marked one
   offset short. Here the read offset is always the next offset to read.

5. **Records cleared from the agents' queues.** faust clears every agent's queue when flow
   resumes at the end of a rebalance, while its fetch loop has been running since the
   partitions were resumed (before their seek): records fetched and queued in between are
   thrown away, never handled, and the read position is already past them (a restarted
   assembler lost the last chunk and the end of a stream this way, which then timed out).
   Here the records a clear throws away are noted and their partitions read again from the
   oldest of them. And where no offset was committed, reading restarts from the log's start
   offset as the broker reports it, not from the fetch position, which the running loop may
   already have moved past the records it queued.

8. **A tail fetched and never handled.** Every fix above repairs a loss that a later record
   reveals (a jump in offsets) or that a clear reports. A batch dropped after the client
   returned it, with nothing written behind it, leaves no trace: the partition's position is
   past records whose offsets were never acked, and no record ever comes to show the hole (a
   CI run of the rebalance test saw 18 of 60 streams lose the last events of a partition this
   way and time out). Here a partition that is idle (nothing of it in flight, acked or
   queued) while the client's position stays past the records handled (committed) or handed
   to an agent since its last seek for `quiet_s` is read again from there, once per such
   offset (`StalledTails`; one that stays put after that is a gap in the log, such as a
   transaction marker, and a partition that showed one is known to have them). The position is
   read from the client's state: aiokafka's `position()` waits in the client's thread for a
   valid one, and the fetches queue behind it. Its other face, an input partition still paused
   after the rebalance ended (its records never returned at all), is resumed.

A sixth, a message acked although its handler raised or was cancelled (faust acks in a
`finally`), is closed where the agents iterate: `hallmon.workers.publishing.handled_messages`.

7. **A commit past an unwritten table change.** faust's commit flushes its producer buffer but
   stops waiting once 0.1 s pass without a send, and commits whether or not the changelog
   writes of the handled messages have landed. Here every commit first waits for the writes
   the agents registered with the app's `WriteBarrier`, and a failed one stops the process
   without committing (the messages are read again after the restart). The assembler still
   awaits each write before its next message (see `workers/assembler/agent.py`, `_store`):
   the barrier is the guard for what a handler does not await, and makes a failed write a
   restart that reads its message again, not only the dead letter its handler publishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from faust.transport.consumer import CONSUMER_FETCHING
from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.utils.functional import consecutive_numbers
from hallmon.topology.restart import EXIT_TEMPFAIL, exit_for_restart

Admission = Literal["deliver", "skip", "reseek"]

EXIT_UNWRITTEN = EXIT_TEMPFAIL

log = logging.getLogger(__name__)


class WriteBarrier:
    """Writes that must land before any input offset is committed (fix 7; transport-free).

    `add` takes a write's pending acknowledgement and returns at once; `settled` waits for all
    writes added before it was called and raises the first failure, or TimeoutError when they
    have not all landed within `timeout_s` (a producer that never answers must not hold the
    commits forever). Successful writes are forgotten as they land, so the set stays as small
    as the writes in flight.
    """

    def __init__(self, timeout_s: float = 120.0) -> None:
        self.timeout_s = timeout_s
        self._pending: set[asyncio.Future[Any]] = set()
        self._failures: list[BaseException] = []

    def __len__(self) -> int:
        return len(self._pending)

    def add(self, write: Awaitable[Any]) -> None:
        future = asyncio.ensure_future(write)
        self._pending.add(future)
        future.add_done_callback(self._landed)

    def _landed(self, future: asyncio.Future[Any]) -> None:
        self._pending.discard(future)
        if future.cancelled():
            self._failures.append(RuntimeError("a table write was cancelled"))
        elif future.exception() is not None:
            self._failures.append(future.exception())  # type: ignore[arg-type]

    async def settled(self) -> None:
        pending = list(self._pending)
        if pending:
            _, unfinished = await asyncio.wait(pending, timeout=self.timeout_s)
            if unfinished:
                raise TimeoutError(
                    f"{len(unfinished)} table writes unacknowledged after {self.timeout_s:g} s"
                )
        if self._failures:
            raise self._failures[0]


def write_barrier(app: Any) -> WriteBarrier:
    """The app's one `WriteBarrier`, which its consumer awaits before every commit."""
    barrier = getattr(app, "_hallmon_write_barrier", None)
    if barrier is None:
        barrier = WriteBarrier()
        app._hallmon_write_barrier = barrier
    return barrier


@dataclass
class ReadPositions:
    """The next offset each partition's records must continue from (transport-free).

    A record below it was read before (the broker resends after a seek): skip it. A record
    above it means either the log has no records there (transaction markers, compaction) or
    records were lost between a fetch and a seek: seek back once, and if the broker answers
    with the same jump, it is a gap in the log.
    """

    next_offset: dict[Any, int | None] = field(default_factory=dict)
    # The lowest offset read from each partition: the commit head while the group has no
    # committed offset for it yet (nothing below it was ever handed to an agent).
    first_read: dict[Any, int] = field(default_factory=dict)
    reseeked: dict[Any, int] = field(default_factory=dict)
    # One past the highest offset handed to the agents since the partition was last sought,
    # in any epoch: what the client returned beyond it never reached an agent (fix 8).
    handed_to: dict[Any, int] = field(default_factory=dict)
    epoch: int = 0

    seeks_running: int = 0

    @contextlib.contextmanager
    def seeking(self) -> Iterator[None]:
        """Around a seek: a record handed out across it does not move the position."""
        self.epoch += 1
        self.seeks_running += 1
        try:
            yield
        finally:
            self.seeks_running -= 1
            self.epoch += 1

    def admit(self, tp: Any, offset: int) -> tuple[Admission, tuple[int, int] | None]:
        """What to do with the record at `offset`, and the offsets [from, to] the log does not
        have before it (a gap to count as handled), if any."""
        expected = self.next_offset.get(tp)
        if expected is not None and offset < expected:
            return "skip", None
        if expected is not None and offset > expected:
            if self.reseeked.get(tp) != expected:
                self.reseeked[tp] = expected
                return "reseek", None
            gap: tuple[int, int] | None = (expected, offset - 1)
        else:
            gap = None
        self.reseeked.pop(tp, None)
        self.first_read[tp] = min(self.first_read.get(tp, offset), offset)
        return "deliver", gap

    def delivered(self, tp: Any, offset: int, epoch: int) -> None:
        """The record at `offset`, handed out in `epoch`, reached the agents' queue."""
        self.handed_to[tp] = max(self.handed_to.get(tp, offset + 1), offset + 1)
        if epoch == self.epoch:
            self.next_offset[tp] = offset + 1

    def sought(self, tp: Any, offset: int | None) -> None:
        """`tp` reads from `offset` now."""
        self.next_offset[tp] = offset
        if offset is None:
            self.handed_to.pop(tp, None)
        else:
            self.handed_to[tp] = offset

    def forget(self, revoked: Iterable[Any]) -> None:
        """Partitions given away: whatever this consumer knew of them is stale when one comes
        back (another member read and committed it meanwhile)."""
        for tp in revoked:
            for known in (self.next_offset, self.first_read, self.reseeked, self.handed_to):
                known.pop(tp, None)


@dataclass
class StalledTails:
    """Which partitions hold records the client returned and nobody handled (fix 8;
    transport-free).

    `observe` is given, for one partition the consumer owns and nothing of which is in flight,
    its commit head (the first offset not known handled) and the client's position (the next
    offset it will return). A position past the head that stays exactly so for `quiet_s` means
    the records in between were returned and dropped: it answers the offset to read again
    from. Once per head: after a read again the same head is a gap the log really has.
    """

    quiet_s: float = 5.0
    _since: dict[Any, tuple[int, int, float]] = field(default_factory=dict)
    _reread: dict[Any, int] = field(default_factory=dict)
    # Partitions whose last offset was once read again and held no record: a transactional
    # producer writes there, and the one offset past each transaction is its commit marker.
    _markers: set[Any] = field(default_factory=set)

    def observe(self, tp: Any, head: int | None, position: int | None, now: float) -> int | None:
        if head is None or position is None or position <= head:
            self._since.pop(tp, None)
            return None
        if self._reread.get(tp) == head and position == head + 1:
            self._markers.add(tp)
        if tp in self._markers and position == head + 1:
            self._since.pop(tp, None)
            return None
        seen = self._since.get(tp)
        if seen is None or seen[:2] != (head, position):
            self._since[tp] = (head, position, now)
            return None
        if now - seen[2] < self.quiet_s or self._reread.get(tp) == head:
            return None
        self._reread[tp] = head
        del self._since[tp]
        return head

    def busy(self, tp: Any) -> None:
        """Something of `tp` is in flight: its clock starts again when it is idle."""
        self._since.pop(tp, None)

    def forget(self, keep: Iterable[Any]) -> None:
        """Drop partitions no longer owned."""
        kept = set(keep)
        for table in (self._since, self._reread):
            for tp in [tp for tp in table if tp not in kept]:
                del table[tp]
        self._markers &= kept


def cleared_offsets(items: Iterable[Any], wanted: Callable[[str], bool]) -> dict[Any, int]:
    """The oldest offset per partition among queued events (items with a `.message`) of the
    topics `wanted` says are agents' inputs: what a queue clear throws away unhandled."""
    oldest: dict[Any, int] = {}
    for item in items:
        message = getattr(item, "message", None)
        tp = getattr(message, "tp", None)
        offset = getattr(message, "offset", None)
        if tp is None or not isinstance(offset, int) or not wanted(tp.topic):
            continue
        oldest[tp] = min(oldest.get(tp, offset), offset)
    return oldest


def rewind_offset(cleared: int, committed: int | None, next_offset: int | None) -> int:
    """Where to read a partition again after a clear threw away its records from `cleared`
    on: never below what is committed (handled already), never past where the loop already
    expects to continue (it will read those anyway, once)."""
    target = cleared if committed is None else max(cleared, committed)
    return target if next_offset is None else min(target, next_offset)


def commit_offset(acked: list[int], head: int | None) -> tuple[int | None, int]:
    """The offset to commit from the sorted `acked` offsets and the first offset not yet known
    handled (`head`): one past the run of consecutive acked offsets that starts at `head`, or
    None when `head` itself is not acked; also how many of `acked` that run covers."""
    if not acked:
        return None, 0
    if head is not None and acked[0] > head:
        return None, 0  # the message at the head is still being handled
    batch = next(consecutive_numbers(acked))
    if head is not None and batch[-1] < head:
        return None, len(batch)  # stale acks from before a seek: drop them, commit nothing
    return batch[-1] + 1, len(batch)


class OrderedConsumer(aiokafka_driver.Consumer):
    """The aiokafka consumer of faust with the fixes above (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._positions = ReadPositions()
        # Partition -> oldest offset a flow-control clear threw out of an agent's queue.
        self._rewinds: dict[Any, int] = {}
        self._watch_queue_clears(self.app.flow_control)
        self._tails = StalledTails()
        self._tails_checked = 0.0
        self._paused_since: dict[Any, float] = {}

    def _watch_queue_clears(self, flow_control: Any) -> None:
        """Note what each clear of the agents' queues throws away (fix 5): faust calls
        `flow_control.clear()` on every resume and around rebalances."""
        clear = flow_control.clear
        wanted = self.app.topics.acks_enabled_for

        def noting_clear() -> None:
            for queue in list(flow_control._queues):
                queued = list(getattr(queue, "_queue", ()))
                for tp, offset in cleared_offsets(queued, wanted).items():
                    self._rewinds[tp] = min(self._rewinds.get(tp, offset), offset)
            clear()

        flow_control.clear = noting_clear

    async def _rewind_cleared(self) -> None:
        """Read again, from the oldest, the records a queue clear threw away (fix 5)."""
        rewinds, self._rewinds = self._rewinds, {}
        assigned = self.assignment()
        for tp, cleared in sorted(rewinds.items(), key=lambda item: str(item[0])):
            if tp not in assigned:
                continue  # given away: its new owner reads it from the committed offset
            offset = rewind_offset(
                cleared, self._committed_offset.get(tp), self._positions.next_offset.get(tp)
            )
            self.log.info(
                "%s: records from %d were cleared from the agents' queue unhandled; reading "
                "again from %d",
                tp,
                cleared,
                offset,
            )
            await self._seek_to(tp, offset)

    def _idle_inputs(self, assigned: set[Any], now: float) -> list[Any]:
        """The agents' input partitions this consumer reads now with nothing of theirs in
        flight: no message handed out and unacked, no ack waiting for its commit."""
        app = self.app
        recovery = getattr(getattr(app, "tables", None), "recovery", None)
        done = getattr(recovery, "completed", None)
        if (
            app.rebalancing
            or not self.flow_active
            or self._positions.seeks_running
            or (done is not None and not done.is_set())
        ):
            self._paused_since = {}  # paused on purpose now; the clock starts after
            return []
        active = self._get_active_partitions()
        in_flight = {message.tp for message in list(self._unacked_messages)}
        idle = []
        paused = []
        for tp in assigned:
            if not app.topics.acks_enabled_for(tp.topic):
                continue
            if tp not in active:
                paused.append(tp)
            if tp not in active or tp in in_flight or self._acked.get(tp):
                self._tails.busy(tp)
                continue
            idle.append(tp)
        self._resume_forgotten(paused, now)
        return idle

    def _resume_forgotten(self, paused: list[Any], now: float) -> None:
        """Resume input partitions left paused after a rebalance ended (fix 8's other face: the
        records after the pause are never returned at all). faust pauses inputs only while it
        rebalances and restores, so one still paused `quiet_s` later was forgotten."""
        since = {tp: self._paused_since.get(tp, now) for tp in paused}
        self._paused_since = since
        forgotten = [tp for tp, at in since.items() if now - at >= self._tails.quiet_s]
        if forgotten:
            self.log.warning(
                "%s stayed paused after the rebalance ended; resuming them",
                sorted(map(str, forgotten)),
            )
            self.resume_partitions(forgotten)
            for tp in forgotten:
                del self._paused_since[tp]

    def _client_position(self, tp: Any) -> int | None:
        """The next offset the client will return for `tp`, read from its state without a
        call into its thread: aiokafka's `position()` waits there until a valid position
        exists, which a broker outage can hold for minutes, and the fetches queue behind it."""
        try:
            assignment = self._thread._ensure_consumer()._subscription.subscription.assignment
            position = assignment.state_value(tp)._position
        except Exception:  # not assigned, not started: nothing to judge
            return None
        return position if isinstance(position, int) else None

    async def _reread_stalled_tails(self, now: float) -> None:
        """Read again the records a partition's position passed without any being handled
        (fix 8); checked every second at most, between batches."""
        if now - self._tails_checked < 1.0:
            return
        self._tails_checked = now
        assigned = self.assignment()
        self._tails.forget(assigned)
        for tp in self._idle_inputs(assigned, now):
            position = self._client_position(tp)
            # Handled (committed) or handed to an agent since the last seek: a commit that
            # failed (the broker away) leaves the head behind records that were handled.
            committed = self._commit_head(tp)
            if committed is None:  # nothing committed or read yet: where the last seek put it
                committed = self._read_offset.get(tp)
            known = [committed, self._positions.handed_to.get(tp)]
            head = max((offset for offset in known if offset is not None), default=None)
            offset = self._tails.observe(tp, head, position, now)
            if offset is None:
                continue
            self.log.warning(
                "%s: the client is at offset %d but nothing from %d on was handled; reading "
                "again from %d, once (records returned and dropped, or a gap the log has, "
                "such as a transaction marker)",
                tp,
                position,
                offset,
                offset,
            )
            await self._seek_to(tp, offset)

    async def _seek_to(self, tp: Any, offset: int) -> None:
        with self._positions.seeking():
            await self.seek_wait({tp: offset})
            self._positions.sought(tp, offset)

    async def perform_seek(self) -> None:
        positions = self._positions
        with positions.seeking():
            await super().perform_seek()
            for tp, offset in self._read_offset.items():
                positions.sought(tp, offset)

    async def seek_to_committed(self) -> Any:
        committed: dict[Any, int | None] = dict(await super().seek_to_committed())
        # aiokafka seeks only partitions with a committed offset above 0 and leaves the others
        # where the last fetch stopped: past the records fetched before a rebalance and never
        # handled (a new group's first rebalance dropped them all). Start those from the
        # beginning of the log, as `auto_offset_reset=earliest` means.
        unset = [
            tp
            for tp, offset in committed.items()
            if (offset is None or offset <= 0) and self.app.topics.acks_enabled_for(tp.topic)
        ]  # the agents' input topics only: changelogs are positioned by table recovery
        if unset and self.app.conf.consumer_auto_offset_reset == "earliest":
            await self._thread.seek_to_beginning(*unset)
            # Where reading starts now, so a record from a batch fetched before the seek is
            # recognised as out of place: the log's start as the broker says, not the fetch
            # position, which the running fetch loop may already have moved (fix 5).
            with contextlib.suppress(asyncio.TimeoutError):
                starts = await asyncio.wait_for(self._thread.earliest_offsets(*unset), 30.0)
                committed.update({tp: starts[tp] for tp in unset if tp in starts})
        return committed

    async def seek(self, partition: Any, offset: int) -> None:
        with self._positions.seeking():
            await super().seek(partition, offset)
            self._positions.sought(partition, offset)

    async def on_partitions_revoked(self, revoked: set[Any]) -> None:
        self._positions.forget(revoked)
        await super().on_partitions_revoked(revoked)

    async def _reseek(self, tp: Any, seen: int) -> None:
        expected = self._positions.next_offset.get(tp)
        if expected is None:
            return
        self.log.info(
            "%s: read offset %d where %d was due; reading again from %d",
            tp,
            seen,
            expected,
            expected,
        )
        await self._seek_to(tp, expected)

    async def on_stop(self) -> None:
        # faust skips the final commit when `stream_wait_empty` is set (it waits for the agents
        # instead, but when the consumer stops they have already stopped): commit what was
        # handled, so the next owner does not redo it.
        if self.app.conf.stream_wait_empty:
            await self.commit_and_end_transactions()
        await super().on_stop()

    async def _settle_writes(self) -> None:
        """Wait for the app's table writes (fix 7); a failed one stops the process at once."""
        try:
            await write_barrier(self.app).settled()
        except Exception as exc:  # any failed write: never commit past it
            exit_for_restart(
                log,
                "a table write failed (%s: %s); exiting without committing, so the messages "
                "behind it are read again after the restart. Check the broker.",
                type(exc).__name__,
                exc,
            )

    async def _commit_offsets(self, offsets: Any, start_new_transaction: bool = True) -> bool:
        await self._settle_writes()
        done: bool = await super()._commit_offsets(offsets, start_new_transaction)
        return done

    async def wait_empty(self) -> None:
        # Before a partition is given away (faust's revocation waits here when
        # `stream_wait_empty` is set): also the writes of the timeout scan, which commits no
        # offset, so none can land after the new owner restored the table.
        await super().wait_empty()
        await self._settle_writes()

    def _commit_head(self, tp: Any) -> int | None:
        committed = self._committed_offset[tp]
        return committed if committed is not None else self._positions.first_read.get(tp)

    def _new_offset(self, tp: Any) -> int | None:
        acked: list[int] = self._acked[tp]
        if not acked:
            return None
        gaps = self._gap[tp]
        if gaps:
            # Offsets the log does not have count as handled (as in faust).
            top = max(acked)
            for interval in sorted(gaps.overlap(0, top + 1), key=lambda i: i.begin):
                acked.extend(range(interval.begin, interval.end))
            gaps.chop(0, top + 1)
        acked.sort()
        offset, used = commit_offset(acked, self._commit_head(tp))
        if used:
            done = acked[:used]
            del acked[:used]
            self._acked_index[tp].difference_update(done)
        return offset

    async def _add_gap(self, tp: Any, offset_from: int, offset_to: int) -> None:
        committed = self._committed_offset[tp]
        if committed is not None:
            offset_from = max(offset_from, committed)
        if offset_from <= offset_to:
            gaps = self._gap[tp]
            gaps.addi(offset_from, offset_to + 1)
            await asyncio.sleep(0)
            gaps.merge_overlaps()

    async def _drain_messages(self, fetcher: Any) -> None:  # pragma: no cover - needs a broker
        """faust's fetch loop, continuing each partition from its next offset (fixes 1 and 4)."""
        positions = self._positions
        consumer_should_stop = self._stopped.is_set
        fetcher_should_stop = fetcher._stopped.is_set
        acks_enabled_for = self.app.topics.acks_enabled_for
        commit_every = self._commit_every
        since_yield = 0
        try:
            while not (consumer_should_stop() or fetcher_should_stop()):
                if self._rewinds and not positions.seeks_running:
                    await self._rewind_cleared()
                await self._reread_stalled_tails(asyncio.get_running_loop().time())
                self.diag.set_flag(CONSUMER_FETCHING)
                batch = self.getmany(timeout=1.0)
                await self.sleep(0)
                if not self.should_stop:
                    async for tp, message in batch:
                        since_yield += 1
                        if since_yield > 100:
                            await asyncio.sleep(0)
                            since_yield = 0
                        # Only the agents' inputs are kept in order here: a table restore
                        # replays its changelog from where faust seeks it, and replaying a
                        # record twice sets the same value again, while skipping one (after
                        # a seek that bypassed these positions) would stall the restore.
                        tracked = acks_enabled_for(message.topic)
                        admission, gap = (
                            positions.admit(tp, message.offset) if tracked else ("deliver", None)
                        )
                        if admission == "skip":
                            continue
                        if admission == "reseek":
                            # The rest of this batch continues from the wrong place.
                            await self._reseek(tp, message.offset)
                            break
                        if gap is not None:
                            await self._add_gap(tp, *gap)
                        if commit_every is not None and self._n_acked >= commit_every:
                            self._n_acked = 0
                            await self.commit()
                        epoch = positions.epoch
                        handed = self.callback(message)
                        result = await self.wait_first(handed, self.suspend_flow.wait())
                        if tracked and handed in result.done:
                            positions.delivered(tp, message.offset, epoch)
                self.diag.unset_flag(CONSUMER_FETCHING)
        except self.consumer_stopped_errors:
            if self.transport.app.should_stop:
                return
            raise
        except asyncio.CancelledError:
            if self.transport.app.should_stop:
                return
            raise
        except Exception as exc:
            self.log.exception("Drain messages raised: %r", exc)
            raise
        finally:
            self.diag.unset_flag(CONSUMER_FETCHING)


def install_ordered_consumer(app: Any) -> None:
    """Make `app` create `OrderedConsumer`s (before its worker starts)."""
    app.transport.Consumer = OrderedConsumer


__all__ = [
    "EXIT_UNWRITTEN",
    "OrderedConsumer",
    "ReadPositions",
    "StalledTails",
    "WriteBarrier",
    "cleared_offsets",
    "commit_offset",
    "install_ordered_consumer",
    "rewind_offset",
    "write_barrier",
]
