"""Session fatigue in Redis: exactly once per response id, one atomic script per update.

Keys (prefix configurable; `{...}` is the Redis Cluster hash tag, so each script's keys share a
slot):

    <p>:fatigue:{<session>}:seen      SET   response ids already counted
    <p>:fatigue:{<session>}:totals    HASH  agent_id, responses, claims, unsupported, citations,
                                            precise_citations, conflicts, unchecked:<reason>, ...
    <p>:fatigue:{<session>}:series    LIST  one JSON FatiguePoint per answer (capped)
    <p>:fatigue:{<session>}:alerts    HASH  signal -> response id that raised its current alert
    <p>:fatigue:{<session>}:pending   HASH  response id -> alerts it raised, not yet published
    <p>:fleet:{<agent>}:seen          ZSET  response ids counted in the fleet buckets (by time)
    <p>:fleet:{<agent>}:by_turn       HASH  "<range>:<counter>" (responses, unchecked, claims,
                                            unsupported, citations, precise_citations,
                                            conflicts, conflict_claims)
    <p>:fleet:{<agent>}:by_context    HASH  the same by context-size range
    <p>:fleet:{<agent>}:by_loop       HASH  the same by loop-step range
    <p>:fatigue:sessions              ZSET  session ids by last update, for `hallmon fatigue`

The session script checks-and-records the response id, updates the counters and the series,
computes every signal's level and slopes and decides its alert (fire once per crossing, re-arm
below `rearm_fraction` of every threshold) in one step: nothing can interleave between counting
and deciding, and a verdict already counted decides nothing again. The alerts it fires are
kept under `pending` until the worker has published them (`ack_alerts`), so a crash between
the script and the publish republishes the same alert ids on redelivery instead of losing them.
The maths mirrors `trend.py` (the reference, unit-tested); an integration test pins the two
together. The fleet script is separate because an agent's keys hash to another cluster slot;
it is idempotent on its own, so a crash between the two is repaired by the redelivery.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
from hallmon.schemas.fatigue import SIGNALS, FatigueAlert, FatiguePoint, FatigueSnapshot
from hallmon.schemas.results import VerdictEvent
from hallmon.workers.fatigue.trend import (
    Crossing,
    FatigueThresholds,
    SessionTotals,
    make_alert,
    point_of,
    snapshot,
)
from redis.asyncio.client import Pipeline
from redis.exceptions import NoScriptError

_SESSION_SCRIPT = """
-- KEYS: seen, totals, series, alerts, pending
-- ARGV: response_id, agent_id, point JSON, turn ('' = next), updated_at, ttl_s, max_series,
--       thresholds JSON (FatigueThresholds.for_script)
local rid = ARGV[1]
local ttl = tonumber(ARGV[6])
local function refresh() for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ttl) end end
local function result(added, fired)
  refresh()
  return {added, redis.call('HGETALL', KEYS[2]), redis.call('LRANGE', KEYS[3], 0, -1),
          redis.call('HGETALL', KEYS[4]), fired}
end
if redis.call('SADD', KEYS[1], rid) == 0 then
  -- Counted before: decide nothing again; hand back what is still unpublished.
  return result(0, redis.call('HGET', KEYS[5], rid))
end

local p = cjson.decode(ARGV[3])
redis.call('HSETNX', KEYS[2], 'agent_id', ARGV[2])
local responses = redis.call('HINCRBY', KEYS[2], 'responses', 1)
if p.state == 'unavailable' then
  redis.call('HINCRBY', KEYS[2], 'unchecked:' .. (p.unavailable_reason or 'unknown'), 1)
else
  for _, f in ipairs({'claims', 'unsupported', 'contradicted', 'citations', 'precise_citations',
                      'conflicts'}) do
    if p[f] then redis.call('HINCRBY', KEYS[2], f, p[f]) end
  end
end
redis.call('HSET', KEYS[2], 'updated_at', ARGV[5])
if ARGV[4] == '' then p.turn = responses - 1 else p.turn = tonumber(ARGV[4]) end
redis.call('RPUSH', KEYS[3], cjson.encode(p))
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[7]), -1)

-- The signals (trend.py is the reference of every line below).
local th = cjson.decode(ARGV[8])
local points = {}
for i, raw in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do points[i] = cjson.decode(raw) end

local function badness(q, signal)
  if q.state == 'unavailable' then return nil end
  if signal == 'unsupported_rate' then
    if q.claims > 0 then return q.unsupported, q.claims end
  elseif signal == 'citation_precision' then
    local c = q.citations or 0
    if c > 0 then return c - (q.precise_citations or 0), c end
  elseif q.claims > 0 and q.conflicts ~= nil then
    return q.conflicts, q.claims
  end
  return nil
end

local function mean(v)
  local s = 0.0
  for i = 1, #v do s = s + v[i] end
  return s / #v
