"""Session fatigue in Redis: exactly once per response id, one atomic script per update.

Keys (prefix configurable; `{...}` is the Redis Cluster hash tag, so each script's keys share a
slot):

    <p>:fatigue:{<session>}:seen      SET   response ids already counted
    <p>:fatigue:{<session>}:totals    HASH  agent_id, responses, claims, unsupported, ...
    <p>:fatigue:{<session>}:series    LIST  one JSON FatiguePoint per answer (capped)
    <p>:fatigue:{<session>}:alerted   STR   response id that raised the current alert
    <p>:fleet:{<agent>}:seen          ZSET  response ids counted in the fleet buckets (by time)
    <p>:fleet:{<agent>}:by_turn       HASH  "<range>:responses|claims|unsupported" counters
    <p>:fleet:{<agent>}:by_context    HASH  the same by context-size range
    <p>:fatigue:sessions              ZSET  session ids by last update, for `hallmon fatigue`

The session script and the fleet script each check-and-record the response id and update their
counters in one step, so a verdict delivered twice is counted once in each. They are separate
scripts because a session's keys and an agent's keys hash to different cluster slots; each is
idempotent on its own, so a crash between them is repaired by the redelivery.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
from hallmon.schemas import FatigueAlert, FatiguePoint, FatigueSnapshot, VerdictEvent
from hallmon.workers.fatigue.trend import (
    FatigueThresholds,
    SessionTotals,
    counts_towards_fatigue,
    decide,
    make_alert,
    snapshot,
)

_SESSION_SCRIPT = """
-- KEYS: seen, totals, series, alerted
-- ARGV: response_id, agent_id, turn ('' = next), context_tokens, claims, unsupported,
--       contradicted, updated_at, ttl_s, max_series
local added = redis.call('SADD', KEYS[1], ARGV[1])
if added == 1 then
  redis.call('HSETNX', KEYS[2], 'agent_id', ARGV[2])
  local responses = redis.call('HINCRBY', KEYS[2], 'responses', 1)
  redis.call('HINCRBY', KEYS[2], 'claims', ARGV[5])
  redis.call('HINCRBY', KEYS[2], 'unsupported', ARGV[6])
  redis.call('HINCRBY', KEYS[2], 'contradicted', ARGV[7])
  redis.call('HSET', KEYS[2], 'updated_at', ARGV[8])
  local turn = tonumber(ARGV[3])
  if turn == nil then turn = responses - 1 end
  local point = cjson.encode({response_id = ARGV[1], turn = turn,
    context_tokens = tonumber(ARGV[4]), claims = tonumber(ARGV[5]),
    unsupported = tonumber(ARGV[6]), contradicted = tonumber(ARGV[7])})
  redis.call('RPUSH', KEYS[3], point)
  redis.call('LTRIM', KEYS[3], -tonumber(ARGV[10]), -1)
end
local ttl = tonumber(ARGV[9])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
return {added, redis.call('HGETALL', KEYS[2]), redis.call('LRANGE', KEYS[3], 0, -1),
        redis.call('GET', KEYS[4])}
"""

_FLEET_SCRIPT = """
-- KEYS: seen (zset), by_turn, by_context
-- ARGV: response_id, now_s, ttl_s, turn_range, context_range, claims, unsupported
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
for i, range in ipairs({ARGV[4], ARGV[5]}) do
  local key = KEYS[i + 1]
  redis.call('HINCRBY', key, range .. ':responses', 1)
  redis.call('HINCRBY', key, range .. ':claims', ARGV[6])
  redis.call('HINCRBY', key, range .. ':unsupported', ARGV[7])
  redis.call('EXPIRE', key, ttl)
end
redis.call('EXPIRE', KEYS[1], ttl)
return 1
"""


@dataclass(frozen=True)
class FatigueConfig:
    thresholds: FatigueThresholds = field(default_factory=FatigueThresholds)
    ttl_s: int = 7 * 24 * 3600
    max_series: int = 200
    turn_ranges: Sequence[int] = (0, 5, 10, 20, 40)
    context_ranges: Sequence[int] = (0, 2_000, 8_000, 32_000, 128_000)
    key_prefix: str = "hallmon"


def range_label(value: int, edges: Sequence[int]) -> str:
    """The range `value` falls in: edges (0, 5, 10) give "0-4", "5-9", "10+"."""
    lower = [e for e in edges if e <= value]
    lo = max(lower) if lower else edges[0]
    higher = [e for e in edges if e > lo]
    return f"{lo}-{min(higher) - 1}" if higher else f"{lo}+"


@dataclass(frozen=True)
class RecordOutcome:
    counted: bool
    """False when this response id had already been counted (a redelivery)."""
    snapshot: FatigueSnapshot
    alerted_by: str | None
    """Response id that raised the session's current alert; None while the session is armed."""


