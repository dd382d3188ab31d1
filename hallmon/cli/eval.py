"""`hallmon eval DATASET.jsonl`: the verifier and the lexical baseline, side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from hallmon.cli import app
from hallmon.onnx_models.training.make_split import load_split
from hallmon.schemas import Action
from hallmon.topology.settings import get_settings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hallmon.verification.eval import Prediction, Record, SystemReport
    from hallmon.verification.verifier import Verifier

console = Console(stderr=True)

SplitOption = Annotated[
    str,
    typer.Option(
        "--split",
        help="Which ids of the committed split: all (every id NOT in train), calib, test, or "
        "train (the NLI model may have trained on these: never report them).",
    ),
]
ModelDirOption = Annotated[
    Path | None, typer.Option("--model", help="NLI model directory (default: settings).")
]
NLICacheOption = Annotated[
    Path | None, typer.Option(help="Cache NLI probabilities in this JSON file across runs.")
]


def parse_actions(value: str) -> list[Action]:
    actions = [a.strip() for a in value.split(",") if a.strip()]
    bad = [a for a in actions if a not in ("allow", "warn", "block")]
    if bad or not actions:
        raise typer.BadParameter(
            f"{value!r}: give a comma-separated list of allow, warn, block (e.g. warn,block)"
        )
    return actions  # type: ignore[return-value]


def load_verifier_or_exit(model_dir: Path | None, calibration: Path | None) -> Verifier:
    """A Verifier with the configured model, or a clear error and exit code 2."""
    # Here, not at the top: every `hallmon` command (the assembler and fatigue workers too)
    # imports this module, and the runtime brings onnxruntime, numpy and tokenizers (~45 MB).
    from hallmon.onnx_models.runtime import ModelConfigError, ModelNotFound
    from hallmon.verification.verifier import Verifier, load_model

    settings = get_settings()
    model_settings = settings.model
    if model_dir is not None:
        model_settings = model_settings.model_copy(update={"path": model_dir})
    try:
        model = load_model(model_settings)
    except (ModelNotFound, ModelConfigError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    verifier_settings = settings.verifier
    if calibration is not None:
        verifier_settings = verifier_settings.model_copy(update={"calibration_path": calibration})
    return Verifier(model, settings=verifier_settings)


def progress_bar() -> Progress:
    """The one progress bar of eval and calibrate."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    )


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="Labelled answers in the dev file's format.")],
    predictions: Annotated[
        Path | None,
        typer.Option(help="Write one JSON line per item: id, unsupported, risk, state."),
    ] = None,
    report: Annotated[Path | None, typer.Option(help="Write the metrics as JSON.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Evaluate the first N items.")] = None,
    split: SplitOption = "all",
    unsupported_actions: Annotated[
        str, typer.Option(help="Actions that count an answer as unsupported.")
    ] = "warn,block",
    model_dir: ModelDirOption = None,
    calibration: Annotated[
        Path | None, typer.Option(help="Calibration file (default: the committed one).")
    ] = None,
    nli_cache: NLICacheOption = None,
) -> None:
    """Answer-level P/R/F1, balanced accuracy, per task, and span F1, against the baseline."""
    from hallmon.verification.eval import (
        CachedNLI,
        SentenceSupport,
        load_records,
        run_verifier,
        select_split,
        tune_baseline,
        verifier_prediction,
    )
    from hallmon.verification.eval import (
        report as make_report,
    )

    actions = parse_actions(unsupported_actions)
    try:
        records = load_records(dataset)
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    ids = load_split()
    try:
        chosen = select_split(records, split, ids)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--split") from exc
    if limit is not None:
        chosen = chosen[:limit]
    note = {
        "all": "every id NOT in the train part of the committed split (calib + test; "
        "includes the calibration data)",
        "calib": "calib ids (the calibration was fitted on these: optimistic)",
        "test": "test ids (held out from training and calibration)",
        "train": "TRAIN ids: the NLI model may have trained on these; do not report",
    }[split]
    console.print(f"split [bold]{split}[/bold]: {note}; {len(chosen)} of {len(records)} records")
    if not chosen:
        console.print("[red]error:[/red] no records selected; check --split and the dataset ids")
        raise typer.Exit(2)

    verifier = load_verifier_or_exit(model_dir, calibration)
    cache = CachedNLI(verifier.model, nli_cache) if verifier.model and nli_cache else None
    if cache is not None:
        verifier.model = cache

    # The baseline's one threshold: from the calibration file, else tuned on the calib ids.
    threshold = verifier.calibration.baseline_threshold
    if threshold is None:
        calib = select_split(records, "calib", ids)
        threshold, _ = tune_baseline(calib, [SentenceSupport.of(r) for r in calib])
        console.print(f"baseline threshold {threshold:.3f} tuned on {len(calib)} calib records")

    with progress_bar() as progress:
        task = progress.add_task("verifying", total=len(chosen))
        run = run_verifier(chosen, verifier, progress=lambda n: progress.advance(task, n))
        base_task = progress.add_task("lexical baseline", total=len(chosen))
        base_preds = []
        for record in chosen:
            base_preds.append(SentenceSupport.of(record).predict(record, threshold))
            progress.advance(base_task)
    if cache is not None:
        cache.save()

    preds = [
        verifier_prediction(r, res, actions) for r, res in zip(chosen, run.results, strict=True)
    ]
    ours = make_report("hallmon", chosen, preds)
    base = make_report("lexical baseline", chosen, base_preds)
    console.print(comparison_table(ours, base, split))
    states: dict[str, int] = {}
    for res in run.results:
        key = (
            res.state if res.unavailable_reason is None else f"{res.state}/{res.unavailable_reason}"
        )
        states[key] = states.get(key, 0) + 1
    console.print(f"states: {states}")
    from hallmon.verification.consistency import violations

    broken = sum(bool(violations(res, verifier.risk_config)) for res in run.results)
    console.print(f"self-inconsistent verdicts: {broken} of {len(run.results)}")
    by_rule = rule_accuracy(chosen, preds)
    if by_rule:
        right = sum(r for r, _ in by_rule.values())
        console.print(f"answers right: {right} of {len(chosen)} ({right / len(chosen):.3f})")
        for rule, (ok, n) in sorted(by_rule.items()):
            console.print(f"  {rule}: {ok}/{n}")

    if predictions is not None:
        with predictions.open("w", encoding="utf-8") as fh:
            for p in preds:
                row = {"id": p.id, "unsupported": p.unsupported, "risk": p.risk, "state": p.state}
                fh.write(json.dumps(row) + "\n")
    if report is not None:
        payload = {
            "dataset": str(dataset),
            "split": split,
            "n": len(chosen),
            "unsupported_actions": actions,
            "model_versions": verifier.model_versions(),
            "baseline_threshold": threshold,
            "hallmon": ours.as_dict(),
            "baseline": base.as_dict(),
            "states": states,
            "self_inconsistent": broken,
            "by_rule": {k: {"right": ok, "n": n} for k, (ok, n) in sorted(by_rule.items())},
        }
        report.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def rule_accuracy(
    records: Sequence[Record], preds: Sequence[Prediction]
) -> dict[str, tuple[int, int]]:
    """(right, total) answers per rule, for records that name the rule they exercise."""
    out: dict[str, tuple[int, int]] = {}
    for record, pred in zip(records, preds, strict=True):
        if record.rule is None:
            continue
        ok, n = out.get(record.rule, (0, 0))
        out[record.rule] = (ok + (pred.unsupported == record.unsupported), n + 1)
    return out


