"""Micro-batching of NLI pairs across answers, with inference off the event loop.

Each answer being verified awaits `NLIBatcher.predict(pairs)`. One collector task gathers the
pairs of whichever answers are waiting into batches of at most `max_batch_pairs`, waiting at
most `max_wait_ms` for a batch to fill, and runs the model in a thread pool (onnxruntime
releases the GIL, so the loop keeps consuming and publishing meanwhile).

Fewer pairs: a pair the model judged recently (the same passage and claim in another answer:
a retried or redelivered answer, a template answer over the same document) is answered from a
bounded LRU keyed by the pair's 16-byte digest (`pair_cache_size` entries, ~0.2 KB each), and a
pair that occurs twice in one batch runs once.

Back-pressure: at most `max_pending_pairs` pairs may be queued or running; `predict` waits for
room before it enqueues, so a slow model slows the agents (and, through them, the consumer)
instead of piling up memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from hallmon.onnx_models.runtime import NLIModel

from hallmon.verification.pair_budget import pair_key

Pair = tuple[str, str]
Probs = npt.NDArray[np.float32]


@dataclass(frozen=True)
class BatchingConfig:
    max_batch_pairs: int = 64
    max_wait_ms: float = 5.0
    max_pending_pairs: int = 2048
    max_concurrent_batches: int = 1
    """Batches running in the pool at once; onnxruntime already uses its own threads per
    batch, so more than one mainly helps when a batch is mostly tokenisation."""
    pair_cache_size: int = 4096
    """Recently judged pairs remembered (0: none)."""

    def __post_init__(self) -> None:
        if self.max_batch_pairs < 1 or self.max_pending_pairs < self.max_batch_pairs:
            raise ValueError(
                f"max_batch_pairs={self.max_batch_pairs}, max_pending_pairs="
                f"{self.max_pending_pairs}: need 1 <= max_batch_pairs <= max_pending_pairs; fix "
                "HALLMON_VERIFIER_WORKER__MAX_BATCH_PAIRS / __MAX_PENDING_PAIRS"
            )
        if self.pair_cache_size < 0:
            raise ValueError(
                f"pair_cache_size={self.pair_cache_size} must be >= 0 (0 turns the cache off); "
                "fix HALLMON_VERIFIER_WORKER__PAIR_CACHE_SIZE"
            )
        if self.max_wait_ms < 0 or self.max_concurrent_batches < 1:
            raise ValueError(
                f"max_wait_ms={self.max_wait_ms} must be >= 0 and max_concurrent_batches="
                f"{self.max_concurrent_batches} >= 1"
            )


@dataclass
class _Request:
    pairs: Sequence[Pair]
    future: asyncio.Future[Probs]
    out: Probs
    taken: int = 0
    done: int = 0


class PairCache:
    """A bounded LRU of NLI probabilities by pair digest. Used on the event loop only."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._rows: OrderedDict[bytes, Probs] = OrderedDict()

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: bytes) -> Probs | None:
        row = self._rows.get(key)
        if row is not None:
            self._rows.move_to_end(key)
        return row

    def put(self, key: bytes, row: Probs) -> None:
        if self.size <= 0:
            return
        self._rows[key] = row
        self._rows.move_to_end(key)
        while len(self._rows) > self.size:
            self._rows.popitem(last=False)


@dataclass
class BatchStats:
    batches: int = 0
    pairs: int = 0
    """Pairs the model ran."""
    requested: int = 0
    """Pairs asked for; requested - pairs were answered by the cache or a twin in the batch."""
    model_seconds: float = 0.0
    sizes: list[int] = field(default_factory=list)

    def record(self, size: int, seconds: float) -> None:
        self.batches += 1
        self.pairs += size
        self.model_seconds += seconds
        if len(self.sizes) < 10_000:
            self.sizes.append(size)


