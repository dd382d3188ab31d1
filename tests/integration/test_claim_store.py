"""The session claim store on the real Redis, and the conflict check when Redis is gone."""

from __future__ import annotations

import asyncio
import socket
import uuid
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import pytest
import redis.asyncio as aioredis
from hallmon.schemas import ClaimCounts, ClaimVerdict, MonitorResult, VerdictEvent, VerdictTimings
from hallmon.schemas.results import Claim, Span
from hallmon.workers.verifier.claim_store import ClaimStore
from hallmon.workers.verifier.session_conflicts import SessionConflictCheck

from hallmon.verification.conflicts import ConflictConfig, EarlierClaim

from ..conftest import Services

pytestmark = pytest.mark.integration


def claims(rid: str, n: int = 2) -> list[EarlierClaim]:
    return [EarlierClaim(rid, f"c{i}", f"claim {i} of {rid}", 0, 9) for i in range(n)]


def test_earlier_claims_window_and_redelivery(services: Services) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(services.redis_url)
        prefix = f"test-{uuid.uuid4().hex[:8]}"
        store = ClaimStore(client, window=3, ttl_s=600, key_prefix=prefix)
        try:
            for i in range(5):
                assert {c.response_id for c in await store.earlier("s", f"r{i}")} == {
                    f"r{j}" for j in range(max(0, i - 3), i)
                }
                await store.remember("s", f"r{i}", claims(f"r{i}"))
                await store.remember("s", f"r{i}", claims(f"r{i}", 5))  # redelivery: ignored
            # r3 delivered again after r4 was stored: it sees what it saw the first time
            assert [c.response_id for c in await store.earlier("s", "r3")] == ["r1"] * 2 + [
                "r2"
            ] * 2
            assert len(await store.earlier("s", "r-new")) == 6  # the last 3 answers, 2 each
            assert 0 < await client.ttl(store.keys("s")[0]) <= 600
        finally:
            await client.delete(*store.keys("s"))
            await client.aclose()

    asyncio.run(main())


async def never(pairs: object) -> npt.NDArray[np.float32]:
    raise AssertionError("the model is not reached when the store is down")


def test_redis_down_still_gives_the_verdict_with_the_check_not_done() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def main() -> VerdictEvent:
        client = aioredis.Redis.from_url(f"redis://127.0.0.1:{port}/0", socket_timeout=0.5)
        check = SessionConflictCheck(
            ClaimStore(client, window=20, ttl_s=60), never, ConflictConfig(), redis_timeout_s=1.0
        )
        text = "Returns are accepted within 30 days."
        cv = ClaimVerdict(
            claim=Claim(id="c1", text=text, span=Span(start=0, end=len(text))),
            status="supported",
            confidence=0.9,
            reason="r",
        )
        base = MonitorResult(state="checked", claims=[cv], counts=ClaimCounts.of([cv]))
        verdict = VerdictEvent(
            **base.model_dump(),
            verdict_id="v",
            response_id="r1",
            session_id="s",
            agent_id="a",
            timings=VerdictTimings(verdict_at=datetime.now(UTC)),
        )
        try:
            return await check.check(verdict)
        finally:
            await client.aclose()

    out = asyncio.run(main())
    assert out.conflict_check == "failed" and out.claims and out.session_conflicts == []
    assert any("session conflict check not done" in n for n in out.notes)
