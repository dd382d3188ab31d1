"""The calibration file: combiner weights, per-type verdict thresholds and the risk rule.

`hallmon/verification/calibration.json` is committed and loaded by default. It is written by
`hallmon calibrate ../shared/data/dev/ragtruth_dev.jsonl tests/agent_traces/agent_traces.jsonl
tests/agent_traces/handwritten.jsonl --no-nli-gate` (the command is recorded in `fitted`),
which fits on the calib parts only: the `calib` ids of the committed split and the records
marked `split: calib` (see `hallmon.cli.calibrate`; of the hand-written agent set, the batches
hand1-hand29). Without the file (or with `combiner: null`)
the verifier falls back to `FALLBACK_COMBINER`, a hand-set rule over the NLI entailment and the
word overlap.

Every claim gets one number, `p_unsupported`: the calibrated probability that it is not backed
by the context. What is fitted, and how:
- `checks`: for each deterministic check, P(unsupported) of a claim whose check failed: the
  smoothed share of such claims in the calib split that overlap a gold hallucinated span (the
  prior in `CHECK_PRIORS` where calib has too few, e.g. tool actions, which RAGTruth lacks).
- `nli_combiner`: where the NLI model is confident (`NLIGate`: strong entailment, or strong
  contradiction that beats entailment), a logistic regression over the NLI scores alone, so
  word overlap can never outvote the model there.
- `agent_combiner`: outside the gate, for the claims of agent answers (their context holds
  tool results), fitted on those claims alone: an agent restates tool fields and policies in
  its own words, and what the NLI scores and word overlap say about such a claim differs from
  what they say about RAGTruth's prose (the hand-written agent set's calib part: NLI-judged
  claims flagged "unclear" were right about one time in ten).
- `combiner`: everywhere else (the undecided band), a logistic regression over all per-claim
  features (`hallmon.verification.verdicts.FEATURES`), monotone in the NLI scores (a feature
  whose fitted sign would make more entailment raise P(unsupported), or more contradiction
  lower it, is dropped and the rest refitted). Both predict "this claim overlaps a gold
  hallucinated span"; features are standardised with the stored mean and scale. Fitted with
  Newton's method and an L2 penalty (numpy only). Logistic regression is calibrated on the data
  it is fitted on; the reliability table and ECE in `fitted` are out-of-fold.
- `verdict`: per claim type, `flag` (at least 0.5: a flagged claim is more likely unsupported
  than not) and `unclear` on `p_unsupported`.
- `risk`: the seed rule's weights and thresholds (warn 0.35, block 0.70); `hallmon calibrate`
  may move `warn` to the value with the best answer-level F1 on out-of-fold predictions, and
  the verdict's `model_versions["risk"]` then says so.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from hallmon.schemas import ClaimStatus, ClaimType, Severity
from hallmon.verification.risk import RiskConfig

CALIBRATION_PATH = Path(__file__).with_name("calibration.json")

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class TypeThresholds(BaseModel):
    """Cut-offs on a claim's probability of being unsupported."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    flag: float = Field(
        0.5,
        ge=0.5,
        le=1.0,
        description="From here: not_found / contradicted (at least 0.5: more likely "
        "unsupported than not)",
    )
    unclear: float = Field(
        0.35,
        ge=0.0,
        le=0.5,
        description="From here (below flag): unclear; at most 0.5, so supported always means "
        "more likely supported than not",
    )
    contradiction: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="A flagged claim whose NLI contradiction reaches this "
        "(and beats entailment) is contradicted rather than not_found",
    )

    never_supported: float = Field(
        0.9,
        ge=0.0,
        le=1.0,
        description="A claim whose NLI contradiction reaches this (and beats entailment) is "
        "never supported, whatever the other features say",
    )

    @model_validator(mode="after")
    def _ordered(self) -> TypeThresholds:
        if self.unclear > self.flag:
            raise ValueError(
                f"unclear={self.unclear} is above flag={self.flag}; a claim is unclear between "
                "the two, so unclear must not exceed flag"
            )
        return self


