"""The one serializer: models to UTF-8 JSON bytes and back, with errors a producer can act on.

Reading is strict and bounded, because every value comes from a producer hallmon does not
control: UTF-8 only (no byte-order mark, no UTF-16/32, no lone surrogates), no NaN or
Infinity, at most `Limits.max_event_bytes` bytes and `Limits.max_json_depth` levels of nesting,
and no type coercion (`"seq": "3"` or `"trust": "0.5"` are schema violations, as the JSON
Schemas say). Every failure is a `ContractError` whose `reason` is the dead-letter reason.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from hallmon.schemas.common import DEFAULT_LIMITS, Limits
from hallmon.schemas.events import TRACE_EVENT_ADAPTER, TRACE_EVENT_TYPES, TraceEvent
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import from_json

M = TypeVar("M", bound=BaseModel)

ContractErrorReason = Literal["malformed_json", "schema_violation", "over_limit"]

_BOMS = (
    (b"\xef\xbb\xbf", "a UTF-8 byte-order mark"),
    (b"\xff\xfe", "a UTF-16/32 little-endian byte-order mark"),
    (b"\xfe\xff", "a UTF-16 big-endian byte-order mark"),
    (b"\x00\x00\xfe\xff", "a UTF-32 big-endian byte-order mark"),
)


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
    for err in exc.errors(include_url=False, include_input=False)[:20]:
        loc = ".".join(str(p) for p in err["loc"]) or "<root>"
        msg = err["msg"]
        if "over the limit" in msg:
            over_limit = True
        parts.append(f"{loc}: {msg}")
    return ("over_limit" if over_limit else "schema_violation"), "; ".join(parts)


def _not_utf8(data: bytes) -> str | None:
    """Why `data` is not the contract's encoding, when it visibly is another one."""
    for bom, what in _BOMS:
        if data.startswith(bom):
            return f"value starts with {what}"
    if b"\x00" in data[:4]:
        return "value looks like UTF-16 or UTF-32 (NUL bytes in its first characters)"
    return None


def json_depth_over(obj: object, limit: int) -> bool:
    """Whether `obj` nests objects/arrays deeper than `limit` (iterative, linear in size)."""
    if not isinstance(obj, dict | list):
        return False
    stack: list[tuple[dict[str, Any] | list[Any], int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _load_json(data: bytes | str, limits: Limits) -> bytes:
    """The bytes of one bounded, well-formed UTF-8 JSON value (parsed once here to check it)."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates in a str
            raise ContractError("malformed_json", f"value is not valid Unicode ({exc})") from exc
    if len(data) > limits.max_event_bytes:
        raise ContractError(
            "over_limit",
            f"value is {len(data)} bytes, over the limit max_event_bytes={limits.max_event_bytes}; "
            "split it into several events or raise HALLMON_LIMITS__MAX_EVENT_BYTES",
        )
    other = _not_utf8(data)
    if other is not None:
        raise ContractError(
            "malformed_json", f"{other}; the contract is UTF-8 JSON without a byte-order mark"
        )
    try:
        obj = from_json(data, allow_inf_nan=False)
    except ValueError as exc:
        if "recursion limit" in str(exc):
            raise ContractError("over_limit", _depth_message(limits)) from exc
        raise ContractError(
            "malformed_json",
            f"value is not UTF-8 JSON ({exc}); send one JSON object per message, UTF-8 encoded, "
            "without NaN/Infinity, lone surrogates or integers of thousands of digits",
        ) from exc
    if json_depth_over(obj, limits.max_json_depth):
        raise ContractError("over_limit", _depth_message(limits))
    return data


def _depth_message(limits: Limits) -> str:
    return (
        "value nests objects/arrays deeper than the limit max_json_depth="
        f"{limits.max_json_depth}; flatten it (e.g. send deep tool output as a string) or raise "
        "HALLMON_LIMITS__MAX_JSON_DEPTH"
    )


def _peek_type(data: bytes) -> object:
    # Only to name the event in errors; the value was already checked to be JSON.
    obj = from_json(data)
    if not isinstance(obj, dict):
        raise ContractError("schema_violation", "value must be a JSON object with a 'type' field")
    return obj.get("type")


def decode_trace_event(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> TraceEvent:
    """Parse one `agent.traces` value; raises ContractError naming the field and the fix."""
    raw = _load_json(data, limits)
    kind = _peek_type(raw)
    if kind not in TRACE_EVENT_TYPES:
        raise ContractError(
            "schema_violation",
            f"type: unknown event type {str(kind)[:64]!r}; expected one of "
            f"{', '.join(TRACE_EVENT_TYPES)}",
        )
    try:
        return TRACE_EVENT_ADAPTER.validate_json(raw, strict=True, context={"limits": limits})
    except ValidationError as exc:
        reason, message = _describe(exc)
        raise ContractError(reason, f"{kind} event: {message}") from exc


def decode(model: type[M], data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> M:
    """Parse any hallmon model (assembled response, verdict, ...), as strictly as events."""
    raw = _load_json(data, limits)
    try:
        return model.model_validate_json(raw, strict=True, context={"limits": limits})
    except ValidationError as exc:
        reason, message = _describe(exc)
        raise ContractError(reason, f"{model.__name__}: {message}") from exc


def adapter_for(model: type[M]) -> TypeAdapter[M]:
    return TypeAdapter(model)
