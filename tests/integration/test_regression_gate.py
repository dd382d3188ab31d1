"""Regression gate: the shipped model + committed calibration on frozen calib samples.

100 ids from the `calib` split (tests/regression/gate_ids.json; the `test` split is for
reporting only, so nothing is ever tuned against it, not even a gate) and the `calib` part of
the agent-trace set (tests/agent_traces) are verified end to end; the answer-level F1 of the
unsupported class, and the agent-trace accuracy, may not fall below the committed baseline
(tests/regression/gate_baseline.json) minus `TOLERANCE`. Every verdict must also be
self-consistent (`hallmon.verification.consistency`).

Until the shipped model exists the gate cannot run: under CI=true it FAILS saying it is waiting
for the shipped model (a skipped gate would read as a passed one); on a developer's machine it
skips with that reason. The same holds for the dev file (../shared/data/dev/ragtruth_dev.jsonl,
at the same place relative to the repository in CI) and for the baseline file.

Refresh the baseline only on purpose (a better model or calibration), with
`python tests/integration/test_regression_gate.py --write-baseline`, and say why in the commit.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
# Beside the repository in CI; HALLMON_RAGTRUTH_DEV points elsewhere (a git worktree).
DEV = Path(
    os.environ.get("HALLMON_RAGTRUTH_DEV")
    or REPO.parent / "shared" / "data" / "dev" / "ragtruth_dev.jsonl"
)
GATE_IDS = REPO / "tests" / "regression" / "gate_ids.json"
BASELINE = REPO / "tests" / "regression" / "gate_baseline.json"
AGENT_TRACES = REPO / "tests" / "agent_traces" / "agent_traces.jsonl"
TOLERANCE = 0.03

pytestmark = pytest.mark.model


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _cannot_run(reason: str) -> NoReturn:
    if _in_ci():
        pytest.fail(f"regression gate cannot run under CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


def run_gate() -> dict[str, Any]:
    """Verify the gate sample; the figures as a dict (also what --write-baseline stores)."""
    from hallmon.onnx_models.runtime import default_model_dir

    from hallmon.verification.consistency import violations
    from hallmon.verification.eval import load_records, report, run_verifier, verifier_prediction
    from hallmon.verification.verifier import Verifier, load_model

    ids = json.loads(GATE_IDS.read_text(encoding="utf-8"))["ids"]
    wanted = set(ids)
    records = [r for r in load_records(DEV) if r.id in wanted]
    if len(records) != len(ids):
        raise AssertionError(
            f"{DEV} holds {len(records)} of the {len(ids)} gate ids: the dev file changed"
        )
    from hallmon.topology.settings import ModelSettings

    verifier = Verifier(load_model(ModelSettings(path=default_model_dir())))
    run = run_verifier(records, verifier)
    preds = [
        verifier_prediction(r, res, ("warn", "block"))
        for r, res in zip(records, run.results, strict=True)
    ]
    rep = report("hallmon", records, preds)
    agent = [r for r in load_records(AGENT_TRACES) if r.split == "calib"]
    agent_run = run_verifier(agent, verifier)
    agent_right = sum(
        (res.action in ("warn", "block")) == r.unsupported
        for r, res in zip(agent, agent_run.results, strict=True)
    )
    inconsistent = [
        f"{r.id}: {found}"
        for r, res in zip([*records, *agent], [*run.results, *agent_run.results], strict=True)
        if (found := violations(res, verifier.risk_config))
    ]
    return {
        "agent_accuracy": round(agent_right / len(agent), 4),
        "agent_n": len(agent),
        "inconsistent": inconsistent,
        "f1": round(rep.overall.f1, 4),
        "precision": round(rep.overall.precision, 4),
        "recall": round(rep.overall.recall, 4),
        "balanced_accuracy": round(rep.overall.balanced_accuracy, 4),
        "span_f1": round(rep.span.f1, 4),
        "n": len(records),
        "model_versions": verifier.model_versions(),
    }


def test_calibration_was_fitted_with_the_shipped_model() -> None:
    """Combiner weights are fitted to one model's probabilities; another model needs a refit."""
    from hallmon.onnx_models.runtime import OnnxNLIModel, default_model_dir

    from hallmon.verification.calibration import load_calibration

    model_dir = default_model_dir()
    if not (model_dir / "manifest.json").is_file():
        _cannot_run(f"waiting for the shipped model: {model_dir}/manifest.json does not exist yet")
    fitted_with = load_calibration()[0].fitted.get("nli")
    shipped = OnnxNLIModel.from_dir(model_dir).version
    assert fitted_with == shipped, (
        f"hallmon/verification/calibration.json was fitted with NLI model {fitted_with}, "
        f"but the shipped model is {shipped}: run "
        f"`{load_calibration()[0].fitted.get('command')}`, then "
        "`python tests/integration/test_regression_gate.py --write-baseline`, and commit both"
    )


def test_gate_f1_does_not_regress() -> None:
    from hallmon.onnx_models.runtime import default_model_dir

    model_dir = default_model_dir()
    if not (model_dir / "manifest.json").is_file():
        _cannot_run(
            f"waiting for the shipped model: {model_dir}/manifest.json does not exist yet "
            "(built by onnx_models/training)"
        )
    if not DEV.is_file():
        _cannot_run(f"the dev set is missing: {DEV} (expected beside the repository)")
    if not BASELINE.is_file():
        _cannot_run(
            f"no committed baseline at {BASELINE}; write it with "
            "`python tests/integration/test_regression_gate.py --write-baseline`"
        )
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    figures = run_gate()
    floor = baseline["f1"] - TOLERANCE
    print(f"gate: F1 {figures['f1']:.4f} (baseline {baseline['f1']:.4f}, floor {floor:.4f})")
    assert figures["n"] == baseline["n"]
    assert figures["f1"] >= floor, (
        f"answer-level F1 on the gate sample fell to {figures['f1']:.4f}, below the committed "
        f"baseline {baseline['f1']:.4f} - {TOLERANCE}; figures: {figures}; baseline: {baseline}"
    )
    assert figures["agent_accuracy"] >= baseline["agent_accuracy"] - TOLERANCE, (
        f"agent-trace accuracy (calib part) fell to {figures['agent_accuracy']:.4f}, below the "
        f"committed {baseline['agent_accuracy']:.4f} - {TOLERANCE}"
    )
    assert figures["inconsistent"] == [], "self-inconsistent verdicts: " + "; ".join(
        figures["inconsistent"][:5]
    )


if __name__ == "__main__":
    if "--write-baseline" not in sys.argv:
        sys.exit("usage: python tests/integration/test_regression_gate.py --write-baseline")
    figures = run_gate()
    BASELINE.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {BASELINE}: {figures}")