def decide(
    p: float, ent_max: float, con_max: float, has_evidence: bool, thresholds: TypeThresholds
) -> tuple[ClaimStatus, float]:
    """Status and confidence from `p` = P(unsupported) when no check decided.

    - `p >= flag`: `contradicted` when the NLI label is contradiction (contradiction at least
      `thresholds.contradiction` and above entailment), else `not_found`;
    - `unclear <= p < flag`: `unclear`;
    - below: `supported`, unless no passage was retrieved or the model's contradiction is
      strong (`never_supported`, above entailment): then `unclear` (word overlap never
      overrules a confident contradiction into support).
    Confidence is the probability of the stated label: `1 - p` for `supported`, `p` otherwise.
    Shared with calibration, which replays it over many thresholds: keep it a pure function.
    """
    nli_contradiction = con_max >= thresholds.contradiction and con_max > ent_max
    if p >= thresholds.flag:
        return ("contradicted" if nli_contradiction else "not_found"), p
    strong = con_max >= thresholds.never_supported and con_max > ent_max
    if p >= thresholds.unclear or strong or not has_evidence:
        return "unclear", p
    return "supported", 1.0 - p


class NLIGate(BaseModel):
    """Where the NLI model decides: strong entailment, or strong contradiction beating it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entailment: float = Field(0.9, ge=0.0, le=1.0)
    contradiction: float = Field(0.9, ge=0.0, le=1.0)
    enabled: bool = Field(
        True, description="False: one monotone combiner everywhere (`calibrate --no-nli-gate`)"
    )

    def confident(self, ent_max: float, con_max: float) -> bool:
        if not self.enabled:
            return False
        strong_con = con_max >= self.contradiction and con_max > ent_max
        strong_ent = ent_max >= self.entailment and con_max < self.contradiction
        return strong_con or strong_ent


CHECK_PRIORS: dict[str, float] = {
    "passed": 0.05,  # a structural check backed the claim (a matching ok tool call)
    # P(unsupported) when the check failed, before calib data says otherwise. A failed tool
    # action or an ungranted commitment is structural evidence, hence high.
    "action": 0.95,
    "tool_fact": 0.9,
    "commitment": 0.85,
    "citation": 0.9,
    "quote": 0.85,
    "number": 0.8,
    "record": 0.8,
    "system_state": 0.85,
    "negation": 0.7,
    "name": 0.6,
}


class VerdictConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    default: TypeThresholds = Field(default_factory=TypeThresholds)
    per_type: dict[ClaimType, TypeThresholds] = Field(default_factory=dict)

    def for_type(self, claim_type: ClaimType) -> TypeThresholds:
        return self.per_type.get(claim_type, self.default)


class Combiner(BaseModel):
    """Logistic regression over named, standardised features."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    features: list[str]
    weights: list[float]
    bias: float
    mean: list[float]
    scale: list[float]

    @model_validator(mode="after")
    def _lengths(self) -> Combiner:
        n = len(self.features)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n):
            raise ValueError(
                f"combiner has {n} features but {len(self.weights)} weights, {len(self.mean)} "
                f"means and {len(self.scale)} scales; refit with `hallmon calibrate`"
            )
        return self

    def probability(self, x: FloatArray) -> FloatArray:
        """P(unsupported) for rows of `x` (columns in `self.features` order)."""
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return sigmoid(z @ np.asarray(self.weights) + self.bias)


FALLBACK_COMBINER = Combiner(
    # Used only before a fit exists: unsupported when neither the model nor word overlap
    # supports the claim. The numbers are set by hand, not fitted.
    features=["ent_max", "lex_max"],
    weights=[-4.0, -3.0],
    bias=3.5,
    mean=[0.0, 0.0],
    scale=[1.0, 1.0],
)


class CalibrationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = "unfitted"
    combiner: Combiner | None = None
    verdict: VerdictConfig = Field(default_factory=VerdictConfig)
    risk: RiskConfig = Field(default_factory=RiskConfig)
    nli_combiner: Combiner | None = Field(
        None, description="P(unsupported) from the NLI scores alone, inside the NLI gate"
    )
    nli_gate: NLIGate = Field(default_factory=NLIGate)
    agent_combiner: Combiner | None = Field(
        None,
        description="P(unsupported) of an agent answer's claims (its context holds tool "
        "results) outside the NLI gate; the full combiner when absent",
    )
    checks: dict[str, float] = Field(
        default_factory=lambda: dict(CHECK_PRIORS),
        description="P(unsupported) of a claim whose deterministic check failed, by check name; "
        "'passed': of a claim a structural check backed",
    )
    top_k: int = Field(4, ge=1, le=32, description="Passages per claim sent to the NLI model")
    baseline_threshold: float | None = Field(
        None, ge=0.0, le=1.0, description="The lexical baseline's threshold, tuned on calib"
    )
    fitted: dict[str, Any] = Field(
        default_factory=dict, description="How and on what the file was fitted, with its figures"
    )

    @property
    def active_combiner(self) -> Combiner:
        return self.combiner or FALLBACK_COMBINER

    def combiner_for(self, ent_max: float, con_max: float, *, agent: bool = False) -> Combiner:
        """The NLI-only combiner inside the gate; elsewhere the agent combiner for a claim of
        an agent's answer, the full one for the rest."""
        if self.nli_combiner is not None and self.nli_gate.confident(ent_max, con_max):
            return self.nli_combiner
        if agent and self.agent_combiner is not None:
            return self.agent_combiner
        return self.active_combiner

    def check_probability(self, forced: tuple[ClaimStatus, str]) -> float:
        """P(unsupported) of a claim a check decided: (status, check name)."""
        return forced_probability(forced, self.checks)


def load_calibration(path: str | Path | None = None) -> tuple[CalibrationConfig, str]:
    """The calibration config and a short sha256 of its bytes (for `model_versions`).

    A missing default file gives the built-in defaults ("default"); a missing explicit path is
    an error naming it.
    """
    p = Path(path) if path is not None else CALIBRATION_PATH
    if not p.is_file():
        if path is not None:
            raise FileNotFoundError(
                f"calibration file {p} does not exist; write one with `hallmon calibrate "
                "DATASET.jsonl --out PATH` or leave the path unset to use the committed one"
            )
        return CalibrationConfig(), "default"
    return _load(str(p.resolve()), p.stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _load(path: str, _mtime: int) -> tuple[CalibrationConfig, str]:
    raw = Path(path).read_bytes()
    try:
        config = CalibrationConfig.model_validate_json(raw)
    except ValueError as exc:
        raise ValueError(
            f"calibration file {path} is invalid: {exc}. Refit it with `hallmon calibrate`"
        ) from exc
    return config, hashlib.sha256(raw).hexdigest()[:12]


def save_calibration(config: CalibrationConfig, path: str | Path | None = None) -> Path:
    p = Path(path) if path is not None else CALIBRATION_PATH
    p.write_text(json.dumps(config.model_dump(mode="json"), indent=1) + "\n", encoding="utf-8")
    return p


# --- fitting --------------------------------------------------------------------------------


def sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
    return out


def fit_logistic(
    x: FloatArray, y: FloatArray, *, l2: float = 1.0, iterations: int = 50
) -> tuple[FloatArray, float, FloatArray, FloatArray]:
    """Newton-fitted L2 logistic regression on standardised `x`.

    Returns (weights, bias, mean, scale). The bias is not penalised.
    """
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    n, d = z.shape
    design = np.hstack([z, np.ones((n, 1))])
    theta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = sigmoid(design @ theta)
        grad = design.T @ (p - y) + penalty * theta
        hess = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return theta[:-1], float(theta[-1]), mean, scale


MONOTONE: dict[str, float] = {"ent_max": -1.0, "con_max": 1.0}
"""The sign each NLI feature's weight must have: more entailment never raises P(unsupported),
more contradiction never lowers it."""


def combiner_from_fit(features: Sequence[str], x: FloatArray, y: FloatArray, l2: float) -> Combiner:
    """A logistic combiner, monotone in the NLI features: a wrongly signed one is dropped and
    the rest refitted."""
    names = list(features)
    keep = list(range(len(names)))
    while True:
        w, b, mean, scale = fit_logistic(x[:, keep], y, l2=l2)
        wrong = [k for k, c in enumerate(keep) if MONOTONE.get(names[c], 0.0) * w[k] < 0]
        if not wrong:
            break
        del keep[wrong[0]]
    return Combiner(
        features=[names[c] for c in keep],
        weights=[round(float(v), 6) for v in w],
        bias=round(b, 6),
        mean=[round(float(v), 6) for v in mean],
        scale=[round(float(v), 6) for v in scale],
    )


def group_folds(groups: Sequence[str], k: int, seed: int = 0) -> list[npt.NDArray[np.int64]]:
    """Row indices of k folds with no group split across folds (groups: answer or source ids)."""
    unique = sorted(set(groups))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(unique))
    fold_of = {unique[i]: rank % k for rank, i in enumerate(order)}
    idx = np.array([fold_of[g] for g in groups])
    return [np.flatnonzero(idx == f) for f in range(k)]


