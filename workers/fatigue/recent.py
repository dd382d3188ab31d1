"""The latest verdicts and fatigue alerts in Redis, bounded, for the dashboard and the API.

Written by the fatigue worker beside the fatigue counters; read by `hallmon serve`. Every list
is capped (LTRIM) and every key expires, so the store stays small whatever the traffic:

    <p>:recent:verdicts                 LIST  compact JSON `RecentVerdict`s, newest first
    <p>:recent:{<session>}:verdicts     LIST  the same for one session
    <p>:recent:verdict:{<response_id>}  STR   the full verdict JSON (if under `max_verdict_bytes`)
    <p>:fatigue:{<session>}:alert_marks LIST  compact JSON `AlertMark`s, newest first

A redelivered verdict (the same message again) replaces its earlier entry (LREM of the identical
JSON, O(n) over a capped list) instead of crowding the list; readers also drop repeated
response ids, which covers a verdict re-published with other timings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

import redis.asyncio as aioredis
from hallmon.schemas import Claim, ClaimCounts, FatigueAlert, SkippedSegment, VerdictEvent
from hallmon.schemas.common import Contract
from hallmon.schemas.results import Action, ClaimStatus, State
from pydantic import Field
from redis.asyncio.client import Pipeline

T = TypeVar("T")


class RecentClaim(Contract):
    """A claim's verdict without its evidence: enough to highlight it in the answer."""

    claim: Claim
    status: ClaimStatus
    confidence: float
    reason: str


class RecentVerdict(Contract):
    """What the dashboard shows of one verdict."""

    response_id: str
    session_id: str
    agent_id: str
    turn: int | None = None
    state: State
    unavailable_reason: str | None = None
    risk: float
    action: Action
    counts: ClaimCounts
    context_size_tokens: int = 0
    verdict_at: datetime | None = None
    claims: list[RecentClaim] = Field(default_factory=list)
    skipped: list[SkippedSegment] = Field(default_factory=list)
    claims_dropped: int = Field(0, description="Claims left out to keep the entry small")

    @classmethod
    def of(cls, verdict: VerdictEvent, max_claims: int = 64) -> RecentVerdict:
        claims = [
            RecentClaim(claim=c.claim, status=c.status, confidence=c.confidence, reason=c.reason)
            for c in verdict.claims[:max_claims]
        ]
        return cls(
            response_id=verdict.response_id,
            session_id=verdict.session_id,
            agent_id=verdict.agent_id,
            turn=verdict.turn,
            state=verdict.state,
            unavailable_reason=verdict.unavailable_reason,
            risk=verdict.risk,
            action=verdict.action,
            counts=verdict.counts,
            context_size_tokens=verdict.context_size_tokens,
            verdict_at=verdict.timings.verdict_at,
            claims=claims,
            skipped=verdict.skipped[:max_claims],
            claims_dropped=max(0, len(verdict.claims) - max_claims),
        )


class AlertMark(Contract):
    """Where on a session's curve an alert fired."""

    alert_id: str
    kind: str
    value: float
    threshold: float
    at: datetime
    turn: int | None = None
    context_tokens: int | None = None

    @classmethod
    def of(cls, alert: FatigueAlert) -> AlertMark:
        snap = alert.snapshot
        return cls(
            alert_id=alert.alert_id,
            kind=alert.kind,
            value=alert.value,
            threshold=alert.threshold,
            at=alert.at,
            turn=snap.last_turn,
            context_tokens=snap.last_context_tokens,
        )


@dataclass(frozen=True)
class RecentConfig:
    keep: int = 200
    """Verdicts in the global list; 0 turns the store off."""
    per_session: int = 50
    alerts_per_session: int = 50
    ttl_s: int = 7 * 24 * 3600
    max_verdict_bytes: int = 512_000
    key_prefix: str = "hallmon"


def _first_of_each(entries: list[T], key: Callable[[T], str]) -> list[T]:
    """The entries in order, keeping the first (newest) of those with the same key."""
    seen: set[str] = set()
    out = []
    for e in entries:
        if key(e) not in seen:
            seen.add(key(e))
            out.append(e)
    return out


class RecentStore:
    """Bounded recent verdicts and alert marks (see the module doc for the keys)."""

    def __init__(self, client: aioredis.Redis, config: RecentConfig | None = None) -> None:
        self.redis = client
        self.config = config or RecentConfig()

    def _key(self, *parts: str) -> str:
        return ":".join((self.config.key_prefix, *parts))

    def _session_key(self, session_id: str) -> str:
        return self._key("recent", f"{{{session_id}}}", "verdicts")

    def _verdict_key(self, response_id: str) -> str:
        return self._key("recent", "verdict", f"{{{response_id}}}")

    def _alerts_key(self, session_id: str) -> str:
        return self._key("fatigue", f"{{{session_id}}}", "alert_marks")

    async def add_verdict(self, verdict: VerdictEvent) -> None:
        if self.config.keep <= 0:
            return
        pipe = self.redis.pipeline(transaction=False)
        self.queue_verdict(pipe, verdict)
        await pipe.execute()

    def queue_verdict(self, pipe: Pipeline, verdict: VerdictEvent) -> None:
        """The writes of `add_verdict`, queued on `pipe` (the fatigue update sends them in its
        own round trip instead of one more per verdict)."""
        cfg = self.config
        if cfg.keep <= 0:
            return
        entry = RecentVerdict.of(verdict).model_dump_json()
        full = verdict.model_dump_json()
        lists = (
            (self._key("recent", "verdicts"), cfg.keep),
            (self._session_key(verdict.session_id), cfg.per_session),
        )
        for key, cap in lists:
            pipe.lrem(key, 0, entry)
            pipe.lpush(key, entry)
            pipe.ltrim(key, 0, cap - 1)
            pipe.expire(key, cfg.ttl_s)
        if len(full) <= cfg.max_verdict_bytes:
            pipe.set(self._verdict_key(verdict.response_id), full, ex=cfg.ttl_s)

    async def add_alert(self, alert: FatigueAlert) -> None:
        key = self._alerts_key(alert.session_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.lpush(key, AlertMark.of(alert).model_dump_json())
        pipe.ltrim(key, 0, self.config.alerts_per_session - 1)
        pipe.expire(key, self.config.ttl_s)
        await pipe.execute()

    async def latest(self, limit: int, session_id: str | None = None) -> list[RecentVerdict]:
        key = self._session_key(session_id) if session_id else self._key("recent", "verdicts")
        raw = await self.redis.lrange(key, 0, max(limit, 1) * 2 - 1)
        entries = [RecentVerdict.model_validate_json(r) for r in raw]
        return _first_of_each(entries, lambda e: e.response_id)[:limit]

    async def verdict(self, response_id: str) -> VerdictEvent | None:
        raw = await self.redis.get(self._verdict_key(response_id))
        return VerdictEvent.model_validate_json(raw) if raw is not None else None

    async def alerts(self, session_id: str) -> list[AlertMark]:
        raw = await self.redis.lrange(self._alerts_key(session_id), 0, -1)
        marks = [AlertMark.model_validate_json(r) for r in raw]
        # An alert republished after a crash (at least once) carries the same alert_id.
        return _first_of_each(marks, lambda m: m.alert_id)
