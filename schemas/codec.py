"""The one serializer: models to UTF-8 JSON bytes and back, with errors a producer can act on."""

from __future__ import annotations

import json
from typing import Literal, TypeVar

from hallmon.schemas.common import DEFAULT_LIMITS, Limits
from hallmon.schemas.events import TRACE_EVENT_ADAPTER, TRACE_EVENT_TYPES, TraceEvent
from pydantic import BaseModel, TypeAdapter, ValidationError

M = TypeVar("M", bound=BaseModel)

ContractErrorReason = Literal["malformed_json", "schema_violation", "over_limit"]


class ContractError(ValueError):
    """Input that breaks the contract; `reason` is the dead-letter reason code."""

    def __init__(self, reason: ContractErrorReason, message: str) -> None:
        super().__init__(message)
        self.reason: ContractErrorReason = reason


def encode(model: BaseModel) -> bytes:
    return model.model_dump_json().encode("utf-8")


def _describe(exc: ValidationError) -> tuple[ContractErrorReason, str]:
    parts = []
    over_limit = False
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "<root>"
        msg = err["msg"]
        if "over the limit" in msg:
            over_limit = True
        parts.append(f"{loc}: {msg}")
    return ("over_limit" if over_limit else "schema_violation"), "; ".join(parts)


def _load_json(data: bytes | str) -> object:
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ContractError(
            "malformed_json", f"value is not UTF-8 JSON ({exc}); send one JSON object per message"
        ) from exc


def decode_trace_event(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> TraceEvent:
    """Parse one `agent.traces` value; raises ContractError naming the field and the fix."""
    obj = _load_json(data)
    if not isinstance(obj, dict):
        raise ContractError("schema_violation", "value must be a JSON object with a 'type' field")
    kind = obj.get("type")
    if kind not in TRACE_EVENT_TYPES:
        raise ContractError(
            "schema_violation",
            f"type: unknown event type {kind!r}; expected one of {', '.join(TRACE_EVENT_TYPES)}",
        )
    try:
        return TRACE_EVENT_ADAPTER.validate_python(obj, context={"limits": limits})
    except ValidationError as exc:
        reason, message = _describe(exc)
        raise ContractError(reason, f"{kind} event: {message}") from exc


def decode(model: type[M], data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> M:
    """Parse any hallmon model (assembled response, verdict, ...)."""
    obj = _load_json(data)
    try:
        return model.model_validate(obj, context={"limits": limits})
    except ValidationError as exc:
        reason, message = _describe(exc)
        raise ContractError(reason, f"{model.__name__}: {message}") from exc


def adapter_for(model: type[M]) -> TypeAdapter[M]:
    return TypeAdapter(model)