NLI_FEATURES = ("ent_max", "con_max")
MIN_GATE_ROWS = 20
"""Fewer claims than this inside the NLI gate (or one class only): no NLI-only combiner."""


MIN_AGENT_ROWS = 200
"""Fewer agent-answer claims than this outside the gate (or one class only): no agent
combiner; the full combiner serves them too."""


@dataclass(frozen=True)
class Combiners:
    full: Combiner
    nli: Combiner | None
    agent: Combiner | None = None


def _fittable(table: ClaimTable, rows: npt.NDArray[np.int64], least: int) -> bool:
    return len(rows) >= least and 0 < table.y[rows].sum() < len(rows)


def agent_mask(table: ClaimTable) -> BoolArray:
    """Claims of agent answers (`tool_context`); none for a table without that feature."""
    if "tool_context" not in table.features:
        return np.zeros(len(table.y), dtype=bool)
    out: BoolArray = table.column("tool_context") > 0.5
    return out


def fit_combiners(
    table: ClaimTable, names: Sequence[str], rows: npt.NDArray[np.int64], gate: BoolArray, l2: float
) -> Combiners:
    """The NLI-only combiner on `rows` inside the gate; outside it, the agent combiner on the
    agent answers' claims and the full one on the rest (on all, when either part is too
    small to fit alone)."""
    cols = [table.features.index(n) for n in names]
    agent = agent_mask(table)
    outside = rows[~gate[rows]]
    inside = rows[gate[rows]]
    if len(outside) < MIN_GATE_ROWS:
        outside = rows
    agent_rows = outside[agent[outside]]
    other_rows = outside[~agent[outside]]
    split = _fittable(table, agent_rows, MIN_AGENT_ROWS) and _fittable(
        table, other_rows, MIN_AGENT_ROWS
    )
    plain = other_rows if split else outside
    full = combiner_from_fit(names, table.x[plain][:, cols], table.y[plain], l2)
    agent_combiner = (
        combiner_from_fit(names, table.x[agent_rows][:, cols], table.y[agent_rows], l2)
        if split
        else None
    )
    nli = None
    if _fittable(table, inside, MIN_GATE_ROWS):
        nli_cols = [table.features.index(n) for n in NLI_FEATURES]
        nli = combiner_from_fit(NLI_FEATURES, table.x[inside][:, nli_cols], table.y[inside], l2)
    return Combiners(full, nli, agent_combiner)


