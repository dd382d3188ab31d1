"""Dead letters on `hallmon.dlq`: why an input was refused, with its original bytes.

A dead letter must always be producible, whatever it reports: the original value is kept up to
`DEAD_LETTER_VALUE_BYTES` (the cut is counted in `value_cut_bytes`), the key, the headers and
the error are capped too, so a dead letter stays far under the topics' `max.message.bytes`.
"""

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

DEAD_LETTER_VALUE_BYTES = 64 * 1024
"""Original value bytes kept in a dead letter; the rest is cut and counted."""
DEAD_LETTER_KEY_BYTES = 1024
DEAD_LETTER_HEADERS = 32
DEAD_LETTER_HEADER_CHARS = 1024
DEAD_LETTER_ERROR_CHARS = 4000


WorkerStage = Literal["assembler", "verifier", "fatigue"]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."


class DeadLetter(Contract):
    schema_version: Version = SCHEMA_VERSION
    reason: DeadLetterReason
    error: str = Field(max_length=DEAD_LETTER_ERROR_CHARS + 4)
    stage: WorkerStage
    topic: str
    partition: int | None = None
    offset: int | None = None
    key_b64: str | None = None
    value_b64: str = Field(
        description=f"The original message value, base64, its first {DEAD_LETTER_VALUE_BYTES} "
        "bytes (see value_cut_bytes)"
    )
    value_bytes: int = Field(0, ge=0, description="Size of the original value in bytes")
    value_cut_bytes: int = Field(
        0, ge=0, description="Bytes of the original value left out of value_b64 (over the cap)"
    )
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
        value = value or b""
        kept = value[:DEAD_LETTER_VALUE_BYTES]
        capped_headers = {
            _cut(k, 256): _cut(v, DEAD_LETTER_HEADER_CHARS)
            for k, v in list((headers or {}).items())[:DEAD_LETTER_HEADERS]
        }
        return cls(
            reason=reason,
            error=_cut(error, DEAD_LETTER_ERROR_CHARS),
            stage=stage,
            topic=topic,
            partition=partition,
            offset=offset,
            key_b64=(
                base64.b64encode(key[:DEAD_LETTER_KEY_BYTES]).decode("ascii")
                if key is not None
                else None
            ),
            value_b64=base64.b64encode(kept).decode("ascii"),
            value_bytes=len(value),
            value_cut_bytes=len(value) - len(kept),
            headers=capped_headers,
        )

    def original_value(self) -> bytes:
        """The original value, or its first `DEAD_LETTER_VALUE_BYTES` when cut."""
        return base64.b64decode(self.value_b64)
