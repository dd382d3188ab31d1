"""`hallmon.guard` with the real model, in process and over HTTP against `hallmon serve`."""

from __future__ import annotations

import pytest

from hallmon.guard import AgentReply, Guard, GuardTexts, HttpChecker
from tests.integration.serve.conftest import ServedPipeline

pytestmark = [pytest.mark.integration, pytest.mark.model]

POLICY = "Unworn shoes can be returned within 30 days of delivery for a full refund."
TEXTS = GuardTexts(refusal="REFUSED", notice=" [unverified]")


def test_in_process_guard_warns_on_a_wrong_number_and_allows_a_grounded_answer() -> None:
    guard = Guard.in_process(TEXTS)
    wrong = guard.check(
        AgentReply(output="Unworn shoes can be returned within 90 days.", context=[POLICY])
    )
    right = guard.check(
        AgentReply(output="Unworn shoes can be returned within 30 days.", context=[POLICY])
    )
    assert wrong.action in ("warn", "block") and wrong.text != wrong.original
    assert right.action == "allow" and right.text == right.original
    assert right.result is not None and right.result.claims[0].status == "supported"


def test_http_guard_blocks_several_contradictions(served_pipeline: ServedPipeline) -> None:
    checker = HttpChecker(served_pipeline.base_url)
    try:
        out = Guard(checker, TEXTS).check(
            AgentReply(
                output=(
                    "Unworn shoes can be returned within 90 days. "
                    "Worn shoes can be returned within 60 days. "
                    "Refunds take 45 business days."
                ),
                context=[POLICY, "Refunds take 5 business days. Worn shoes cannot be returned."],
            )
        )
    finally:
        checker.close()
    assert out.result is not None and out.result.counts.total == 3
    assert out.action == out.result.action == "block" and out.text == "REFUSED"
