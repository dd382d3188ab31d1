"""The per-answer time budget: a real process pool, a verifier that hangs on one answer."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hallmon.schemas import AssembledResponse, MonitorResult
from hallmon.workers.verifier.batching import BatchingConfig, NLIBatcher
from hallmon.workers.verifier.budget import OverBudget, ProcessPreparer
from hallmon.workers.verifier.service import VerificationService

pytestmark = pytest.mark.timeout(120)


@dataclass
class Prepared:
    text: str
    pairs: tuple[()] = ()
    result: None = None


class HangingVerifier:
    """Picklable stand-in: a CPU-bound loop that never ends on the answer "hang"."""

    model: Any = None

    def prepare(self, response: AssembledResponse) -> Prepared:
        while response.text == "hang":
            pass
        return Prepared(response.text)

    def finish(self, prepared: Any, probs: Any) -> MonitorResult:
        return MonitorResult(state="not_applicable", notes=[prepared.text])

    def model_versions(self) -> dict[str, str]:
        return {"nli": "test"}


def answer(text: str) -> AssembledResponse:
    return AssembledResponse(response_id=f"r-{text}", session_id="s", agent_id="a", text=text)


def test_over_budget_answer_is_stopped_and_the_next_one_runs() -> None:
    async def scenario() -> None:
        preparer = ProcessPreparer(HangingVerifier(), budget_s=1.0)
        await preparer.start()  # process start-up is not part of any answer's budget
        try:
            t0 = time.monotonic()
            with pytest.raises(OverBudget, match="HALLMON_VERIFIER__ANSWER_BUDGET_S"):
                await preparer(answer("hang"))
            assert time.monotonic() - t0 < 5.0
            assert (await preparer(answer("fine"))).text == "fine"
            assert preparer.restarts == 1
        finally:
            preparer.close()

    asyncio.run(scenario())


def test_service_turns_over_budget_into_evaluation_failed() -> None:
    async def scenario() -> None:
        verifier = HangingVerifier()
        preparer = ProcessPreparer(verifier, budget_s=0.5)
        batcher = NLIBatcher(_NoModel(), BatchingConfig())
        service = VerificationService(verifier, batcher, preparer=preparer)
        try:
            verdict = await service.verify(answer("hang"))
            assert (verdict.state, verdict.unavailable_reason) == (
                "unavailable",
                "evaluation_failed",
            )
            assert verdict.error is not None and "budget" in verdict.error
            assert verdict.model_versions == {"nli": "test"}
            ok = await service.verify(answer("fine"))
            assert ok.state == "not_applicable" and ok.notes == ["fine"]
        finally:
            preparer.close()
            await batcher.close()

    asyncio.run(scenario())


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="ANSWER_BUDGET_S"):
        ProcessPreparer(HangingVerifier(), budget_s=0)


class _NoModel:
    version = "none"
    max_length = 128

    def predict(self, pairs: Any) -> Any:
        return np.zeros((len(pairs), 3), dtype=np.float32)


def test_prepare_processes_do_not_load_the_model_runtime() -> None:
    """The budget processes unpickle the verifier to run `prepare`, which needs no model: its
    module tree must not import onnxruntime or tokenizers (about 20 MB per process)."""
    import subprocess
    import sys

    code = (
        "import sys, hallmon.workers.verifier.budget, hallmon.verification.verifier; "
        "print(sorted(m for m in ('onnxruntime', 'tokenizers') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]", out.stdout
