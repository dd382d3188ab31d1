"""Rebuild a trainable checkpoint from a shipped int8 ONNX model (the ``train`` extra).

The shipped model is the only copy of its weights (training runs are not committed), so a
further training stage starts from its int8 weights, dequantized: ``(w_q - zero_point) *
scale`` per output channel, transposed back to PyTorch's ``[out, in]``. Biases and layer norms
were never quantized. The rebuilt model agrees with the int8 graph on the NLI dev set's argmax
(printed); the next stage's fine-tuning absorbs the rounding.

    python -m hallmon.onnx_models.training.dequantize --model-dir onnx_models/nli-minilm-l6 \\
        --out-dir onnx_models/training/runs/shipped
    python -m hallmon.onnx_models.training.train --init-from onnx_models/training/runs/shipped \\
        --mix v3_patch --run-dir onnx_models/training/runs/v3_patch

Only graphs exported by ``export.py`` from a BERT-style model are understood (node names carry
the module paths); anything else is refused with the names it could not place.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

_MATMUL_NODE = re.compile(r"^/inner/(?P<path>.+)/(?:Gemm_)?MatMul_quant$")


def _array(init: Any) -> np.ndarray:
    from onnx import numpy_helper

    return numpy_helper.to_array(init)


def _dequant(q: np.ndarray, scale: np.ndarray, zero: np.ndarray, axis: int) -> np.ndarray:
    q = q.astype(np.float32)
    if scale.ndim == 0 or scale.size == 1:
        return (q - zero.astype(np.float32)) * scale.astype(np.float32)
    shape = [1] * q.ndim
    shape[axis] = scale.size
    return (q - zero.astype(np.float32).reshape(shape)) * scale.astype(np.float32).reshape(shape)


def state_dict_from_onnx(path: Path) -> dict[str, np.ndarray]:
    """PyTorch parameter name -> fp32 array, from an int8 graph written by ``export.py``."""
    import onnx

    model = onnx.load(str(path))
    inits = {i.name: i for i in model.graph.initializer}
    consumers: dict[str, str] = {}
    for node in model.graph.node:
        if node.op_type == "MatMulInteger":
            consumers[node.input[1]] = node.name
    out: dict[str, np.ndarray] = {}
    unplaced: list[str] = []
    for name, init in inits.items():
        if name.endswith(("_scale", "_zero_point")):
            continue
        if name.endswith("_quantized"):
            stem = name[: -len("_quantized")]
            scale = _array(inits[f"{stem}_scale"])
            zero = _array(inits[f"{stem}_zero_point"])
            q = _array(init)
            if stem.startswith("inner.") and stem.endswith(".weight_Transposed"):
                # A Gemm weight stored as [in, out]: dequantize per output column, transpose.
                key = stem[len("inner.") : -len("_Transposed")]
                out[key] = _dequant(q, scale, zero, axis=1).T.copy()
            elif stem.startswith("inner.") and stem.endswith(".weight"):
                # An embedding table, quantized per row or per column.
                axis = 0 if scale.size == q.shape[0] and scale.size != q.shape[1] else 1
                out[stem[len("inner.") :]] = _dequant(q, scale, zero, axis=axis)
            elif name in consumers and (m := _MATMUL_NODE.match(consumers[name])):
                key = m.group("path").replace("/", ".") + ".weight"
                out[key] = _dequant(q, scale, zero, axis=1).T.copy()
            else:
                unplaced.append(name)
        elif name.startswith("inner."):
            out[name[len("inner.") :]] = _array(init).astype(np.float32)
    if unplaced:
        raise SystemExit(f"{path}: cannot place the quantized weights {unplaced[:5]}")
    return out


def rebuild(model_dir: Path, out_dir: Path, base: Path) -> Path:
    """Write a transformers checkpoint of the int8 model in ``model_dir`` to ``out_dir``."""
    import torch
    from transformers import AutoModelForSequenceClassification

    manifest = json.loads((model_dir / "manifest.json").read_text(encoding="utf-8"))
    labels = list(manifest["labels"])
    weights = state_dict_from_onnx(model_dir / manifest.get("onnx_file", "model.onnx"))
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base),
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={n: i for i, n in enumerate(labels)},
    )
    own = model.state_dict()
    missing = [k for k in own if k not in weights and not k.endswith("position_ids")]
    extra = [k for k in weights if k not in own]
    if missing or extra:
        raise SystemExit(f"the graph does not match the base model: missing {missing[:5]}, "
                         f"unknown {extra[:5]}")  # fmt: skip
    for k, v in weights.items():
        if tuple(own[k].shape) != v.shape:
            raise SystemExit(
                f"{k}: shape {v.shape} in the graph, {tuple(own[k].shape)} in the base"
            )
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    (out_dir / "tokenizer.json").write_bytes(
        (model_dir / manifest.get("tokenizer_file", "tokenizer.json")).read_bytes()
    )
    meta = {
        "dequantized_from": f"{manifest['model_id']}@{manifest['sha256'][:12]}",
        "prior_training_data": manifest.get("training_data", []),
        "base_model_version": manifest.get("base_model", ""),
    }
    (out_dir / "training_meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return out_dir


def agreement(model_dir: Path, checkpoint: Path, rows: int = 800) -> float:
    """Argmax agreement of the rebuilt fp32 model with the int8 graph on NLI dev pairs."""
    import torch
    from hallmon.onnx_models.runtime import OnnxNLIModel
    from hallmon.onnx_models.training.data import NLI_DEV, read_jsonl
    from hallmon.onnx_models.training.train import load_tokenizer, predict
    from transformers import AutoModelForSequenceClassification

    pairs = [(str(r["premise"]), str(r["hypothesis"])) for r in read_jsonl(NLI_DEV)][:rows]
    onnx = OnnxNLIModel.from_dir(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(str(checkpoint))
    tok = load_tokenizer(checkpoint / "tokenizer.json", onnx.max_length)
    with torch.no_grad():
        logits = predict(model, tok.encode_batch(pairs))
    return float((logits.argmax(-1) == np.asarray(onnx.predict(pairs)).argmax(-1)).mean())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model-dir", type=Path, default=Path("onnx_models/nli-minilm-l6"))
    p.add_argument("--out-dir", type=Path, default=Path("onnx_models/training/runs/shipped"))
    p.add_argument("--base", default="minilm", help="the architecture's base model (see train.py)")
    args = p.parse_args(argv)
    from hallmon.onnx_models.training.train import resolve_base

    out = rebuild(args.model_dir, args.out_dir, resolve_base(args.base))
    print(f"wrote {out}; argmax agreement with the int8 graph: "
          f"{agreement(args.model_dir, out):.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
