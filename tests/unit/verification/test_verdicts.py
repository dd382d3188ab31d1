"""Per-claim verdicts: checks decide first, then the calibrated combiner and thresholds."""

from __future__ import annotations

import numpy as np
import pytest
from hallmon.schemas import CheckResult, Claim, ClaimType, Evidence, NLIScores, Span

from hallmon.verification.calibration import (
    CalibrationConfig,
    Combiner,
    NLIGate,
    TypeThresholds,
    VerdictConfig,
    decide,
)
from hallmon.verification.verdicts import (
    FEATURES,
    ContextProfile,
    claim_features,
    forced_outcome,
    judge,
)


def claim(text: str, ctype: ClaimType = "fact") -> Claim:
    return Claim(id="c1", text=text, span=Span(start=0, end=len(text)), type=ctype)


def evidence(text: str, ent: float, con: float = 0.05) -> Evidence:
    return Evidence(
        source_id="doc-0",
        kind="document",
        content_hash="sha256:x",
        text=text,
        span=Span(start=0, end=len(text)),
        nli=NLIScores(entailment=ent, neutral=max(0.0, 1 - ent - con), contradiction=con),
    )


def features_of(c: Claim, evs: list[Evidence], context: str, lexical: float = 1.0) -> np.ndarray:
    return claim_features(c, evs, [], lexical, ContextProfile.of([context]), position=0.0)


# A combiner that is the NLI entailment alone: P(unsupported) = sigmoid(8 * (0.5 - ent)).
ENTAILMENT_ONLY = CalibrationConfig(
    combiner=Combiner(features=["ent_max"], weights=[-8.0], bias=4.0, mean=[0.0], scale=[1.0]),
    verdict=VerdictConfig(default=TypeThresholds(flag=0.6, unclear=0.4, contradiction=0.5)),
)


def test_number_that_differs_by_a_digit_is_contradicted() -> None:
    check = CheckResult(
        name="number",
        passed=False,
        detail="15 days is not in the evidence, which says 14 days (differs by one digit)",
    )
    outcome = forced_outcome([check])
    assert outcome is not None
    assert outcome.status == "contradicted"


def test_number_absent_from_the_context_is_not_found() -> None:
    check = CheckResult(name="number", passed=False, detail="$25 is not in the evidence")
    outcome = forced_outcome([check])
    assert outcome is not None and outcome.status == "not_found"


def test_failed_tool_contradicts_and_missing_tool_is_not_found() -> None:
    failed = CheckResult(
        name="action",
        passed=False,
        detail="the claim that cancel was done is not backed: tool cancel_order (tool:x) "
        "returned status error",
    )
    missing = CheckResult(
        name="action", passed=False, detail="no tool result backs the claim: no tool was called"
    )
    assert forced_outcome([failed]) == forced_outcome([failed])
    out_failed, out_missing = forced_outcome([failed]), forced_outcome([missing])
    assert out_failed is not None and out_failed.status == "contradicted"
    assert out_missing is not None and out_missing.status == "not_found"
    assert CalibrationConfig().check_probability((out_missing.status, out_missing.check)) >= 0.9


def test_passed_and_inapplicable_checks_decide_nothing() -> None:
    checks = [
        CheckResult(name="number", passed=True, detail="14 days found"),
        CheckResult(name="quote", passed=None, detail="no quotation"),
    ]
    assert forced_outcome(checks) is None


def test_a_record_that_backs_the_claim_decides_it() -> None:
    # "does not offer WiFi" against "WiFi: no" reads as a contradiction to a small NLI model.
    agrees = CheckResult(name="record", passed=True, detail="agrees with the record: WiFi=no")
    outcome = forced_outcome([agrees])
    assert outcome is not None and outcome.status == "supported"
    differs = CheckResult(name="number", passed=False, detail="9 is not in the evidence")
    failed = forced_outcome([agrees, differs])
    assert failed is not None and failed.status == "not_found"


def test_a_failed_check_dominates_strong_entailment() -> None:
    c = claim("Returns are accepted within 15 days.", "number")
    evs = [evidence("Returns are accepted within 14 days.", ent=0.97)]
    check = CheckResult(name="number", passed=False, detail="15 is not in the evidence")
    verdict = judge(c, evs, [check], features_of(c, evs, evs[0].text), ENTAILMENT_ONLY)
    assert verdict.status == "not_found"
    assert "number check" in verdict.reason


