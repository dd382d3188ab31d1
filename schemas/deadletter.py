"""Dead letters on `hallmon.dlq`: why an input was refused, with its original bytes."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Literal

from hallmon.schemas.common import SCHEMA_VERSION, Contract, Version
from pydantic import Field

DeadLetterReason = Literal[
    "malformed_json",
    "schema_violation",
    "over_limit",
    "stream_too_large",
    "too_many_open_streams",
    "processing_error",
]


WorkerStage = Literal["assembler", "verifier", "fatigue"]


class DeadLetter(Contract):
    schema_version: Version = SCHEMA_VERSION
    reason: DeadLetterReason
    error: str
    stage: WorkerStage
    topic: str
    partition: int | None = None
    offset: int | None = None
    key_b64: str | None = None
    value_b64: str = Field(description="The original message value, base64")
    headers: dict[str, str] = Field(default_factory=dict)
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def of(
        cls,
        *,
        reason: DeadLetterReason,
        error: str,
        stage: WorkerStage,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        offset: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> DeadLetter:
        return cls(
            reason=reason,
            error=error,
            stage=stage,
            topic=topic,
            partition=partition,
            offset=offset,
            key_b64=base64.b64encode(key).decode("ascii") if key is not None else None,
            value_b64=base64.b64encode(value or b"").decode("ascii"),
            headers=headers or {},
        )

    def original_value(self) -> bytes:
        return base64.b64decode(self.value_b64)
