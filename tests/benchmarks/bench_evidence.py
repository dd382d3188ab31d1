"""Evidence + checks throughput on synthetic answers (a benchmark, not a test).

    .venv/bin/python tests/benchmarks/bench_evidence.py [--answers 300]

Per answer: collect sources, cut passages, build the BM25 index, retrieve top-4 per claim and
run the deterministic checks. The naive baseline in the same run scores every passage of the
answer against every claim by word overlap (`lexical_support`), which is what the seed did.
"""

from __future__ import annotations

import argparse
import random
import time

from hallmon.schemas import AssembledResponse, Claim, ResponseContext, Span

from hallmon.verification.checks import run_checks
from hallmon.verification.evidence import (
    EvidenceIndex,
    collect_sources,
    lexical_support,
    split_passages,
)

# fmt: off
WORDS = [
    "order", "refund", "delivery", "policy", "customer", "account", "payment", "shipping",
    "return", "window", "days", "item", "warranty", "invoice", "support", "ticket", "service",
    "status", "region", "price", "discount", "store", "product",
]
# fmt: on


def synthetic_answer(rng: random.Random, n_docs: int, n_claims: int) -> AssembledResponse:
    def sentence() -> str:
        words = rng.choices(WORDS, k=rng.randint(8, 18))
        return (
            f"The {' '.join(words)} is {rng.randint(1, 500)} days for region R{rng.randint(1, 9)}."
        )

    docs = [
        {"source_id": f"doc-{i}", "text": " ".join(sentence() for _ in range(rng.randint(5, 40)))}
        for i in range(n_docs)
    ]
    tools = [
        {"tool": "cancel_order", "call_id": "c1", "output": {"order_id": "A-1234", "state": "ok"}}
    ]
    answer = " ".join(sentence() for _ in range(n_claims))
    return AssembledResponse(
        response_id=f"r{rng.random()}",
        session_id="s",
        agent_id="a",
        text=answer,
        context=ResponseContext.model_validate({"documents": docs, "tool_results": tools}),
    )


def claims_of(resp: AssembledResponse) -> list[Claim]:
    out, pos = [], 0
    for i, part in enumerate(resp.text.split(". ")):
        start = resp.text.index(part, pos)
        out.append(Claim(id=f"c{i}", text=part, span=Span(start=start, end=start + len(part))))
        pos = start + len(part)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    answers = [
        synthetic_answer(rng, rng.randint(1, 20), rng.randint(1, 30)) for _ in range(args.answers)
    ]
    claims = [claims_of(a) for a in answers]
    n_claims = sum(len(c) for c in claims)

    def run(with_checks: bool) -> float:
        t0 = time.perf_counter()
        for resp, cs in zip(answers, claims, strict=True):
            sources = collect_sources(resp)
            index = EvidenceIndex(sources)
            for c in cs:
                ev = index.top_k(c.text, 4)
                if with_checks:
                    run_checks(c, ev, sources, resp.text)
        return time.perf_counter() - t0

    retrieval = run(with_checks=False)
    full = run(with_checks=True)

    t0 = time.perf_counter()
    for resp, cs in zip(answers, claims, strict=True):
        sources = collect_sources(resp)
        passages = [p.text for s in sources for p in split_passages(s)]
        for c in cs:
            sorted(passages, key=lambda p, c=c: -lexical_support(c.text, p))[:4]
    naive = time.perf_counter() - t0

    per_answer = full * 1000 / args.answers
    print(f"{args.answers} answers, {n_claims} claims (caches warm after the first pass)")
    print(f"BM25 retrieval (index + top-4): {n_claims / retrieval:,.0f} claims/s")
    print(f"naive overlap scan of all passages: {n_claims / naive:,.0f} claims/s")
    print(f"retrieval ratio (BM25 / naive): {naive / retrieval:.2f}x")
    print(f"retrieval + checks: {n_claims / full:,.0f} claims/s ({per_answer:.1f} ms/answer)")


if __name__ == "__main__":
    main()
