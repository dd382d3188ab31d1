"""Accuracy of an NLI model on ``../shared/data/nli/dev.jsonl.gz`` (onnxruntime; no torch).

    python -m hallmon.onnx_models.training.evaluate onnx_models/nli-minilm-l6 [--onnx-file F]

Figures:

- ``three_way``: accuracy over the three labels on the rows that have three-way gold labels
  (``orig_label != "not_entailment"``);
- ``binary``: entailed vs not entailed (prediction = argmax is entailment) on all rows;
- both overall and per source.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

LABELS = ("entailment", "neutral", "contradiction")
NLI_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "nli" / "dev.jsonl.gz"


def load_dev(path: Path = NLI_DEV) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _acc(hits: list[bool]) -> float:
    return round(sum(hits) / len(hits), 4) if hits else float("nan")


def score(rows: Sequence[dict[str, Any]], logits: np.ndarray) -> dict[str, Any]:
    """Three-way and entailed-vs-not accuracy, overall and per source."""
    pred = logits.argmax(axis=-1)
    three: dict[str, list[bool]] = {}
    binary: dict[str, list[bool]] = {}
    for r, y in zip(rows, pred, strict=True):
        src = str(r["source"])
        gold_entailed = r["label"] == "entailment"
        binary.setdefault(src, []).append(bool((int(y) == 0) == gold_entailed))
        if r["orig_label"] != "not_entailment":
            three.setdefault(src, []).append(bool(LABELS[int(y)] == r["label"]))
    all_three = [h for v in three.values() for h in v]
    all_bin = [h for v in binary.values() for h in v]
    return {
        "three_way_accuracy": _acc(all_three),
        "three_way_rows": len(all_three),
        "binary_accuracy": _acc(all_bin),
        "binary_rows": len(all_bin),
        "per_source": {
            s: {
                "three_way_accuracy": _acc(three.get(s, [])),
                "binary_accuracy": _acc(binary[s]),
                "rows": len(binary[s]),
            }
            for s in sorted(binary)
        },
    }


def report(m: dict[str, Any]) -> str:
    lines = [
        f"three-way accuracy {m['three_way_accuracy']:.4f} "
        f"on {m['three_way_rows']} three-label rows",
        f"entailed-vs-not accuracy {m['binary_accuracy']:.4f} on {m['binary_rows']} rows",
        f"{'source':<26}{'rows':>6}{'3-way':>8}{'binary':>8}",
    ]
    for s, v in m["per_source"].items():
        lines.append(
            f"{s:<26}{v['rows']:>6}{v['three_way_accuracy']:>8.4f}{v['binary_accuracy']:>8.4f}"
        )
    return "\n".join(lines)


class OnnxNli:
    """Minimal onnxruntime + tokenizers wrapper for a model folder with a manifest."""

    def __init__(self, model_dir: Path, onnx_file: str | None = None, threads: int = 2) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        manifest = json.loads((model_dir / "manifest.json").read_text(encoding="utf-8"))
        self.max_length = int(manifest["max_length"])
        self.inputs = list(manifest["inputs"])
        self.tok = Tokenizer.from_file(str(model_dir / manifest["tokenizer_file"]))
        self.tok.no_padding()
        self.tok.enable_truncation(self.max_length, strategy="only_first")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(model_dir / (onnx_file or manifest["onnx_file"])),
            opts,
            providers=["CPUExecutionProvider"],
        )

    def encode(self, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        return list(self.tok.encode_batch(list(pairs)))

    def run_encoded(self, encs: Sequence[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encs)
        feeds = {
            "input_ids": np.zeros((len(encs), width), dtype=np.int64),
            "attention_mask": np.zeros((len(encs), width), dtype=np.int64),
            "token_type_ids": np.zeros((len(encs), width), dtype=np.int64),
        }
        for i, e in enumerate(encs):
            n = len(e.ids)
            feeds["input_ids"][i, :n] = e.ids
            feeds["attention_mask"][i, :n] = 1
            feeds["token_type_ids"][i, :n] = e.type_ids
        out = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})
        return np.asarray(out[0], dtype=np.float32)

    def logits(self, pairs: Sequence[tuple[str, str]], batch_size: int = 64) -> np.ndarray:
        encs = self.encode(pairs)
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = np.zeros((len(encs), 3), dtype=np.float32)
        for s in range(0, len(order), batch_size):
            b = order[s : s + batch_size]
            out[b] = self.run_encoded([encs[i] for i in b])
        return out


def evaluate_onnx(
    model_dir: Path, onnx_file: str | None = None, threads: int = 2
) -> tuple[dict[str, Any], np.ndarray]:
    rows = load_dev()
    nli = OnnxNli(model_dir, onnx_file, threads)
    t = time.time()
    logits = nli.logits([(str(r["premise"]), str(r["hypothesis"])) for r in rows])
    metrics = score(rows, logits)
    metrics["seconds"] = round(time.time() - t, 1)
    return metrics, logits


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("model_dir", type=Path, nargs="?", default=Path("onnx_models/nli-minilm-l6"))
    p.add_argument("--onnx-file", default=None)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path, default=None, help="write the metrics here")
    args = p.parse_args(argv)
    metrics, _ = evaluate_onnx(args.model_dir, args.onnx_file, args.threads)
    print(report(metrics))
    if args.json:
        args.json.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
