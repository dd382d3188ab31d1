"""Dead letters: what was refused, why, and the original bytes with where they came from."""

from __future__ import annotations

from hallmon.schemas import ContractError, DeadLetter
from hallmon.schemas.deadletter import DeadLetterReason, WorkerStage

Stage = WorkerStage


def reason_of(exc: BaseException) -> DeadLetterReason:
    """The dead-letter reason code for an exception raised while handling one message."""
    if isinstance(exc, ContractError):
        return exc.reason
    return "processing_error"


def dead_letter(
    *,
    reason: DeadLetterReason,
    error: str,
    stage: Stage,
    topic: str,
    partition: int | None,
    offset: int | None,
    key: bytes | None,
    value: bytes | None,
    headers: dict[str, str] | None = None,
) -> DeadLetter:
    # DeadLetter.of caps the error, key, headers and value so the letter can always be produced.
    return DeadLetter.of(
        reason=reason,
        error=error,
        stage=stage,
        topic=topic,
        value=value,
        key=key,
        partition=partition,
        offset=offset,
        headers=headers,
    )
