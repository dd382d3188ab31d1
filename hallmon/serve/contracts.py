"""The HTTP API's request and response bodies, built on hallmon's contracts in `schemas`.

`POST /monitor/check` takes either the seed's request shape (`agent_id`, `input`, `output`,
`context`, `tool_logs`, `memory_refs`) or a `response` event (the producers' contract), and
answers with the seed's `MonitorResult` fields (`risk`, `action`, `verdicts[]` with `claim_id`,
`status`, `confidence`, `evidence`) on top of hallmon's own `MonitorResult` (claims with spans,
state, reasons, counts, notes).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, Tag

from hallmon.schemas import (
    AssembledResponse,
    ClaimVerdict,
    DocumentItem,
    Evidence,
    FatigueSnapshot,
    MemoryItem,
    MonitorResult,
    ResponseEvent,
    ToolResultItem,
    VerdictEvent,
)
from hallmon.schemas.common import AnswerText, Contract, EventText
from hallmon.schemas.events import Id, Trust
from hallmon.schemas.results import ClaimStatus, ClaimType, Severity, Span
from hallmon.workers.fatigue.recent import AlertMark, RecentVerdict

MAX_ITEMS = 256
"""List fields are bounded before the contract's own item limit is applied."""


class SeedDocument(Contract):
    source_id: Id | None = Field(None, description="Defaults to doc-<position>")
    text: EventText
    trust: Trust | None = None
    locator: str | None = Field(None, max_length=2048)


class SeedToolLog(Contract):
    tool: Id = "tool"
    call_id: Id | None = Field(None, description="Defaults to call-<position>")
    output: str | dict[str, Any] | list[Any] | None = None
    status: Literal["ok", "error", "timeout", "cancelled"] = "ok"
    arguments: dict[str, Any] | None = None


class SeedMemory(Contract):
    memory_id: Id | None = Field(None, description="Defaults to memory-<position>")
    text: EventText
    trust: Trust | None = None


class SeedCheckRequest(Contract):
    """The seed specification's request: an answer (`output`) and what the agent had."""

    model_config = ConfigDict(
        **Contract.model_config,
        json_schema_extra={
            "examples": [
                {
                    "agent_id": "support-bot",
                    "input": "Can I return these shoes?",
                    "output": "You can return unworn shoes within 90 days. Happy to help!",
                    "context": [
                        {
                            "source_id": "returns-policy",
                            "text": "Unworn shoes can be returned within 30 days of delivery.",
                        }
                    ],
                    "tool_logs": [
                        {
                            "tool": "orders.lookup",
                            "call_id": "c1",
                            "output": {"order": "A-1042", "status": "delivered"},
                        }
                    ],
                    "memory_refs": [],
                }
            ]
        },
    )

    agent_id: Id = "check"
    session_id: Id | None = None
    response_id: Id | None = None
    turn: int | None = Field(None, ge=0)
    model: str | None = Field(None, max_length=256)
    input: EventText | None = Field(None, description="The user's message")
    output: AnswerText = Field(description="The agent's answer to check")
    context: list[EventText | SeedDocument] = Field(default_factory=list, max_length=MAX_ITEMS)
    tool_logs: list[SeedToolLog | EventText] = Field(default_factory=list, max_length=MAX_ITEMS)
    memory_refs: list[EventText | SeedMemory] = Field(default_factory=list, max_length=MAX_ITEMS)

    def assembled_fields(self) -> dict[str, Any]:
        """The fields of an `AssembledResponse` (validated by the caller with its limits)."""
        documents = [
            DocumentItem(source_id=f"doc-{i}", text=c)
            if isinstance(c, str)
            else DocumentItem(
                source_id=c.source_id or f"doc-{i}", text=c.text, trust=c.trust, locator=c.locator
            )
            for i, c in enumerate(self.context)
        ]
        tools = [
            ToolResultItem(tool="tool", call_id=f"call-{i}", output=t)
            if isinstance(t, str)
            else ToolResultItem(
                tool=t.tool,
                call_id=t.call_id or f"call-{i}",
                output=t.output,
                status=t.status,
                arguments=t.arguments,
            )
            for i, t in enumerate(self.tool_logs)
        ]
        memory = [
            MemoryItem(memory_id=f"memory-{i}", text=m)
            if isinstance(m, str)
            else MemoryItem(memory_id=m.memory_id or f"memory-{i}", text=m.text, trust=m.trust)
            for i, m in enumerate(self.memory_refs)
        ]
        return {
            "response_id": self.response_id or f"check-{uuid.uuid4().hex}",
            "session_id": self.session_id or "check",
            "agent_id": self.agent_id,
            "model": self.model,
            "turn": self.turn,
            "text": self.output,
            "question": self.input,
            "context": {
                "user_input": self.input,
                "documents": [d.model_dump() for d in documents],
                "tool_results": [t.model_dump() for t in tools],
                "memory": [m.model_dump() for m in memory],
            },
            "origin": "check",
        }


