"""Session fatigue against the real Redis: exactly once per response id, one alert per crossing."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest
import redis.asyncio as aioredis
from hallmon.schemas import ClaimCounts, FatigueAlert, MonitorResult, VerdictEvent, VerdictTimings
from hallmon.workers.fatigue.store import FatigueConfig, FatigueStore, range_label, update_fatigue

from ..conftest import Services

pytestmark = pytest.mark.integration


def verdict(session: str, turn: int, claims: int, unsupported: int, tokens: int) -> VerdictEvent:
    base = MonitorResult(
        state="checked",
        counts=ClaimCounts(total=claims, supported=claims - unsupported, not_found=unsupported),
        context_size_tokens=tokens,
    )
    return VerdictEvent(
        **base.model_dump(),
        verdict_id=f"v-{session}-{turn}",
        response_id=f"{session}-r{turn}",
        session_id=session,
        agent_id="support-bot",
        turn=turn,
        timings=VerdictTimings(verdict_at=datetime.now(UTC)),
    )


def run(services: Services, body):  # type: ignore[no-untyped-def]
    async def main() -> None:
        client = aioredis.Redis.from_url(services.redis_url)
        prefix = f"test-{uuid.uuid4().hex[:8]}"
        store = FatigueStore(client, FatigueConfig(key_prefix=prefix, ttl_s=600))
        try:
            await body(store)
        finally:
            keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()

    asyncio.run(main())


def test_same_answer_delivered_twice_is_counted_once(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        v = verdict("s-dup", 1, 4, 1, 900)
        first = await store.record(v)
        again = await store.record(v)
        assert first.counted and not again.counted
        snap = await store.load("s-dup")
        assert snap is not None
        assert (snap.responses, snap.claims, snap.unsupported) == (1, 4, 1)
        assert len(snap.series) == 1 and snap.series[0].turn == 1
        fleet = await store.fleet("support-bot")
        assert fleet["by_turn"]["0-4"] == {"responses": 1, "claims": 4, "unsupported": 1}
        assert fleet["by_context"]["0-1999"]["responses"] == 1
        assert "s-dup" in await store.sessions()
        ttl = await store.redis.ttl(store.session_keys("s-dup")[1])
        assert 0 < ttl <= 600

    run(services, body)


def test_concurrent_redeliveries_count_once(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        v = verdict("s-race", 0, 3, 3, 100)
        outcomes = await asyncio.gather(*(store.record(v) for _ in range(8)))
        assert sum(o.counted for o in outcomes) == 1
        snap = await store.load("s-race")
        assert snap is not None and snap.claims == 3

    run(services, body)


def test_climbing_session_raises_one_alert(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        published: list[FatigueAlert] = []

        async def publish(alert: FatigueAlert) -> None:
            published.append(alert)

        bad = [0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 4, 4]
        for turn, unsupported in enumerate(bad):
            v = verdict("s-tired", turn, 4, unsupported, 800 * (turn + 1))
            await update_fatigue(store, v, publish)
            await update_fatigue(store, v, publish)  # a redelivery changes nothing
        assert len(published) == 1, [(a.kind, a.value) for a in published]
        alert = published[0]
        assert alert.session_id == "s-tired" and alert.value >= alert.threshold
        assert alert.snapshot.slope_per_turn is not None and alert.snapshot.slope_per_turn > 0
        assert await store.redis.get(store.session_keys("s-tired")[3]) is not None

    run(services, body)


def test_range_labels() -> None:
    assert range_label(0, (0, 5, 10)) == "0-4"
    assert range_label(7, (0, 5, 10)) == "5-9"
    assert range_label(99, (0, 5, 10)) == "10+"
