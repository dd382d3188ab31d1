"""Evaluation on labelled answers (the RAGTruth dev format) and the lexical baseline.

Record format (one JSON object per line): `id`, `context` (list of str), `question` (str or
null), `answer`, `label` ("supported" | "unsupported"), `spans` ([{start, end, type}] into the
answer), `task`. A record becomes an `AssembledResponse` with the context items as documents
`ctx-0`, `ctx-1`, ... and the question as the user's input. Agent-trace records
(tests/agent_traces) add `response_context` (documents, tool_results, memory, as in a
`response` event), `rule` and their own `split` (`calib` / `test`).

Metrics, for the verifier and the baseline alike:
- answer level: precision, recall and F1 of the *unsupported* class, balanced accuracy; overall
  and per task. The verifier calls an answer unsupported when its action is in
  `unsupported_actions` (warn or block by default);
- span level: character-level precision/recall/F1 of the flagged parts (the verdict's
  `flagged_spans`; sentences under the threshold for the baseline) against the gold spans,
  summed over all answers (micro).

The lexical baseline is the seed's `lexical_support` verifier: each answer sentence (from
`split_sentences`) is unsupported when its best `lexical_support` over all
passages of the context is below a threshold; the answer is unsupported when any sentence is.
Sentences that are not statements (greetings, politeness, questions, "Here is a summary:" - the
same rules that keep them out of hallmon's claims) are left out, so the baseline is not
penalised for text no verifier should judge; this makes it stronger, not weaker.
Its one threshold is tuned on the calib split, like the verifier's calibration.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from hallmon.onnx_models.runtime import NLIModel
from hallmon.schemas import (
    Action,
    AssembledResponse,
    ClaimStatus,
    ClaimType,
    DocumentItem,
    MonitorResult,
    ResponseContext,
    Severity,
)
from hallmon.verification.calibration import ClaimTable
from hallmon.verification.claims import extract_claims
from hallmon.verification.evidence import EvidenceIndex, collect_sources
from hallmon.verification.pair_budget import drive
from hallmon.verification.sentences import split_sentences
from hallmon.verification.text import content_tokens
from hallmon.verification.verdicts import FEATURES, forced_outcome
from hallmon.verification.verifier import Verifier

SPLITS = ("all", "calib", "test", "train")


@dataclass(frozen=True)
class Record:
    id: str
    context: list[str]
    question: str | None
    answer: str
    unsupported: bool
    spans: list[tuple[int, int]]
    task: str
    source: str = ""
    split: str | None = None
    """The record's own part (`calib` / `test`), for sets outside the committed split."""
    rule: str | None = None
    """The rule an agent-trace record exercises (tests/agent_traces)."""
    response_context: dict[str, Any] | None = None
    """Structured context (documents, tool_results, memory) replacing `context` when given."""
    ts: datetime | None = None
    """When the answer was given (`ts`, ISO 8601): what "effective immediately" is read
    against. Without it nothing of the answer is read against a date of its own, never the
    evaluation's wall clock, so a set scores the same on any day."""

    @classmethod
    def from_json(cls, obj: dict[str, Any], where: str) -> Record:
        try:
            record = cls(
                id=str(obj["id"]),
                context=[str(c) for c in obj["context"]],
                question=obj.get("question"),
                answer=str(obj["answer"]),
                unsupported=obj["label"] == "unsupported",
                spans=[(int(s["start"]), int(s["end"])) for s in obj.get("spans") or []],
                task=str(obj.get("task") or "all"),
                # Answers about one source document share a cross-validation fold.
                source=str((obj.get("meta") or {}).get("ragtruth_source_id") or obj["id"]),
                split=obj.get("split"),
                rule=obj.get("rule"),
                response_context=obj.get("response_context"),
                ts=_answer_time(obj.get("ts"), where),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"{where}: not a dev record ({exc!r}); each line needs id, context (list), "
                "question, answer, label and spans"
            ) from exc

        try:
            record.to_response()  # a context the contract rejects fails here, with its line
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(x) for x in first["loc"])
            raise ValueError(
                f"{where} (id {record.id}): response_context.{field}: {first['msg']} "
                "(the `response` event contract, schemas/events.py)"
            ) from exc
        return record

    def to_response(self) -> AssembledResponse:
        if self.response_context is not None:
            context = ResponseContext.model_validate(
                {"user_input": self.question, **self.response_context}
            )
        else:
            context = ResponseContext(
                user_input=self.question,
                documents=[
                    DocumentItem(source_id=f"ctx-{i}", text=t) for i, t in enumerate(self.context)
                ],
            )
        return AssembledResponse(
            response_id=self.id,
            session_id=f"eval-{self.id}"[:256],
            agent_id="eval",
            text=self.answer,
            question=self.question,
            context=context,
            origin="check",
            stream_ended_at=self.ts,
        )


def _answer_time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        ts = datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise ValueError(
            f"{where}: ts {value!r} is not an ISO 8601 date-time (e.g. 2026-12-02T12:00:00Z)"
        ) from exc
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def load_records(path: str | Path) -> list[Record]:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(
            f"dataset {p} does not exist; the dev set lives at "
            "../shared/data/dev/ragtruth_dev.jsonl"
        )
    out = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            out.append(Record.from_json(json.loads(line), f"{p}:{n}"))
    return out


