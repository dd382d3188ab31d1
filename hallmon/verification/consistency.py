"""Whether a verdict is self-consistent: the invariants every `MonitorResult` must satisfy.

A verdict whose fields disagree (a claim `contradicted` at high confidence in an `allow`
answer, counts that do not match the claims, a risk that is not the rule's sum) is a defect.
`violations` lists every disagreement in words; the tests run it over real and random results,
and `hallmon eval` counts answers that break it. The rules are those of the README table
"What the numbers of a verdict mean".
"""

from __future__ import annotations

from hallmon.schemas import ClaimCounts, MonitorResult
from hallmon.verification.risk import RiskConfig, action_of, answer_risk

TOLERANCE = 1e-3
"""Rounding slack: risks and probabilities are published with 4 decimals."""


def violations(result: MonitorResult, risk: RiskConfig) -> list[str]:
    """Every invariant `result` breaks under the risk rule `risk`; empty when consistent."""
    out: list[str] = []
    if result.warn_threshold is not None:
        if result.warn_threshold not in {risk.warn, risk.agent_warn}:
            out.append(
                f"warn_threshold {result.warn_threshold} is neither the rule's warn {risk.warn} "
                f"nor its agent warn {risk.agent_warn}"
            )
        # the verdict says which of the rule's warn thresholds its action follows
        risk = risk.model_copy(update={"warn": result.warn_threshold, "agent_warn": None})
    expected = ClaimCounts.of(result.claims, skipped=len(result.skipped))
    if result.counts != expected:
        out.append(f"counts {result.counts.model_dump()} do not match the claims {expected}")
    for v in result.claims:
        p = v.p_unsupported
        if p is None:
            if v.status != "unclear" or v.confidence != 0.0:
                out.append(f"{v.claim.id}: not judged (no p_unsupported) but {v.status}")
            continue
        want = 1.0 - p if v.status == "supported" else p
        if abs(v.confidence - want) > TOLERANCE:
            out.append(
                f"{v.claim.id}: confidence {v.confidence} is not the probability of "
                f"'{v.status}' ({want:.4f} from p_unsupported {p})"
            )
        if v.status == "supported" and p > 0.5 + TOLERANCE:
            out.append(f"{v.claim.id}: supported although p_unsupported is {p}")
        if v.status in ("contradicted", "not_found") and p < 0.5 - TOLERANCE:
            out.append(f"{v.claim.id}: {v.status} although p_unsupported is only {p}")
    if result.unavailable_reason == "evaluation_failed":
        if result.claims or result.risk != 0.0 or result.action != "allow":
            out.append("evaluation_failed must carry no claims, risk 0 and action allow")
        return out
    summed = answer_risk(result.claims, risk)
    if result.language is None and result.unavailable_reason == "stream_incomplete":
        # Missing chunks weigh in as unchecked text on top of the claims' sum.
        if result.risk + TOLERANCE < summed:
            out.append(f"incomplete answer with risk {result.risk} below the claims' sum")
    elif result.language is None:
        if abs(result.risk - summed) > TOLERANCE:
            out.append(f"risk {result.risk} is not the rule's sum {summed:.4f}")
    elif result.claims and result.risk + TOLERANCE < max(summed, risk.warn):
        out.append(f"non-English answer with risk {result.risk} below warn {risk.warn}")
    expected_action = action_of(result.risk, result.claims, risk)
    if result.action != expected_action:
        out.append(
            f"action {result.action} but risk {result.risk} and the claims give "
            f"{expected_action} (warn {risk.warn}, block {risk.block})"
        )
    if result.state == "not_applicable" and result.claims:
        out.append("not_applicable although the answer has claims")
    if result.state == "checked" and not result.claims:
        out.append("checked although the answer has no claims")
    return out
