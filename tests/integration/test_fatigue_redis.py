"""Session fatigue against the real Redis: exactly once per response id, one alert per crossing
and signal decided inside the script, and the script's maths pinned to `trend.py`."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import redis.asyncio as aioredis
from hallmon.schemas import ClaimCounts, FatigueAlert, MonitorResult, VerdictEvent, VerdictTimings
from hallmon.schemas.fatigue import SIGNALS, FatiguePoint, Signal
from hallmon.schemas.results import CitationCheck, SessionConflict, Span, UnavailableReason
from hallmon.workers.fatigue.store import FatigueConfig, FatigueStore, range_label, update_fatigue
from hallmon.workers.fatigue.trend import FatigueThresholds, decide, point_of

from ..conftest import Services

pytestmark = pytest.mark.integration


def verdict(
    session: str,
    turn: int | None,
    claims: int,
    unsupported: int,
    tokens: int,
    *,
    loop_step: int | None = None,
    citations: int = 0,
    precise: int = 0,
    conflicts: int | None = None,
    unavailable: UnavailableReason | None = None,
    rid: str | None = None,
) -> VerdictEvent:
    base = MonitorResult(
        state="unavailable" if unavailable else "checked",
        unavailable_reason=unavailable,
        counts=ClaimCounts(total=claims, supported=claims - unsupported, not_found=unsupported),
        context_size_tokens=tokens,
        citations=[
            CitationCheck(
                claim_id=f"c{i}",
                marker=f"[{i}]",
                source_id="doc" if i < precise else None,
                supports=i < precise,
            )
            for i in range(citations)
        ],
    )
    span = Span(start=0, end=1)
    return VerdictEvent(
        **base.model_dump(),
        verdict_id=f"v-{session}-{turn}",
        response_id=rid or f"{session}-r{turn}",
        session_id=session,
        agent_id="support-bot",
        turn=turn,
        timings=VerdictTimings(verdict_at=datetime.now(UTC)),
        loop_step=loop_step,
        session_conflicts=[
            SessionConflict(
                claim_id=f"c{i}",
                claim="x",
                span=span,
                earlier_response_id="e",
                earlier_claim="y",
                earlier_span=span,
                contradiction=0.9,
            )
            for i in range(conflicts or 0)
        ],
        conflict_check=None if conflicts is None else "done",
    )


Body = Callable[[FatigueStore], Awaitable[None]]


def run(services: Services, body: Body, config: FatigueConfig | None = None) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(services.redis_url)
        prefix = f"test-{uuid.uuid4().hex[:8]}"
        base = config or FatigueConfig()
        store = FatigueStore(
            client,
            FatigueConfig(
                thresholds=base.thresholds,
                key_prefix=prefix,
                ttl_s=600,
                max_series=base.max_series,
            ),
        )
        try:
            await body(store)
        finally:
            keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()

    asyncio.run(main())


class Published:
    def __init__(self) -> None:
        self.alerts: list[FatigueAlert] = []

    async def __call__(self, alert: FatigueAlert) -> None:
        self.alerts.append(alert)


async def state_of(store: FatigueStore, session: str) -> dict[str, object]:
    """Every key of the session and the fleet, for before/after comparisons."""
    out: dict[str, object] = {}
    for key in [*store.session_keys(session), *store.fleet_keys("support-bot")]:
        kind = (await store.redis.type(key)).decode()
        if kind == "hash":
            out[key] = await store.redis.hgetall(key)
        elif kind == "list":
            out[key] = await store.redis.lrange(key, 0, -1)
        elif kind == "set":
            out[key] = await store.redis.smembers(key)
        elif kind == "zset":
            out[key] = await store.redis.zrange(key, 0, -1)
    return out


def test_same_answer_delivered_twice_is_counted_once(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        v = verdict("s-dup", 1, 4, 1, 900, loop_step=2, citations=2, precise=1)
        first = await store.record(v)
        again = await store.record(v)
        assert first.counted and not again.counted
        snap = await store.load("s-dup")
        assert snap is not None
        assert (snap.responses, snap.claims, snap.unsupported) == (1, 4, 1)
        assert (snap.citations, snap.precise_citations, snap.citation_precision) == (2, 1, 0.5)
        assert len(snap.series) == 1 and snap.series[0].turn == 1
        assert snap.series[0].loop_step == 2
        fleet = await store.fleet("support-bot")
        assert fleet["by_turn"]["0-4"] == {
            "responses": 1,
            "claims": 4,
            "unsupported": 1,
            "citations": 2,
            "precise_citations": 1,
            "conflicts": 0,
            "conflict_claims": 0,
        }
        assert fleet["by_context"]["0-1999"]["responses"] == 1
        assert fleet["by_loop"]["1-2"]["citations"] == 2
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


def test_climbing_session_raises_one_alert_and_redeliveries_change_nothing(
    services: Services,
) -> None:
    async def body(store: FatigueStore) -> None:
        published = Published()
        bad = [0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 4, 4]
        for turn, unsupported in enumerate(bad):
            v = verdict("s-tired", turn, 4, unsupported, 800 * (turn + 1), loop_step=turn)
            await update_fatigue(store, v, published)
            before = await state_of(store, "s-tired")
            await update_fatigue(store, v, published)  # a redelivery changes nothing
            assert await state_of(store, "s-tired") == before
        assert [(a.kind, a.response_id) for a in published.alerts] == [
            ("unsupported_rate", published.alerts[0].response_id)
        ]
        alert = published.alerts[0]
        assert alert.session_id == "s-tired" and alert.value >= alert.threshold
        assert alert.snapshot.slope_per_turn is not None and alert.snapshot.slope_per_turn > 0
        assert alert.snapshot.slope_per_loop_step == pytest.approx(alert.snapshot.slope_per_turn)
        snap = await store.load("s-tired")
        assert snap is not None and snap.alerted == {"unsupported_rate": alert.response_id}

    run(services, body)


def test_unchecked_answers_are_counted_beside_the_signals(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        published = Published()
        for turn in range(6):
            await update_fatigue(store, verdict("s-un", turn, 4, 0, 500), published)
        for turn, reason in enumerate(
            ["context_unavailable", "evaluation_failed", "evaluation_failed"], start=6
        ):
            # claims "judged" on an unchecked answer never enter the unsupported rate
            v = verdict("s-un", turn, 4, 4, 500, unavailable=reason)  # type: ignore[arg-type]
            await update_fatigue(store, v, published)
        snap = await store.load("s-un")
        assert snap is not None
        assert snap.responses == 9 and snap.claims == 24 and snap.unsupported == 0
        assert snap.unchecked == {"context_unavailable": 1, "evaluation_failed": 2}
        assert snap.unchecked_share == pytest.approx(3 / 9)
        assert snap.signals["unsupported_rate"].level == 0.0
        assert [p.state for p in snap.series][-3:] == ["unavailable"] * 3
        assert published.alerts == []
        fleet = await store.fleet("support-bot")
        assert fleet["by_turn"]["5-9"]["unchecked"] == 3

    run(services, body)


def test_spoofed_citations_raise_one_citation_precision_alert(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        published = Published()
        precise = [2, 2, 2, 1, 1, 0, 0, 0, 0, 0]  # of 2 citations per answer
        for turn, good in enumerate(precise):
            v = verdict("s-cite", turn, 3, 0, 1000, citations=2, precise=good)
            await update_fatigue(store, v, published)
            await update_fatigue(store, v, published)
        assert [a.kind for a in published.alerts] == ["citation_precision"]
        alert = published.alerts[0]
        # in the signal's own terms: precision (or its slope) at or under its floor
        assert alert.value <= alert.threshold
        assert alert.snapshot.signals["citation_precision"].level is not None

    run(services, body)


def test_contradictions_alert_once_then_rearm(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        published = Published()
        conflicts = [0, 0, 0, 1, 2, 2, 2, 2] + [0] * 10 + [2, 3, 3, 3]
        for turn, n in enumerate(conflicts):
            v = verdict("s-con", turn, 4, 0, 1000, conflicts=n)
            await update_fatigue(store, v, published)
        kinds = [a.kind for a in published.alerts]
        assert kinds == ["contradictions", "contradictions"], kinds  # re-armed in between
        assert published.alerts[0].alert_id != published.alerts[1].alert_id

    run(services, body)


def test_crash_before_publish_republishes_the_same_alert_once(services: Services) -> None:
    async def body(store: FatigueStore) -> None:
        published = Published()
        for turn in range(3):
            await update_fatigue(store, verdict("s-crash", turn, 2, 2, 100), published)

        async def broken(alert: FatigueAlert) -> None:
            raise ConnectionError("broker went away")

        tipping = verdict("s-crash", 3, 2, 2, 100)
        with pytest.raises(ConnectionError):
            await update_fatigue(store, tipping, broken)
        await update_fatigue(store, tipping, published)  # the redelivery publishes it
        await update_fatigue(store, tipping, published)  # and then never again
        assert [a.kind for a in published.alerts] == ["unsupported_rate"]
        assert published.alerts[0].response_id == tipping.response_id

    run(services, body)


def test_script_decides_like_the_reference(services: Services) -> None:
    """The Lua rule and `trend.decide` agree, alert for alert, on random sessions."""
    th = FatigueThresholds(window=6, min_points=3)
    rng = random.Random(7)

    async def body(store: FatigueStore) -> None:
        kinds: set[str] = set()
        for n in range(12):
            session = f"s-par-{n}"
            published = Published()
            expected: list[tuple[str, str, str]] = []
            alerted: dict[Signal, bool] = {s: False for s in SIGNALS}
            points: list[FatiguePoint] = []
            drift = rng.random()
            for turn in range(rng.randint(5, 25)):
                claims = rng.randint(0, 5)
                unsupported = min(claims, int(rng.random() * (claims + 1) * drift * turn / 8))
                citations = rng.randint(0, 3)
                v = verdict(
                    session,
                    rng.choice([turn, turn, None]),
                    claims,
                    unsupported,
                    rng.randint(0, 9000),
                    loop_step=rng.choice([None, rng.randint(0, 8)]),
                    citations=citations,
                    precise=rng.randint(0, citations),
                    conflicts=rng.choice([None, rng.randint(0, claims)]),
                    unavailable=rng.choice([None] * 5 + ["evaluation_failed"]),  # type: ignore[list-item]
                    rid=f"r{turn}",
                )
                points.append(point_of(v, turn_fallback=turn))
                for signal in SIGNALS:
                    d = decide(points, signal, th, alerted=alerted[signal])
                    if d.alert is not None:
                        expected.append((signal, d.alert.measure, v.response_id))
                        alerted[signal] = True
                    elif d.rearm:
                        alerted[signal] = False
                await update_fatigue(store, v, published)
            got = [(a.kind, a.measure, a.response_id) for a in published.alerts]
            assert got == expected, session
            kinds.update(k for k, _, _ in got)
            snap = await store.load(session)
            assert snap is not None
            assert {k for k, v in alerted.items() if v} == set(snap.alerted)
        assert kinds == set(SIGNALS)  # every signal's rule was exercised

    run(services, body, FatigueConfig(thresholds=th))


def test_range_labels() -> None:
    assert range_label(0, (0, 5, 10)) == "0-4"
    assert range_label(7, (0, 5, 10)) == "5-9"
    assert range_label(99, (0, 5, 10)) == "10+"


def test_wrong_credentials_fail_loudly_instead_of_retrying(services: Services) -> None:
    from hallmon.workers.redis_errors import RedisAuthError, with_redis_retries

    async def main() -> None:
        client = aioredis.Redis.from_url(
            services.redis_url, username="hallmon-nobody", password="not-the-password"
        )
        store = FatigueStore(client, FatigueConfig(key_prefix=f"test-{uuid.uuid4().hex[:8]}"))
        try:
            with pytest.raises(RedisAuthError, match="HALLMON_REDIS__PASSWORD"):
                await asyncio.wait_for(
                    with_redis_retries(
                        lambda: update_fatigue(store, verdict("s-auth", 0, 1, 0, 10), Published()),
                        what="fatigue update",
                    ),
                    timeout=10,
                )
        finally:
            await client.aclose()

    asyncio.run(main())


def test_a_redis_that_lost_its_scripts_still_counts_the_fleet_and_what_rides_along(
    services: Services,
) -> None:
    # The fleet script runs by its sha inside the update's pipeline; after SCRIPT FLUSH (a
    # restarted Redis) it is loaded again and the pipeline resent, counting once.
    async def body(store: FatigueStore) -> None:
        ridden = f"{store.config.key_prefix}:rode-along"

        def also(pipe: Any) -> None:
            pipe.incr(ridden)

        await store.redis.script_flush()
        v = verdict("s-flush", 1, 2, 1, 100)
        first = await store.record(v, also=also)
        assert first.counted
        await store.redis.script_flush()
        again = await store.record(v, also=also)
        assert not again.counted
        fleet = await store.fleet("support-bot")
        assert fleet["by_turn"]["0-4"]["responses"] == 1  # the resent fleet script counts once
        assert "s-flush" in await store.sessions()
        assert int(await store.redis.get(ridden)) >= 2  # queued on every update

    run(services, body)
