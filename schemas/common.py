"""Shared building blocks of hallmon's contracts: versions, limits, base model."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    model_validator,
)

SCHEMA_VERSION = "1.0"
"""Major.minor of the wire contract. A reader accepts any minor of its major."""

SUPPORTED_MAJOR = "1"
SCHEMA_VERSION_PATTERN = r"^1\.[0-9]{1,4}$"
"""What `schema_version` must look like: major 1, any minor."""

MAX_WIRE_INT = 2**31 - 1
"""Largest `seq`, `turn` or token count on the wire: one bound in code and schema."""


class Limits(BaseModel):
    """Size limits that are part of the contract. Over-limit input is a validation error.

    Configure through the settings object (`HALLMON_LIMITS__MAX_TEXT_CHARS`, ...) and pass to
    validation as `context={"limits": limits}`; without a context the defaults apply.
    """

    model_config = ConfigDict(frozen=True)

    max_text_chars: int = Field(200_000, gt=0, description="Longest text of one event or item")
    max_context_items: int = Field(256, gt=0, description="Most context items in one answer")
    max_answer_chars: int = Field(50_000, gt=0, description="Longest assembled answer")
    max_event_bytes: int = Field(
        900_000,
        gt=0,
        description="Largest message value read; under the topics' max.message.bytes (1 MiB), "
        "so whatever hallmon derives from one message can still be produced",
    )
    max_json_depth: int = Field(
        32, gt=0, le=128, description="Deepest nesting of JSON objects and arrays in one value"
    )


DEFAULT_LIMITS = Limits()


def limits_from(info: ValidationInfo) -> Limits:
    ctx = info.context
    if isinstance(ctx, dict):
        limits = ctx.get("limits")
        if isinstance(limits, Limits):
            return limits
    return DEFAULT_LIMITS


def check_text_limit(value: str, info: ValidationInfo, limit_name: str = "max_text_chars") -> str:
    limit: int = getattr(limits_from(info), limit_name)
    if len(value) > limit:
        raise ValueError(
            f"field '{info.field_name}' is {len(value)} characters, over the limit {limit_name}="
            f"{limit}; split the text into several events or raise HALLMON_LIMITS__"
            f"{limit_name.upper()}"
        )
    return value


_VERSION_RE = re.compile(SCHEMA_VERSION_PATTERN)


def check_version(value: str) -> str:
    major = value.split(".", 1)[0]
    if major != SUPPORTED_MAJOR or not _VERSION_RE.fullmatch(value):
        raise ValueError(
            f"schema_version '{value}' is not supported: this hallmon reads major version "
            f"{SUPPORTED_MAJOR} (e.g. '{SCHEMA_VERSION}'); upgrade hallmon or the producer"
        )
    return value


def _limited(limit_name: str) -> Callable[[str, ValidationInfo], str]:
    def validate(value: str, info: ValidationInfo) -> str:
        return check_text_limit(value, info, limit_name)

    return validate


# The schemas carry the default limits (maxLength); the code checks the configured ones.
EventText = Annotated[
    str,
    AfterValidator(_limited("max_text_chars")),
    Field(json_schema_extra={"maxLength": DEFAULT_LIMITS.max_text_chars}),
]
"""Text of one event or context item, bounded by `max_text_chars`."""
AnswerText = Annotated[
    str,
    AfterValidator(_limited("max_answer_chars")),
    Field(json_schema_extra={"maxLength": DEFAULT_LIMITS.max_answer_chars}),
]
"""An answer or a chunk of one, bounded by `max_answer_chars`."""
Version = Annotated[
    str,
    AfterValidator(check_version),
    Field(json_schema_extra={"pattern": SCHEMA_VERSION_PATTERN}),
]
ShortText = Annotated[str, Field(max_length=256)]
"""A name or label (model, finish reason)."""


class Contract(BaseModel):
    """Base of every wire model.

    Unknown fields are ignored (a tolerant reader), so a producer on a newer minor version that
    adds a field is still read; missing or mistyped required fields are errors.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def dump_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=False)


def _closed(schema: dict[str, Any]) -> None:
    schema["additionalProperties"] = False
    if "type" in schema.get("properties", {}):
        # An event: `type` has a default in Python (the class implies it) but is required on
        # the wire (the decoder rejects an event without it), so the schema says so.
        required = schema.setdefault("required", [])
        if "type" not in required:
            required.insert(0, "type")


def _minor(version: str) -> int:
    return int(version.split(".", 1)[1])


CURRENT_MINOR = _minor(SCHEMA_VERSION)


def _unknown_fields(model: BaseModel, path: str = "") -> list[str]:
    """Dotted names of the fields `model` (and the models inside it) did not declare."""
    found = [f"{path}{name}" for name in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        children = value if isinstance(value, list) else [value]
        for i, child in enumerate(children):
            if isinstance(child, BaseModel):
                where = f"{path}{name}[{i}]." if isinstance(value, list) else f"{path}{name}."
                found.extend(_unknown_fields(child, where))
    return found


def _drop_unknown(model: BaseModel) -> None:
    if model.model_extra:
        model.model_extra.clear()
    for name in type(model).model_fields:
        value = getattr(model, name)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, BaseModel):
                _drop_unknown(child)


class WireItem(Contract):
    """A context item inside an event; unknown fields are judged by the event (`WireEvent`)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_closed)


class WireEvent(Contract):
    """Base of what producers send on `agent.traces`.

    Unknown fields, here or in the items inside, are schema violations when the event claims
    this reader's minor version or an older one (a misspelt `final_sq` is an error, never
    silently ignored). An event of a newer minor may carry fields this reader does not know
    yet: they are dropped (a tolerant reader across minors). The JSON Schemas describe the
    current minor, so they say `additionalProperties: false`. The deliberate extension point
    for producer metadata is `attributes`.
    """

    model_config = ConfigDict(extra="allow", json_schema_extra=_closed)

    @model_validator(mode="after")
    def _check_unknown(self) -> Self:
        unknown = _unknown_fields(self)
        if not unknown:
            return self
        version: str = getattr(self, "schema_version", SCHEMA_VERSION)
        if _minor(version) <= CURRENT_MINOR:
            raise ValueError(
                f"unknown field(s) {', '.join(unknown[:10])} in schema_version {version}: check "
                "the spelling against the JSON Schema, or put producer metadata in 'attributes'"
            )
        _drop_unknown(self)
        return self
