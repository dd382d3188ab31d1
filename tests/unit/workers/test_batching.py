"""Cross-answer micro-batching of NLI pairs, with a fake model."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest
from hallmon.workers.verifier.batching import BatchingConfig, NLIBatcher


class FakeNLI:
    model_id = "fake"
    version = "0"
    max_length = 128

    def __init__(self, delay_s: float = 0.0, fail: bool = False) -> None:
        self.calls: list[int] = []
        self.threads: set[str] = set()
        self.delay_s = delay_s
        self.fail = fail

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        self.threads.add(threading.current_thread().name)
        self.calls.append(len(pairs))
        if self.fail:
            raise RuntimeError("model exploded")
        time.sleep(self.delay_s)
        # entailment = a number encoded in the claim, so each row is traceable
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        for i, (_, claim) in enumerate(pairs):
            out[i, 0] = float(claim)
        return out


def pairs(start: int, n: int) -> list[tuple[str, str]]:
    return [("evidence", str(float(start + i))) for i in range(n)]


def test_pairs_of_many_answers_share_batches_and_come_back_in_order() -> None:
    async def main() -> None:
        model = FakeNLI()
        cfg = BatchingConfig(max_batch_pairs=16, max_wait_ms=20)
        async with NLIBatcher(model, cfg) as batcher:
            results = await asyncio.gather(*(batcher.predict(pairs(100 * a, 5)) for a in range(10)))
        for a, probs in enumerate(results):
            assert probs[:, 0].tolist() == [100.0 * a + i for i in range(5)]
        assert sum(model.calls) == 50
        assert max(model.calls) == 16 and len(model.calls) <= 5
        assert all(name.startswith("hallmon-nli") for name in model.threads)
        assert batcher.stats.pairs == 50

    asyncio.run(main())


def test_large_request_is_split_across_batches() -> None:
    async def main() -> None:
        model = FakeNLI()
        async with NLIBatcher(model, BatchingConfig(max_batch_pairs=8, max_wait_ms=0)) as b:
            probs = await b.predict(pairs(0, 30))
        assert probs[:, 0].tolist() == [float(i) for i in range(30)]
        assert model.calls == [8, 8, 8, 6]

    asyncio.run(main())


def test_bounded_pending_pairs_back_pressure() -> None:
    async def main() -> None:
        model = FakeNLI(delay_s=0.02)
        cfg = BatchingConfig(max_batch_pairs=4, max_wait_ms=0, max_pending_pairs=8)
        async with NLIBatcher(model, cfg) as b:
            peak = 0

            async def one(i: int) -> None:
                nonlocal peak
                task = asyncio.ensure_future(b.predict(pairs(i, 4)))
                await asyncio.sleep(0)
                peak = max(peak, b.pending_pairs)
                await task

            await asyncio.gather(*(one(i) for i in range(10)))
            assert peak <= 8
            assert b.pending_pairs == 0

    asyncio.run(main())


def test_model_failure_reaches_every_waiting_answer() -> None:
    async def main() -> None:
        async with NLIBatcher(FakeNLI(fail=True), BatchingConfig(max_wait_ms=5)) as b:
            results = await asyncio.gather(
                b.predict(pairs(0, 2)), b.predict(pairs(5, 2)), return_exceptions=True
            )
        assert all(isinstance(r, RuntimeError) for r in results)

    asyncio.run(main())


def test_empty_request_needs_no_model() -> None:
    async def main() -> None:
        model = FakeNLI()
        async with NLIBatcher(model) as b:
            assert (await b.predict([])).shape == (0, 3)
        assert model.calls == []

    asyncio.run(main())


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="MAX_BATCH_PAIRS"):
        BatchingConfig(max_batch_pairs=10, max_pending_pairs=5)


def test_repeated_pairs_run_once_across_answers_and_from_the_cache() -> None:
    async def main() -> None:
        model = FakeNLI()
        cfg = BatchingConfig(max_batch_pairs=64, max_wait_ms=20, pair_cache_size=8)
        async with NLIBatcher(model, cfg) as batcher:
            # Three answers with the same five pairs land in one batch: five run.
            same = await asyncio.gather(*(batcher.predict(pairs(0, 5)) for _ in range(3)))
            assert sum(model.calls) == 5
            # A later answer repeating them is answered from the cache: the model is not called.
            again = await batcher.predict(pairs(0, 5))
            assert sum(model.calls) == 5
            # A mix: two cached, three new.
            mixed = await batcher.predict(pairs(3, 5))
            assert sum(model.calls) == 8
        for probs in [*same, again]:
            assert probs[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
        assert mixed[:, 0].tolist() == [3.0, 4.0, 5.0, 6.0, 7.0]
        assert (batcher.stats.requested, batcher.stats.pairs) == (25, 8)

    asyncio.run(main())


def test_the_pair_cache_is_bounded_and_can_be_turned_off() -> None:
    async def main() -> None:
        model = FakeNLI()
        async with NLIBatcher(model, BatchingConfig(max_wait_ms=0, pair_cache_size=4)) as b:
            await b.predict(pairs(0, 10))
            assert len(b.cache) == 4  # the last four judged
            await b.predict(pairs(0, 1))  # evicted: runs again
            assert sum(model.calls) == 11
        off = FakeNLI()
        async with NLIBatcher(off, BatchingConfig(max_wait_ms=0, pair_cache_size=0)) as b:
            await b.predict(pairs(0, 3))
            await b.predict(pairs(0, 3))
            assert sum(off.calls) == 6 and len(b.cache) == 0

    asyncio.run(main())


def test_negative_cache_size_is_refused_with_the_variable_to_fix() -> None:
    with pytest.raises(ValueError, match="HALLMON_VERIFIER_WORKER__PAIR_CACHE_SIZE"):
        BatchingConfig(pair_cache_size=-1)
