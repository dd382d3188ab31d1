"""The calibration file: combiner weights, per-type verdict thresholds and the risk rule.

`hallmon/verification/calibration.json` is committed and loaded by default. It is written by
`hallmon calibrate ../shared/data/dev/ragtruth_dev.jsonl`, which fits on the `calib` ids of the
committed split only (see `hallmon.cli.calibrate`). Without the file (or with `combiner: null`)
the verifier falls back to `FALLBACK_COMBINER`, a hand-set rule over the NLI entailment and the
word overlap.

What is fitted, and how:
- `combiner`: a logistic regression over per-claim features
  (`hallmon.verification.verdicts.FEATURES`)
  predicting "this claim overlaps a gold hallucinated span"; features are standardised with the
  stored mean and scale. Fitted with Newton's method and an L2 penalty (numpy only).
- `verdict`: per claim type, the probability from which a claim is flagged (`not_found`, or
  `contradicted` when the model's contradiction dominates) and from which it is `unclear`.
- `risk`: the seed rule's weights; `warn` is chosen to maximise answer-level F1 of the
  unsupported class on out-of-fold predictions; `block` stays at or above it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
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


class TypeThresholds(BaseModel):
    """Cut-offs on a claim's probability of being unsupported."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    flag: float = Field(0.5, ge=0.0, le=1.0, description="From here: not_found / contradicted")
    unclear: float = Field(0.35, ge=0.0, le=1.0, description="From here (below flag): unclear")
    contradiction: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="A flagged claim whose NLI contradiction reaches this "
        "(and beats entailment) is contradicted rather than not_found",
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
    """Status and confidence from P(unsupported) when no check decided.

    Shared with calibration, which replays it over many thresholds: keep it a pure function.
    """
    if not has_evidence:
        return "not_found", max(p, 0.8)
    if p >= thresholds.flag:
        if con_max >= thresholds.contradiction and con_max > ent_max:
            return "contradicted", p
        return "not_found", p
    if p >= thresholds.unclear:
        return "unclear", p
    return "supported", 1.0 - p


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


