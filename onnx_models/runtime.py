"""The NLI seam: (premise, hypothesis) pairs in, entailment/neutral/contradiction out.

`NLIModel` is what the verifier depends on; `OnnxNLIModel` is its onnxruntime + tokenizers
implementation over a model directory described by `manifest.json`:

    {
      "model_id": "hallmon/nli-minilm-l6",
      "labels": ["entailment", "neutral", "contradiction"],   # the model's logits order
      "max_length": 256,
      "onnx_file": "model.int8.onnx",
      "tokenizer_file": "tokenizer.json",
      "sha256": "<hex of the onnx file>",
      "inputs": ["input_ids", "attention_mask", "token_type_ids"],
      "output": "logits"
    }

Any other NLI cross-encoder exported to ONNX works by writing such a manifest (or by passing
the overrides to `from_dir`). Only local files are read: no code path here reaches a model hub.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import onnxruntime as ort
    from tokenizers import Encoding, Tokenizer

__all__ = [
    "LABELS",
    "ModelConfigError",
    "ModelIntegrityError",
    "ModelNotFound",
    "NLIModel",
    "OnnxNLIModel",
    "default_model_dir",
    "file_sha256",
    "resolve_model_dir",
    "softmax",
]

MIN_BUCKET_ROWS = 4
"""Fewest rows in one model call when length bucketing cuts a batch (see `_buckets`)."""

LABELS: tuple[str, str, str] = ("entailment", "neutral", "contradiction")
"""The fixed column order of every `NLIModel.predict` result."""

MODEL_PATH_ENV = "HALLMON_MODEL__PATH"

# Names that exported NLI heads use for the same three classes.
_LABEL_ALIASES = {
    "entailment": "entailment",
    "entail": "entailment",
    "entailed": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradict": "contradiction",
    "contradicted": "contradiction",
}
_KNOWN_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class ModelNotFound(FileNotFoundError):
    """The model directory, its manifest or one of its files is missing."""


class ModelConfigError(ValueError):
    """The manifest or an override is invalid (unknown label, bad length, unknown input)."""


class ModelIntegrityError(ModelConfigError):
    """The ONNX file's sha256 is not the one the manifest promises."""


@runtime_checkable
class NLIModel(Protocol):
    """A cross-encoder over (premise/evidence, hypothesis/claim) pairs."""

    model_id: str
    version: str
    max_length: int

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        """Probabilities, shape (len(pairs), 3), columns in `LABELS` order, rows sum to 1."""
        ...


def default_model_dir() -> Path:
    """Where the shipped model lives (it may not be built yet)."""
    return Path(__file__).parent / "nli-minilm-l6"


def resolve_model_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The model directory to load: `path`, else $HALLMON_MODEL__PATH, else the shipped one.

    Raises `ModelNotFound` saying how to get a model when the directory has no manifest.
    """
    chosen = path if path is not None else os.environ.get(MODEL_PATH_ENV) or default_model_dir()
    model_dir = Path(chosen)
    if not (model_dir / "manifest.json").is_file():
        raise ModelNotFound(
            f"no NLI model at {model_dir} (manifest.json missing). Build the shipped model with "
            f"the training scripts in onnx_models/training/ so that {default_model_dir()} holds "
            f"manifest.json and the ONNX file, or point {MODEL_PATH_ENV} at a directory with an "
            "NLI cross-encoder exported to ONNX and a manifest.json "
            "(see hallmon.onnx_models.runtime for its keys)"
        )
    return model_dir


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def softmax(logits: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float32]:
    """Row-wise softmax, stable for large logits."""
    x = np.asarray(logits, dtype=np.float64)
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    out: npt.NDArray[np.float32] = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def _label_permutation(labels: Sequence[str], where: str) -> list[int]:
    """Column indices into the model's output that give `LABELS` order."""
    canon: list[str] = []
    for name in labels:
        key = _LABEL_ALIASES.get(str(name).strip().lower())
        if key is None:
            raise ModelConfigError(
                f"{where}: label {name!r} is not an NLI label; name the model's three outputs in "
                f"logits order using {', '.join(LABELS)} (e.g. "
                '["contradiction", "entailment", "neutral"])'
            )
        canon.append(key)
    if len(canon) != 3 or sorted(canon) != sorted(LABELS):
        raise ModelConfigError(
            f"{where}: labels {list(labels)} must name each of {', '.join(LABELS)} exactly once, "
            "in the order of the model's logits"
        )
    return [canon.index(label) for label in LABELS]


