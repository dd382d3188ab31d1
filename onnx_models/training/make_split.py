"""Fixed split of the RAGTruth dev file by source document.

`train` (40% of sources) may be used to fine-tune the NLI model; `calib` (30%) calibrates
thresholds; `test` (30%) is only ever reported on. Split by `meta.ragtruth_source_id` so no
source document sits in two parts. Regenerate with
`python -m hallmon.onnx_models.training.make_split ../shared/data/dev/ragtruth_dev.jsonl`;
the output is committed and must not change.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 20261129
FRACTIONS = {"train": 0.4, "calib": 0.3}
SPLIT_PATH = Path(__file__).with_name("ragtruth_split.json")


def make_split(dev_path: Path) -> dict[str, list[str]]:
    rows = [json.loads(line) for line in dev_path.read_text(encoding="utf-8").splitlines() if line]
    sources = sorted({r["meta"]["ragtruth_source_id"] for r in rows})
    random.Random(SEED).shuffle(sources)
    n_train = round(len(sources) * FRACTIONS["train"])
    n_calib = round(len(sources) * FRACTIONS["calib"])
    part_of = {s: "train" for s in sources[:n_train]}
    part_of.update({s: "calib" for s in sources[n_train : n_train + n_calib]})
    part_of.update({s: "test" for s in sources[n_train + n_calib :]})
    split: dict[str, list[str]] = {"train": [], "calib": [], "test": []}
    for r in rows:
        split[part_of[r["meta"]["ragtruth_source_id"]]].append(r["id"])
    return {k: sorted(v) for k, v in split.items()}


def load_split() -> dict[str, list[str]]:
    """The committed split: {"train": [...ids], "calib": [...], "test": [...]}."""
    data: dict[str, list[str]] = json.loads(SPLIT_PATH.read_text(encoding="utf-8"))["ids"]
    return data


def main() -> None:
    dev_path = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/dev/ragtruth_dev.jsonl")
    split = make_split(dev_path)
    payload = {
        "seed": SEED,
        "by": "meta.ragtruth_source_id",
        "fractions": {**FRACTIONS, "test": 0.3},
        "counts": {k: len(v) for k, v in split.items()},
        "ids": split,
    }
    SPLIT_PATH.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(payload["counts"])


if __name__ == "__main__":
    main()
