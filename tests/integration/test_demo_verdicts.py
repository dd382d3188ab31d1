"""The demo's sessions through the verifier with the shipped model (no broker needed).

`steady` and `orders` are grounded: no claim may come out unsupported. `tired` drifts from
turn 4 on: every answer from there must be flagged (warn or block), and none before it. Every
verdict must be self-consistent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hallmon.schemas import AssembledResponse, MonitorResult

from hallmon.cli.demo_sessions import DOCS, ORDERS, STEADY, TIRED, Session
from hallmon.verification.consistency import violations
from hallmon.verification.verifier import Verifier, load_model, parse_response

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def verifier(nli_model_dir: Path) -> Verifier:
    from hallmon.topology.settings import ModelSettings

    return Verifier(load_model(ModelSettings(path=nli_model_dir)))


def answers(session: Session) -> list[AssembledResponse]:
    """Each turn as the demo streams it: its documents, tools and, for sessions that carry
    history, the earlier turns as memory."""
    out = []
    for t, turn in enumerate(session.turns):
        memory = []
        if session.history_in_context:
            memory = [
                {"memory_id": f"turn-{i}", "text": f"User: {e.question}\nAssistant: {e.answer}"}
                for i, e in enumerate(session.turns[:t])
            ]
        context = {
            "user_input": turn.question,
            "documents": [{"source_id": d, "text": DOCS[d]} for d in turn.docs],
            "tool_results": [
                {"tool": tool, "call_id": call, "output": output}
                for tool, call, output in turn.tools
            ],
            "memory": memory,
        }
        out.append(parse_response({"text": turn.answer, "turn": t, "context": context}))
    return out


def _show(result: MonitorResult) -> str:
    return "; ".join(f"{c.claim.text!r}: {c.status} ({c.reason})" for c in result.claims)


@pytest.mark.parametrize("session", [STEADY, ORDERS], ids=lambda s: s.name)
def test_grounded_sessions_have_no_unsupported_claim(verifier: Verifier, session: Session) -> None:
    for response in answers(session):
        result = verifier.verify(response)
        assert violations(result, verifier.risk_config) == []
        assert result.counts.unsupported == 0, _show(result)
        assert result.action == "allow"


def test_the_tired_session_is_caught_from_turn_4(verifier: Verifier) -> None:
    for t, response in enumerate(answers(TIRED)):
        result = verifier.verify(response)
        assert violations(result, verifier.risk_config) == []
        flagged = result.action in ("warn", "block")
        assert flagged == (t >= 4), f"turn {t}: {result.action}, {_show(result)}"