class OnnxNLIModel:
    """An NLI cross-encoder run by onnxruntime on the CPU, tokenized by `tokenizers`.

    Thread-safe for `predict` (onnxruntime sessions and tokenizers are), so the verifier can call
    it from a thread pool; onnxruntime releases the GIL while it runs.

    `batch_size` is the rows per onnxruntime call. The default 1 makes a pair's probabilities
    independent of the pairs it is batched with: the int8 graph quantizes its activations with
    one scale per call, so a pair batched with others (padding included) scored up to 0.13
    apart from the same pair alone. On one model thread single rows are also as fast as
    length buckets (no padding at all). Larger values bucket rows by length (`_buckets`), which
    may pay on many intra-op threads.
    """

    def __init__(
        self,
        *,
        session: ort.InferenceSession,
        tokenizer: Tokenizer,
        labels: Sequence[str],
        max_length: int,
        model_id: str,
        version: str,
        output: str = "logits",
        batch_size: int = 1,
        pad_id: int | None = None,
        bucket_ratio: float = 1.25,
    ) -> None:
        if max_length < 8:
            raise ModelConfigError(
                f"max_length={max_length} is too small for (premise, claim) pairs; use the "
                "model's trained length, e.g. 256 or 512"
            )
        if batch_size < 1:
            raise ModelConfigError(f"batch_size={batch_size} must be at least 1")
        if bucket_ratio < 1:
            raise ModelConfigError(
                f"bucket_ratio={bucket_ratio} must be at least 1 (the longest row of a model "
                "call over its shortest); use 1.25, or a large value for one call per batch"
            )
        self.bucket_ratio = bucket_ratio
        self.model_id = model_id
        self.version = version
        self.max_length = max_length
        self.batch_size = batch_size
        self.labels = tuple(labels)
        self._perm = _label_permutation(labels, "labels")
        self._session = session

        graph_inputs = {i.name: i.type for i in session.get_inputs()}
        unknown = sorted(set(graph_inputs) - set(_KNOWN_INPUTS))
        if unknown:
            raise ModelConfigError(
                f"the ONNX graph takes inputs {unknown} that this runtime cannot feed; it feeds "
                f"{', '.join(_KNOWN_INPUTS)}. Re-export the model with those inputs only"
            )
        # Read the inputs from the session, not only the manifest: a graph exported without
        # token_type_ids would reject a feed that names it.
        self._inputs = {
            name: np.int32 if graph_inputs[name] == "tensor(int32)" else np.int64
            for name in graph_inputs
        }
        outputs = [o.name for o in session.get_outputs()]
        if output not in outputs:
            raise ModelConfigError(
                f"output {output!r} is not an output of the ONNX graph; it has {outputs}. Set "
                '"output" in manifest.json to the logits output'
            )
        self._output = output

        # Truncate the premise only, so the claim is always judged whole; a claim that alone
        # exceeds the window falls back to the second tokenizer, which trims both.
        self._tokenizer = type(tokenizer).from_str(tokenizer.to_str())
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length, strategy="only_first")
        self._fallback = type(tokenizer).from_str(tokenizer.to_str())
        self._fallback.no_padding()
        self._fallback.enable_truncation(max_length, strategy="longest_first")
        if pad_id is None:
            padding = tokenizer.padding
            pad_id = int(padding["pad_id"]) if padding else None
        if pad_id is None:
            found = tokenizer.token_to_id("[PAD]")
            if found is None:
                found = tokenizer.token_to_id("<pad>")
            pad_id = found if found is not None else 0
        self.pad_id = pad_id

    @classmethod
    def from_dir(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        labels: Sequence[str] | None = None,
        max_length: int | None = None,
        onnx_file: str | None = None,
        tokenizer_file: str | None = None,
        verify_sha256: bool = True,
        intra_op_threads: int | None = None,
        inter_op_threads: int = 1,
        batch_size: int = 1,
        allow_spinning: bool = False,
    ) -> OnnxNLIModel:
        """Load a model directory; arguments override the manifest's keys.

        `path=None` loads $HALLMON_MODEL__PATH or the shipped model. `intra_op_threads=None`
        lets onnxruntime use one thread per core; set it when the process shares the machine.
        `allow_spinning=False` keeps idle onnxruntime threads from busy-waiting on a core that
        other work (Kafka consumers, other models) needs.
        """
        model_dir = resolve_model_dir(path)
        manifest_path = model_dir / "manifest.json"
        try:
            manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ModelConfigError(f"{manifest_path} is not valid JSON: {exc}") from exc
        if not isinstance(manifest, dict):
            raise ModelConfigError(f"{manifest_path} must hold a JSON object")

        def key(name: str, override: Any) -> Any:
            if override is not None:
                return override
            if name not in manifest:
                raise ModelConfigError(
                    f"{manifest_path} has no {name!r}; add it or pass {name}= to from_dir"
                )
            return manifest[name]

        onnx_path = model_dir / str(key("onnx_file", onnx_file))
        tokenizer_path = model_dir / str(key("tokenizer_file", tokenizer_file))
        for what, file in (("onnx_file", onnx_path), ("tokenizer_file", tokenizer_path)):
            if not file.is_file():
                raise ModelNotFound(
                    f"{what} {file} named by {manifest_path} does not exist; rebuild the model "
                    "directory or fix the manifest"
                )
        model_labels = list(key("labels", labels))
        _label_permutation(model_labels, f"{manifest_path} labels")
        try:
            length = int(key("max_length", max_length))
        except (TypeError, ValueError) as exc:
            raise ModelConfigError(f"{manifest_path}: max_length must be an integer") from exc

        expected = manifest.get("sha256")
        if verify_sha256:
            if not expected:
                raise ModelIntegrityError(
                    f"{manifest_path} has no 'sha256' for {onnx_path.name}; add it, or load with "
                    "verify_sha256=False if you trust the file"
                )
            actual = file_sha256(onnx_path)
            if actual != str(expected).lower():
                raise ModelIntegrityError(
                    f"{onnx_path} has sha256 {actual}, but {manifest_path} says {expected}: the "
                    "file was changed or the manifest is stale. Re-export the model or update the "
                    "manifest; verify_sha256=False skips this check"
                )
            digest = actual
        else:
            digest = str(expected) if expected else "unverified"

        # Imported here, not at the top: processes that only prepare answers (the verifier's
        # budget processes) import this module for its types and would pay ~20 MB for nothing.
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = max(0, intra_op_threads or 0)
        options.inter_op_num_threads = max(1, inter_op_threads)
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry(
            "session.intra_op.allow_spinning", "1" if allow_spinning else "0"
        )
        session = ort.InferenceSession(
            str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        model_id = str(manifest.get("model_id") or model_dir.name)
        return cls(
            session=session,
            tokenizer=Tokenizer.from_file(str(tokenizer_path)),
            labels=model_labels,
            max_length=length,
            model_id=model_id,
            version=f"{model_id}@{digest[:12]}",
            output=str(manifest.get("output") or "logits"),
            batch_size=batch_size,
            pad_id=manifest.get("pad_id"),
        )

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        encodings = self._encode(pairs)
        probs = np.empty((len(encodings), 3), dtype=np.float32)
        for rows in self._buckets([len(e.ids) for e in encodings]):
            logits = self._run([encodings[i] for i in rows])
            probs[rows] = softmax(logits)[:, self._perm]
        return probs

    def _buckets(self, lengths: Sequence[int]) -> list[list[int]]:
        """Row groups of similar token length, so little compute goes to padding.

        Rows sorted by length are cut where the next row is longer than `bucket_ratio` × the
        group's shortest (and every `batch_size` rows). A cut costs one more model call, so a
        group keeps at least `MIN_BUCKET_ROWS` rows. On the benchmark answers (15-75 tokens)
        this padded 1.66× the real tokens with one call per 32 pairs and 1.10× with
        ratio 1.25, and ran the same pairs in about half the time.
        """
        order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
        groups: list[list[int]] = []
        current: list[int] = []
        for i in order:
            full = len(current) >= self.batch_size
            spread = current and lengths[i] > self.bucket_ratio * lengths[current[0]]
            if full or (spread and len(current) >= MIN_BUCKET_ROWS):
                groups.append(current)
                current = []
            current.append(i)
        if current:
            groups.append(current)
        return groups

    def _encode(self, pairs: Sequence[tuple[str, str]]) -> list[Encoding]:
        batch = [(str(premise), str(hypothesis)) for premise, hypothesis in pairs]
        try:
            return list(self._tokenizer.encode_batch(batch))
        except Exception:
            # only_first cannot fit a hypothesis longer than the window; find those pairs.
            return [self._encode_one(p) for p in batch]

    def _encode_one(self, pair: tuple[str, str]) -> Encoding:
        try:
            return self._tokenizer.encode(*pair)
        except Exception:
            return self._fallback.encode(*pair)

    def _run(self, encodings: Sequence[Encoding]) -> npt.NDArray[np.float32]:
        width = max(len(e.ids) for e in encodings)
        n = len(encodings)
        ids = np.full((n, width), self.pad_id, dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.int64)
        types = np.zeros((n, width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            length = len(enc.ids)
            ids[row, :length] = enc.ids
            mask[row, :length] = 1
            types[row, :length] = enc.type_ids
        available = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        feeds = {name: available[name].astype(dtype) for name, dtype in self._inputs.items()}
        (logits,) = self._session.run([self._output], feeds)
        out = np.asarray(logits, dtype=np.float32)
        if out.ndim != 2 or out.shape != (n, 3):
            raise ModelConfigError(
                f"output {self._output!r} has shape {out.shape}, expected ({n}, 3): this is not "
                "a 3-way NLI head; set 'output' in manifest.json to the logits output"
            )
        return out

    def __repr__(self) -> str:
        return (
            f"OnnxNLIModel(version={self.version!r}, labels={self.labels}, "
            f"max_length={self.max_length}, batch_size={self.batch_size})"
        )
