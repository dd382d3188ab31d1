"""The restore watch: a restore that stops making progress is restarted, then the worker."""

from __future__ import annotations

from hallmon.topology.recovery_watch import RecoveryProgress


def test_a_restore_that_moves_on_is_left_alone() -> None:
    watch = RecoveryProgress(stall_s=60.0)
    assert watch.observe(True, 100, now=0.0) == "wait"
    # progress every 50 s, each under the stall time
    for step, left in enumerate([90, 80, 70, 60], start=1):
        assert watch.observe(True, left, now=50.0 * step) == "wait"


def test_a_stalled_restore_is_kicked_then_the_worker_exits() -> None:
    watch = RecoveryProgress(stall_s=60.0)
    assert watch.observe(True, 100, now=0.0) == "wait"
    assert watch.observe(True, 100, now=59.0) == "wait"
    assert watch.observe(True, 100, now=60.0) == "kick"
    # the kick starts a new window
    assert watch.observe(True, 100, now=100.0) == "wait"
    assert watch.observe(True, 100, now=120.0) == "exit"


def test_progress_after_a_kick_resets_the_watch() -> None:
    watch = RecoveryProgress(stall_s=60.0)
    watch.observe(True, 100, now=0.0)
    assert watch.observe(True, 100, now=60.0) == "kick"
    assert watch.observe(True, 99, now=70.0) == "wait"  # moved on: a new window, no exit
    assert watch.observe(True, 99, now=129.0) == "wait"
    assert watch.observe(True, 99, now=130.0) == "kick"


def test_the_end_of_a_restore_forgets_it() -> None:
    watch = RecoveryProgress(stall_s=60.0)
    watch.observe(True, 100, now=0.0)
    assert watch.observe(False, 0, now=30.0) == "wait"  # done
    # the next restore (another rebalance) starts its own clock
    assert watch.observe(True, 100, now=100.0) == "wait"
    assert watch.observe(True, 100, now=159.0) == "wait"
    assert watch.observe(True, 100, now=160.0) == "kick"


class _TP:
    def __init__(self, partition: int) -> None:
        self.topic, self.partition = "app-streams-changelog", partition

    def __repr__(self) -> str:
        return f"tp{self.partition}"


def test_the_kick_reads_the_short_partitions_again_from_where_the_restore_stands() -> None:
    import asyncio

    from hallmon.topology import recovery_watch

    done, short, fresh, first = _TP(0), _TP(1), _TP(2), _TP(3)

    class Recovery:
        def __init__(self) -> None:
            self.active_offsets = {done: 9, short: 41, fresh: None, first: 0}

        def active_remaining(self) -> dict[_TP, int]:
            return {done: 0, short: 7, fresh: 3, first: 5}

    class Consumer:
        def __init__(self) -> None:
            self.sought: dict[_TP, int] = {}
            self.resumed: set[_TP] = set()

        async def seek_wait(self, partitions: dict[_TP, int]) -> None:
            self.sought = dict(partitions)

        def resume_partitions(self, tps: set[_TP]) -> None:
            self.resumed = set(tps)

    class App:
        consumer = Consumer()

    app = App()
    asyncio.run(recovery_watch._kick(app, Recovery(), 60.0))
    # the next offset each needs: one past the last read, the start for one never read
    # (record 0 read: the next is 1, not 0 again)
    assert app.consumer.sought == {short: 42, fresh: 0, first: 1}
    assert app.consumer.resumed == {short, fresh, first}