def combiner_probabilities(
    table: ClaimTable, combiners: Combiners, rows: npt.NDArray[np.int64], gate: BoolArray
) -> FloatArray:
    """P(unsupported) of `rows` from the combiners, as `verdicts.judge` computes it."""
    out = np.zeros(len(rows))
    agent = agent_mask(table)[rows]
    inside = gate[rows] & (combiners.nli is not None)
    routes = (
        (combiners.nli, inside),
        (combiners.agent, ~inside & agent & (combiners.agent is not None)),
        (combiners.full, ~inside & ~(agent & (combiners.agent is not None))),
    )
    for combiner, mask in routes:
        idx = rows[mask]
        if combiner is not None and len(idx):
            cols = [table.features.index(n) for n in combiner.features]
            out[mask] = combiner.probability(table.x[idx][:, cols])
    return out


def gate_mask(table: ClaimTable, gate: NLIGate) -> BoolArray:
    ent, con = table.column("ent_max"), table.column("con_max")
    return np.array([gate.confident(float(e), float(c)) for e, c in zip(ent, con, strict=True)])


def check_probabilities(table: ClaimTable, *, prior_weight: float = 5.0) -> dict[str, float]:
    """P(unsupported) per failed check, smoothed towards `CHECK_PRIORS` (and the passed one
    under the key "passed")."""
    out: dict[str, float] = {}
    for name, prior in CHECK_PRIORS.items():
        hits = [
            table.y[i]
            for i, f in enumerate(table.forced)
            if f is not None
            and (f[1] == name if name != "passed" else f[0] == "supported")
            and (name == "passed" or f[0] != "supported")
        ]
        out[name] = round((float(sum(hits)) + prior * prior_weight) / (len(hits) + prior_weight), 4)
    return out


def forced_probability(forced: tuple[ClaimStatus, str], checks: dict[str, float]) -> float:
    status, name = forced
    if status == "supported":
        return checks.get("passed", CHECK_PRIORS["passed"])
    return checks.get(name, CHECK_PRIORS.get(name, 0.8))


def all_probabilities(
    table: ClaimTable,
    names: Sequence[str],
    gate: BoolArray,
    checks: dict[str, float],
    *,
    l2: float,
    k: int | None = 5,
    seed: int = 0,
) -> FloatArray:
    """Every claim's P(unsupported): a decided check's probability, else the combiners', out of
    fold (`k` folds by source document) or, with `k=None`, fitted on all rows."""
    p = np.zeros(len(table.y))
    free = np.array([i for i, f in enumerate(table.forced) if f is None], dtype=np.int64)
    for i, f in enumerate(table.forced):
        if f is not None:
            p[i] = forced_probability(f, checks)
    if not len(free):
        return p
    if k is None:
        p[free] = combiner_probabilities(
            table, fit_combiners(table, names, free, gate, l2), free, gate
        )
        return p
    claim_groups = [table.groups[table.answer[i]] for i in free]
    for fold in group_folds(claim_groups, k, seed):
        test = free[fold]
        train = np.setdiff1d(free, test)
        combiners = fit_combiners(table, names, train, gate, l2)
        p[test] = combiner_probabilities(table, combiners, test, gate)
    return p


def reliability(
    p: FloatArray, y: FloatArray, bins: int = 10
) -> tuple[list[dict[str, str | float]], float]:
    """Reliability table (equal-width bins of predicted probability) and the expected
    calibration error: the claim-weighted mean |predicted - observed| over the bins."""
    rows: list[dict[str, str | float]] = []
    ece = 0.0
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    for b in range(bins):
        mask = which == b
        n = int(mask.sum())
        if not n:
            continue
        predicted, observed = float(p[mask].mean()), float(y[mask].mean())
        ece += n / len(p) * abs(predicted - observed)
        rows.append(
            {
                "bin": f"{edges[b]:.1f}-{edges[b + 1]:.1f}",
                "claims": n,
                "predicted": round(predicted, 4),
                "observed": round(observed, 4),
            }
        )
    return rows, round(ece, 4)