class ResponseCheckRequest(ResponseEvent):
    """A `response` event, as producers put on `agent.traces`; the ids may be left out."""

    event_id: Id = "check"
    session_id: Id = "check"
    response_id: Id = "check"
    agent_id: Id = "check"

    def assembled_fields(self) -> dict[str, Any]:
        fields = AssembledResponse.from_response_event(self).model_dump()
        fields["origin"] = "check"
        if self.response_id == "check":
            fields["response_id"] = f"check-{uuid.uuid4().hex}"
        return fields


def _request_kind(value: Any) -> str:
    if isinstance(value, dict):
        is_event = value.get("type") == "response" or ("text" in value and "output" not in value)
        return "response" if is_event else "seed"
    return "response" if isinstance(value, ResponseCheckRequest) else "seed"


CheckRequest = Annotated[
    Annotated[SeedCheckRequest, Tag("seed")] | Annotated[ResponseCheckRequest, Tag("response")],
    Discriminator(_request_kind),
]


class SeedVerdict(Contract):
    """One claim's verdict in the seed's shape, with hallmon's extras (text, span, reason)."""

    claim_id: str
    status: ClaimStatus
    confidence: float
    evidence: list[Evidence] = Field(default_factory=list)
    claim: str
    span: Span
    type: ClaimType
    severity: Severity
    reason: str

    @classmethod
    def of(cls, v: ClaimVerdict) -> SeedVerdict:
        return cls(
            claim_id=v.claim.id,
            status=v.status,
            confidence=v.confidence,
            evidence=v.evidence,
            claim=v.claim.text,
            span=v.claim.span,
            type=v.claim.type,
            severity=v.claim.severity,
            reason=v.reason,
        )


class CheckResponse(MonitorResult):
    """The seed's `MonitorResult` (`risk`, `action`, `verdicts`) plus hallmon's result."""

    response_id: str
    session_id: str
    agent_id: str
    verdicts: list[SeedVerdict] = Field(default_factory=list)
    verification_ms: float = 0.0

    @classmethod
    def of(cls, verdict: VerdictEvent) -> CheckResponse:
        base = MonitorResult.model_validate(
            verdict.model_dump(include=set(MonitorResult.model_fields))
        )
        return cls(
            **base.model_dump(),
            response_id=verdict.response_id,
            session_id=verdict.session_id,
            agent_id=verdict.agent_id,
            verdicts=[SeedVerdict.of(c) for c in verdict.claims],
            verification_ms=verdict.timings.verification_ms,
        )


class ErrorBody(Contract):
    """Every error the API itself raises (413, 401, 404, 503)."""

    error: str
    detail: str | None = None


class SessionSummary(Contract):
    session_id: str
    agent_id: str
    responses: int
    unsupported_rate: float
    recent_rate: float
    slope_per_turn: float | None
    slope_per_1k_tokens: float | None
    last_turn: int | None
    rates: list[float] = Field(description="Unsupported rate per answer, oldest first (sparkline)")

    @classmethod
    def of(cls, snap: FatigueSnapshot, points: int = 50) -> SessionSummary:
        return cls(
            session_id=snap.session_id,
            agent_id=snap.agent_id,
            responses=snap.responses,
            unsupported_rate=snap.unsupported_rate,
            recent_rate=snap.recent_rate,
            slope_per_turn=snap.slope_per_turn,
            slope_per_1k_tokens=snap.slope_per_1k_tokens,
            last_turn=snap.last_turn,
            rates=[round(p.unsupported_rate, 4) for p in snap.series[-points:]],
        )


class SessionsPage(Contract):
    total: int
    offset: int
    limit: int
    sessions: list[SessionSummary]


class SessionDetail(Contract):
    snapshot: FatigueSnapshot
    alerts: list[AlertMark] = Field(default_factory=list)
    verdicts: list[RecentVerdict] = Field(default_factory=list)


class FleetBucket(Contract):
    range: str
    responses: int = 0
    claims: int = 0
    unsupported: int = 0
    unsupported_rate: float = 0.0


class FleetFatigue(Contract):
    agent_id: str
    by_turn: list[FleetBucket]
    by_context: list[FleetBucket]

    @classmethod
    def of(cls, agent_id: str, raw: dict[str, dict[str, dict[str, int]]]) -> FleetFatigue:
        def buckets(name: str) -> list[FleetBucket]:
            out = []
            for rng, m in raw.get(name, {}).items():
                claims = m.get("claims", 0)
                out.append(
                    FleetBucket(
                        range=rng,
                        responses=m.get("responses", 0),
                        claims=claims,
                        unsupported=m.get("unsupported", 0),
                        unsupported_rate=m.get("unsupported", 0) / claims if claims else 0.0,
                    )
                )
            return sorted(out, key=lambda b: int(b.range.split("-")[0].rstrip("+")))

        return cls(agent_id=agent_id, by_turn=buckets("by_turn"), by_context=buckets("by_context"))


class Readiness(Contract):
    ready: bool
    model: str | None
    redis: str
    kafka: str


class Health(Contract):
    status: Literal["ok"] = "ok"


__all__ = [
    "CheckRequest",
    "CheckResponse",
    "ErrorBody",
    "FleetFatigue",
    "Health",
    "Readiness",
    "ResponseCheckRequest",
    "SeedCheckRequest",
    "SeedVerdict",
    "SessionDetail",
    "SessionSummary",
    "SessionsPage",
]
