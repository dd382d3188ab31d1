"""`hallmon calibrate DATASET.jsonl`: fit the calibration file on the calib ids only."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from hallmon.cli import app
from hallmon.cli.eval import (
    ModelDirOption,
    NLICacheOption,
    console,
    load_verifier_or_exit,
    progress_bar,
)
from hallmon.onnx_models.training.make_split import load_split

COMMAND = (
    "hallmon calibrate ../shared/data/dev/ragtruth_dev.jsonl tests/agent_traces/agent_traces.jsonl"
    " tests/agent_traces/handwritten.jsonl"
)


@app.command("calibrate")
def calibrate_command(
    datasets: Annotated[
        list[Path],
        typer.Argument(help="Labelled answers in the dev file's format (their calib parts)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="Where to write (default: hallmon/verification/calibration.json)."),
    ] = None,
    model_dir: ModelDirOption = None,
    top_k: Annotated[int, typer.Option(min=1, max=32, help="Passages per claim.")] = 4,
    features: Annotated[
        str | None, typer.Option(help="Comma-separated subset of the combiner's features.")
    ] = None,
    nli_cache: NLICacheOption = None,
    nli_gate: Annotated[
        bool,
        typer.Option(
            help="Let the NLI scores alone decide where the model is confident (--no-nli-gate: "
            "one combiner everywhere, for ablations)."
        ),
    ] = True,
) -> None:
    """Fit combiner weights, verdict thresholds and the warn threshold on the calib split.

    Only ids in the `calib` part of the committed split (or records marked `split: calib`, as
    in tests/agent_traces) are read; `test` stays unseen.
    """
    from hallmon.verification.calibration import (
        CALIBRATION_PATH,
        CalibrationConfig,
        NLIGate,
        fit_calibration,
        save_calibration,
    )
    from hallmon.verification.eval import (
        CachedNLI,
        SentenceSupport,
        load_records,
        run_verifier,
        select_split,
        tune_baseline,
    )
    from hallmon.verification.pair_budget import PairBudget
    from hallmon.verification.verdicts import FEATURES

    ids = load_split()
    records = [r for path in datasets for r in select_split(load_records(path), "calib", ids)]
    if not records:
        console.print(f"[red]error:[/red] no calib records in {', '.join(map(str, datasets))}")
        raise typer.Exit(2)
    chosen = [f.strip() for f in features.split(",")] if features else list(FEATURES)
    unknown = [f for f in chosen if f not in FEATURES]
    if unknown:
        raise typer.BadParameter(f"unknown features {unknown}; known: {', '.join(FEATURES)}")

    base = CalibrationConfig(top_k=top_k, nli_gate=NLIGate(enabled=nli_gate))
    verifier = load_verifier_or_exit(model_dir, None)
    verifier.calibration, verifier.top_k = base, top_k
    # The combiner fits on the features of every retrieved pair, as before pairs were budgeted.
    verifier.pair_budget = PairBudget.full()
    cache = CachedNLI(verifier.model, nli_cache) if verifier.model and nli_cache else None
    if cache is not None:
        verifier.model = cache
    console.print(f"calibrating on {len(records)} calib records (top_k={top_k})")
    with progress_bar() as progress:
        task = progress.add_task("features", total=len(records))
        run = run_verifier(records, verifier, progress=lambda n: progress.advance(task, n))
    if cache is not None:
        cache.save()

    config, report = fit_calibration(run.table, base, features=chosen)
    # The lexical baseline is RAGTruth's: tuned on the calib records that are not agent traces.
    plain = [r for r in records if r.rule is None] or records
    threshold, base_f1 = tune_baseline(plain, [SentenceSupport.of(r) for r in plain])
    digest = hashlib.sha256(b"".join(Path(p).read_bytes() for p in datasets)).hexdigest()[:12]
    config = config.model_copy(
        update={
            "baseline_threshold": threshold,
            "version": f"calib-{datetime.now(UTC).strftime('%Y%m%d')}-{digest}",
            "fitted": {
                "command": COMMAND + ("" if nli_gate else " --no-nli-gate"),
                "split": "calib",
                "dataset_sha256": digest,
                "nli": verifier.model.version if verifier.model else "none",
                "baseline_calib_f1": round(base_f1, 4),
                **report,
                "note": "cv_answer_f1 tunes thresholds on the same out-of-fold predictions it "
                "scores, so it is optimistic; report figures from `hallmon eval --split test`",
            },
        }
    )
    path = save_calibration(config, out or CALIBRATION_PATH)
    console.print("reliability of P(unsupported), out of fold on calib (claims):")
    for row in report["reliability_out_of_fold"]:
        console.print(
            f"  {row['bin']}: {row['claims']:>5} claims, predicted {row['predicted']:.3f}, "
            f"observed {row['observed']:.3f}"
        )
    console.print(f"expected calibration error (out of fold): {report['ece_out_of_fold']:.4f}")
    console.print(
        f"wrote {path}: cv answer F1 {report['cv_answer_f1']:.3f} (l2 {report['l2']}), "
        f"flag {config.verdict.default.flag}, unclear {config.verdict.default.unclear}, "
        f"warn {config.risk.warn}; baseline threshold {threshold} (calib F1 {base_f1:.3f})"
    )