def comparison_table(ours: SystemReport, base: SystemReport, split: str) -> Table:
    from hallmon.verification.eval import BinaryMetrics

    table = Table(title=f"unsupported-answer detection ({split})")
    for col in ("scope", "n", "F1", "F1 base", "ΔF1", "P", "R", "bal.acc", "bal.acc base"):
        table.add_column(col, justify="right" if col != "scope" else "left")

    def row(name: str, a: BinaryMetrics, b: BinaryMetrics) -> None:
        table.add_row(
            name,
            str(a.n),
            f"{a.f1:.3f}",
            f"{b.f1:.3f}",
            f"{a.f1 - b.f1:+.3f}",
            f"{a.precision:.3f}",
            f"{a.recall:.3f}",
            f"{a.balanced_accuracy:.3f}",
            f"{b.balanced_accuracy:.3f}",
        )

    row("all", ours.overall, base.overall)
    for task, metrics in ours.per_task.items():
        row(task, metrics, base.per_task[task])
    table.add_section()
    table.add_row(
        "span F1 (chars)",
        "",
        f"{ours.span.f1:.3f}",
        f"{base.span.f1:.3f}",
        f"{ours.span.f1 - base.span.f1:+.3f}",
        f"{ours.span.precision:.3f}",
        f"{ours.span.recall:.3f}",
        "",
        "",
    )
    return table