# --- replaying verdicts and risk over thresholds --------------------------------------------


@dataclass
class ClaimTable:
    """The judged claims of a labelled set, as arrays, for fitting.

    `forced[i]` is (status, check name) when a deterministic check decided claim i (a failed
    check, or "supported" when a structural check backed it), else None; `answer[i]` indexes
    `answer_gold`; `groups` (per answer) keep one source document's answers in one
    cross-validation fold.
    """

    features: list[str]
    x: FloatArray
    y: FloatArray
    answer: npt.NDArray[np.int64]
    severity: list[Severity]
    claim_type: list[ClaimType]
    has_evidence: list[bool]
    forced: list[tuple[ClaimStatus, str] | None]
    answer_gold: npt.NDArray[np.bool_]
    groups: list[str]
    tasks: list[str] = field(default_factory=list)
    """Per answer, its task (RAGTruth's data2text / qa / summarization, "agent"): threshold
    tuning scores each task apart and averages, so no task's base rate decides for all."""

    def column(self, name: str) -> FloatArray:
        return self.x[:, self.features.index(name)]


def replay_risk(
    table: ClaimTable, p: FloatArray, verdict: VerdictConfig, risk: RiskConfig
) -> tuple[FloatArray, BoolArray]:
    """Each answer's risk, and whether a claim's warn floor applies, if claims with
    P(unsupported) `p` were judged under `verdict`/`risk`.

    Mirrors `verdicts.judge` + `risk.assess` exactly (both call `decide`).
    """
    ent = table.column("ent_max")
    con = table.column("con_max")
    contrib = np.zeros(len(p))
    floor = np.zeros(len(table.answer_gold), dtype=bool)
    for i in range(len(p)):
        forced = table.forced[i]
        if forced is not None:
            status: ClaimStatus = forced[0]
            if status != "supported" and p[i] < verdict.for_type(table.claim_type[i]).flag:
                status = "unclear"
            conf = 1.0 - p[i] if status == "supported" else float(p[i])
        else:
            status, conf = decide(
                float(p[i]),
                float(ent[i]),
                float(con[i]),
                table.has_evidence[i],
                verdict.for_type(table.claim_type[i]),
            )
        weight: float = getattr(risk.weights, status)
        multiplier: float = getattr(risk.severity, table.severity[i])
        contrib[i] = weight * multiplier * float(p[i])
        if status in risk.floor_statuses and conf >= risk.floor_confidence:
            floor[table.answer[i]] = True
    sums = np.bincount(table.answer, weights=contrib, minlength=len(table.answer_gold))
    out: FloatArray = np.minimum(1.0, sums)
    return out, floor


def f1_at(gold: npt.NDArray[np.bool_], flagged: npt.NDArray[np.bool_]) -> float:
    tp = float(np.sum(gold & flagged))
    fp = float(np.sum(~gold & flagged))
    fn = float(np.sum(gold & ~flagged))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def balanced_accuracy_at(gold: npt.NDArray[np.bool_], flagged: npt.NDArray[np.bool_]) -> float:
    pos, neg = int(gold.sum()), int((~gold).sum())
    tpr = float(np.sum(gold & flagged)) / pos if pos else 1.0
    tnr = float(np.sum(~gold & ~flagged)) / neg if neg else 1.0
    return (tpr + tnr) / 2


def task_score(
    gold: npt.NDArray[np.bool_], flagged: npt.NDArray[np.bool_], tasks: Sequence[str]
) -> float:
    """`answer_score` per task, averaged (macro); pooled when no tasks are given. The targets
    hold per task, and pooled the task with the most answers and the highest base rate
    (RAGTruth data2text) picks thresholds that leave QA and summarization unflagged."""
    if not tasks:
        return answer_score(gold, flagged)
    names = np.asarray(tasks)
    return float(
        np.mean([answer_score(gold[names == t], flagged[names == t]) for t in sorted(set(tasks))])
    )