def combiner_from_fit(features: Sequence[str], x: FloatArray, y: FloatArray, l2: float) -> Combiner:
    w, b, mean, scale = fit_logistic(x, y, l2=l2)
    return Combiner(
        features=list(features),
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


def out_of_fold(
    features: Sequence[str],
    x: FloatArray,
    y: FloatArray,
    groups: Sequence[str],
    *,
    l2: float,
    k: int = 5,
    seed: int = 0,
) -> FloatArray:
    """Each row's probability from a combiner fitted without that row's group."""
    out = np.zeros(len(y))
    for test in group_folds(groups, k, seed):
        train = np.setdiff1d(np.arange(len(y)), test)
        comb = combiner_from_fit(features, x[train], y[train], l2)
        out[test] = comb.probability(x[test])
    return out


# --- replaying verdicts and risk over thresholds --------------------------------------------


@dataclass
class ClaimTable:
    """The judged claims of a labelled set, as arrays, for fitting.

    `forced[i]` is the (status, confidence) a failed deterministic check imposed on claim i, or
    None; `answer[i]` indexes `answer_gold`; `groups` (per answer) keep one source document's
    answers in one cross-validation fold.
    """

    features: list[str]
    x: FloatArray
    y: FloatArray
    answer: npt.NDArray[np.int64]
    severity: list[Severity]
    claim_type: list[ClaimType]
    has_evidence: list[bool]
    forced: list[tuple[ClaimStatus, float] | None]
    answer_gold: npt.NDArray[np.bool_]
    groups: list[str]

    def column(self, name: str) -> FloatArray:
        return self.x[:, self.features.index(name)]


def replay_risk(
    table: ClaimTable, p: FloatArray, verdict: VerdictConfig, risk: RiskConfig
) -> FloatArray:
    """Each answer's risk if claims with P(unsupported) `p` were judged under `verdict`/`risk`.

    Mirrors `verdicts.judge` + `risk.assess` exactly (both call `decide`).
    """
    ent = table.column("ent_max")
    con = table.column("con_max")
    contrib = np.zeros(len(p))
    for i in range(len(p)):
        forced = table.forced[i]
        if forced is not None:
            status, conf = forced
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
        contrib[i] = weight * multiplier * conf
    sums = np.bincount(table.answer, weights=contrib, minlength=len(table.answer_gold))
    out: FloatArray = np.minimum(1.0, sums)
    return out


def f1_at(gold: npt.NDArray[np.bool_], flagged: npt.NDArray[np.bool_]) -> float:
    tp = float(np.sum(gold & flagged))
    fp = float(np.sum(~gold & flagged))
    fn = float(np.sum(gold & ~flagged))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


@dataclass(frozen=True)
class ThresholdFit:
    verdict: VerdictConfig
    risk: RiskConfig
    f1: float


F1_TOLERANCE = 0.01
"""Answer-level F1 differences below this are noise on a few hundred answers (see tune)."""


def tune_thresholds(table: ClaimTable, p: FloatArray, base: RiskConfig) -> ThresholdFit:
    """Claim thresholds (flag, unclear) and the warn threshold with the best answer-level F1.

    The seed's weights stay; `warn` moves (an answer is reported unsupported from warn); `block`
    stays at the seed's 0.70 (or at warn, should warn ever exceed it). Among settings within
    `F1_TOLERANCE` of the best F1, the one that marks the fewest claims as not supported wins:
    answer-level F1 cannot tell them apart, but a verdict that calls half the claims "unclear"
    is useless to a reader (and its flagged spans are imprecise).
    """
    candidates: list[tuple[float, float, ThresholdFit]] = []
    warns = np.round(np.arange(0.05, 0.701, 0.01), 3)
    for flag in np.round(np.arange(0.10, 0.901, 0.025), 3):
        for gap in (0.0, 0.05, 0.1, 0.2):
            unclear = round(max(0.0, float(flag) - gap), 3)
            verdict = VerdictConfig(default=TypeThresholds(flag=float(flag), unclear=unclear))
            risks = replay_risk(table, p, verdict, base)
            marked = float(np.mean(p >= unclear)) if len(p) else 0.0
            f1s = [f1_at(table.answer_gold, risks >= warn) for warn in warns]
            i = int(np.argmax(f1s))
            risk = base.model_copy(
                update={"warn": float(warns[i]), "block": max(float(warns[i]), 0.7)}
            )
            candidates.append((f1s[i], marked, ThresholdFit(verdict, risk, f1s[i])))
    best_f1 = max(c[0] for c in candidates)
    near = [c for c in candidates if c[0] >= best_f1 - F1_TOLERANCE]
    return min(near, key=lambda c: (c[1], -c[0]))[2]


def fit_calibration(
    table: ClaimTable,
    base: CalibrationConfig,
    *,
    features: Sequence[str] | None = None,
    l2_grid: Sequence[float] = (0.3, 1.0, 3.0, 10.0, 30.0),
    folds: int = 5,
) -> tuple[CalibrationConfig, dict[str, Any]]:
    """Fit the combiner and the thresholds on `table`; report cross-validated figures.

    The L2 strength is chosen by the answer-level F1 of out-of-fold predictions (folds by
    source document); thresholds are tuned on the out-of-fold probabilities of the chosen
    strength, so they match how the combiner behaves on unseen answers; the combiner written
    to the file is then fitted on all rows.
    """
    names = list(features) if features is not None else list(table.features)
    cols = [table.features.index(n) for n in names]
    x = table.x[:, cols]
    claim_groups = [table.groups[a] for a in table.answer]
    trials: dict[str, float] = {}
    fits: list[tuple[float, float, float, ThresholdFit]] = []
    for l2 in l2_grid:
        p = out_of_fold(names, x, table.y, claim_groups, l2=l2, k=folds)
        fit = tune_thresholds(table, p, base.risk)
        trials[str(l2)] = round(fit.f1, 4)
        marked = float(np.mean(p >= fit.verdict.default.unclear)) if len(p) else 0.0
        fits.append((fit.f1, marked, l2, fit))
    # As in tune_thresholds: within F1_TOLERANCE of the best, mark the fewest claims.
    best_f1 = max(f[0] for f in fits)
    cv_f1, _, l2, thresholds = min(
        (f for f in fits if f[0] >= best_f1 - F1_TOLERANCE), key=lambda f: (f[1], -f[0])
    )
    combiner = combiner_from_fit(names, x, table.y, l2)
    config = base.model_copy(
        update={
            "combiner": combiner,
            "verdict": thresholds.verdict,
            "risk": thresholds.risk,
        }
    )
    report = {
        "l2": l2,
        "cv_answer_f1_by_l2": trials,
        "cv_answer_f1": round(cv_f1, 4),
        "claims": len(table.y),
        "claims_unsupported": int(table.y.sum()),
        "answers": len(table.answer_gold),
        "answers_unsupported": int(table.answer_gold.sum()),
    }
    return config, report
