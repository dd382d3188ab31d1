"""OnnxNLIModel against a tiny hand-built ONNX graph and word-level tokenizer.

The graph's logits are counts: column 0 counts "yes" tokens, column 1 "maybe", column 2 "no"
(padding is weighted heavily, so a run that fails to mask it shows). That makes the label
mapping, batching order and truncation visible in the probabilities.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from hallmon.onnx_models.runtime import (
    LABELS,
    ModelConfigError,
    ModelIntegrityError,
    ModelNotFound,
    NLIModel,
    OnnxNLIModel,
    default_model_dir,
    file_sha256,
    resolve_model_dir,
    softmax,
)
from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, pre_tokenizers, processors

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "yes", "maybe", "no", "filler", "the", "order"]
IDS = {tok: i for i, tok in enumerate(VOCAB)}


def build_graph(path: Path, *, with_token_types: bool = False) -> None:
    table = np.zeros((len(VOCAB), 3), dtype=np.float32)
    table[IDS["yes"], 0] = 1.0
    table[IDS["maybe"], 1] = 1.0
    table[IDS["no"], 2] = 1.0
    table[IDS["[PAD]"]] = [100.0, -100.0, 50.0]  # only harmless when masked out
    inits = [
        helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten().tolist()),
        helper.make_tensor("axis1", TensorProto.INT64, [1], [1]),
        helper.make_tensor("axis2", TensorProto.INT64, [1], [2]),
        helper.make_tensor("neutral_dir", TensorProto.FLOAT, [3], [0.0, 1.0, 0.0]),
    ]
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["emb"], axis=0),
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "axis2"], ["mask3"]),
        helper.make_node("Mul", ["emb", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis1"], ["counts"], keepdims=0),
    ]
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
    ]
    if with_token_types:
        # neutral += number of second-segment tokens: shows token_type_ids are fed right.
        inputs.append(
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
        )
        nodes += [
            helper.make_node("Cast", ["token_type_ids"], ["typesf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["typesf", "maskf"], ["types_masked"]),
            helper.make_node("ReduceSum", ["types_masked", "axis1"], ["ntypes"], keepdims=1),
            helper.make_node("Mul", ["ntypes", "neutral_dir"], ["type_bonus"]),
            helper.make_node("Add", ["counts", "type_bonus"], ["logits"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["counts"], ["logits"]))
    graph = helper.make_graph(
        nodes,
        "tiny_nli",
        inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def build_tokenizer(path: Path) -> None:
    tok = Tokenizer(models.WordLevel({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", IDS["[CLS]"]), ("[SEP]", IDS["[SEP]"])],
    )
    tok.save(str(path))


def make_model_dir(
    root: Path,
    *,
    labels: list[str] | None = None,
    max_length: int = 64,
    with_token_types: bool = False,
    sha256: str | None = None,
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    build_graph(root / "model.onnx", with_token_types=with_token_types)
    build_tokenizer(root / "tokenizer.json")
    inputs = ["input_ids", "attention_mask"] + (["token_type_ids"] if with_token_types else [])
    manifest = {
        "model_id": "test/tiny-nli",
        "labels": labels or ["entailment", "neutral", "contradiction"],
        "max_length": max_length,
        "onnx_file": "model.onnx",
        "tokenizer_file": "tokenizer.json",
        "sha256": sha256 or file_sha256(root / "model.onnx"),
        "inputs": inputs,
        "output": "logits",
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def expected(yes: float, maybe: float, no: float) -> np.ndarray:
    row: np.ndarray = softmax(np.array([[yes, maybe, no]], dtype=np.float32))[0]
    return row


def test_predict_shape_order_and_protocol(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m"))
    assert isinstance(model, NLIModel)
    assert model.model_id == "test/tiny-nli"
    assert model.version.startswith("test/tiny-nli@") and len(model.version.split("@")[1]) == 12
    probs = model.predict([("yes yes", "the order"), ("the", "no")])
    assert probs.shape == (2, 3) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(probs[0], expected(2, 0, 0), rtol=1e-5)
    np.testing.assert_allclose(probs[1], expected(0, 0, 1), rtol=1e-5)
    assert model.predict([]).shape == (0, 3)


def test_label_order_is_remapped_to_entailment_neutral_contradiction(tmp_path: Path) -> None:
    # This model's column 0 ("yes") means contradiction, column 1 entailment, column 2 neutral.
    model_dir = make_model_dir(tmp_path / "m", labels=["contradiction", "entailment", "neutral"])
    model = OnnxNLIModel.from_dir(model_dir)
    yes, maybe, no = model.predict([("yes yes yes", "x"), ("maybe maybe maybe", "x"), ("no", "no")])
    assert LABELS[int(np.argmax(yes))] == "contradiction"
    assert LABELS[int(np.argmax(maybe))] == "entailment"
    assert LABELS[int(np.argmax(no))] == "neutral"
    # Raw logits [0, 0, 2] in model order -> (entailment=0, neutral=2, contradiction=0).
    np.testing.assert_allclose(no, expected(0, 2, 0), rtol=1e-5)


def test_label_override_and_aliases(tmp_path: Path) -> None:
    model_dir = make_model_dir(tmp_path / "m")
    model = OnnxNLIModel.from_dir(model_dir, labels=["CONTRADICTION", "entail", "Neutral"])
    (row,) = model.predict([("yes", "x")])
    assert LABELS[int(np.argmax(row))] == "contradiction"


def test_bucketing_restores_input_order_and_padding_is_masked(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m"), batch_size=2)
    pairs = [
        ("filler " * 9 + "yes", "no"),
        ("yes yes yes", "the"),
        ("maybe", "no no no no"),
        ("filler " * 3, "maybe maybe"),
        ("yes", "yes"),
    ]
    want = [(1, 0, 1), (3, 0, 0), (0, 1, 4), (0, 2, 0), (2, 0, 0)]
    got = model.predict(pairs)
    for row, counts in zip(got, want, strict=True):
        np.testing.assert_allclose(row, expected(*counts), rtol=1e-5)
    one_by_one = np.vstack([model.predict([p]) for p in pairs])
    np.testing.assert_allclose(got, one_by_one, rtol=1e-6)


def test_truncation_cuts_the_premise_and_keeps_the_hypothesis(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m", max_length=12))
    # [CLS] premise [SEP] 6 x "no" [SEP] = 12 tokens leaves 3 premise tokens.
    (row,) = model.predict([("yes " * 20, "no " * 6)])
    np.testing.assert_allclose(row, expected(3, 0, 6), rtol=1e-5)


def test_hypothesis_longer_than_the_window_does_not_crash(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m", max_length=12))
    probs = model.predict([("yes", "no " * 40), ("yes yes", "no")])
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs[1], expected(2, 0, 1), rtol=1e-5)
    assert LABELS[int(np.argmax(probs[0]))] == "contradiction"


def test_token_type_ids_are_fed_when_the_graph_takes_them(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m", with_token_types=True))
    (row,) = model.predict([("yes", "no the")])
    # second segment: "no", "the", [SEP] -> neutral += 3
    np.testing.assert_allclose(row, expected(1, 3, 1), rtol=1e-5)


def test_thread_settings_are_applied(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(
        make_model_dir(tmp_path / "m"), intra_op_threads=1, inter_op_threads=1, batch_size=4
    )
    options = model._session.get_session_options()
    assert options.intra_op_num_threads == 1
    assert options.inter_op_num_threads == 1
    assert model._session.get_providers() == ["CPUExecutionProvider"]
    assert model.predict([("yes", "no")]).shape == (1, 3)


def test_sha256_mismatch_is_refused_unless_skipped(tmp_path: Path) -> None:
    model_dir = make_model_dir(tmp_path / "m", sha256="0" * 64)
    with pytest.raises(ModelIntegrityError, match="sha256"):
        OnnxNLIModel.from_dir(model_dir)
    model = OnnxNLIModel.from_dir(model_dir, verify_sha256=False)
    assert model.version == "test/tiny-nli@000000000000"


def test_missing_manifest_says_how_to_get_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ModelNotFound, match="HALLMON_MODEL__PATH"):
        OnnxNLIModel.from_dir(tmp_path / "nowhere")
    monkeypatch.setenv("HALLMON_MODEL__PATH", str(make_model_dir(tmp_path / "env")))
    assert resolve_model_dir() == tmp_path / "env"
    assert default_model_dir().name == "nli-minilm-l6"


def test_missing_files_and_bad_manifest_are_named(tmp_path: Path) -> None:
    model_dir = make_model_dir(tmp_path / "m")
    (model_dir / "tokenizer.json").unlink()
    with pytest.raises(ModelNotFound, match="tokenizer_file"):
        OnnxNLIModel.from_dir(model_dir)
    with pytest.raises(ModelNotFound, match="onnx_file"):
        OnnxNLIModel.from_dir(model_dir, onnx_file="other.onnx")


def test_unknown_label_names_are_refused(tmp_path: Path) -> None:
    model_dir = make_model_dir(tmp_path / "m", labels=["LABEL_0", "LABEL_1", "LABEL_2"])
    with pytest.raises(ModelConfigError, match="'LABEL_0' is not an NLI label"):
        OnnxNLIModel.from_dir(model_dir)
    with pytest.raises(ModelConfigError, match="exactly once"):
        OnnxNLIModel.from_dir(model_dir, labels=["entailment", "entailment", "neutral"])


def test_wrong_output_name_is_refused(tmp_path: Path) -> None:
    model_dir = make_model_dir(tmp_path / "m")
    manifest = json.loads((model_dir / "manifest.json").read_text())
    manifest["output"] = "scores"
    (model_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelConfigError, match="'scores' is not an output"):
        OnnxNLIModel.from_dir(model_dir)


def test_length_buckets_cut_where_padding_would_grow(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m"), batch_size=32)
    lengths = [10, 40, 11, 12, 41, 12, 13, 50, 42, 60, 10]
    groups = model._buckets(lengths)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert [[lengths[i] for i in g] for g in groups] == [
        [10, 10, 11, 12, 12],  # 13 > 1.25 x 10: cut
        [13, 40, 41, 42],  # 40 > 1.25 x 13, but a call keeps at least MIN_BUCKET_ROWS rows
        [50, 60],
    ]
    # batch_size still caps a call; bucket_ratio < 1 is refused with the fix.
    capped = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "c"), batch_size=2)
    assert max(len(g) for g in capped._buckets(lengths)) == 2
    with pytest.raises(ModelConfigError, match=r"bucket_ratio=0\.5 must be at least 1"):
        OnnxNLIModel(
            session=model._session,
            tokenizer=model._tokenizer,
            labels=model.labels,
            max_length=64,
            model_id="m",
            version="v",
            bucket_ratio=0.5,
        )


def test_one_row_per_call_is_the_default(tmp_path: Path) -> None:
    model = OnnxNLIModel.from_dir(make_model_dir(tmp_path / "m"))
    assert model.batch_size == 1
    assert model._buckets([5, 3, 9]) == [[1], [0], [2]]
