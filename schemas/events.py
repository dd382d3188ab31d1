"""Input events on `agent.traces` (the producers' contract) and the assembled response.

Every event is UTF-8 JSON with `schema_version` and a `type` that selects the model.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from hallmon.schemas.common import (
    MAX_WIRE_INT,
    SCHEMA_VERSION,
    AnswerText,
    Contract,
    EventText,
    ShortText,
    Version,
    WireEvent,
    WireItem,
    check_text_limit,
    limits_from,
)
from pydantic import Field, TypeAdapter, ValidationInfo, field_validator, model_validator

Id = Annotated[str, Field(min_length=1, max_length=256)]
Trust = Annotated[float, Field(ge=0.0, le=1.0)]


class TokenUsage(WireItem):
    prompt_tokens: int | None = Field(None, ge=0, le=MAX_WIRE_INT)
    completion_tokens: int | None = Field(None, ge=0, le=MAX_WIRE_INT)


# --- context payloads (shared by the streamed events and the whole `response` event) ---------


class UserInputItem(WireItem):
    text: EventText


class DocumentItem(WireItem):
    """A retrieved document or chunk the agent had."""

    source_id: Id
    text: EventText
    trust: Trust | None = None
    locator: str | None = Field(
        None, max_length=2048, description="URL, file path or page of the source"
    )


class ToolResultItem(WireItem):
    """What a tool returned: the only thing that can back a claim that an action was done."""

    tool: Id
    call_id: Id
    output: str | dict[str, Any] | list[Any] | None = None
    status: Literal["ok", "error", "timeout", "cancelled"] = "ok"
    arguments: dict[str, Any] | None = None

    @field_validator("output")
    @classmethod
    def _limit_output(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str):
            return check_text_limit(value, info)
        if value is not None:
            check_text_limit(json.dumps(value, ensure_ascii=False), info)
        return value


class MemoryItem(WireItem):
    memory_id: Id
    text: EventText
    trust: Trust | None = None


class ResponseContext(WireItem):
    """Everything the agent had when it answered."""

    user_input: EventText | None = None
    documents: list[DocumentItem] = Field(default_factory=list)
    tool_results: list[ToolResultItem] = Field(default_factory=list)
    memory: list[MemoryItem] = Field(default_factory=list)

    @model_validator(mode="after")
    def _limit_items(self, info: ValidationInfo) -> ResponseContext:
        limit = limits_from(info).max_context_items
        n = self.item_count
        if n > limit:
            raise ValueError(
                f"context holds {n} items (documents + tool_results + memory), over the limit "
                f"max_context_items={limit}; send fewer or raise HALLMON_LIMITS__MAX_CONTEXT_ITEMS"
            )
        return self

    @property
    def item_count(self) -> int:
        return len(self.documents) + len(self.tool_results) + len(self.memory)

    @property
    def is_empty(self) -> bool:
        return self.item_count == 0 and not (self.user_input or "").strip()


# --- events on agent.traces ----------------------------------------------------------------


class TraceEventBase(WireEvent):
    schema_version: Version = SCHEMA_VERSION
    event_id: Id
    session_id: Id
    response_id: Id
    agent_id: Id
    model: ShortText | None = None
    turn: int | None = Field(None, ge=0, le=MAX_WIRE_INT)
    ts: datetime | None = None
    attributes: dict[str, str | int | float | bool | None] | None = Field(
        None,
        max_length=64,
        description="The extension point: free-form producer metadata (flat values), kept "
        "out of verification. Any other unknown field is a schema violation.",
    )
    loop_step: int | None = Field(
        None,
        ge=0,
        le=MAX_WIRE_INT,
        description="Model or tool calls the agent made before this answer in the same loop "
        "(since the user's last input); the producer helper counts them",
    )


class UserInputEvent(TraceEventBase, UserInputItem):
    type: Literal["user.input"] = "user.input"


class ContextRetrievedEvent(TraceEventBase, DocumentItem):
    type: Literal["context.retrieved"] = "context.retrieved"


class ToolResultEvent(TraceEventBase, ToolResultItem):
    type: Literal["tool.result"] = "tool.result"


class MemoryRefEvent(TraceEventBase, MemoryItem):
    type: Literal["memory.ref"] = "memory.ref"


class ResponseDeltaEvent(TraceEventBase):
    type: Literal["response.delta"] = "response.delta"
    text: AnswerText
    seq: int = Field(
        ge=0, le=MAX_WIRE_INT, description="Position of this chunk in the stream, from 0"
    )


class ResponseCompletedEvent(TraceEventBase):
    """The stream has ended."""

    type: Literal["response.completed"] = "response.completed"
    final_seq: int | None = Field(
        None,
        ge=0,
        le=MAX_WIRE_INT,
        description="seq of the last chunk, so gaps in the stream can be detected",
    )
    finish_reason: ShortText | None = None
    usage: TokenUsage | None = None


class ResponseEvent(TraceEventBase):
    """A whole answer with its context, for producers that do not stream."""

    type: Literal["response"] = "response"
    text: AnswerText
    context: ResponseContext = Field(default_factory=ResponseContext)
    question: EventText | None = None
    usage: TokenUsage | None = None


TraceEvent = Annotated[
    UserInputEvent
    | ContextRetrievedEvent
    | ToolResultEvent
    | MemoryRefEvent
    | ResponseDeltaEvent
    | ResponseCompletedEvent
    | ResponseEvent,
    Field(discriminator="type"),
]
TRACE_EVENT_ADAPTER: TypeAdapter[TraceEvent] = TypeAdapter(TraceEvent)
TRACE_EVENT_TYPES = (
    "user.input",
    "context.retrieved",
    "tool.result",
    "memory.ref",
    "response.delta",
    "response.completed",
    "response",
)


# --- the assembled answer on hallmon.responses ------------------------------------------------

IncompleteReason = Literal["stream_timeout", "stream_too_large", "too_many_open_streams"]


class AssembledResponse(Contract):
    """One complete answer with its context, ready to verify."""

    schema_version: Version = SCHEMA_VERSION
    response_id: Id
    session_id: Id
    agent_id: Id
    model: str | None = None
    turn: int | None = Field(None, ge=0)
    text: AnswerText
    question: str | None = None
    context: ResponseContext = Field(default_factory=ResponseContext)
    complete: bool = True
    incomplete_reason: IncompleteReason | None = None
    missing_seqs: list[int] = Field(default_factory=list)
    chunk_count: int = Field(0, ge=0)
    origin: Literal["stream", "response_event", "check"] = "stream"
    stream_started_at: datetime | None = None
    stream_ended_at: datetime | None = None
    usage: TokenUsage | None = None
    traceparent: str | None = Field(None, description="W3C trace context of the producer")
    loop_step: int | None = Field(
        None, ge=0, description="Calls in the agent loop before this answer (see the events)"
    )

    @classmethod
    def from_response_event(cls, event: ResponseEvent) -> AssembledResponse:
        return cls(
            response_id=event.response_id,
            session_id=event.session_id,
            agent_id=event.agent_id,
            model=event.model,
            turn=event.turn,
            text=event.text,
            question=event.question,
            context=event.context,
            origin="response_event",
            stream_started_at=event.ts,
            stream_ended_at=event.ts,
            usage=event.usage,
            loop_step=event.loop_step,
        )