class NLIBatcher:
    """Shares one model between concurrently verified answers. Use as an async context."""

    def __init__(
        self,
        model: NLIModel,
        config: BatchingConfig | None = None,
        *,
        executor: Executor | None = None,
        on_batch: Callable[[int, float], None] | None = None,
    ) -> None:
        self.model = model
        self.config = config or BatchingConfig()
        self._own_executor = executor is None
        self._executor = executor or ThreadPoolExecutor(
            max_workers=self.config.max_concurrent_batches, thread_name_prefix="hallmon-nli"
        )
        self._queue: deque[_Request] = deque()
        self._wakeup = asyncio.Event()
        self._room = asyncio.Condition()
        self._pending = 0
        self._running = asyncio.Semaphore(self.config.max_concurrent_batches)
        self._collector: asyncio.Task[None] | None = None
        self._inflight: set[asyncio.Task[None]] = set()
        self._on_batch = on_batch
        self.cache = PairCache(self.config.pair_cache_size)
        self.stats = BatchStats()

    async def __aenter__(self) -> NLIBatcher:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def start(self) -> None:
        if self._collector is None:
            self._collector = asyncio.create_task(self._collect(), name="hallmon-nli-batcher")

    async def close(self) -> None:
        if self._collector is not None:
            self._collector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._collector
            self._collector = None
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
        for req in self._queue:
            if not req.future.done():
                req.future.set_exception(RuntimeError("NLI batcher closed before this batch ran"))
        self._queue.clear()
        if self._own_executor:
            self._executor.shutdown(wait=False, cancel_futures=True)

    @property
    def pending_pairs(self) -> int:
        return self._pending

    async def predict(self, pairs: Sequence[Pair]) -> Probs:
        """Probabilities (len(pairs), 3) for these pairs, batched with other answers' pairs."""
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        self.stats.requested += len(pairs)
        if self.cache.size <= 0:
            return await self._enqueue(pairs)
        out = np.empty((len(pairs), 3), dtype=np.float32)
        missing: list[int] = []
        for i, pair in enumerate(pairs):
            row = self.cache.get(pair_key(pair))
            if row is None:
                missing.append(i)
            else:
                out[i] = row
        if missing:
            out[missing] = await self._enqueue([pairs[i] for i in missing])
        return out

    async def _enqueue(self, pairs: Sequence[Pair]) -> Probs:
        if self._collector is None:
            self.start()
        # A request bigger than the whole budget still runs, alone, rather than deadlocking.
        need = min(len(pairs), self.config.max_pending_pairs)
        async with self._room:
            await self._room.wait_for(lambda: self._pending + need <= self.config.max_pending_pairs)
            self._pending += need
        loop = asyncio.get_running_loop()
        req = _Request(pairs, loop.create_future(), np.empty((len(pairs), 3), dtype=np.float32))
        self._queue.append(req)
        self._wakeup.set()
        try:
            return await req.future
        finally:
            async with self._room:
                self._pending -= need
                self._room.notify_all()

    async def _collect(self) -> None:
        cfg = self.config
        while True:
            if not self._queue:
                self._wakeup.clear()
                await self._wakeup.wait()
            # Fill the batch for at most max_wait_ms after the first pair arrived.
            deadline = time.monotonic() + cfg.max_wait_ms / 1000.0
            while self._queued_pairs() < cfg.max_batch_pairs:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._wakeup.clear()
                try:
                    await asyncio.wait_for(self._wakeup.wait(), left)
                except TimeoutError:
                    break
            await self._running.acquire()
            batch = self._take(cfg.max_batch_pairs)
            task = asyncio.create_task(self._run(batch))
            self._inflight.add(task)
            task.add_done_callback(self._inflight.discard)

    def _queued_pairs(self) -> int:
        return sum(len(r.pairs) - r.taken for r in self._queue)

    def _take(self, limit: int) -> list[tuple[_Request, int, int]]:
        """Slices (request, start, end) totalling at most `limit` pairs, oldest first."""
        batch: list[tuple[_Request, int, int]] = []
        room = limit
        while self._queue and room > 0:
            req = self._queue[0]
            start = req.taken
            end = min(len(req.pairs), start + room)
            batch.append((req, start, end))
            req.taken = end
            room -= end - start
            if req.taken == len(req.pairs):
                self._queue.popleft()
        return batch

    async def _run(self, batch: list[tuple[_Request, int, int]]) -> None:
        try:
            pairs = [p for req, start, end in batch for p in req.pairs[start:end]]
            # Twins in the batch (the same passage and claim from two answers) run once.
            keys = [pair_key(p) for p in pairs]
            first: dict[bytes, int] = {}
            unique: list[Pair] = []
            for key, pair in zip(keys, pairs, strict=True):
                if key not in first:
                    first[key] = len(unique)
                    unique.append(pair)
            loop = asyncio.get_running_loop()
            t0 = time.perf_counter()
            try:
                judged = await loop.run_in_executor(self._executor, self.model.predict, unique)
            except Exception as exc:
                for req, _, _ in batch:
                    if not req.future.done():
                        req.future.set_exception(exc)
                return
            seconds = time.perf_counter() - t0
            probs = judged[[first[key] for key in keys]]
            for key, row in first.items():
                self.cache.put(key, judged[row].copy())
            self.stats.record(len(unique), seconds)
            if self._on_batch is not None:
                self._on_batch(len(unique), seconds)
            at = 0
            for req, start, end in batch:
                n = end - start
                req.out[start:end] = probs[at : at + n]
                at += n
                req.done += n
                if req.done == len(req.pairs) and not req.future.done():
                    req.future.set_result(req.out)
        finally:
            self._running.release()