def answer_score(gold: npt.NDArray[np.bool_], flagged: npt.NDArray[np.bool_]) -> float:
    """What threshold tuning maximises: the mean of the unsupported class's F1 and the
    balanced accuracy. F1 alone rewards flagging everything where most answers are unsupported
    (RAGTruth data2text: flag-all scores F1 0.77 at balanced accuracy 0.5); balanced accuracy
    alone ignores precision. Both are targets, so both are scored."""
    return (f1_at(gold, flagged) + balanced_accuracy_at(gold, flagged)) / 2


@dataclass(frozen=True)
class ThresholdFit:
    verdict: VerdictConfig
    risk: RiskConfig
    f1: float
    score: float


F1_TOLERANCE = 0.01
"""Answer-score differences below this are noise on a few hundred answers (see tune)."""


def tune_thresholds(
    table: ClaimTable, p: FloatArray, base: RiskConfig, *, move_warn: bool = True
) -> ThresholdFit:
    """Claim thresholds (flag >= 0.5, unclear) and the warn threshold with the best
    answer-level F1.

    The seed's weights stay; `block` stays at the seed's 0.70 (or at warn, should warn exceed
    it). Among settings within `F1_TOLERANCE` of the best F1, the one that marks the fewest
    claims as not supported wins, then the one whose warn is nearest the seed's 0.35: answer
    F1 cannot tell them apart, but a verdict that calls half the claims "unclear" is useless to
    a reader, and the seed's threshold is the contract consumers know.
    """
    candidates: list[tuple[float, float, float, ThresholdFit]] = []
    seed_warn = RiskConfig().warn
    warns = np.round(np.arange(0.01, 0.701, 0.01), 3) if move_warn else np.array([base.warn])
    for flag in np.round(np.arange(0.5, 0.951, 0.05), 3):
        for unclear in np.round(np.arange(0.05, 0.5 + 1e-9, 0.05), 3):
            verdict = VerdictConfig(
                default=TypeThresholds(flag=float(flag), unclear=float(unclear))
            )
            risks, floor = replay_risk(table, p, verdict, base)
            marked = float(np.mean(p >= unclear)) if len(p) else 0.0
            for warn in warns:
                flagged = (risks >= warn) | floor
                f1 = f1_at(table.answer_gold, flagged)
                score = task_score(table.answer_gold, flagged, table.tasks)
                risk = base.model_copy(
                    update={"warn": float(warn), "block": max(float(warn), base.block)}
                )
                fit = ThresholdFit(verdict, risk, f1, score)
                candidates.append((score, marked, abs(float(warn) - seed_warn), fit))
    best = max(c[0] for c in candidates)
    near = [c for c in candidates if c[0] >= best - F1_TOLERANCE]
    return min(near, key=lambda c: (round(c[1], 2), c[2], -c[0]))[3]


MIN_AGENT_ANSWERS = 50
"""Fewer answers with tool results than this (or one class only): no agent warn is fitted."""


def answer_tools(table: ClaimTable) -> BoolArray:
    """Per answer, whether its context holds tool results (a claim's `tool_context`)."""
    out = np.zeros(len(table.answer_gold), dtype=bool)
    if "tool_context" in table.features and len(table.y):
        out[table.answer[agent_mask(table)]] = True
    return out