def _s(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class FatigueStore:
    """Per-session fatigue counters and series in Redis."""

    def __init__(self, client: aioredis.Redis, config: FatigueConfig | None = None) -> None:
        self.redis = client
        self.config = config or FatigueConfig()
        self._session_script = client.register_script(_SESSION_SCRIPT)
        self._fleet_script = client.register_script(_FLEET_SCRIPT)

    # --- keys -------------------------------------------------------------------------------

    def session_keys(self, session_id: str) -> list[str]:
        base = f"{self.config.key_prefix}:fatigue:{{{session_id}}}"
        return [f"{base}:seen", f"{base}:totals", f"{base}:series", f"{base}:alerted"]

    def fleet_keys(self, agent_id: str) -> list[str]:
        base = f"{self.config.key_prefix}:fleet:{{{agent_id}}}"
        return [f"{base}:seen", f"{base}:by_turn", f"{base}:by_context"]

    @property
    def sessions_key(self) -> str:
        return f"{self.config.key_prefix}:fatigue:sessions"

    # --- writes -----------------------------------------------------------------------------

    async def record(self, verdict: VerdictEvent, *, now: datetime | None = None) -> RecordOutcome:
        """Count this verdict once, and return the session as it stands after it."""
        now = now or datetime.now(UTC)
        cfg = self.config
        counts = verdict.counts
        raw = await self._session_script(
            keys=self.session_keys(verdict.session_id),
            args=[
                verdict.response_id,
                verdict.agent_id,
                "" if verdict.turn is None else verdict.turn,
                verdict.context_size_tokens,
                counts.total,
                counts.unsupported,
                counts.contradicted,
                now.isoformat(),
                cfg.ttl_s,
                cfg.max_series,
            ],
        )
        counted = int(raw[0]) == 1
        snap = self._snapshot(verdict.session_id, raw[1], raw[2])
        alerted_by = _s(raw[3]) if raw[3] is not None else None
        turn = snap.series[-1].turn if snap.series else 0
        point_turn = next(
            (p.turn for p in snap.series if p.response_id == verdict.response_id), turn
        )
        await self._fleet_script(
            keys=self.fleet_keys(verdict.agent_id),
            args=[
                verdict.response_id,
                now.timestamp(),
                cfg.ttl_s,
                range_label(point_turn, cfg.turn_ranges),
                range_label(verdict.context_size_tokens, cfg.context_ranges),
                counts.total,
                counts.unsupported,
            ],
        )
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(self.sessions_key, {verdict.session_id: now.timestamp()})
        pipe.zremrangebyscore(self.sessions_key, "-inf", now.timestamp() - cfg.ttl_s)
        await pipe.execute()
        return RecordOutcome(counted=counted, snapshot=snap, alerted_by=alerted_by)

    async def set_alerted(self, session_id: str, response_id: str) -> None:
        await self.redis.set(self.session_keys(session_id)[3], response_id, ex=self.config.ttl_s)

    async def rearm(self, session_id: str) -> None:
        await self.redis.delete(self.session_keys(session_id)[3])

    # --- reads ------------------------------------------------------------------------------

    async def load(self, session_id: str) -> FatigueSnapshot | None:
        _, totals_key, series_key, _ = self.session_keys(session_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(totals_key)
        pipe.lrange(series_key, 0, -1)
        totals, series = await pipe.execute()
        if not totals:
            return None
        flat: list[Any] = [x for kv in totals.items() for x in kv]
        return self._snapshot(session_id, flat, series)

    async def sessions(self, limit: int = 1000) -> list[str]:
        """Session ids, most recently updated first."""
        ids = await self.redis.zrevrange(self.sessions_key, 0, limit - 1)
        return [_s(i) for i in ids]

    async def fleet(self, agent_id: str) -> dict[str, dict[str, dict[str, int]]]:
        """{"by_turn": {"0-4": {"responses": n, "claims": n, "unsupported": n}}, ...}"""
        out: dict[str, dict[str, dict[str, int]]] = {}
        for name, key in zip(("by_turn", "by_context"), self.fleet_keys(agent_id)[1:], strict=True):
            buckets: dict[str, dict[str, int]] = {}
            for k, v in (await self.redis.hgetall(key)).items():
                rng, _, measure = _s(k).rpartition(":")
                buckets.setdefault(rng, {})[measure] = int(v)
            out[name] = buckets
        return out

    # --- helpers ----------------------------------------------------------------------------

    def _snapshot(
        self, session_id: str, flat_totals: list[Any], series: list[Any]
    ) -> FatigueSnapshot:
        t = {_s(flat_totals[i]): _s(flat_totals[i + 1]) for i in range(0, len(flat_totals), 2)}
        totals = SessionTotals(
            session_id=session_id,
            agent_id=t.get("agent_id", ""),
            responses=int(t.get("responses", 0)),
            claims=int(t.get("claims", 0)),
            unsupported=int(t.get("unsupported", 0)),
            contradicted=int(t.get("contradicted", 0)),
            updated_at=datetime.fromisoformat(t["updated_at"]) if "updated_at" in t else None,
        )
        points = [FatiguePoint.model_validate(json.loads(_s(p))) for p in series]
        return snapshot(totals, points, self.config.thresholds)


async def update_fatigue(
    store: FatigueStore,
    verdict: VerdictEvent,
    publish_alert: Callable[[FatigueAlert], Awaitable[None]],
    *,
    now: datetime | None = None,
) -> FatigueAlert | None:
    """Count one verdict and publish an alert when the session crosses a threshold.

    The alert flag is set only after the alert is published: a crash in between republishes
    the same `alert_id` on redelivery (at least once), never loses the alert.
    """
    if not counts_towards_fatigue(verdict):
        return None
    now = now or datetime.now(UTC)
    outcome = await store.record(verdict, now=now)
    thresholds = store.config.thresholds
    decision = decide(outcome.snapshot, thresholds, alerted=outcome.alerted_by is not None)
    if decision.alert is not None:
        alert = make_alert(
            outcome.snapshot, decision.alert, response_id=verdict.response_id, at=now
        )
        await publish_alert(alert)
        await store.set_alerted(verdict.session_id, verdict.response_id)
        return alert
    if decision.rearm:
        await store.rearm(verdict.session_id)
    return None
