"""Every verdict is self-consistent: counts, confidences, risk, action and state agree."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from hallmon.schemas import (
    AssembledResponse,
    Claim,
    ClaimCounts,
    ClaimVerdict,
    MonitorResult,
    Span,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from hallmon.verification.calibration import (
    CalibrationConfig,
    Combiner,
    NLIGate,
    TypeThresholds,
    VerdictConfig,
)
from hallmon.verification.consistency import violations
from hallmon.verification.risk import RiskConfig
from hallmon.verification.verifier import Verifier, parse_response


def _verdict(status: str, confidence: float, p: float | None) -> ClaimVerdict:
    claim = Claim(id="c1", text="x", span=Span(start=0, end=1))
    return ClaimVerdict(
        claim=claim, status=status, confidence=confidence, p_unsupported=p, reason="t"
    )  # type: ignore[arg-type]


def test_a_contradiction_in_an_allow_answer_is_a_violation() -> None:
    claims = [_verdict("contradicted", 0.9, 0.9)]
    result = MonitorResult(
        state="checked", risk=0.405, action="allow", claims=claims, counts=ClaimCounts.of(claims)
    )
    found = violations(result, RiskConfig(warn=0.5))
    assert any("action allow" in v for v in found)


def test_counts_and_confidence_mismatches_are_violations() -> None:
    claims = [_verdict("supported", 0.5, 0.1)]
    result = MonitorResult(state="checked", claims=claims, counts=ClaimCounts(total=2))
    found = violations(result, RiskConfig())
    assert any("counts" in v for v in found)
    assert any("confidence 0.5" in v for v in found)


ANSWERS = [
    "I have created a refund of 89 EUR for order A-1042. It arrives within 5 business days.",
    "Returns are accepted within 30 days. Express delivery is free for members and takes 1 day.",
    "Hello! Thanks for waiting.",
    "We will make an exception and waive the fee. Your order A-1042 has shipped with DHL.",
    "The service is currently down. I have restarted the server.",
    "Die Rückgabe ist innerhalb von 14 Tagen möglich und kostenlos.",
]
CONTEXT = {
    "documents": [
        {"source_id": "policy", "text": "Returns are accepted within 30 days of delivery."},
        {"source_id": "shipping", "text": "Express delivery takes 1 business day."},
    ],
    "tool_results": [
        {
            "tool": "refunds.create",
            "call_id": "c-1",
            "status": "ok",
            "output": {"refund_id": "RF-77", "order_id": "A-1042", "amount_eur": 89.0},
        },
        {"tool": "orders.lookup", "call_id": "c-2", "status": "error", "output": "timeout"},
    ],
}


class RandomNLI:
    """Probabilities drawn from a seed: the invariants must hold whatever the model says."""

    model_id = "random-nli"
    version = "random-nli@1"
    max_length = 256

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        raw = self.rng.dirichlet([0.3, 0.3, 0.3], size=len(pairs))
        return raw.astype(np.float32).reshape(len(pairs), 3)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    answer=st.sampled_from(ANSWERS),
    with_context=st.booleans(),
    weights=st.lists(st.floats(-5, 5), min_size=3, max_size=3),
    flag=st.floats(0.5, 1.0),
    unclear_share=st.floats(0.0, 1.0),
    warn=st.floats(0.05, 0.7),
    agent_warn=st.none() | st.floats(0.01, 0.7),
    gate=st.floats(0.5, 1.0),
)
def test_every_verdict_is_self_consistent(
    seed: int,
    answer: str,
    with_context: bool,
    weights: list[float],
    flag: float,
    unclear_share: float,
    warn: float,
    agent_warn: float | None,
    gate: float,
) -> None:
    names = ["ent_max", "con_max", "lex_max"]
    combiner = Combiner(features=names, weights=weights, bias=0.0, mean=[0.0] * 3, scale=[1.0] * 3)
    config = CalibrationConfig(
        combiner=combiner,
        nli_combiner=Combiner(
            features=names[:2], weights=[-3.0, 3.0], bias=0.0, mean=[0.0] * 2, scale=[1.0] * 2
        ),
        nli_gate=NLIGate(entailment=gate, contradiction=gate),
        verdict=VerdictConfig(default=TypeThresholds(flag=flag, unclear=0.5 * unclear_share)),
        risk=RiskConfig(warn=warn, agent_warn=agent_warn),
    )
    verifier = Verifier(RandomNLI(seed), config)
    payload = {"text": answer, "context": CONTEXT if with_context else {}}
    response: AssembledResponse = parse_response(payload)
    result = verifier.verify(response)
    assert violations(result, config.risk) == [], result.model_dump_json(indent=1)
    if result.claims and result.unavailable_reason != "evaluation_failed":
        # an answer with tool results follows the agent warn, the rest the warn
        tools = with_context and agent_warn is not None
        assert result.warn_threshold == (agent_warn if tools else warn)


def test_a_warn_threshold_that_is_not_the_rules_is_a_violation() -> None:
    claims = [_verdict("unclear", 0.3, 0.3)]
    result = MonitorResult(
        state="checked",
        risk=0.045,
        action="warn",
        warn_threshold=0.04,
        claims=claims,
        counts=ClaimCounts.of(claims),
    )
    assert violations(result, RiskConfig(warn=0.02, agent_warn=0.04)) == []
    assert any("warn_threshold" in v for v in violations(result, RiskConfig(warn=0.02)))
    # the same risk under the agent warn of 0.06 is allow, not warn
    strict = result.model_copy(update={"warn_threshold": 0.06})
    assert any(
        "action warn" in v for v in violations(strict, RiskConfig(warn=0.02, agent_warn=0.06))
    )