def tune_agent_warn(table: ClaimTable, p: FloatArray, fit: ThresholdFit) -> float | None:
    """The warn threshold of the answers whose context holds tool results, by the rule of
    `tune_thresholds` on those answers alone (the claim thresholds stay `fit`'s): the best
    answer score, and within `F1_TOLERANCE` of it the warn nearest the seed's. None when
    there are too few such answers, or one class only."""
    tools = answer_tools(table)
    gold = table.answer_gold[tools]
    if tools.sum() < MIN_AGENT_ANSWERS or gold.all() or not gold.any():
        return None
    risks, floor = replay_risk(table, p, fit.verdict, fit.risk)
    seed_warn = RiskConfig().warn
    scored = [
        (answer_score(gold, (risks[tools] >= warn) | floor[tools]), float(warn))
        for warn in np.round(np.arange(0.01, 0.701, 0.01), 3)
    ]
    best = max(score for score, _ in scored)
    return min(
        (warn for score, warn in scored if score >= best - F1_TOLERANCE),
        key=lambda warn: abs(warn - seed_warn),
    )


def fit_calibration(
    table: ClaimTable,
    base: CalibrationConfig,
    *,
    features: Sequence[str] | None = None,
    l2_grid: Sequence[float] = (0.3, 1.0, 3.0, 10.0, 30.0),
    folds: int = 5,
) -> tuple[CalibrationConfig, dict[str, Any]]:
    """Fit check probabilities, both combiners and the thresholds on `table`; report
    cross-validated figures (answer F1, reliability table, ECE).

    The L2 strength is chosen by the answer score (`answer_score`) of out-of-fold predictions
    (folds by source document); thresholds are tuned on the out-of-fold probabilities of the chosen
    strength, so they match how the combiners behave on unseen answers; the combiners written
    to the file are then fitted on all rows.
    """
    names = list(features) if features is not None else list(table.features)
    gate = gate_mask(table, base.nli_gate)
    checks = check_probabilities(table)
    trials: dict[str, float] = {}
    fits: list[tuple[float, float, float, ThresholdFit, FloatArray]] = []
    for l2 in l2_grid:
        p = all_probabilities(table, names, gate, checks, l2=l2, k=folds)
        fit = tune_thresholds(table, p, base.risk)
        trials[str(l2)] = round(fit.f1, 4)
        marked = float(np.mean(p >= fit.verdict.default.unclear)) if len(p) else 0.0
        fits.append((fit.score, marked, l2, fit, p))
    # As in tune_thresholds: within F1_TOLERANCE of the best score, mark the fewest claims.
    best_score = max(f[0] for f in fits)
    _, _, l2, thresholds, oof = min(
        (f for f in fits if f[0] >= best_score - F1_TOLERANCE),
        key=lambda f: (round(f[1], 2), -f[0]),
    )
    cv_f1 = thresholds.f1
    agent_warn = tune_agent_warn(table, oof, thresholds)
    if agent_warn is not None and agent_warn != thresholds.risk.warn:
        risk = thresholds.risk.model_copy(
            update={"agent_warn": agent_warn, "block": max(thresholds.risk.block, agent_warn)}
        )
        thresholds = ThresholdFit(thresholds.verdict, risk, thresholds.f1, thresholds.score)
    free = np.array([i for i, f in enumerate(table.forced) if f is None], dtype=np.int64)
    combiners = fit_combiners(table, names, free, gate, l2) if len(free) else None
    config = base.model_copy(
        update={
            "combiner": combiners.full if combiners else base.combiner,
            "nli_combiner": combiners.nli if combiners else None,
            "agent_combiner": combiners.agent if combiners else None,
            "checks": checks,
            "verdict": thresholds.verdict,
            "risk": thresholds.risk,
        }
    )
    table_rows, ece = reliability(oof, table.y)
    report = {
        "l2": l2,
        "cv_answer_f1_by_l2": trials,
        "cv_answer_f1": round(cv_f1, 4),
        "cv_answer_score": round(thresholds.score, 4),
        "threshold_objective": "mean of answer F1 and balanced accuracy, averaged over tasks",
        "claims": len(table.y),
        "claims_unsupported": int(table.y.sum()),
        "claims_in_nli_gate": int(gate.sum()),
        "answers": len(table.answer_gold),
        "answers_unsupported": int(table.answer_gold.sum()),
        "ece_out_of_fold": ece,
        "reliability_out_of_fold": table_rows,
    }
    return config, report
