#!/usr/bin/env bash
# Build the wheel, install it into a fresh virtualenv outside the checkout, and use it from
# there: the CLI starts, `hallmon check` verifies a sample answer with the shipped model (model,
# tokenizer, manifest and calibration come from the wheel), and no generic top-level name
# (schemas, workers, topology, onnx_models, tests) is importable.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-$repo/.venv/bin/python}"
work="$(mktemp -d -t hallmon-wheel-XXXXXX)"
trap 'rm -rf "$work"' EXIT

echo "wheel smoke: building the wheel"
"$python" -m pip wheel -q --no-deps -w "$work/dist" "$repo"
wheel=$(ls "$work"/dist/hallmon-*.whl)
echo "wheel smoke: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
cp "$repo/tests/packaging/sample_answer.json" "$work/answer.json"

cd "$work"   # nothing of the checkout on sys.path
unset PYTHONPATH
"$work/venv/bin/hallmon" --help >/dev/null
"$work/venv/bin/hallmon" check answer.json --json >"$work/verdict.json"
"$work/venv/bin/python" - "$work/verdict.json" <<'PY'
import importlib, json, sys
from pathlib import Path

import hallmon

site = Path(hallmon.__file__).resolve().parent
assert "site-packages" in str(site), f"hallmon imported from {site}, not the installed wheel"
for name in ("schemas", "workers", "topology", "onnx_models", "tests"):
    try:
        importlib.import_module(name)
    except ImportError:
        continue
    sys.exit(f"'import {name}' worked in the installed environment: a generic top-level name leaked")
for data in (
    "onnx_models/nli-minilm-l6/model.onnx",
    "onnx_models/nli-minilm-l6/tokenizer.json",
    "onnx_models/nli-minilm-l6/manifest.json",
    "verification/calibration.json",
    "schemas/json/trace_event.schema.json",
    "serve/static/index.html",
    "serve/static/app.js",
    "serve/static/style.css",
):
    assert (site / data).is_file(), f"{data} is missing from the wheel"
verdict = json.loads(Path(sys.argv[1]).read_text())
assert verdict["state"] == "checked", verdict
assert verdict["claims"], "no claim verdicts"
print(f"wheel smoke: ok (state={verdict['state']}, action={verdict['action']}, "
      f"claims={len(verdict['claims'])})")
PY
