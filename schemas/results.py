"""What verification produces: claims, evidence, verdicts, and the verdict event."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

from hallmon.schemas.common import SCHEMA_VERSION, Contract, Version
from pydantic import Field, model_validator

ClaimType = Literal[
    "fact", "number", "quote", "causal", "code", "plan", "commitment", "action", "system_state"
]
Severity = Literal["low", "medium", "high"]
ClaimStatus = Literal["supported", "contradicted", "not_found", "unclear"]
SourceKind = Literal["user_input", "document", "tool_result", "memory"]
State = Literal["checked", "unavailable", "not_applicable"]
UnavailableReason = Literal["context_unavailable", "evaluation_failed", "stream_incomplete"]
Action = Literal["allow", "warn", "block"]
SkipReason = Literal["greeting", "politeness", "question", "empty", "formatting", "about_context"]
CheckName = Literal[
    "number",
    "quote",
    "citation",
    "action",
    "system_state",
    "commitment",
    "record",
    "tool_fact",
    "negation",
    "name",
    "injection",
    "profile",
    "scope",
]

ENFORCEMENT: Literal["not_enforced_streaming"] = "not_enforced_streaming"


class Span(Contract):
    """Character offsets [start, end) into a text."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} is before its start {self.start}")
        return self


class Claim(Contract):
    id: str
    text: str
    span: Span
    type: ClaimType = "fact"
    severity: Severity = "medium"
    implicit_subject: str | None = Field(
        None,
        description="The subject a coordinated predicate shares with the claim before it "
        '("Express delivery" for "is free for members"); the claim is judged as subject + text',
    )

    @property
    def statement(self) -> str:
        """The claim as a whole sentence: the implicit subject, if any, then the text."""
        return f"{self.implicit_subject} {self.text}" if self.implicit_subject else self.text


class SkippedSegment(Contract):
    """A part of the answer that is not a claim, and why (greeting, politeness, question)."""

    text: str
    span: Span
    reason: SkipReason


class NLIScores(Contract):
    entailment: float = Field(ge=0.0, le=1.0)
    neutral: float = Field(ge=0.0, le=1.0)
    contradiction: float = Field(ge=0.0, le=1.0)


class Source(Contract):
    """One item of context, addressed by its content hash so evidence points at exact bytes."""

    source_id: str
    kind: SourceKind
    text: str
    trust: float | None = None
    locator: str | None = None
    content_hash: str = ""
    derived_from: str | None = Field(
        None,
        description="content_hash of the text the producer sent, when `text` is hallmon's "
        "rendering of it (a JSON record rendered as sentences); `content_hash` and evidence "
        "spans refer to `text`",
    )
    tool: str | None = Field(None, description="For a tool result: the tool's name")
    tool_status: str | None = Field(
        None, description="For a tool result: its status field (ok, error, timeout, cancelled)"
    )

    @model_validator(mode="after")
    def _hash(self) -> Source:
        if not self.content_hash:
            self.content_hash = content_hash(self.text)
        return self


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class Evidence(Contract):
    source_id: str
    kind: SourceKind
    content_hash: str = Field(description="sha256 of the whole source's UTF-8 bytes")
    text: str = Field(description="The exact passage, a slice of the source text")
    span: Span = Field(description="Where the passage sits in the source text")
    trust: float | None = None
    retrieval_score: float | None = None
    nli: NLIScores | None = None
    derived_from: str | None = Field(
        None,
        description="content_hash of the producer's original text when the source text is "
        "hallmon's rendering of it (see Source.derived_from)",
    )


class CheckResult(Contract):
    """A deterministic check: passed True/False, or None when it did not apply."""

    name: CheckName
    passed: bool | None
    detail: str


class ClaimVerdict(Contract):
    claim: Claim
    status: ClaimStatus
    confidence: float = Field(
        ge=0.0,
        le=1.0,
        description="supported: 1 - p_unsupported; contradicted / not_found / unclear: "
        "p_unsupported (see README, 'What the numbers of a verdict mean')",
    )
    p_unsupported: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="Calibrated probability that the claim is not backed by the context; the "
        "claim adds weight[status] x p_unsupported to the answer's risk",
    )
    evidence: list[Evidence] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    reason: str


class ClaimCounts(Contract):
    total: int = 0
    supported: int = 0
    contradicted: int = 0
    not_found: int = 0
    unclear: int = 0
    skipped: int = 0

    @property
    def unsupported(self) -> int:
        """Claims not backed by the context: contradicted, not found or unclear."""
        return self.contradicted + self.not_found + self.unclear

    @classmethod
    def of(cls, verdicts: list[ClaimVerdict], skipped: int = 0) -> ClaimCounts:
        counts = cls(total=len(verdicts), skipped=skipped)
        for v in verdicts:
            setattr(counts, v.status, getattr(counts, v.status) + 1)
        return counts


