"""No exception reaches faust: bounded publish retries, dead letters, the verifier's fallback."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka.errors import KafkaConnectionError, MessageSizeTooLargeError
from hallmon.schemas import DeadLetter, VerdictEvent, decode
from hallmon.schemas.deadletter import DEAD_LETTER_VALUE_BYTES
from hallmon.workers import publishing
from hallmon.workers.publishing import PublishFailed, guarded, is_transient, publish
from hallmon.workers.telemetry import Telemetry, valid_traceparent

TP = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"


@dataclass
class FakeTopic:
    """A faust topic whose sends fail with the queued errors first."""

    errors: list[BaseException] = field(default_factory=list)
    sent: list[tuple[bytes, bytes, Any]] = field(default_factory=list)

    def get_topic_name(self) -> str:
        return "fake"

    async def send(self, *, key: bytes, value: bytes, headers: Any, force: bool) -> Any:
        if self.errors:
            raise self.errors.pop(0)
        self.sent.append((key, value, headers))
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done


@dataclass
class Msg:
    topic: str = "agent.traces"
    partition: int = 2
    offset: int = 41
    key: bytes | None = b"s-1"
    value: bytes | None = b"{}"
    headers: Any = None


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_transient_errors_are_retried_then_published(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publishing.asyncio, "sleep", _no_sleep)
    topic = FakeTopic(errors=[KafkaConnectionError(), TimeoutError()])
    run(publish(topic, key="k", value=b"v"))
    assert [v for _, v, _ in topic.sent] == [b"v"]


def test_permanent_error_is_not_retried() -> None:
    topic = FakeTopic(errors=[MessageSizeTooLargeError(), KafkaConnectionError()])
    with pytest.raises(PublishFailed, match="MessageSizeTooLargeError"):
        run(publish(topic, key="k", value=b"v"))
    assert len(topic.errors) == 1  # the second error was never reached


def test_transient_errors_past_the_bound_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publishing.asyncio, "sleep", _no_sleep)
    topic = FakeTopic(errors=[KafkaConnectionError()] * 50)
    with pytest.raises(PublishFailed):
        run(publish(topic, key="k", value=b"v", retry_s=0.0))


def test_classification() -> None:
    assert is_transient(KafkaConnectionError()) and is_transient(TimeoutError())
    assert not is_transient(MessageSizeTooLargeError()) and not is_transient(ValueError())


def test_only_a_valid_traceparent_is_published() -> None:
    topic = FakeTopic()
    run(publish(topic, key="k", value=b"v", traceparent="00-caf\u00e9"))
    run(publish(topic, key="k", value=b"v", traceparent=TP))
    assert topic.sent[0][2] is None and topic.sent[1][2] == {"traceparent": TP.encode()}
    assert valid_traceparent(TP.upper()) is None and valid_traceparent("ff" + TP[2:]) is None
    assert valid_traceparent("00-" + "0" * 32 + "-" + "b" * 16 + "-01") is None


def test_failed_work_becomes_a_dead_letter_and_its_fallback_runs() -> None:
    dlq, fallbacks = FakeTopic(), []

    async def work() -> None:
        raise RecursionError("maximum recursion depth exceeded")

    async def fallback(exc: BaseException) -> None:
        fallbacks.append(exc)

    run(
        guarded(
            Telemetry("t"), dlq, stage="verifier", message=Msg(), work=work, on_failure=fallback
        )
    )
    letter = decode(DeadLetter, dlq.sent[0][1])
    assert (letter.reason, letter.stage, letter.offset) == ("processing_error", "verifier", 41)
    assert "recursion" in letter.error and isinstance(fallbacks[0], RecursionError)


def test_a_failing_fallback_still_gives_the_dead_letter() -> None:
    dlq = FakeTopic()

    async def work() -> None:
        raise ValueError("boom")

    async def fallback(exc: BaseException) -> None:
        raise PublishFailed("verdict too large")

    run(
        guarded(
            Telemetry("t"), dlq, stage="verifier", message=Msg(), work=work, on_failure=fallback
        )
    )
    assert decode(DeadLetter, dlq.sent[0][1]).error == "boom"


def test_unpublishable_dead_letter_exits_without_acking(monkeypatch: pytest.MonkeyPatch) -> None:
    exits: list[int] = []

    def fake_exit(code: int) -> None:
        exits.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(publishing.os, "_exit", fake_exit)
    dlq = FakeTopic(errors=[MessageSizeTooLargeError()])

    async def work() -> None:
        raise ValueError("boom")

    with pytest.raises(SystemExit):
        run(guarded(Telemetry("t"), dlq, stage="assembler", message=Msg(), work=work))
    assert exits == [publishing.EXIT_UNPUBLISHABLE]


def test_dead_letter_is_capped_and_says_how_much_was_cut() -> None:
    dlq = FakeTopic()
    big = b"x" * (DEAD_LETTER_VALUE_BYTES * 5)
    headers = [(f"h{i}", b"y" * 10_000) for i in range(100)]

    async def work() -> None:
        raise ValueError("e" * 100_000)

    msg = Msg(value=big, key=b"k" * 10_000, headers=headers)
    run(guarded(Telemetry("t"), dlq, stage="assembler", message=msg, work=work))
    raw = dlq.sent[0][1]
    letter = decode(DeadLetter, raw)
    assert len(raw) < 200_000
    assert letter.value_bytes == len(big)
    assert letter.value_cut_bytes == len(big) - DEAD_LETTER_VALUE_BYTES
    assert letter.original_value() == big[:DEAD_LETTER_VALUE_BYTES]
    assert len(letter.headers) <= 32


def test_failed_verdict_is_unavailable_evaluation_failed() -> None:
    from hallmon.schemas import AssembledResponse, encode
    from hallmon.workers.verifier.service import failed_verdict

    response = AssembledResponse(response_id="r", session_id="s", agent_id="a", text="x")
    verdict = decode(VerdictEvent, encode(failed_verdict(response, "Boom: over budget")))
    assert (verdict.state, verdict.unavailable_reason) == ("unavailable", "evaluation_failed")
    assert verdict.error == "Boom: over budget" and verdict.claims == []


async def _no_sleep(_: float) -> None:
    return None


def test_verdict_over_the_byte_budget_is_trimmed_to_fit() -> None:
    from hallmon.schemas import (
        AssembledResponse,
        Claim,
        ClaimVerdict,
        MonitorResult,
        SkippedSegment,
        Span,
        encode,
    )
    from hallmon.workers.verifier.service import fit_to_budget, verdict_event

    text = "x" * 5_000
    claims = [
        ClaimVerdict(
            claim=Claim(id=f"c{i}", text=text, span=Span(start=0, end=5_000)),
            status="unclear",
            confidence=0.5,
            reason="r" * 2_000,
        )
        for i in range(100)
    ]
    skipped = [
        SkippedSegment(text=text, span=Span(start=0, end=5_000), reason="politeness")
        for _ in range(2_000)
    ]
    result = MonitorResult(state="checked", claims=claims, skipped=skipped)
    response = AssembledResponse(response_id="r", session_id="s", agent_id="a", text="x")
    verdict = verdict_event(response, result, verification_ms=1.0)
    assert len(encode(verdict)) > 900_000
    fitted = fit_to_budget(verdict, 900_000)
    assert len(encode(fitted)) <= 900_000
    assert fitted.state == "checked" and len(fitted.claims) == 100
    assert fitted.claims[0].claim.span == claims[0].claim.span
    assert any("byte budget" in note for note in fitted.notes)
    tiny = fit_to_budget(verdict, 20_000)
    assert (tiny.state, tiny.unavailable_reason) == ("unavailable", "evaluation_failed")
    assert tiny.error is not None and "byte budget" in tiny.error and len(encode(tiny)) < 20_000
    assert fit_to_budget(tiny, 900_000) is tiny


@dataclass
class FakeEvent:
    message: str
    acked: list[str]

    def ack(self) -> bool:
        self.acked.append(self.message)
        return True


@dataclass
class FakeStream:
    """A faust stream whose events record their acks; `noack()` must be asked for."""

    messages: list[str]
    acked: list[str] = field(default_factory=list)
    manual: bool = False

    def noack(self) -> FakeStream:
        self.manual = True
        return self

    async def events(self) -> Any:
        for message in self.messages:
            yield FakeEvent(message, self.acked)


def test_handled_messages_acks_only_after_the_body_returned() -> None:
    stream = FakeStream(["a", "b", "c"])

    async def body() -> None:
        async for message in publishing.handled_messages(stream):
            assert message not in stream.acked  # not acked while it is being handled
            if message == "b":
                raise RuntimeError("handler failed")

    with pytest.raises(RuntimeError):
        asyncio.run(body())
    # "b" raised: it stays unacknowledged (read again after the restart), and so does "c"
    assert stream.manual and stream.acked == ["a"]


def test_handled_messages_does_not_ack_a_cancelled_handler() -> None:
    stream = FakeStream(["a", "b"])
    started = []

    async def body() -> None:
        async for message in publishing.handled_messages(stream):
            started.append(message)
            await asyncio.sleep(10)

    async def run() -> None:
        task = asyncio.create_task(body())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert started == ["a"] and stream.acked == []