def select_split(records: Sequence[Record], split: str, ids: dict[str, list[str]]) -> list[Record]:
    """Records of one part of the committed split.

    `all` is every record whose id is not in `train` (the NLI model may have trained on those);
    records of another dataset, absent from the split, count under `all`.
    """
    if split not in SPLITS:
        raise ValueError(f"split {split!r} is not one of {', '.join(SPLITS)}")
    if split == "all":
        train = set(ids.get("train", []))
        return [r for r in records if r.id not in train and r.split != "train"]
    wanted = set(ids.get(split, []))
    return [r for r in records if r.id in wanted or r.split == split]


# --- metrics --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinaryMetrics:
    n: int
    positives: int
    precision: float
    recall: float
    f1: float
    balanced_accuracy: float

    @classmethod
    def of(cls, gold: Sequence[bool], pred: Sequence[bool]) -> BinaryMetrics:
        g = np.asarray(gold, dtype=bool)
        p = np.asarray(pred, dtype=bool)
        tp = int(np.sum(g & p))
        fp = int(np.sum(~g & p))
        fn = int(np.sum(g & ~p))
        tn = int(np.sum(~g & ~p))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        tnr = tn / (tn + fp) if tn + fp else 0.0
        bal = (recall + tnr) / 2 if (tp + fn) and (tn + fp) else max(recall, tnr)
        return cls(len(g), int(g.sum()), precision, recall, f1, bal)


@dataclass(frozen=True)
class SpanMetrics:
    precision: float
    recall: float
    f1: float

    @classmethod
    def of(
        cls, gold: Sequence[Sequence[tuple[int, int]]], pred: Sequence[Sequence[tuple[int, int]]]
    ) -> SpanMetrics:
        tp = fp = fn = 0
        for g_spans, p_spans in zip(gold, pred, strict=True):
            g = _chars(g_spans)
            p = _chars(p_spans)
            tp += len(g & p)
            fp += len(p - g)
            fn += len(g - p)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return cls(precision, recall, f1)


def _chars(spans: Iterable[tuple[int, int]]) -> set[int]:
    out: set[int] = set()
    for s, e in spans:
        out.update(range(s, e))
    return out


@dataclass(frozen=True)
class Prediction:
    id: str
    unsupported: bool
    risk: float
    state: str
    spans: list[tuple[int, int]]


@dataclass
class SystemReport:
    """Metrics of one system (verifier or baseline) on one set of records."""

    name: str
    overall: BinaryMetrics
    per_task: dict[str, BinaryMetrics]
    span: SpanMetrics

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "overall": vars(self.overall),
            "per_task": {k: vars(v) for k, v in self.per_task.items()},
            "span": vars(self.span),
        }


def report(name: str, records: Sequence[Record], preds: Sequence[Prediction]) -> SystemReport:
    gold = [r.unsupported for r in records]
    flags = [p.unsupported for p in preds]
    per_task = {}
    for task in sorted({r.task for r in records}):
        idx = [i for i, r in enumerate(records) if r.task == task]
        per_task[task] = BinaryMetrics.of([gold[i] for i in idx], [flags[i] for i in idx])
    span = SpanMetrics.of([r.spans for r in records], [p.spans for p in preds])
    return SystemReport(name, BinaryMetrics.of(gold, flags), per_task, span)


# --- the two systems ------------------------------------------------------------------------


def verifier_prediction(
    record: Record, result: MonitorResult, unsupported_actions: Sequence[Action]
) -> Prediction:
    spans = [(s.start, s.end) for s in result.flagged_spans]
    return Prediction(
        id=record.id,
        unsupported=result.action in unsupported_actions,
        risk=result.risk,
        state=result.state,
        spans=spans,
    )


@dataclass(frozen=True)
class SentenceSupport:
    """Each answer sentence's best word-overlap support over the context's passages."""

    spans: list[tuple[int, int]]
    support: list[float]

    @classmethod
    def of(cls, record: Record) -> SentenceSupport:
        index = EvidenceIndex(collect_sources(record.to_response()))
        spans, support = [], []
        for s, e in split_sentences(record.answer):
            text = record.answer[s:e]
            if not content_tokens(text) or not extract_claims(text).claims:
                continue  # "Sure!", "Here is a summary:" - not statements to judge
            spans.append((s, e))
            support.append(index.lexical_support(text))
        return cls(spans, support)

    def predict(self, record: Record, threshold: float) -> Prediction:
        low = [span for span, v in zip(self.spans, self.support, strict=True) if v < threshold]
        worst = min(self.support, default=1.0)
        return Prediction(record.id, bool(low), round(1.0 - worst, 4), "checked", low)