class CitationCheck(Contract):
    """One citation an answer makes, and whether it is precise: it names a source the answer
    was given, and that source supports the claim the citation is attached to."""

    claim_id: str
    marker: str = Field(description="The citation as written: '[2]', 'doc-3', a URL")
    source_id: str | None = Field(None, description="The given source it names; None: none")
    supports: bool = Field(description="The named source entails the claim")

    @property
    def precise(self) -> bool:
        return self.source_id is not None and self.supports


class SessionConflict(Contract):
    """A claim of this answer that contradicts a claim an earlier answer of the session made."""

    claim_id: str
    claim: str
    span: Span
    earlier_response_id: str
    earlier_claim: str
    earlier_span: Span
    contradiction: float = Field(
        ge=0.0, le=1.0, description="NLI contradiction probability, mean of both directions"
    )


ConflictCheck = Literal["done", "failed", "not_applicable"]


class MonitorResult(Contract):
    """The transport-free outcome of verifying one answer."""

    state: State
    unavailable_reason: UnavailableReason | None = None
    error: str | None = Field(None, description="What failed, when state is evaluation_failed")
    risk: float = Field(0.0, ge=0.0, le=1.0)
    action: Action = "allow"
    warn_threshold: float | None = Field(
        None,
        gt=0.0,
        le=1.0,
        description="The risk from which this verdict's action is warn: the calibration's warn, "
        "or its agent warn for an answer whose context holds tool results (model_versions "
        "['risk'] names both); block stays the calibration's block",
    )
    claims: list[ClaimVerdict] = Field(default_factory=list)
    skipped: list[SkippedSegment] = Field(default_factory=list)
    counts: ClaimCounts = Field(default_factory=ClaimCounts)
    context_size_tokens: int = Field(0, ge=0, description="Approximate tokens of context")
    context_items: int = Field(0, ge=0)
    language: str | None = Field(None, description="Detected script/language when not English")
    notes: list[str] = Field(default_factory=list, description="What could not be checked")
    model_versions: dict[str, str] = Field(default_factory=dict)
    stage_ms: dict[str, float] = Field(default_factory=dict)
    citations: list[CitationCheck] = Field(
        default_factory=list, description="Every citation the judged claims make"
    )
    citation_precision: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="Share of the citations that are precise; None when the answer cites nothing",
    )
    flagged_spans: list[Span] = Field(
        default_factory=list,
        description="Where in the answer the verdict places what is unsupported: the spans of "
        "the claims that are not supported and whose p_unsupported reaches the calibration's "
        "`unclear` threshold, in order. Empty when the action is allow (the verdict found "
        "nothing to act on), so a consumer can highlight them as they are",
    )

    @model_validator(mode="after")
    def _consistent(self) -> MonitorResult:
        if self.action == "allow" and self.flagged_spans:
            raise ValueError("an allow verdict flags no span")
        if self.state == "unavailable" and self.unavailable_reason is None:
            raise ValueError("state 'unavailable' needs an unavailable_reason")
        if self.state != "unavailable" and self.unavailable_reason is not None:
            raise ValueError(
                f"unavailable_reason is only for state 'unavailable', not {self.state}"
            )
        return self


class VerdictTimings(Contract):
    stream_ended_at: datetime | None = None
    verdict_at: datetime
    latency_ms: float | None = Field(None, description="From stream end to verdict")
    verification_ms: float = 0.0


class VerdictEvent(MonitorResult):
    """Published on `hallmon.verdicts` (key = session_id). Advice, never a gate applied."""

    schema_version: Version = SCHEMA_VERSION
    verdict_id: str
    response_id: str
    session_id: str
    agent_id: str
    model: str | None = None
    turn: int | None = None
    enforcement: Literal["not_enforced_streaming"] = ENFORCEMENT
    timings: VerdictTimings
    loop_step: int | None = Field(None, ge=0, description="Calls in the agent loop before it")
    session_conflicts: list[SessionConflict] = Field(
        default_factory=list,
        description="Claims that contradict a claim an earlier answer of the session made",
    )
    conflict_check: ConflictCheck | None = Field(
        None,
        description="Whether the session conflict check ran: 'failed' (Redis or the model "
        "failed; session_conflicts is empty but unknown), 'not_applicable' (no claim judged); "
        "None where no session store is configured",
    )


def verdict_id_for(response_id: str) -> str:
    """Deterministic, so a consumer can deduplicate a verdict delivered twice."""
    return "v-" + hashlib.sha256(response_id.encode("utf-8")).hexdigest()[:24]