@pytest.mark.parametrize(
    ("ent", "con", "status"),
    [
        (0.95, 0.02, "supported"),
        (0.5, 0.05, "unclear"),
        (0.05, 0.1, "not_found"),
        (0.02, 0.9, "contradicted"),
    ],
)
def test_thresholds_map_probability_to_status(ent: float, con: float, status: str) -> None:
    c = claim("The store opens at nine.")
    evs = [evidence("The store opens at nine.", ent=ent, con=con)]
    verdict = judge(c, evs, [], features_of(c, evs, evs[0].text), ENTAILMENT_ONLY)
    assert verdict.status == status
    assert 0.0 <= verdict.confidence <= 1.0
    assert verdict.evidence[0].nli is not None


def test_per_type_thresholds_override_the_default() -> None:
    thresholds = VerdictConfig(
        default=TypeThresholds(flag=0.9, unclear=0.5),
        per_type={"number": TypeThresholds(flag=0.5, unclear=0.5)},
    )
    assert thresholds.for_type("number").flag == 0.5
    assert thresholds.for_type("fact").flag == 0.9
    assert decide(0.6, 0.4, 0.1, True, thresholds.for_type("number")) == ("not_found", 0.6)
    assert decide(0.4, 0.4, 0.1, True, thresholds.for_type("fact")) == ("supported", 0.6)


def test_a_flag_below_one_half_is_refused() -> None:
    # contradicted / not_found must mean "more likely unsupported than not".
    with pytest.raises(ValueError, match="flag"):
        TypeThresholds(flag=0.3, unclear=0.1)


def test_no_evidence_is_never_supported() -> None:
    status, confidence = decide(0.1, 0.0, 0.0, False, TypeThresholds())
    assert status == "unclear"
    assert confidence == 0.1


def test_nli_contradiction_is_never_outvoted_into_support() -> None:
    # Word overlap may push P(unsupported) down; the model's contradiction label still stands.
    status, _ = decide(0.02, 0.1, 0.95, True, TypeThresholds())
    assert status == "unclear"
    assert decide(0.7, 0.1, 0.8, True, TypeThresholds())[0] == "contradicted"
    # A moderate contradiction the calibrated probability discounts does not block support.
    assert decide(0.02, 0.7, 0.8, True, TypeThresholds())[0] == "supported"


def test_confidence_is_the_probability_of_the_stated_label() -> None:
    for p in (0.01, 0.3, 0.45, 0.55, 0.99):
        status, confidence = decide(p, 0.5, 0.1, True, TypeThresholds())
        assert confidence == pytest.approx(1 - p if status == "supported" else p)


def test_inside_the_nli_gate_only_the_nli_combiner_speaks() -> None:
    overlap_lover = Combiner(  # strong word overlap says "supported" whatever the model says
        features=["lex_max"], weights=[-20.0], bias=10.0, mean=[0.0], scale=[1.0]
    )
    nli_only = Combiner(
        features=["ent_max", "con_max"], weights=[-6.0, 6.0], bias=0.0, mean=[0.0, 0.0],
        scale=[1.0, 1.0],
    )  # fmt: skip
    config = CalibrationConfig(combiner=overlap_lover, nli_combiner=nli_only)
    c = claim("Shoes with manufacturing defects are not covered by any warranty.")
    premise = "All shoes carry a 2-year warranty against manufacturing defects."
    evs = [evidence(premise, ent=0.01, con=0.97)]
    verdict = judge(c, evs, [], features_of(c, evs, premise, lexical=1.0), config)
    assert verdict.status == "contradicted"
    assert verdict.p_unsupported is not None and verdict.p_unsupported > 0.9


def test_non_english_claims_are_unclear_at_best() -> None:
    c = claim("Die Rückgabe ist innerhalb von 14 Tagen möglich.")
    evs = [evidence(c.text, ent=0.99)]
    verdict = judge(c, evs, [], features_of(c, evs, c.text), ENTAILMENT_ONLY, english=False)
    assert verdict.status == "unclear"
    assert "English-only" in verdict.reason


