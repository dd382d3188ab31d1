"""A watch on table recovery: a restore that stops making progress is restarted, then the
worker.

faust restores a table after a rebalance by reading its changelog partitions up to their
high-water marks, and waits for that with no deadline. On a loaded 2-core host (CI) a restore
was seen to receive no changelog record at all for four minutes after "Resuming flow"; faust
only logs "No event received for active tp ... since recovery start" every few seconds, and
every open stream of the restored partitions waits with it. The cause was not pinned down
(its run left only the tail of its log), so this guard acts on the symptom, in two steps:

1. no progress for `stall_s`: seek the changelog partitions that still lack records back to
   where the restore stands and resume fetching them (a lost fetch position or a paused
   partition is mended by that);
2. still none for another `stall_s`: exit with `EXIT_STALLED` (75, EX_TEMPFAIL). The input
   offsets of the restored partitions were not committed past anything unhandled, so the
   restarted worker (compose and k8s restart it) reads them again: nothing is lost, and a
   stuck worker never holds its partitions forever.

`RecoveryProgress` decides (transport-free, unit-tested); `install_recovery_watch` reads the
app's recovery state on a timer and acts.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

from hallmon.topology.restart import EXIT_TEMPFAIL, exit_for_restart

log = logging.getLogger(__name__)

EXIT_STALLED = EXIT_TEMPFAIL

Action = Literal["wait", "kick", "exit"]


@dataclass
class RecoveryProgress:
    """What to do about a restore, from the records it still needs, observed over time."""

    stall_s: float = 60.0
    _remaining: int | None = None
    _since: float = 0.0
    _kicked: bool = False

    def observe(self, recovering: bool, remaining: int, now: float) -> Action:
        if not recovering or remaining <= 0:
            self._remaining, self._kicked = None, False
            return "wait"
        if self._remaining is None or remaining < self._remaining:
            # Started, or moved on: the clock starts again.
            self._remaining, self._since, self._kicked = remaining, now, False
            return "wait"
        if now - self._since < self.stall_s:
            return "wait"
        if not self._kicked:
            self._kicked, self._since = True, now
            return "kick"
        return "exit"


def _pending(recovery: Any) -> dict[Any, int]:
    """Active changelog partitions still short of their high-water mark -> the next offset
    the restore needs from each."""
    offsets = recovery.active_offsets
    return {
        tp: max(int(-1 if offsets.get(tp) is None else offsets[tp]) + 1, 0)
        for tp, left in recovery.active_remaining().items()
        if left > 0
    }


async def _kick(app: Any, recovery: Any, stall_s: float) -> None:
    pending = _pending(recovery)
    if not pending:
        return
    log.warning(
        "table restore received no changelog record for %.0f s; reading %s again from %s",
        stall_s,
        ", ".join(f"{tp.topic}[{tp.partition}]" for tp in pending),
        ", ".join(str(o) for o in pending.values()),
    )
    consumer = app.consumer
    await consumer.seek_wait(pending)
    consumer.resume_partitions(set(pending))


def install_recovery_watch(app: Any, stall_s: float = 60.0, every_s: float = 5.0) -> None:
    """Watch `app`'s table restores (a timer every `every_s`)."""
    progress = RecoveryProgress(stall_s=stall_s)

    @app.timer(every_s)  # type: ignore[untyped-decorator]
    async def watch_recovery() -> None:
        recovery = getattr(getattr(app, "tables", None), "recovery", None)
        if recovery is None:
            return
        try:
            recovering = bool(recovery.in_recovery)
            remaining = int(recovery.active_remaining_total()) if recovering else 0
        except Exception:  # the recovery is being set up; look again next tick
            return
        action = progress.observe(recovering, remaining, time.monotonic())
        if action == "kick":
            try:
                await _kick(app, recovery, stall_s)
            except Exception:  # the exit step still follows if this did not help
                log.exception("could not restart the table restore's reads")
        elif action == "exit":
            exit_for_restart(
                log,
                "table restore made no progress for %.0f s after its reads were restarted "
                "(%d changelog records short); exiting so the worker restarts and restores "
                "again. Check the broker if this repeats.",
                2 * stall_s,
                remaining,
            )


__all__ = ["EXIT_STALLED", "RecoveryProgress", "install_recovery_watch"]
