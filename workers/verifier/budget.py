"""A hard time budget for the CPU-bound part of verifying one answer.

`Verifier.prepare` (claims, evidence, checks) is pure Python and regular expressions: a thread
cannot be interrupted inside a regex match and would hold the GIL, so the budget is enforced
with worker processes. Each answer runs in a process of its own slot; when it is over
`HALLMON_VERIFIER__ANSWER_BUDGET_S`, the process is killed and replaced, `prepare` raises
`OverBudget` (the verdict is `unavailable` / `evaluation_failed` with that reason) and the
partition moves on. Only the answer's own run counts against its budget, not the wait for a
free slot or the start of a fresh process.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from hallmon.schemas import AssembledResponse
from hallmon.workers.verifier.service import TwoPhaseVerifier

log = logging.getLogger(__name__)

_child_verifier: Any = None


def _init_child(template: bytes) -> None:
    global _child_verifier
    _child_verifier = pickle.loads(template)


def _prepare_in_child(response: AssembledResponse) -> Any:
    return _child_verifier.prepare(response)


def _ready() -> bool:
    return _child_verifier is not None


class OverBudget(RuntimeError):
    """Preparing one answer took longer than its budget; the message names the setting."""


class ProcessPreparer:
    """`await preparer(response)` = `verifier.prepare(response)` in a worker process, within
    `budget_s` seconds of CPU-bound work, at most `processes` answers at once."""

    def __init__(self, verifier: TwoPhaseVerifier, budget_s: float, processes: int = 1) -> None:
        if budget_s <= 0 or processes < 1:
            raise ValueError(
                f"budget_s={budget_s} must be > 0 and processes={processes} >= 1; fix "
                "HALLMON_VERIFIER__ANSWER_BUDGET_S / HALLMON_VERIFIER__PREPARE_PROCESSES"
            )
        template = copy.copy(verifier)
        # The model stays in this process: prepare needs none, and it need not be pickled.
        if hasattr(template, "model"):
            template.model = None
        self._template = pickle.dumps(template)
        self.budget_s = budget_s
        self.processes = processes
        self._slots = asyncio.Semaphore(processes)
        self._pool: ProcessPoolExecutor | None = None
        self._starting = asyncio.Lock()
        self.restarts = 0

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: this process already runs onnxruntime and asyncio threads.
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_child,
            initargs=(self._template,),
        )

    async def start(self) -> None:
        """Start the processes and load each one's verifier (not under any budget)."""
        await self._ready_pool()

    async def __call__(self, response: AssembledResponse) -> Any:
        async with self._slots:
            for attempt in range(2):
                pool = await self._ready_pool()
                loop = asyncio.get_running_loop()
                run = loop.run_in_executor(pool, _prepare_in_child, response)
                try:
                    return await asyncio.wait_for(run, self.budget_s)
                except TimeoutError:
                    self._kill(pool)
                    raise OverBudget(
                        f"verifying answer {response.response_id} ({len(response.text)} "
                        f"characters) took longer than its budget of {self.budget_s:g}s "
                        "(HALLMON_VERIFIER__ANSWER_BUDGET_S); it was stopped. Shorten the "
                        "answer or raise the budget"
                    ) from None
                except BrokenProcessPool:
                    # Another answer's timeout replaced the pool under this one: run it again.
                    if attempt:
                        raise
            raise AssertionError("unreachable")

    async def _ready_pool(self) -> ProcessPoolExecutor:
        async with self._starting:
            if self._pool is None:
                pool = self._new_pool()
                loop = asyncio.get_running_loop()
                # Each process loads hallmon's verification code before an answer is timed.
                await asyncio.gather(
                    *(loop.run_in_executor(pool, _ready) for _ in range(self.processes))
                )
                self._pool = pool
            return self._pool

    def _kill(self, pool: ProcessPoolExecutor) -> None:
        if self._pool is pool:
            self._pool = None
        self.restarts += 1
        processes = list(getattr(pool, "_processes", {}).values())
        for process in processes:
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        log.warning("verifier process stopped over budget; %d restarts so far", self.restarts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
