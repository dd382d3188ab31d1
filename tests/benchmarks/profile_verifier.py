"""cProfile of the verifier's work per answer, as the stream does it, without Kafka.

    .venv/bin/python tests/benchmarks/profile_verifier.py [--answers 200] [--top 20]

Per benchmark answer (bench_pipeline's): decode the assembled response from JSON, prepare
(claims, evidence, checks), the model rounds (early stop) with one model thread, finish, build
and encode the verdict event. Prints milliseconds per answer and the top entries by own time
and by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pipeline import answers, response_of
from hallmon.schemas import AssembledResponse, decode, encode
from hallmon.topology.settings import ModelSettings
from hallmon.workers.verifier.service import verdict_event

from hallmon.verification.pair_budget import drive
from hallmon.verification.verifier import Verifier, load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    model = load_model(ModelSettings(threads=1))
    verifier = Verifier(model)
    payloads = [encode(response_of(t, i)) for i, t in answers(args.answers)]

    def one(payload: bytes) -> bytes:
        response = decode(AssembledResponse, payload)
        prepared = verifier.prepare(response)
        if prepared.result is not None:
            result = prepared.result
        else:
            (probs,) = drive(verifier.pair_rounds([prepared]), model.predict)
            result = verifier.finish(prepared, probs)
        return encode(verdict_event(response, result, verification_ms=0.0))

    for payload in payloads[:20]:  # warm-up: caches, the model's first calls
        one(payload)
    profile = cProfile.Profile()
    t0 = time.perf_counter()
    profile.enable()
    for payload in payloads:
        one(payload)
    profile.disable()
    print(f"{(time.perf_counter() - t0) / len(payloads) * 1e3:.2f} ms per answer (profiled)")
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumtime").print_stats(args.top)


if __name__ == "__main__":
    main()