end

local function slope(xs, ys, min_spread)
  if #xs < 2 then return nil end
  local lo, hi = xs[1], xs[1]
  for i = 2, #xs do lo = math.min(lo, xs[i]); hi = math.max(hi, xs[i]) end
  if hi - lo < min_spread then return nil end
  local mx, my = mean(xs), mean(ys)
  local sxx, sxy = 0.0, 0.0
  for i = 1, #xs do
    sxx = sxx + (xs[i] - mx) * (xs[i] - mx)
    sxy = sxy + (xs[i] - mx) * (ys[i] - my)
  end
  if sxx <= 1e-12 then return nil end
  return sxy / sxx
end

local function trend(signal)
  local carrying = {}
  for _, q in ipairs(points) do
    local b, w = badness(q, signal)
    if b then carrying[#carrying + 1] = {q = q, b = b, w = w} end
  end
  table.sort(carrying, function(a, b)
    if a.q.turn ~= b.q.turn then return a.q.turn < b.q.turn end
    if a.q.context_tokens ~= b.q.context_tokens then
      return a.q.context_tokens < b.q.context_tokens
    end
    return a.q.response_id < b.q.response_id
  end)
  local win = {}
  for i = math.max(1, #carrying - th.window + 1), #carrying do win[#win + 1] = carrying[i] end
  local bad, weight = 0, 0
  for _, e in ipairs(win) do bad = bad + e.b; weight = weight + e.w end
  local t = {n = #win, level = 0.0, slopes = {}}
  if weight > 0 then t.level = bad / weight end
  if #win >= th.min_points then
    local turns, ctx, ys, lx, ly = {}, {}, {}, {}, {}
    for i, e in ipairs(win) do
      turns[i] = e.q.turn
      ctx[i] = e.q.context_tokens / 1000.0
      ys[i] = e.b / e.w
      if e.q.loop_step ~= nil then lx[#lx + 1] = e.q.loop_step; ly[#ly + 1] = ys[i] end
    end
    local spread = th.min_spread
    t.slopes.turn_slope = slope(turns, ys, spread.turn_slope)
    t.slopes.context_slope = slope(ctx, ys, spread.context_slope)
    if #lx >= th.min_points then t.slopes.loop_slope = slope(lx, ly, spread.loop_slope) end
  end
  return t
end

local function measures(t, st, gated)
  local out = {}
  if t.n >= th.min_points then out[#out + 1] = {'level', t.level, st.level} end
  if gated and t.level < st.slope_gate then return out end
  for _, m in ipairs({'turn_slope', 'context_slope', 'loop_slope'}) do
    if t.slopes[m] ~= nil then out[#out + 1] = {m, t.slopes[m], st[m]} end
  end
  return out
end

local fired = {}
for _, signal in ipairs({'unsupported_rate', 'citation_precision', 'contradictions'}) do
  local st = th.signals[signal]
  local t = trend(signal)
  if redis.call('HEXISTS', KEYS[4], signal) == 0 then
    local best = nil
    for _, m in ipairs(measures(t, st, true)) do
      if m[2] >= m[3] and (best == nil or m[2] / m[3] > best[2] / best[3]) then best = m end
    end
    if best then
      redis.call('HSET', KEYS[4], signal, rid)
      fired[#fired + 1] = {kind = signal, measure = best[1], value = best[2],
                           threshold = best[3]}
    end
  else
    local calm = true
    for _, m in ipairs(measures(t, st, false)) do
      if m[2] >= m[3] * th.rearm_fraction then calm = false end
    end
    if calm then redis.call('HDEL', KEYS[4], signal) end
  end
end
if #fired == 0 then return result(1, false) end
local encoded = cjson.encode(fired)
redis.call('HSET', KEYS[5], rid, encoded)
return result(1, encoded)
"""

_FLEET_SCRIPT = """
-- KEYS: seen (zset), by_turn, by_context, by_loop
-- ARGV: response_id, now_s, ttl_s, turn_range, context_range, loop_range ('' = none),
--       then counter name / increment pairs
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
for i, range in ipairs({ARGV[4], ARGV[5], ARGV[6]}) do
  if range ~= '' then
    local key = KEYS[i + 1]
    for j = 7, #ARGV, 2 do redis.call('HINCRBY', key, range .. ':' .. ARGV[j], ARGV[j + 1]) end
    redis.call('EXPIRE', key, ttl)
  end
end
redis.call('EXPIRE', KEYS[1], ttl)
return 1
"""

_ACK_SCRIPT = """
-- KEYS: pending; ARGV: response_id
return redis.call('HDEL', KEYS[1], ARGV[1])
"""


@dataclass(frozen=True)
class FatigueConfig:
    thresholds: FatigueThresholds = field(default_factory=FatigueThresholds)
    ttl_s: int = 7 * 24 * 3600
    max_series: int = 200
    turn_ranges: Sequence[int] = (0, 5, 10, 20, 40)
    context_ranges: Sequence[int] = (0, 2_000, 8_000, 32_000, 128_000)
    loop_ranges: Sequence[int] = (0, 1, 3, 6, 11)
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
    fired: list[Crossing]
    """Alerts the script decided for this answer and that are not yet published: the new ones,
    or on a redelivery the ones a crash kept from being published (empty once acknowledged)."""


def _s(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _pairs(flat: Sequence[Any]) -> dict[str, str]:
    return {_s(flat[i]): _s(flat[i + 1]) for i in range(0, len(flat), 2)}


FLEET_COUNTERS = (
    "responses",
    "unchecked",
    "claims",
    "unsupported",
    "citations",
    "precise_citations",
    "conflicts",
    "conflict_claims",
)


def fleet_increments(point: FatiguePoint) -> list[tuple[str, int]]:
    """The fleet counters one answer adds (unchecked answers add to `unchecked` only)."""
    if not point.checked:
        return [("responses", 1), ("unchecked", 1)]
    done = point.conflicts is not None
    return [
        ("responses", 1),
        ("claims", point.claims),
        ("unsupported", point.unsupported),
        ("citations", point.citations),
        ("precise_citations", point.precise_citations),
        ("conflicts", point.conflicts or 0),
        ("conflict_claims", point.claims if done else 0),
    ]


class FatigueStore:
    """Per-session fatigue counters, series and alert flags in Redis."""

    def __init__(self, client: aioredis.Redis, config: FatigueConfig | None = None) -> None:
        self.redis = client
        self.config = config or FatigueConfig()
        self._session_script = client.register_script(_SESSION_SCRIPT)
        self._fleet_script = client.register_script(_FLEET_SCRIPT)
        self._ack_script = client.register_script(_ACK_SCRIPT)
        self._thresholds_json = json.dumps(self.config.thresholds.for_script())

    # --- keys -------------------------------------------------------------------------------

    def session_keys(self, session_id: str) -> list[str]:
        base = f"{self.config.key_prefix}:fatigue:{{{session_id}}}"
        return [f"{base}:{k}" for k in ("seen", "totals", "series", "alerts", "pending")]

    def fleet_keys(self, agent_id: str) -> list[str]:
        base = f"{self.config.key_prefix}:fleet:{{{agent_id}}}"
        return [f"{base}:{k}" for k in ("seen", "by_turn", "by_context", "by_loop")]

    @property
    def sessions_key(self) -> str:
        return f"{self.config.key_prefix}:fatigue:sessions"

    # --- writes -----------------------------------------------------------------------------

    async def record(
        self,
        verdict: VerdictEvent,
        *,
        now: datetime | None = None,
        also: Callable[[Pipeline], None] | None = None,
    ) -> RecordOutcome:
        """Count this verdict once, decide its alerts, and return the session after it.

        Two round trips: the session script, then the fleet script, the sessions index and
        whatever `also` queues (the recent verdicts) in one pipeline."""
        now = now or datetime.now(UTC)
        cfg = self.config
        point = point_of(verdict, turn_fallback=0)
        raw = await self._session_script(
            keys=self.session_keys(verdict.session_id),
            args=[
                verdict.response_id,
                verdict.agent_id,
                point.model_dump_json(exclude_none=True, exclude={"turn"}),
                "" if verdict.turn is None else verdict.turn,
                now.isoformat(),
                cfg.ttl_s,
                cfg.max_series,
                self._thresholds_json,
            ],
        )
        counted = int(raw[0]) == 1
        snap = self._snapshot(verdict.session_id, raw[1], raw[2], raw[3])
        fired = [
            Crossing(
                kind=f["kind"], measure=f["measure"], value=f["value"], threshold=f["threshold"]
            )
            for f in (json.loads(_s(raw[4])) if raw[4] else [])
        ]
        stored = next((p for p in snap.series if p.response_id == verdict.response_id), point)
        loop = "" if point.loop_step is None else range_label(point.loop_step, cfg.loop_ranges)
        fleet_keys = self.fleet_keys(verdict.agent_id)
        fleet_args = [
            verdict.response_id,
            now.timestamp(),
            cfg.ttl_s,
            range_label(stored.turn, cfg.turn_ranges),
            range_label(verdict.context_size_tokens, cfg.context_ranges),
            loop,
            *[x for kv in fleet_increments(point) for x in kv],
        ]

        def queue(pipe: Pipeline) -> None:
            pipe.evalsha(self._fleet_script.sha, len(fleet_keys), *fleet_keys, *fleet_args)
            pipe.zadd(self.sessions_key, {verdict.session_id: now.timestamp()})
            pipe.zremrangebyscore(self.sessions_key, "-inf", now.timestamp() - cfg.ttl_s)
            if also is not None:
                also(pipe)

        await self._execute(queue)
        return RecordOutcome(counted=counted, snapshot=snap, fired=fired)

    async def _execute(self, queue: Callable[[Pipeline], None]) -> None:
        """One pipeline with the fleet script by its sha; a Redis that lost its scripts (a
        restart, SCRIPT FLUSH) gets it loaded and the pipeline again: every command in it is
        idempotent (the fleet script counts a response id once, the rest overwrite)."""
        for attempt in range(2):
            pipe = self.redis.pipeline(transaction=False)
            queue(pipe)
            try:
                await pipe.execute()
                return
            except NoScriptError:
                if attempt:
                    raise
                await self.redis.script_load(_FLEET_SCRIPT)

    async def ack_alerts(self, session_id: str, response_id: str) -> None:
        """The alerts `response_id` raised are published: a redelivery republishes nothing."""
        await self._ack_script(keys=[self.session_keys(session_id)[4]], args=[response_id])

    # --- reads ------------------------------------------------------------------------------

    async def load(self, session_id: str) -> FatigueSnapshot | None:
        keys = self.session_keys(session_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys[1])
        pipe.lrange(keys[2], 0, -1)
        pipe.hgetall(keys[3])
        totals, series, alerts = await pipe.execute()
        if not totals:
            return None

        def flat(h: dict[Any, Any]) -> list[Any]:
            return [x for kv in h.items() for x in kv]

        return self._snapshot(session_id, flat(totals), series, flat(alerts))

    async def sessions(self, limit: int = 1000) -> list[str]:
        """Session ids, most recently updated first."""
        ids = await self.redis.zrevrange(self.sessions_key, 0, limit - 1)
        return [_s(i) for i in ids]

    async def fleet(self, agent_id: str) -> dict[str, dict[str, dict[str, int]]]:
        """{"by_turn": {"0-4": {"responses": n, "claims": n, ...}}, "by_context": ...,
        "by_loop": ...}"""
        out: dict[str, dict[str, dict[str, int]]] = {}
        names = ("by_turn", "by_context", "by_loop")
        for name, key in zip(names, self.fleet_keys(agent_id)[1:], strict=True):
            buckets: dict[str, dict[str, int]] = {}
            for k, v in (await self.redis.hgetall(key)).items():
                rng, _, measure = _s(k).rpartition(":")
                buckets.setdefault(rng, {})[measure] = int(v)
            out[name] = buckets
        return out

    # --- helpers ----------------------------------------------------------------------------

    def _snapshot(
        self, session_id: str, flat_totals: list[Any], series: list[Any], flat_alerts: list[Any]
    ) -> FatigueSnapshot:
        t = _pairs(flat_totals)
        unchecked = {k.split(":", 1)[1]: int(v) for k, v in t.items() if k.startswith("unchecked:")}
        totals = SessionTotals(
            session_id=session_id,
            agent_id=t.get("agent_id", ""),
            responses=int(t.get("responses", 0)),
            claims=int(t.get("claims", 0)),
            unsupported=int(t.get("unsupported", 0)),
            contradicted=int(t.get("contradicted", 0)),
            updated_at=datetime.fromisoformat(t["updated_at"]) if "updated_at" in t else None,
            citations=int(t.get("citations", 0)),
            precise_citations=int(t.get("precise_citations", 0)),
            conflicts=int(t.get("conflicts", 0)),
            unchecked=unchecked,
        )
        points = [FatiguePoint.model_validate(json.loads(_s(p))) for p in series]
        alerted = {k: v for k, v in _pairs(flat_alerts).items() if k in SIGNALS}
        return snapshot(totals, points, self.config.thresholds, alerted)


async def update_fatigue(
    store: FatigueStore,
    verdict: VerdictEvent,
    publish_alert: Callable[[FatigueAlert], Awaitable[None]],
    *,
    now: datetime | None = None,
    also: Callable[[Pipeline], None] | None = None,
) -> list[FatigueAlert]:
    """Count one verdict and publish the alerts the store's script decided for it.

    They are acknowledged only after every one is published: a crash in between republishes
    the same `alert_id`s on redelivery (at least once), never loses them, and never decides
    anything new for an answer already counted.
    """
    now = now or datetime.now(UTC)
    outcome = await store.record(verdict, now=now, also=also)
    if not outcome.fired:
        return []
    alerts = [
        make_alert(outcome.snapshot, crossing, response_id=verdict.response_id, at=now)
        for crossing in outcome.fired
    ]
    for alert in alerts:
        await publish_alert(alert)
    await store.ack_alerts(verdict.session_id, verdict.response_id)
    return alerts
