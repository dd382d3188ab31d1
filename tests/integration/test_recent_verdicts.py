"""The dashboard's recent-verdicts store against the real Redis: bounded, newest first, one
entry per response id, full verdicts and alert marks kept."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import pytest
import redis.asyncio as aioredis
from hallmon.schemas import (
    Claim,
    ClaimCounts,
    ClaimVerdict,
    FatigueAlert,
    FatigueSnapshot,
    MonitorResult,
    Span,
    VerdictEvent,
    VerdictTimings,
)
from hallmon.workers.fatigue.recent import RecentConfig, RecentStore

from tests.conftest import Services

pytestmark = pytest.mark.integration


def verdict(session: str, turn: int, n_claims: int = 1) -> VerdictEvent:
    claims = [
        ClaimVerdict(
            claim=Claim(id=f"c{i}", text="Refunds take 5 days.", span=Span(start=0, end=20)),
            status="not_found",
            confidence=0.8,
            reason="no passage supports it",
        )
        for i in range(n_claims)
    ]
    base = MonitorResult(state="checked", claims=claims, counts=ClaimCounts.of(claims))
    return VerdictEvent(
        **base.model_dump(),
        verdict_id=f"v-{session}-{turn}",
        response_id=f"{session}-r{turn}",
        session_id=session,
        agent_id="bot",
        turn=turn,
        timings=VerdictTimings(verdict_at=datetime.now(UTC)),
    )


def run(
    services: Services, config: RecentConfig, body: Callable[[RecentStore], Awaitable[None]]
) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(services.redis_url)
        store = RecentStore(client, config)
        try:
            await body(store)
        finally:
            keys = [k async for k in client.scan_iter(match=f"{config.key_prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()

    asyncio.run(main())


def prefix() -> str:
    return f"test-{uuid.uuid4().hex[:8]}"


def test_latest_is_bounded_newest_first_and_deduplicated(services: Services) -> None:
    async def body(store: RecentStore) -> None:
        sent = [verdict("s1", turn) for turn in range(5)]
        for v in sent:
            await store.add_verdict(v)
        await store.add_verdict(sent[4])  # a redelivery: the same message again
        await store.add_verdict(verdict("s2", 0))
        latest = await store.latest(10)
        assert [v.response_id for v in latest] == ["s2-r0", "s1-r4", "s1-r3"]
        mine = await store.latest(10, "s1")
        assert [v.turn for v in mine] == [4, 3, 2]
        assert mine[0].claims[0].status == "not_found"
        full = await store.verdict("s1-r0")
        assert full is not None and full.claims[0].reason == "no passage supports it"
        assert await store.verdict("nope") is None

    run(services, RecentConfig(keep=3, per_session=3, key_prefix=prefix()), body)


def test_a_large_verdict_keeps_a_compact_entry_only(services: Services) -> None:
    async def body(store: RecentStore) -> None:
        await store.add_verdict(verdict("s1", 0, n_claims=100))
        [entry] = await store.latest(5)
        assert len(entry.claims) == 64 and entry.claims_dropped == 36
        assert await store.verdict("s1-r0") is None  # over max_verdict_bytes

    run(services, RecentConfig(max_verdict_bytes=2_000, key_prefix=prefix()), body)


def test_alert_marks_are_kept_per_session(services: Services) -> None:
    async def body(store: RecentStore) -> None:
        snap = FatigueSnapshot(
            session_id="s1", agent_id="bot", last_turn=7, last_context_tokens=900
        )
        for i in range(3):
            await store.add_alert(
                FatigueAlert(
                    alert_id=f"a{i}",
                    session_id="s1",
                    agent_id="bot",
                    kind="unsupported_rate",
                    measure="turn_slope",
                    value=0.2,
                    threshold=0.05,
                    at=datetime.now(UTC),
                    snapshot=snap,
                )
            )
        marks = await store.alerts("s1")
        assert [m.alert_id for m in marks] == ["a2", "a1"]
        again = marks[0].model_copy()
        await store.add_alert(
            FatigueAlert(
                alert_id=again.alert_id,
                session_id="s1",
                agent_id="bot",
                kind="unsupported_rate",
                measure="turn_slope",
                value=0.2,
                threshold=0.05,
                at=datetime.now(UTC),
                snapshot=snap,
            )
        )
        assert [m.alert_id for m in await store.alerts("s1")] == ["a2"]  # republished: once
        assert (marks[0].turn, marks[0].context_tokens) == (7, 900)

    run(services, RecentConfig(alerts_per_session=2, key_prefix=prefix()), body)
