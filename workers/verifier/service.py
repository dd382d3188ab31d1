"""One answer in, one verdict event out: the verifier's two phases around the shared batcher.

`prepare` (claims, evidence, checks) runs on the event loop; the NLI pairs go to the
`NLIBatcher`, which batches them with other answers' pairs and runs the model in a thread pool;
`finish` turns the probabilities into the result. The verdict's id derives from the response
id, so a redelivered answer yields the same `verdict_id`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from hallmon.schemas import (
    Action,
    AssembledResponse,
    MonitorResult,
    VerdictEvent,
    VerdictTimings,
    verdict_id_for,
)
from hallmon.workers.verifier.batching import NLIBatcher


class PreparedLike(Protocol):
    @property
    def pairs(self) -> Sequence[tuple[str, str]]: ...


class TwoPhaseVerifier(Protocol):
    """What `hallmon.verification.verifier.Verifier` offers for cross-answer batching."""

    def prepare(self, response: AssembledResponse) -> Any: ...

    def finish(self, prepared: Any, probs: npt.NDArray[np.float32]) -> MonitorResult: ...

    def model_versions(self) -> dict[str, str]: ...


def verdict_event(
    response: AssembledResponse,
    result: MonitorResult,
    *,
    verification_ms: float,
    now: datetime | None = None,
) -> VerdictEvent:
    now = now or datetime.now(UTC)
    ended = response.stream_ended_at
    latency_ms = (now - ended).total_seconds() * 1000.0 if ended is not None else None
    return VerdictEvent(
        **result.model_dump(),
        verdict_id=verdict_id_for(response.response_id),
        response_id=response.response_id,
        session_id=response.session_id,
        agent_id=response.agent_id,
        model=response.model,
        turn=response.turn,
        timings=VerdictTimings(
            stream_ended_at=ended,
            verdict_at=now,
            latency_ms=max(latency_ms, 0.0) if latency_ms is not None else None,
            verification_ms=round(verification_ms, 3),
        ),
    )


_ACTION_RANK = {"allow": 0, "warn": 1, "block": 2}


def cap_action(result: MonitorResult, max_action: Action) -> MonitorResult:
    """Safe mode: never publish an action stronger than `max_action`, and say so."""
    if _ACTION_RANK[result.action] <= _ACTION_RANK[max_action]:
        return result
    note = (
        f"safe mode: action {result.action} published as {max_action} "
        f"(HALLMON_VERIFIER__MAX_ACTION={max_action})"
    )
    return result.model_copy(update={"action": max_action, "notes": [*result.notes, note]})


class VerificationService:
    def __init__(
        self,
        verifier: TwoPhaseVerifier,
        batcher: NLIBatcher,
        *,
        offload: Executor | None = None,
        max_action: Action = "block",
    ) -> None:
        self.verifier = verifier
        self.batcher = batcher
        self.max_action = max_action
        # The HTTP server runs `prepare` in a (bounded) pool so that probes and other requests
        # are answered, and time budgets can fire, while a long answer is being prepared.
        self.offload = offload

    async def verify(self, response: AssembledResponse) -> VerdictEvent:
        t0 = time.perf_counter()
        if self.offload is not None:
            loop = asyncio.get_running_loop()
            prepared = await loop.run_in_executor(self.offload, self.verifier.prepare, response)
        else:
            prepared = self.verifier.prepare(response)
        pairs = getattr(prepared, "pairs", [])
        if getattr(prepared, "result", None) is None and pairs:
            try:
                probs = await self.batcher.predict(pairs)
            except Exception as exc:
                # The verifier turns a bad probability array into evaluation_failed; an empty
                # one of the wrong shape carries the model's error into that path.
                probs = np.full((0, 3), np.nan, dtype=np.float32)
                result = self.verifier.finish(prepared, probs)
                result = result.model_copy(
                    update={"error": f"nli failed: {type(exc).__name__}: {exc}"}
                )
                return verdict_event(response, result, verification_ms=_ms(t0))
        else:
            probs = np.zeros((0, 3), dtype=np.float32)
        result = self.verifier.finish(prepared, probs)
        if not result.model_versions:
            result = result.model_copy(update={"model_versions": self.verifier.model_versions()})
        result = cap_action(result, self.max_action)
        return verdict_event(response, result, verification_ms=_ms(t0))


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
