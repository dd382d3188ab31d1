"""The session conflict check in the verifier worker: each verdict's claims against the claims
the same session's earlier answers made (`hallmon.verification.conflicts`), with the model the
verifier already has and the claim store in Redis.

It runs here, not in the fatigue worker, because it needs the NLI model and because its result
belongs in the verdict (`session_conflicts`). Redis is only a helper here: when the claim store
cannot be read or written in `redis_timeout_s`, or the model fails, the verdict is published
anyway with `conflict_check="failed"` and a note, never held back.

The verifier works on several answers at once; the answers of one session (one partition, so
one process) take a per-session lock from reading the store to writing it, so two answers
verified at the same moment are still compared with each other: "earlier" means checked
before, which is the turn order unless a session sends its answers faster than they verify.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence

import numpy as np
import numpy.typing as npt
from hallmon.schemas.results import SessionConflict, VerdictEvent
from hallmon.workers.verifier.claim_store import ClaimStore

from hallmon.verification.conflicts import (
    ConflictConfig,
    EarlierClaim,
    candidate_pairs,
    conflicts_of,
    nli_pairs,
)

log = logging.getLogger(__name__)

Predict = Callable[[Sequence[tuple[str, str]]], Awaitable[npt.NDArray[np.float32]]]


class SessionConflictCheck:
    def __init__(
        self,
        store: ClaimStore,
        predict: Predict,
        config: ConflictConfig,
        *,
        max_claims_per_answer: int = 32,
        redis_timeout_s: float = 1.0,
    ) -> None:
        self.store = store
        self.predict = predict
        self.config = config
        self.max_claims_per_answer = max_claims_per_answer
        self.redis_timeout_s = redis_timeout_s
        # Entries go when no answer of the session is being checked: memory stays bounded.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def _lock(self, session_id: str) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    async def check(self, verdict: VerdictEvent) -> VerdictEvent:
        """The verdict with `session_conflicts` and `conflict_check` filled in."""
        if verdict.state != "checked" or not verdict.claims:
            return verdict.model_copy(update={"conflict_check": "not_applicable"})
        t0 = time.perf_counter()
        try:
            async with self._lock(verdict.session_id):
                conflicts = await self._compare(verdict)
        except Exception as exc:  # the verdict goes out regardless; say what was not done
            log.warning("session conflict check of %s not done: %r", verdict.response_id, exc)
            return verdict.model_copy(
                update={
                    "conflict_check": "failed",
                    "notes": [
                        *verdict.notes,
                        f"session conflict check not done: {type(exc).__name__}: {exc}"[:300],
                    ],
                }
            )
        ms = round((time.perf_counter() - t0) * 1000.0, 3)
        return verdict.model_copy(
            update={
                "session_conflicts": conflicts,
                "conflict_check": "done",
                "stage_ms": {**verdict.stage_ms, "conflicts": ms},
            }
        )

    async def _compare(self, verdict: VerdictEvent) -> list[SessionConflict]:
        session, rid = verdict.session_id, verdict.response_id
        claims = [v.claim for v in verdict.claims]
        async with asyncio.timeout(self.redis_timeout_s):
            earlier = await self.store.earlier(session, rid)
        pairs = candidate_pairs(claims, earlier, self.config)
        probs = (
            await self.predict(nli_pairs(pairs)) if pairs else np.zeros((0, 3), dtype=np.float32)
        )
        conflicts = conflicts_of(pairs, np.asarray(probs, dtype=np.float32), self.config)
        kept = [EarlierClaim.of(rid, c) for c in claims[: self.max_claims_per_answer]]
        async with asyncio.timeout(self.redis_timeout_s):
            await self.store.remember(session, rid, kept)
        return conflicts


__all__ = ["SessionConflictCheck"]
