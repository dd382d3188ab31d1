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

A fifth, a message acked although its handler raised or was cancelled (faust acks in a
`finally`), is closed where the agents iterate: `hallmon.workers.publishing.handled_messages`.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Literal

from faust.transport.consumer import CONSUMER_FETCHING
from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.utils.functional import consecutive_numbers

Admission = Literal["deliver", "skip", "reseek"]


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
    epoch: int = 0

    def new_epoch(self) -> None:
        """A seek begins or ends: a record handed out across it does not move the position."""
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
        if epoch == self.epoch:
            self.next_offset[tp] = offset + 1


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

    async def perform_seek(self) -> None:
        positions = self._positions
        positions.new_epoch()
        await super().perform_seek()
        positions.next_offset.update(self._read_offset)
        positions.new_epoch()

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
            for tp in unset:
                # Where reading starts now, so a record from a batch fetched before the seek is
                # recognised as out of place.
                with contextlib.suppress(asyncio.TimeoutError):
                    committed[tp] = await asyncio.wait_for(self._thread.position(tp), 30.0)
        return committed

    async def seek(self, partition: Any, offset: int) -> None:
        self._positions.new_epoch()
        await super().seek(partition, offset)
        self._positions.next_offset[partition] = offset
        self._positions.new_epoch()

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
        self._positions.new_epoch()
        await self.seek_wait({tp: expected})
        self._positions.next_offset[tp] = expected
        self._positions.new_epoch()

    async def on_stop(self) -> None:
        # faust skips the final commit when `stream_wait_empty` is set (it waits for the agents
        # instead, but when the consumer stops they have already stopped): commit what was
        # handled, so the next owner does not redo it.
        if self.app.conf.stream_wait_empty:
            await self.commit_and_end_transactions()
        await super().on_stop()

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
                self.diag.set_flag(CONSUMER_FETCHING)
                batch = self.getmany(timeout=1.0)
                await self.sleep(0)
                if not self.should_stop:
                    async for tp, message in batch:
                        since_yield += 1
                        if since_yield > 100:
                            await asyncio.sleep(0)
                            since_yield = 0
                        admission, gap = positions.admit(tp, message.offset)
                        if admission == "skip":
                            continue
                        if admission == "reseek":
                            # The rest of this batch continues from the wrong place.
                            await self._reseek(tp, message.offset)
                            break
                        if gap is not None and acks_enabled_for(message.topic):
                            await self._add_gap(tp, *gap)
                        if commit_every is not None and self._n_acked >= commit_every:
                            self._n_acked = 0
                            await self.commit()
                        epoch = positions.epoch
                        handed = self.callback(message)
                        result = await self.wait_first(handed, self.suspend_flow.wait())
                        if handed in result.done:
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


__all__ = ["OrderedConsumer", "ReadPositions", "commit_offset", "install_ordered_consumer"]