def test_novelty_features_count_what_the_context_never_mentions() -> None:
    c = claim("Goodland Kitchen serves 12 dishes in Santa Barbara.")
    x = features_of(c, [], "Goodland Kitchen is in Goleta and serves 12 dishes.", lexical=0.5)
    assert x[FEATURES.index("novel_names")] == 2.0  # Santa, Barbara
    assert x[FEATURES.index("novel_numbers")] == 0.0
    assert 0.0 < x[FEATURES.index("novel_words")] < 1.0
    assert x[FEATURES.index("lex_max")] == 0.5
    assert x[FEATURES.index("ent_max")] == 0.0


def test_calibration_rejects_unknown_features_with_the_fix() -> None:
    config = CalibrationConfig(
        combiner=Combiner(features=["shoe_size"], weights=[1.0], bias=0.0, mean=[0], scale=[1])
    )
    c = claim("The store opens at nine.")
    evs = [evidence(c.text, ent=0.9)]
    with pytest.raises(ValueError, match="hallmon calibrate"):
        judge(c, evs, [], features_of(c, evs, c.text), config)


def test_the_nli_gate_can_be_switched_off_for_ablations() -> None:
    assert NLIGate().confident(0.95, 0.01)
    assert NLIGate().confident(0.01, 0.95)
    assert not NLIGate().confident(0.6, 0.5)
    assert not NLIGate(enabled=False).confident(0.95, 0.01)


def test_overlap_features_are_split_by_what_the_best_passage_is() -> None:
    c = claim("The cafe has a patio for dogs.")
    prose = [evidence("The cafe has a patio.", ent=0.6)]
    record = [prose[0].model_copy(update={"derived_from": "sha256:json"})]
    col = {name: i for i, name in enumerate(FEATURES)}
    from_prose = features_of(c, prose, prose[0].text, lexical=0.7)
    from_record = features_of(c, record, record[0].text, lexical=0.7)
    assert from_prose[col["record_context"]] == 0.0 and from_record[col["record_context"]] == 1.0
    assert from_prose[col["prose_lex"]] == pytest.approx(0.7)
    assert from_record[col["prose_lex"]] == 0.0 and from_record[col["prose_novel"]] == 0.0
    assert from_prose[col["prose_novel"]] == from_prose[col["novel_words"]] > 0


# A combiner that calls every claim supported (P(unsupported) 0.02), as word overlap can.
OVERLAP_SUPPORTS = CalibrationConfig(
    combiner=Combiner(features=["ent_max"], weights=[0.0], bias=-4.0, mean=[0.0], scale=[1.0]),
)


def test_a_promised_favour_no_source_makes_is_not_found_whatever_the_overlap() -> None:
    text = "Refunds are handled by the store, but as this was our mistake, we'll refund the €9.99."
    c = claim(text, "commitment")
    evs = [evidence("Refund requests must be made to the store directly.", ent=0.02)]
    partial = CheckResult(name="commitment", passed=None, detail="help may state it (50%)")
    amount = CheckResult(name="tool_fact", passed=True, detail="purchases agrees: '€9.99'")
    verdict = judge(c, evs, [partial, amount], features_of(c, evs, evs[0].text), OVERLAP_SUPPORTS)
    assert verdict.status == "not_found" and "no source makes this promise" in verdict.reason
    # a next step is no favour, and an entailed promise stands
    step = claim("I'll ship it to your usual address.", "commitment")
    verdict = judge(step, evs, [partial], features_of(step, evs, evs[0].text), OVERLAP_SUPPORTS)
    assert verdict.status == "supported"
    backed = [evidence("We refund the price of purchases made by mistake.", ent=0.9)]
    verdict = judge(c, backed, [partial], features_of(c, backed, backed[0].text), OVERLAP_SUPPORTS)
    assert verdict.status == "supported"


def test_a_policy_quoted_verbatim_is_no_promise_of_the_agent() -> None:
    text = 'Our guarantee says: "If HMRC charges you a penalty, we will pay it."'
    c = claim(text, "commitment")
    evs = [evidence("If HMRC charges you a penalty, we will pay it.", ent=0.1)]
    partial = CheckResult(name="commitment", passed=None, detail="guarantee may state it (67%)")
    quote = CheckResult(name="quote", passed=True, detail="occurs verbatim in guarantee")
    verdict = judge(c, evs, [partial, quote], features_of(c, evs, evs[0].text), OVERLAP_SUPPORTS)
    assert verdict.status == "supported"
