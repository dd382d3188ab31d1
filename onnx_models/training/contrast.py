"""The contrast set: minimal pairs that measure what an NLI model gets wrong on agent answers.

Each item is one entailed (premise, hypothesis) row of ``../shared/data/nli/dev.jsonl.gz`` and
one alteration of its hypothesis, so the same claim is judged supported and altered:

| kind | alteration | the altered claim should be |
|---|---|---|
| ``negation`` | an inserted "not" / "does not" | not entailed (contradiction) |
| ``no_longer`` | "is" -> "is no longer", "are" -> "are no longer" | not entailed |
| ``not_covered`` | "... is not covered by the policy" style exception | not entailed |
| ``number`` | a number the premise states, changed | not entailed (contradiction) |
| ``date`` | a month or year the premise states, changed | not entailed (contradiction) |
| ``entity_swap`` | two names the premise states, swapped | not entailed |
| ``added_clause`` | ", and"/", but"/", which" + an unsupported clause | not entailed |
| ``commitment`` | an appended promise or exception ("We will make an exception") | not entailed |
| ``unrelated_number`` | a sentence with a number on an unrelated topic | neutral |

The committed manifest (``tests/benchmarks/contrast_set.json``) keeps only row numbers, kinds and
the dev file's sha256, never the text: every item is rebuilt here from the shared file, with a
seed per item, so the set is the same on every machine and nothing of ../shared is copied.

    python -m hallmon.onnx_models.training.contrast build     # rewrite the manifest
    python -m hallmon.onnx_models.training.contrast score [MODEL_DIR]   # accuracy per kind
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hallmon.onnx_models.training.data import NLI_DEV, read_jsonl
from hallmon.onnx_models.training.hard_cases import HELD_OUT, KINDS, alter

MANIFEST = Path(__file__).resolve().parents[2] / "tests" / "benchmarks" / "contrast_set.json"
SEED = 20261130
PER_KIND = 60  # 9 kinds x 60 = 540 minimal pairs (the issue asks for at least 400)


@dataclass(frozen=True)
class Pair:
    row: int
    kind: str
    premise: str
    supported: str
    altered: str
    expected: str  # "not_entailed" | "neutral"


def _item_rng(row: int, kind: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{row}:{kind}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _rows(path: Path) -> list[dict[str, Any]]:
    return [dict(r) for r in read_jsonl(path)]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_pair(row_no: int, row: dict[str, Any], kind: str, seed: int) -> Pair | None:
    premise, hyp = str(row["premise"]), str(row["hypothesis"])
    altered = alter(kind, hyp, premise, _item_rng(row_no, kind, seed), HELD_OUT)
    if altered is None:
        return None
    expected = "neutral" if kind == "unrelated_number" else "not_entailed"
    return Pair(row_no, kind, premise, hyp, altered, expected)


def build(path: Path = NLI_DEV, seed: int = SEED, per_kind: int = PER_KIND) -> dict[str, Any]:
    """Choose rows per kind: entailed, three-way-labelled, short hypotheses, one kind per row."""
    rows = _rows(path)
    eligible = [
        i
        for i, r in enumerate(rows)
        if r["label"] == "entailment"
        and r.get("orig_label") != "not_entailment"
        and len(str(r["hypothesis"]).split()) <= 30
        and len(str(r["premise"]).split()) <= 120
    ]
    random.Random(seed).shuffle(eligible)
    used: set[int] = set()
    items: list[dict[str, Any]] = []
    for kind in KINDS:
        made = 0
        for i in eligible:
            if made >= per_kind:
                break
            if i in used or make_pair(i, rows[i], kind, seed) is None:
                continue
            used.add(i)
            items.append({"row": i, "kind": kind})
            made += 1
    return {"source": "nli/dev.jsonl.gz", "sha256": _sha256(path), "seed": seed, "items": items}


def load(path: Path = NLI_DEV, manifest: Path = MANIFEST) -> list[Pair]:
    spec = json.loads(manifest.read_text(encoding="utf-8"))
    if _sha256(path) != spec["sha256"]:
        raise SystemExit(
            f"{path} is not the file the contrast set was built from (sha256 differs): rebuild "
            "it with `python -m hallmon.onnx_models.training.contrast build` and commit it"
        )
    rows = _rows(path)
    pairs = [
        make_pair(it["row"], rows[it["row"]], it["kind"], spec["seed"]) for it in spec["items"]
    ]
    return [p for p in pairs if p is not None]


def score(pairs: Sequence[Pair], predict: Callable[[list[tuple[str, str]]], Any]) -> dict[str, Any]:
    """Per kind: the altered claim judged right, the supported claim judged entailed, both."""
    import numpy as np

    probs = np.asarray(
        predict([(p.premise, p.supported) for p in pairs] + [(p.premise, p.altered) for p in pairs])
    )
    n = len(pairs)
    labels = probs.argmax(axis=-1)  # entailment, neutral, contradiction
    out: dict[str, Any] = {}
    for kind in KINDS:
        idx = [i for i, p in enumerate(pairs) if p.kind == kind]
        if not idx:
            continue
        sup = [labels[i] == 0 for i in idx]
        alt = [
            (labels[n + i] == 1) if pairs[i].expected == "neutral" else (labels[n + i] != 0)
            for i in idx
        ]
        out[kind] = {
            "pairs": len(idx),
            "altered_right": round(float(np.mean(alt)), 4),
            "supported_right": round(float(np.mean(sup)), 4),
            "both_right": round(
                float(np.mean([a and s for a, s in zip(alt, sup, strict=True)])), 4
            ),
        }
    alt_all = [v["altered_right"] * v["pairs"] for v in out.values()]
    out["all"] = {
        "pairs": n,
        "altered_right": round(sum(alt_all) / n, 4),
        "supported_right": round(float(np.mean(labels[:n] == 0)), 4),
    }
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build", help="rewrite tests/benchmarks/contrast_set.json")
    s = sub.add_parser("score", help="accuracy per kind of an ONNX model folder")
    s.add_argument("model_dir", type=Path, nargs="?", default=None)
    s.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = p.parse_args(argv)
    if args.cmd == "build":
        spec = build()
        MANIFEST.write_text(json.dumps(spec, indent=0) + "\n", encoding="utf-8")
        print(f"wrote {MANIFEST} ({len(spec['items'])} minimal pairs)")
        return
    from hallmon.onnx_models.runtime import OnnxNLIModel, default_model_dir

    model = OnnxNLIModel.from_dir(args.model_dir or default_model_dir())
    pairs = load()
    figures = score(pairs, model.predict)
    print(f"contrast set, model {model.version}: {len(pairs)} minimal pairs")
    print(f"{'kind':<18}{'pairs':>6}{'altered':>9}{'supported':>11}{'both':>7}")
    for kind, v in figures.items():
        both = f"{v['both_right']:>7.3f}" if "both_right" in v else ""
        print(
            f"{kind:<18}{v['pairs']:>6}{v['altered_right']:>9.3f}{v['supported_right']:>11.3f}{both}"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