def tune_baseline(
    records: Sequence[Record], supports: Sequence[SentenceSupport]
) -> tuple[float, float]:
    """The lexical threshold with the best answer-level F1 on `records`, and that F1."""
    gold = [r.unsupported for r in records]
    best = (0.5, -1.0)
    for threshold in np.round(np.arange(0.05, 1.001, 0.025), 3):
        flags = [any(v < threshold for v in s.support) for s in supports]
        f1 = BinaryMetrics.of(gold, flags).f1
        if f1 > best[1]:
            best = (float(threshold), f1)
    return best


# --- gold labels of claims ------------------------------------------------------------------


def overlaps(span: tuple[int, int], gold: Sequence[tuple[int, int]]) -> bool:
    s, e = span
    return any(s < ge and gs < e for gs, ge in gold)


# --- running the verifier over records ------------------------------------------------------


class CachedNLI:
    """An `NLIModel` that remembers probabilities by (premise, hypothesis), optionally on disk.

    Calibration and evaluation run the same pairs again and again while features and
    thresholds change; the cache makes the second run cost nothing. The file is keyed by the
    wrapped model's version, so a new model never reads an old model's numbers.
    """

    def __init__(self, model: NLIModel, path: Path | None = None) -> None:
        self.model = model
        self.model_id = model.model_id
        self.version = model.version
        self.max_length = model.max_length
        self.path = path
        self._memo: dict[str, list[float]] = {}
        if path is not None and path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") == model.version:
                self._memo = data["probs"]

    @staticmethod
    def _key(pair: tuple[str, str]) -> str:
        return hashlib.sha1(f"{pair[0]}\x00{pair[1]}".encode()).hexdigest()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        keys = [self._key(p) for p in pairs]
        missing = sorted({k: i for i, k in enumerate(keys) if k not in self._memo}.values())
        if missing:
            fresh = self.model.predict([pairs[i] for i in missing])
            for i, row in zip(missing, fresh, strict=True):
                self._memo[keys[i]] = [float(v) for v in row]
        return np.array([self._memo[k] for k in keys], dtype=np.float32).reshape(len(keys), 3)

    def save(self) -> None:
        if self.path is not None:
            payload = {"version": self.version, "probs": self._memo}
            self.path.write_text(json.dumps(payload), encoding="utf-8")


@dataclass
class EvalRun:
    """Per-record results of the verifier, and the claim table for calibration."""

    records: list[Record]
    results: list[MonitorResult]
    table: ClaimTable


def run_verifier(
    records: Sequence[Record],
    verifier: Verifier,
    *,
    answers_per_batch: int = 8,
    progress: Callable[[int], None] | None = None,
) -> EvalRun:
    """Verify every record, batching the NLI pairs of several answers into one model call."""
    results: list[MonitorResult] = []
    xs: list[npt.NDArray[np.float64]] = []
    ys: list[float] = []
    answer_idx: list[int] = []
    severity: list[Severity] = []
    ctype: list[ClaimType] = []
    has_ev: list[bool] = []
    forced: list[tuple[ClaimStatus, str] | None] = []
    for start in range(0, len(records), answers_per_batch):
        chunk = records[start : start + answers_per_batch]
        prepared = [verifier.prepare(r.to_response(), undated=True) for r in chunk]
        active = [p for p in prepared if p.result is None]
        try:
            # The same rounds as the stream (early stop narrows each answer's pairs).
            judged = drive(verifier.pair_rounds(active), verifier.predict)
            probs = np.concatenate([np.zeros((0, 3), dtype=np.float32), *judged])
            failure = None
        except Exception as exc:  # recorded per answer, like the stream does
            rows = sum(len(p.pairs) for p in active)
            probs, failure = np.zeros((rows, 3), dtype=np.float32), exc
        offset = 0
        for n, (record, prep) in enumerate(zip(chunk, prepared, strict=True)):
            mine = probs[offset : offset + len(prep.pairs)] if prep.result is None else probs[:0]
            if prep.result is None:
                offset += len(prep.pairs)
            if failure is not None and prep.result is None:
                mine = np.full((len(prep.pairs), 2), np.nan, dtype=np.float32)  # fails finish
            result, feats = verifier.finish_with_features(prep, mine)
            results.append(result)
            for row, i in zip(feats, prep.judged, strict=False):
                claim = prep.claims[i]
                verdict = result.claims[i]
                xs.append(row)
                ys.append(float(overlaps((claim.span.start, claim.span.end), record.spans)))
                answer_idx.append(start + n)
                severity.append(claim.severity)
                ctype.append(claim.type)
                has_ev.append(bool(prep.evidence[prep.judged.index(i)]))
                decided = forced_outcome(verdict.checks)
                forced.append((decided.status, decided.check) if decided else None)
            if progress is not None:
                progress(1)
    table = ClaimTable(
        features=list(FEATURES),
        x=np.array(xs).reshape(len(xs), len(FEATURES)),
        y=np.array(ys),
        answer=np.array(answer_idx, dtype=np.int64),
        severity=severity,
        claim_type=ctype,
        has_evidence=has_ev,
        forced=forced,
        answer_gold=np.array([r.unsupported for r in records], dtype=bool),
        groups=[r.source for r in records],
        tasks=[r.task for r in records],
    )
    return EvalRun(list(records), results, table)
