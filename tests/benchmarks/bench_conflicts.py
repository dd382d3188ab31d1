"""Cost of the session conflict check per answer: claim store read, candidate pairs, NLI on
at most `--max-pairs` pairs, claim store write, on the real Redis and the shipped model.

    .venv/bin/python tests/benchmarks/bench_conflicts.py [--sessions 40] [--max-pairs 16]

Sessions: RAGTruth dev answers (non-train ids) grouped by their source question, so that the
answers of one "session" talk about the same thing (the several models' answers to one prompt),
which is the expensive case: many claims share words with earlier ones. Each answer's claims
are compared with the claims of every earlier answer of its session (window 20). The model runs
with one thread, as on a shared machine. Redis: `HALLMON_REDIS__URL` (keys removed afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEV = REPO.parent / "shared" / "data" / "dev" / "ragtruth_dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--max-pairs", type=int, default=16)
    parser.add_argument("--window", type=int, default=20)
    parser.add_argument("--data", type=Path, default=DEV, help="RAGTruth dev JSONL")
    args = parser.parse_args()

    import numpy as np
    import redis.asyncio as aioredis
    from hallmon.onnx_models.training.make_split import load_split
    from hallmon.schemas import (
        ClaimCounts,
        ClaimVerdict,
        MonitorResult,
        VerdictEvent,
        VerdictTimings,
    )
    from hallmon.topology.settings import ModelSettings, get_settings
    from hallmon.workers.verifier.claim_store import ClaimStore
    from hallmon.workers.verifier.session_conflicts import SessionConflictCheck

    from hallmon.verification.claims import extract_claims
    from hallmon.verification.conflicts import ConflictConfig
    from hallmon.verification.eval import load_records, select_split
    from hallmon.verification.verifier import load_model

    records = select_split(load_records(args.data), "all", load_split())
    groups: dict[str, list[str]] = defaultdict(list)
    for r in records:
        groups["-".join(r.id.split("-")[:3])].append(r.answer)  # ragtruth-<task>-<prompt>
    sessions = [answers for answers in groups.values() if len(answers) > 1][: args.sessions]
    model = load_model(ModelSettings(threads=1))
    pairs_seen: list[int] = []

    async def predict(pairs):  # type: ignore[no-untyped-def]
        pairs_seen.append(len(pairs))
        return await asyncio.to_thread(model.predict, list(pairs))

    def verdict(sid: str, rid: str, text: str) -> VerdictEvent:
        claims = [
            ClaimVerdict(claim=c, status="supported", confidence=0.9, reason="bench")
            for c in extract_claims(text).claims
        ]
        base = MonitorResult(state="checked", claims=claims, counts=ClaimCounts.of(claims))
        return VerdictEvent(
            **base.model_dump(),
            verdict_id=rid,
            response_id=rid,
            session_id=sid,
            agent_id="bench",
            timings=VerdictTimings(verdict_at=datetime.now(UTC)),
        )

    async def run() -> tuple[list[float], int, int]:
        settings = get_settings()
        client = aioredis.Redis.from_url(settings.redis.url, **settings.redis.client_kwargs())
        prefix = f"bench-{uuid.uuid4().hex[:8]}"
        store = ClaimStore(client, window=args.window, ttl_s=600, key_prefix=prefix)
        check = SessionConflictCheck(
            store, predict, ConflictConfig(max_pairs=args.max_pairs), redis_timeout_s=5.0
        )
        times: list[float] = []
        claims = conflicts = 0
        try:
            for n, answers in enumerate(sessions):
                for i, text in enumerate(answers):
                    v = verdict(f"s{n}", f"s{n}-r{i}", text)
                    claims += len(v.claims)
                    start = time.perf_counter()
                    out = await check.check(v)
                    times.append((time.perf_counter() - start) * 1000.0)
                    assert out.conflict_check in ("done", "not_applicable"), out.notes
                    conflicts += len(out.session_conflicts)
        finally:
            keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()
        return times, claims, conflicts

    times, claims, conflicts = asyncio.run(run())
    q = statistics.quantiles(times, n=20)
    print(
        f"{len(sessions)} sessions, {len(times)} answers, {claims} claims, model {model.version}, "
        f"max_pairs={args.max_pairs}, window={args.window}"
    )
    print(
        f"NLI pairs per answer: mean {sum(pairs_seen) / len(times):.1f}, "
        f"max {max(pairs_seen, default=0)}; conflicts found: {conflicts}"
    )
    print(
        f"conflict check per answer: p50 {statistics.median(times):.1f} ms, "
        f"p95 {q[18]:.1f} ms, max {max(times):.1f} ms, mean {np.mean(times):.1f} ms"
    )


if __name__ == "__main__":
    main()
