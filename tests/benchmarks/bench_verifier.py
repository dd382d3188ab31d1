"""Claims per second of extraction and of verification, against baselines in the same run.

    .venv/bin/python tests/benchmarks/bench_verifier.py [--answers 120] [--threads N]

Extraction: `extract_claims` (sentences + atomic split + typing + skipping) against plain
`split_sentences` (the segmentation alone) on the same answers.
Verification: the full verifier (claims, evidence, checks, NLI on the top-k passages, verdicts,
risk) against the lexical baseline verifier (`SentenceSupport`: BM25-free word overlap per
sentence) on the same answers. With the shipped model when it exists; otherwise with a
word-overlap stand-in for the model, and the output says so (then the NLI cost is missing).

Answers: the non-train answers of ../shared/data/dev/ragtruth_dev.jsonl (the first --answers),
in the order of the file. Figures depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[2]
DEV = REPO.parent / "shared" / "data" / "dev" / "ragtruth_dev.jsonl"


class OverlapNLI:
    """Stand-in when no model is shipped: no inference cost, so the ratio is an upper bound."""

    model_id = "overlap-stand-in"
    version = "overlap-stand-in"
    max_length = 256

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        from hallmon.verification.text import content_tokens

        rows = []
        for premise, hypothesis in pairs:
            h = content_tokens(hypothesis)
            ov = len(h & content_tokens(premise)) / max(1, len(h))
            rows.append([0.9 * ov, 0.95 - 0.9 * ov, 0.05])
        return np.array(rows, dtype=np.float32).reshape(len(pairs), 3)


def timed(fn: Callable[[], int], repeat: int = 1) -> tuple[float, int]:
    """Best wall time of `repeat` runs of fn, and the count fn returns."""
    best, count = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = fn()
        best = min(best, time.perf_counter() - start)
    return best, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=120)
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    args = parser.parse_args()

    from hallmon.onnx_models.runtime import default_model_dir
    from hallmon.onnx_models.training.make_split import load_split
    from hallmon.topology.settings import ModelSettings

    from hallmon.verification.claims import extract_claims
    from hallmon.verification.eval import SentenceSupport, load_records, run_verifier, select_split
    from hallmon.verification.sentences import split_sentences
    from hallmon.verification.verifier import Verifier, load_model

    console = Console()
    records = select_split(load_records(DEV), "all", load_split())[: args.answers]
    answers = [r.answer for r in records]
    chars = sum(len(a) for a in answers)

    # Warm caches and imports once so neither side pays for first use.
    for a in answers[:5]:
        extract_claims(a)

    def sentences_only() -> int:
        from hallmon.verification import sentences

        sentences._split_cached.cache_clear()
        sentences._segment_block.cache_clear()
        return sum(len(split_sentences(a)) for a in answers)

    def claims_full() -> int:
        from hallmon.verification import sentences

        sentences._split_cached.cache_clear()
        sentences._segment_block.cache_clear()
        return sum(len(extract_claims(a).claims) for a in answers)

    t_sent, n_sent = timed(sentences_only, repeat=3)
    t_claims, n_claims = timed(claims_full, repeat=3)

    model_dir = default_model_dir()
    if (model_dir / "manifest.json").is_file():
        model = load_model(ModelSettings(path=model_dir, threads=args.threads))
        model_note = f"shipped model {model.version}"
    else:
        model = OverlapNLI()  # type: ignore[assignment]
        model_note = "NO shipped model: word-overlap stand-in (NLI cost not included)"
    verifier = Verifier(model)

    def baseline_verify() -> int:
        return sum(len(SentenceSupport.of(r).spans) for r in records)

    def hallmon_verify() -> int:
        run = run_verifier(records, verifier)
        return sum(r.counts.total for r in run.results)

    t_base, n_base = timed(baseline_verify)
    t_ver, n_ver = timed(hallmon_verify)

    table = Table(title=f"{len(records)} dev answers ({chars} chars), cpus={os.cpu_count()}")
    for col in ("stage", "units", "seconds", "units/s", "ratio vs baseline"):
        table.add_column(col, justify="right" if col != "stage" else "left")

    def rate(n: int, t: float) -> float:
        return n / t if t else float("inf")

    table.add_row("baseline: split_sentences", f"{n_sent} sentences", f"{t_sent:.3f}",
                  f"{rate(n_sent, t_sent):.0f}", "1.00")  # fmt: skip
    table.add_row("extract_claims", f"{n_claims} claims", f"{t_claims:.3f}",
                  f"{rate(n_claims, t_claims):.0f}",
                  f"{rate(n_claims, t_claims) / rate(n_sent, t_sent):.2f}")  # fmt: skip
    table.add_section()
    table.add_row("baseline: lexical verifier", f"{n_base} sentences", f"{t_base:.3f}",
                  f"{rate(n_base, t_base):.0f}", "1.00")  # fmt: skip
    table.add_row("hallmon verifier", f"{n_ver} claims", f"{t_ver:.3f}",
                  f"{rate(n_ver, t_ver):.1f}",
                  f"{rate(n_ver, t_ver) / rate(n_base, t_base):.3f}")  # fmt: skip
    console.print(table)
    console.print(f"verification: {model_note}; top_k={verifier.top_k}")


if __name__ == "__main__":
    main()
