"""The verifier's session conflict check with a fake claim store and model: conflicts in the
verdict; a Redis failure never holds the verdict back but says the check was not done."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import redis.exceptions as rexc
from hallmon.schemas import ClaimCounts, ClaimVerdict, MonitorResult, VerdictEvent, VerdictTimings
from hallmon.schemas.results import Claim, Span, State
from hallmon.workers.verifier.session_conflicts import SessionConflictCheck

from hallmon.verification.conflicts import ConflictConfig, EarlierClaim


class FakeStore:
    def __init__(self, fail: BaseException | None = None, slow_s: float = 0.0) -> None:
        self.answers: dict[str, list[EarlierClaim]] = {}
        self.order: list[str] = []
        self.fail = fail
        self.slow_s = slow_s

    async def earlier(self, session_id: str, response_id: str) -> list[EarlierClaim]:
        await asyncio.sleep(self.slow_s)
        if self.fail:
            raise self.fail
        before = (
            self.order[: self.order.index(response_id)] if response_id in self.order else self.order
        )
        return [c for r in before for c in self.answers[r]]

    async def remember(
        self, session_id: str, response_id: str, claims: Sequence[EarlierClaim]
    ) -> None:
        if response_id not in self.answers:
            self.order.append(response_id)
            self.answers[response_id] = list(claims)


async def numbers_disagree(pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
    """Contradiction when the two claims name different numbers."""
    rows = []
    for a, b in pairs:
        da = {w for w in a.split() if w.isdigit()}
        db = {w for w in b.split() if w.isdigit()}
        rows.append([0.05, 0.05, 0.9] if da and db and da != db else [0.8, 0.15, 0.05])
    return np.array(rows, dtype=np.float32).reshape(len(pairs), 3)


def verdict(rid: str, texts: list[str], state: State = "checked") -> VerdictEvent:
    claims = [
        ClaimVerdict(
            claim=Claim(id=f"{rid}-c{i}", text=t, span=Span(start=0, end=len(t))),
            status="supported",
            confidence=0.9,
            reason="r",
        )
        for i, t in enumerate(texts)
    ]
    base = MonitorResult(
        state=state,
        unavailable_reason="evaluation_failed" if state == "unavailable" else None,
        claims=claims,
        counts=ClaimCounts.of(claims),
    )
    return VerdictEvent(
        **base.model_dump(),
        verdict_id=f"v-{rid}",
        response_id=rid,
        session_id="s",
        agent_id="a",
        timings=VerdictTimings(verdict_at=datetime.now(UTC)),
    )


def check_with(store: FakeStore, timeout_s: float = 1.0) -> SessionConflictCheck:
    return SessionConflictCheck(
        store,  # type: ignore[arg-type]
        numbers_disagree,
        ConflictConfig(),
        redis_timeout_s=timeout_s,
    )


def test_a_claim_contradicting_an_earlier_answer_is_reported() -> None:
    store = FakeStore()
    check = check_with(store)

    async def main() -> tuple[VerdictEvent, VerdictEvent, VerdictEvent]:
        first = await check.check(verdict("r1", ["Returns are accepted within 30 days ."]))
        second = await check.check(verdict("r2", ["Returns are accepted within 14 days ."]))
        again = await check.check(verdict("r2", ["Returns are accepted within 14 days ."]))
        return first, second, again

    first, second, again = asyncio.run(main())
    assert first.conflict_check == "done" and first.session_conflicts == []
    assert second.conflict_check == "done"
    (conflict,) = second.session_conflicts
    assert conflict.earlier_response_id == "r1" and "30 days" in conflict.earlier_claim
    assert "conflicts" in second.stage_ms
    # a redelivery sees what the first delivery saw, and stores nothing twice
    assert again.session_conflicts == second.session_conflicts and store.order == ["r1", "r2"]


def test_redis_failure_publishes_the_verdict_with_the_check_not_done() -> None:
    v = verdict("r1", ["Returns are accepted within 30 days ."])
    out = asyncio.run(check_with(FakeStore(fail=rexc.ConnectionError("refused"))).check(v))
    assert out.conflict_check == "failed" and out.session_conflicts == []
    assert any("session conflict check not done" in n for n in out.notes)
    assert out.claims == v.claims and out.risk == v.risk  # the verdict itself is unchanged


def test_a_slow_redis_times_out_instead_of_holding_the_verdict() -> None:
    v = verdict("r1", ["Returns are accepted within 30 days ."])
    out = asyncio.run(check_with(FakeStore(slow_s=5.0), timeout_s=0.05).check(v))
    assert out.conflict_check == "failed"


def test_unchecked_answers_are_not_compared() -> None:
    store = FakeStore()
    v = verdict("r1", ["Returns are accepted within 30 days ."], state="unavailable")
    out = asyncio.run(check_with(store).check(v))
    assert out.conflict_check == "not_applicable" and store.order == []


def test_answers_of_a_session_verified_at_once_are_still_compared() -> None:
    store = FakeStore(slow_s=0.01)
    check = check_with(store)

    async def main() -> list[VerdictEvent]:
        return list(
            await asyncio.gather(
                check.check(verdict("r1", ["Returns are accepted within 30 days ."])),
                check.check(verdict("r2", ["Returns are accepted within 14 days ."])),
            )
        )

    first, second = asyncio.run(main())
    assert len(first.session_conflicts) + len(second.session_conflicts) == 1


def test_tail_shows_the_conflict_and_the_citation_precision() -> None:
    from hallmon.schemas.results import CitationCheck

    from hallmon.cli.tail import verdict_line

    store = FakeStore()
    check = check_with(store)

    async def main() -> VerdictEvent:
        await check.check(verdict("r1", ["Returns are accepted within 30 days ."]))
        return await check.check(verdict("r2", ["Returns are accepted within 14 days ."]))

    v = asyncio.run(main()).model_copy(
        update={
            "citations": [CitationCheck(claim_id="c", marker="[9]", supports=False)],
            "citation_precision": 0.0,
        }
    )
    text = verdict_line(v).plain
    assert "contradicts an earlier answer" in text and "30 days" in text
    assert "citation precision 0% of 1" in text
