"""Evaluation metrics, dataset mapping, the lexical baseline and the calibration fit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from hallmon.verification.calibration import (
    CalibrationConfig,
    ClaimTable,
    NLIGate,
    fit_calibration,
    fit_logistic,
    group_folds,
    load_calibration,
    save_calibration,
)
from hallmon.verification.eval import (
    BinaryMetrics,
    CachedNLI,
    Record,
    SentenceSupport,
    SpanMetrics,
    load_records,
    run_verifier,
    select_split,
    tune_baseline,
)
from hallmon.verification.verifier import Verifier

from .test_verifier import WordOverlapNLI


def record(
    rid: str, answer: str, spans: Sequence[tuple[int, int]] = (), task: str = "qa"
) -> Record:
    return Record(
        id=rid,
        context=["Returns are accepted within 14 days of delivery.", "The store opens at 9am."],
        question="What is the return policy?",
        answer=answer,
        unsupported=bool(spans),
        spans=list(spans),
        task=task,
        source=rid,
    )


def test_binary_metrics_by_hand() -> None:
    m = BinaryMetrics.of([True, True, False, False], [True, False, True, False])
    assert (m.precision, m.recall, m.f1) == (0.5, 0.5, 0.5)
    assert m.balanced_accuracy == 0.5
    perfect = BinaryMetrics.of([True, False], [True, False])
    assert perfect.f1 == 1.0 and perfect.balanced_accuracy == 1.0
    assert BinaryMetrics.of([False], [False]).f1 == 0.0


def test_span_metrics_count_characters() -> None:
    m = SpanMetrics.of([[(0, 10)], []], [[(5, 15)], [(0, 5)]])
    # tp 5 chars, fp 5 + 5, fn 5
    assert m.precision == pytest.approx(5 / 15)
    assert m.recall == pytest.approx(5 / 10)


def test_record_maps_to_a_response_with_documents_and_question() -> None:
    r = record("a1", "Returns are accepted within 14 days.")
    response = r.to_response()
    assert [d.source_id for d in response.context.documents] == ["ctx-0", "ctx-1"]
    assert response.context.user_input == "What is the return policy?"
    assert response.text == r.answer


def test_load_records_names_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "x", "answer": "a"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"d.jsonl:1"):
        load_records(path)


def test_a_records_ts_is_the_answers_time(tmp_path: Path) -> None:
    row = {"id": "t1", "context": ["c"], "question": None, "answer": "a", "label": "supported"}
    path = tmp_path / "d.jsonl"
    lines = [{**row, "ts": "2026-12-02T12:00:00Z"}, {**row, "id": "t2", "ts": "2026-12-02"}, row]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    dated, day_only, undated = load_records(path)
    assert dated.to_response().stream_ended_at == datetime(2026, 12, 2, 12, tzinfo=UTC)
    assert day_only.ts == datetime(2026, 12, 2, tzinfo=UTC)  # a date alone is read as UTC
    assert undated.to_response().stream_ended_at is None
    path.write_text(json.dumps({**row, "ts": "yesterday"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"d.jsonl:1: ts 'yesterday' is not an ISO 8601"):
        load_records(path)


def test_split_all_excludes_train_ids() -> None:
    records = [record("tr", "x"), record("ca", "x"), record("te", "x"), record("other", "x")]
    ids = {"train": ["tr"], "calib": ["ca"], "test": ["te"]}
    assert [r.id for r in select_split(records, "all", ids)] == ["ca", "te", "other"]
    assert [r.id for r in select_split(records, "test", ids)] == ["te"]
    with pytest.raises(ValueError, match="not one of"):
        select_split(records, "dev", ids)


def test_lexical_baseline_flags_sentences_without_overlap() -> None:
    good = record("g", "Sure! Returns are accepted within 14 days of delivery.")
    bad_answer = "Returns are accepted within 14 days. Shipping to Mars is free."
    bad = record("b", bad_answer, [(37, len(bad_answer))])
    supports = [SentenceSupport.of(good), SentenceSupport.of(bad)]
    assert len(supports[0].spans) == 1  # "Sure!" has no content word to judge
    threshold, f1 = tune_baseline([good, bad], supports)
    assert f1 == 1.0
    assert supports[1].predict(bad, threshold).unsupported
    assert not supports[0].predict(good, threshold).unsupported


def test_cached_nli_runs_each_pair_once(tmp_path: Path) -> None:
    model = WordOverlapNLI()
    cache = CachedNLI(model, tmp_path / "cache.json")
    pairs = [("Returns within 14 days.", "Returns within 14 days.")] * 3
    first = cache.predict(pairs)
    second = cache.predict(pairs[:1])
    assert model.calls == 1
    assert np.allclose(first[0], second[0])
    cache.save()
    again = CachedNLI(WordOverlapNLI(), tmp_path / "cache.json")
    again.predict(pairs)
    assert again.model.calls == 0  # type: ignore[attr-defined]


def test_logistic_fit_separates_a_simple_rule() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(400, 2))
    y = (x[:, 0] < 0.4).astype(float)
    w, b, mean, scale = fit_logistic(x, y, l2=0.1)
    z = (x - mean) / scale
    p = 1 / (1 + np.exp(-(z @ w + b)))
    assert np.mean((p > 0.5) == (y > 0.5)) > 0.95
    assert w[0] < 0 and abs(w[1]) < abs(w[0]) / 5


def test_group_folds_keep_groups_together() -> None:
    groups = ["a", "a", "b", "c", "c", "d"]
    folds = group_folds(groups, 2)
    assert sorted(int(i) for f in folds for i in f) == list(range(6))
    for fold in folds:
        members = {groups[int(i)] for i in fold}
        for g in members:
            assert all(int(i) in set(fold.tolist()) for i, gg in enumerate(groups) if gg == g)


def test_run_verifier_and_fit_calibration_round_trip(tmp_path: Path) -> None:
    good = "Returns are accepted within 14 days of delivery. The store opens at 9am."
    bad = "Returns are accepted within 14 days of delivery. Shipping to Mars costs 40 dollars."
    records = []
    for i in range(12):
        records.append(record(f"g{i}", good))
        records.append(record(f"b{i}", bad, [(50, len(bad))]))
    run = run_verifier(records, Verifier(WordOverlapNLI(), CalibrationConfig()))
    table: ClaimTable = run.table
    assert len(run.results) == len(records)
    assert table.x.shape == (4 * 12, len(table.features))
    assert table.y.sum() == 12
    config, report = fit_calibration(table, CalibrationConfig(), l2_grid=(1.0,), folds=3)
    assert config.combiner is not None
    assert report["cv_answer_f1"] == 1.0
    assert 0.0 <= report["ece_out_of_fold"] <= 1.0
    assert sum(row["claims"] for row in report["reliability_out_of_fold"]) == len(table.y)
    assert config.verdict.default.flag >= 0.5 and config.verdict.default.unclear <= 0.5
    path = save_calibration(config, tmp_path / "calibration.json")
    loaded, sha = load_calibration(path)
    assert loaded == config
    assert len(sha) == 12


def _probe(x: npt.NDArray[np.float64]) -> None:  # keeps numpy.typing imported for mypy
    assert x.ndim == 2


def test_agent_trace_records_carry_their_context_and_split() -> None:
    row = {
        "id": "agent-1",
        "question": "Where is my order?",
        "answer": "Your order A-1042 has shipped.",
        "label": "supported",
        "spans": [],
        "context": [],
        "task": "agent",
        "rule": "tool_fact_status",
        "split": "test",
        "response_context": {
            "tool_results": [
                {"tool": "orders.lookup", "call_id": "c1", "status": "error", "output": "x"}
            ]
        },
    }
    rec = Record.from_json(row, "here")
    response = rec.to_response()
    assert response.context.tool_results[0].status == "error"
    assert response.context.user_input == "Where is my order?"
    assert select_split([rec], "test", {}) == [rec]
    assert select_split([rec], "calib", {}) == []
    assert select_split([rec], "all", {"train": []}) == [rec]


def test_the_committed_agent_traces_are_balanced_and_labelled_by_rule() -> None:
    path = Path(__file__).resolve().parents[2] / "agent_traces" / "agent_traces.jsonl"
    records = load_records(path)
    assert len(records) >= 150
    assert abs(sum(r.unsupported for r in records) - len(records) / 2) <= 1
    assert all(r.rule and r.split in ("calib", "test") for r in records)
    assert all(bool(r.spans) == r.unsupported for r in records)


def test_a_record_whose_context_breaks_the_contract_names_its_line(tmp_path: Path) -> None:
    row = {
        "id": "r-1",
        "context": [],
        "question": "q",
        "answer": "I sent it.",
        "label": "unsupported",
        "spans": [],
        "response_context": {
            "tool_results": [{"tool": "email.send", "call_id": "c", "status": "failed"}]
        },
    }
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"set.jsonl:1 \(id r-1\): .*tool_results.0.status"):
        load_records(path)


def test_threshold_score_averages_tasks_so_the_largest_does_not_decide() -> None:
    from hallmon.verification.calibration import answer_score, task_score

    # Task a: 6 answers, 5 unsupported; task b: 4 answers, one unsupported.
    gold = np.array([True] * 5 + [False] + [True, False, False, False])
    flag_all = np.ones(10, dtype=bool)
    tasks = ["a"] * 6 + ["b"] * 4
    picky = gold.copy()
    assert task_score(gold, picky, tasks) == pytest.approx(1.0)
    # Flag-all is good pooled (most answers are unsupported) but poor on task b.
    per_task = (answer_score(gold[:6], flag_all[:6]) + answer_score(gold[6:], flag_all[6:])) / 2
    assert task_score(gold, flag_all, tasks) == pytest.approx(per_task)
    assert task_score(gold, flag_all, tasks) < answer_score(gold, flag_all)
    assert task_score(gold, flag_all, []) == answer_score(gold, flag_all)


def test_agent_answers_claims_get_a_combiner_of_their_own() -> None:
    from hallmon.verification.calibration import fit_combiners, gate_mask
    from hallmon.verification.verdicts import FEATURES

    rng = np.random.default_rng(1)
    n = 600
    x = np.zeros((n, len(FEATURES)))
    ent, agent = FEATURES.index("ent_max"), FEATURES.index("tool_context")
    x[:, ent] = rng.uniform(0, 1, n)
    x[n // 2 :, agent] = 1.0  # the second half: claims of answers with tool results
    # prose claims: low entailment means unsupported; agent claims: unsupported 5% whatever
    # the model says (the NLI scores do not read them)
    y = np.where(x[:, agent] > 0.5, (rng.uniform(0, 1, n) < 0.05), (x[:, ent] < 0.3)).astype(float)
    table = ClaimTable(
        features=list(FEATURES),
        x=x,
        y=y,
        answer=np.arange(n),
        severity=["medium"] * n,
        claim_type=["fact"] * n,
        has_evidence=[True] * n,
        forced=[None] * n,
        answer_gold=y > 0.5,
        groups=[str(i) for i in range(n)],
    )
    rows = np.arange(n)
    combiners = fit_combiners(table, list(FEATURES), rows, gate_mask(table, NLIGate()), 1.0)
    assert combiners.agent is not None
    config = CalibrationConfig(combiner=combiners.full, agent_combiner=combiners.agent)
    assert config.combiner_for(0.05, 0.1, agent=True) is combiners.agent
    assert config.combiner_for(0.05, 0.1) is combiners.full
    low = np.zeros((1, len(FEATURES)))
    low[0, ent] = 0.05
    prose = float(
        combiners.full.probability(low[:, [FEATURES.index(f) for f in combiners.full.features]])[0]
    )
    low[0, agent] = 1.0
    tooled = float(
        combiners.agent.probability(low[:, [FEATURES.index(f) for f in combiners.agent.features]])[
            0
        ]
    )
    # the same weak entailment: likely unsupported in prose, near the 5% base rate for an agent
    assert prose > 0.5 and tooled < 0.2
    # an old calibration file without an agent combiner serves agent claims as before
    assert (
        CalibrationConfig(combiner=combiners.full).combiner_for(0.05, 0.1, agent=True)
        is combiners.full
    )


def test_answers_with_tool_results_get_a_warn_threshold_of_their_own() -> None:
    # Prose answers are unsupported from a small risk up, agent answers only from a larger one:
    # one shared warn serves neither; the agent warn is fitted on the agent answers alone.
    from hallmon.verification.calibration import (
        ThresholdFit,
        TypeThresholds,
        VerdictConfig,
        answer_tools,
        tune_agent_warn,
    )
    from hallmon.verification.risk import RiskConfig
    from hallmon.verification.verdicts import FEATURES

    rng = np.random.default_rng(3)
    n = 400
    x = np.zeros((n, len(FEATURES)))
    x[n // 2 :, FEATURES.index("tool_context")] = 1.0
    p = rng.uniform(0, 1, n)  # each answer has one unclear claim: risk 0.15 * p
    agent = np.arange(n) >= n // 2
    gold = np.where(agent, p > 0.6, p > 0.1)
    table = ClaimTable(
        features=list(FEATURES),
        x=x,
        y=gold.astype(float),
        answer=np.arange(n),
        severity=["medium"] * n,
        claim_type=["fact"] * n,
        has_evidence=[True] * n,
        forced=[("unclear", "number")] * n,
        answer_gold=gold,
        groups=[str(i) for i in range(n)],
    )
    assert answer_tools(table).tolist() == agent.tolist()
    verdict = VerdictConfig(default=TypeThresholds(flag=0.5, unclear=0.05))
    fit = ThresholdFit(verdict, RiskConfig(warn=0.02), 0.0, 0.0)
    warn = tune_agent_warn(table, p, fit)
    assert warn is not None and abs(warn - 0.15 * 0.6) <= 0.02
    rule = RiskConfig(warn=0.02, agent_warn=warn)
    assert rule.for_answer(tools=True).warn == warn
    assert rule.for_answer(tools=False).warn == 0.02
    assert "agent_warn" in (rule.moved() or "")
    with pytest.raises(ValueError):
        RiskConfig(warn=0.02, agent_warn=0.8, block=0.7)
