"""Poison input, produced with confluent-kafka directly (not hallmon's helper), against one
running `hallmon worker` on the real broker, Redis and model.

Each case sends a hostile message and, right after it on the same key (so the same
partition), a valid answer. The hostile one must end as a dead letter or an `unavailable`
verdict, the valid one must get its verdict, and no worker process may exit. The module shares
one worker so the suite stays quick; `test_worker_never_exited` runs last and prints the fault
table (run with `-s` to see it).
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from hallmon.schemas import ContractError, DeadLetter, VerdictEvent, decode
from hallmon.topology.settings import HallmonSettings
from hallmon.workers.runner import ensure_hallmon_topics

from ..conftest import Services, TopicWatcher, WorkerProcess, pipeline_env, settings_from_env

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.timeout(180)]

POLICY = "Shoes can be returned within 30 days of delivery if they are unworn."
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
CASE_TIMEOUT_S = 45.0


@dataclass
class Row:
    case: str
    outcome: str
    seconds: float


@dataclass
class Poison:
    settings: HallmonSettings
    worker: WorkerProcess
    watch: TopicWatcher
    producers: dict[str, Producer]
    table: list[Row] = field(default_factory=list)

    def produce(
        self,
        topic: str,
        key: str,
        value: bytes,
        *,
        codec: str = "none",
        headers: list[tuple[str, bytes]] | None = None,
    ) -> None:
        producer = self.producers[codec]
        producer.produce(topic, key=key.encode(), value=value, headers=headers)
        assert producer.flush(30) == 0, f"could not deliver to {topic}"

    def dead_letters(self, key: str) -> list[DeadLetter]:
        wanted = base64.b64encode(key.encode()).decode()
        letters = (decode(DeadLetter, m.value()) for m in self.watch.on(self.settings.topics.dlq))
        return [d for d in letters if d.key_b64 == wanted]

    def verdicts(self, response_id: str) -> list[VerdictEvent]:
        found = []
        for m in self.watch.on(self.settings.topics.verdicts):
            try:  # the codec test puts junk on the verdicts topic too
                found.append(decode(VerdictEvent, m.value()))
            except ContractError:
                continue
        return [v for v in found if v.response_id == response_id]

    def verdict_message(self, response_id: str) -> Any:
        for m in self.watch.on(self.settings.topics.verdicts):
            if m.value().startswith(b"{") and json.loads(m.value())["response_id"] == response_id:
                return m
        raise AssertionError(f"no verdict message for {response_id}")

    def wait(self, what: str, check: Callable[[], bool]) -> None:
        self.watch.wait_for(what, check, CASE_TIMEOUT_S, [self.worker])


@pytest.fixture(scope="module")
def poison(
    services: Services, nli_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Poison]:
    prefix = f"test-{uuid.uuid4().hex[:10]}."
    env = pipeline_env(services, prefix, nli_model_dir, HALLMON_ASSEMBLER__STREAM_TIMEOUT_S="60")
    settings = settings_from_env(env)
    ensure_hallmon_topics(settings)
    worker = WorkerProcess("all", env, tmp_path_factory.mktemp("poison") / "worker.log").start()
    t = settings.topics
    watch = TopicWatcher(settings, [t.verdicts, t.dlq])
    base = {"bootstrap.servers": services.kafka_bootstrap, "linger.ms": 0, "log_level": 0}
    producers = {
        codec: Producer({**base, "compression.type": codec})
        for codec in ("none", "gzip", "snappy", "lz4", "zstd")
    }
    yield Poison(settings, worker, watch, producers)
    watch.close()
    worker.stop()


def event(kind: str, session: str, response: str, **fields: Any) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "type": kind,
        "event_id": f"e-{uuid.uuid4().hex[:10]}",
        "session_id": session,
        "response_id": response,
        "agent_id": "poison-bot",
        **fields,
    }


def whole_answer(session: str, response: str) -> bytes:
    doc = {"source_id": "policy", "text": POLICY}
    text = "You can return the shoes within 30 days of delivery if they are unworn."
    return json.dumps(
        event("response", session, response, text=text, context={"documents": [doc]})
    ).encode()


def valid_after(poison: Poison, session: str, codec: str = "none") -> str:
    """Send a valid answer on the poisoned key; return its response id."""
    rid = f"r-ok-{uuid.uuid4().hex[:8]}"
    poison.produce(poison.settings.topics.traces, session, whole_answer(session, rid), codec=codec)
    return rid


def expect_dead_letter_then_verdict(
    poison: Poison, case: str, session: str, values: list[bytes], reasons: set[str]
) -> None:
    t0 = time.monotonic()
    for value in values:
        poison.produce(poison.settings.topics.traces, session, value)
    rid = valid_after(poison, session)
    poison.wait(f"a dead letter for {case}", lambda: bool(poison.dead_letters(session)))
    poison.wait(f"the verdict after {case}", lambda: bool(poison.verdicts(rid)))
    letters = poison.dead_letters(session)
    assert {d.reason for d in letters} <= reasons, [(d.reason, d.error) for d in letters]
    assert all(d.stage == "assembler" and d.error for d in letters)
    assert poison.verdicts(rid)[0].state == "checked"
    outcome = ", ".join(sorted({f"dead letter {d.reason}" for d in letters}))
    poison.table.append(Row(case, outcome, time.monotonic() - t0))


# --- compression codecs ------------------------------------------------------------------


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_every_codec_is_read_by_every_worker(poison: Poison, codec: str) -> None:
    t0 = time.monotonic()
    session = f"s-{codec}-{uuid.uuid4().hex[:6]}"
    rid = valid_after(poison, session, codec=codec)  # the assembler reads it
    poison.wait(f"a verdict for a {codec} answer", lambda: bool(poison.verdicts(rid)))
    # The verifier and the fatigue worker read compressed batches too: a compressed value that
    # is not a response/verdict comes back as a dead letter from each stage.
    t = poison.settings.topics
    for topic in (t.responses, t.verdicts):
        poison.produce(topic, session, b"not json", codec=codec)
    poison.wait(
        f"dead letters of {codec} values from the verifier and the fatigue worker",
        lambda: {d.stage for d in poison.dead_letters(session)} == {"verifier", "fatigue"},
    )
    assert poison.verdicts(rid)[0].state == "checked"
    poison.table.append(
        Row(f"compression {codec}", "verdict; 2 dead letters", time.monotonic() - t0)
    )


# --- headers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        b"\xff\xfe\xc3(invalid",
        "00-café-not-a-trace".encode(),
        TRACEPARENT.encode()[:-1] + b"\x80",
        b"",
    ],
    ids=["invalid-bytes", "non-ascii", "valid-but-one-byte", "empty"],
)
def test_invalid_traceparent_is_ignored(poison: Poison, header: bytes) -> None:
    t0 = time.monotonic()
    session = f"s-tp-{uuid.uuid4().hex[:6]}"
    rid = f"r-{uuid.uuid4().hex[:8]}"
    poison.produce(
        poison.settings.topics.traces,
        session,
        whole_answer(session, rid),
        headers=[("traceparent", header)],
    )
    ok = valid_after(poison, session)
    poison.wait(
        "verdicts despite the traceparent",
        lambda: bool(poison.verdicts(rid) and poison.verdicts(ok)),
    )
    msg = poison.verdict_message(rid)
    assert "traceparent" not in dict(msg.headers() or [])  # never propagated
    poison.table.append(
        Row(f"traceparent {header[:12]!r}", "verdict, header dropped", time.monotonic() - t0)
    )


def test_valid_traceparent_is_propagated(poison: Poison) -> None:
    session, rid = f"s-tp-{uuid.uuid4().hex[:6]}", f"r-{uuid.uuid4().hex[:8]}"
    poison.produce(
        poison.settings.topics.traces,
        session,
        whole_answer(session, rid),
        headers=[("traceparent", TRACEPARENT.encode())],
    )
    poison.wait("the verdict", lambda: bool(poison.verdicts(rid)))
    msg = poison.verdict_message(rid)
    assert dict(msg.headers() or [])["traceparent"] == TRACEPARENT.encode()


# --- seq ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seq", [300_000, 2**31 - 1, 2**63 - 1], ids=["gap", "int32-max", "2^63"])
def test_far_apart_seq_never_grows_the_state(poison: Poison, seq: int) -> None:
    t0 = time.monotonic()
    session = f"s-seq-{uuid.uuid4().hex[:6]}"
    rid = f"r-{uuid.uuid4().hex[:8]}"
    t = poison.settings.topics.traces
    poison.produce(
        t, session, json.dumps(event("response.delta", session, rid, text="Hi ", seq=0)).encode()
    )
    poison.produce(
        t, session, json.dumps(event("response.delta", session, rid, text="far", seq=seq)).encode()
    )
    poison.produce(
        t, session, json.dumps(event("response.completed", session, rid, final_seq=seq)).encode()
    )
    ok = valid_after(poison, session)
    poison.wait("a dead letter for the far seq", lambda: bool(poison.dead_letters(session)))
    poison.wait("the verdict after it", lambda: bool(poison.verdicts(ok)))
    reasons = {d.reason for d in poison.dead_letters(session)}
    assert reasons & {"stream_too_large", "schema_violation"}, reasons
    if "stream_too_large" in reasons:  # refused stream: also an `unavailable` verdict
        poison.wait("the unavailable verdict", lambda: bool(poison.verdicts(rid)))
        verdict = poison.verdicts(rid)[0]
        assert (verdict.state, verdict.unavailable_reason) == ("unavailable", "stream_incomplete")
    poison.table.append(Row(f"seq {seq}", ", ".join(sorted(reasons)), time.monotonic() - t0))


# --- hostile JSON ------------------------------------------------------------------------

BASE = event("user.input", "S", "R", text="hi")


def _with(**fields: Any) -> bytes:
    return json.dumps({**BASE, **fields}).encode()


CASES: dict[str, tuple[list[bytes], set[str]]] = {
    "deep array 5000": ([b"[" * 5000 + b"]" * 5000], {"over_limit", "schema_violation"}),
    "deep object 300": ([b'{"a":' * 300 + b"1" + b"}" * 300], {"over_limit"}),
    "tool output nested 300": (
        [
            json.dumps({**event("tool.result", "S", "R", tool="t", call_id="c"), "output": "X"})
            .encode()
            .replace(b'"X"', b"[" * 300 + b"]" * 300)
        ],
        {"over_limit"},
    ),
    "tool arguments nested 60": (
        [
            json.dumps(
                {**event("tool.result", "S", "R", tool="t", call_id="c"), "arguments": {"a": "X"}}
            )
            .encode()
            .replace(b'"X"', b"[" * 60 + b"]" * 60)
        ],
        {"over_limit"},
    ),
    "integer of 5000 digits": (
        [_with(turn=0).replace(b'"turn": 0', b'"turn": ' + b"9" * 5000)],
        {"malformed_json"},
    ),
    "integer of 400 digits": (
        [_with(turn=0).replace(b'"turn": 0', b'"turn": ' + b"9" * 400)],
        {"schema_violation"},
    ),
    "invalid UTF-8": ([_with(text="X").replace(b"X", b"\xff\xfe\xc3(")], {"malformed_json"}),
    "lone surrogate": ([_with(text="X").replace(b"X", b"\\ud800")], {"malformed_json"}),
    "UTF-16 with BOM": ([json.dumps(BASE).encode("utf-16")], {"malformed_json"}),
    "UTF-16-LE no BOM": ([json.dumps(BASE).encode("utf-16-le")], {"malformed_json"}),
    "UTF-32": ([json.dumps(BASE).encode("utf-32")], {"malformed_json"}),
    "UTF-8 BOM": ([b"\xef\xbb\xbf" + json.dumps(BASE).encode()], {"malformed_json"}),
    "NaN trust": (
        [
            json.dumps(
                {
                    **event("context.retrieved", "S", "R", source_id="d", text="x"),
                    "trust": float("nan"),
                }
            ).encode()
        ],
        {"malformed_json"},
    ),
    "seq as string": (
        [json.dumps(event("response.delta", "S", "R", text="x", seq="3")).encode()],
        {"schema_violation"},
    ),
    "seq as bool": (
        [json.dumps(event("response.delta", "S", "R", text="x", seq=True)).encode()],
        {"schema_violation"},
    ),
    "trust as string": (
        [
            json.dumps(
                event("context.retrieved", "S", "R", source_id="d", text="x", trust="0.5")
            ).encode()
        ],
        {"schema_violation"},
    ),
    "over-size 950 kB": ([_with(text="x" * 950_000)], {"over_limit"}),
    "empty value": ([b""], {"malformed_json"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_json_is_a_dead_letter_and_the_next_answer_flows(poison: Poison, case: str) -> None:
    values, reasons = CASES[case]
    session = f"s-{uuid.uuid4().hex[:8]}"
    fixed = [v.replace(b'"S"', json.dumps(session).encode()) for v in values]
    expect_dead_letter_then_verdict(poison, case, session, fixed, reasons)
    if case.startswith("over-size"):
        letter = poison.dead_letters(session)[0]
        assert letter.value_cut_bytes > 0 and letter.value_bytes == len(fixed[0])
        assert "max_event_bytes" in letter.error


def test_answer_with_a_missing_middle_chunk_is_never_clean(poison: Poison) -> None:
    t0 = time.monotonic()
    session, rid = f"s-hole-{uuid.uuid4().hex[:6]}", f"r-{uuid.uuid4().hex[:8]}"
    t = poison.settings.topics.traces
    doc = event("context.retrieved", session, rid, source_id="policy", text=POLICY)
    chunks = ["You can return the shoes ", "within 30 days ", "of delivery if unworn."]
    poison.produce(t, session, json.dumps(doc).encode())
    for seq in (0, 2):  # seq 1 never arrives
        delta = event("response.delta", session, rid, text=chunks[seq], seq=seq)
        poison.produce(t, session, json.dumps(delta).encode())
    done = event("response.completed", session, rid, final_seq=2)
    poison.produce(t, session, json.dumps(done).encode())
    poison.wait("the verdict of the holed answer", lambda: bool(poison.verdicts(rid)))
    verdict = poison.verdicts(rid)[0]
    assert (verdict.state, verdict.unavailable_reason) == ("unavailable", "stream_incomplete")
    assert any("chunk(s) 1 " in note for note in verdict.notes), verdict.notes
    poison.table.append(
        Row("missing middle chunk", "unavailable stream_incomplete", time.monotonic() - t0)
    )


def test_a_stream_spread_over_partitions_is_assembled_whole(poison: Poison) -> None:
    """A producer that does not key by session: every event of the stream on another
    partition, the chunks out of order, the end before the last chunk and the context."""
    t0 = time.monotonic()
    session, rid = f"s-spread-{uuid.uuid4().hex[:6]}", f"r-{uuid.uuid4().hex[:8]}"
    t = poison.settings.topics.traces
    producer = poison.producers["lz4"]
    partitions = len(producer.list_topics(t, timeout=10).topics[t].partitions)
    assert partitions > 1, "the traces topic needs more than one partition for this case"
    chunks = ["You can return the shoes ", "within 30 days ", "of delivery if unworn."]
    events = [
        event("response.delta", session, rid, text=chunks[2], seq=2),
        event("response.delta", session, rid, text=chunks[0], seq=0),
        event("response.completed", session, rid, final_seq=2),
        event("response.delta", session, rid, text=chunks[1], seq=1),
        event("context.retrieved", session, rid, source_id="policy", text=POLICY),
    ]
    for i, ev in enumerate(events):
        producer.produce(t, value=json.dumps(ev).encode(), partition=i % partitions)
        assert producer.flush(30) == 0
    poison.wait("the verdict of the spread answer", lambda: bool(poison.verdicts(rid)))
    verdict = poison.verdicts(rid)[0]
    assert verdict.state == "checked", (verdict.state, verdict.unavailable_reason, verdict.notes)
    assert verdict.context_items == 1 and verdict.action == "allow"
    poison.table.append(Row("stream spread over partitions", "checked", time.monotonic() - t0))


def test_stream_over_the_byte_budget_is_refused_and_still_gets_a_verdict(poison: Poison) -> None:
    t0 = time.monotonic()
    session, rid = f"s-big-{uuid.uuid4().hex[:6]}", f"r-{uuid.uuid4().hex[:8]}"
    t = poison.settings.topics.traces
    for i in range(5):  # 5 x 190 kB of context: over the stream's 800 kB budget
        doc = event("context.retrieved", session, rid, source_id=f"d{i}", text="x" * 190_000)
        poison.produce(t, session, json.dumps(doc).encode())
    delta = event("response.delta", session, rid, text="Returns take 30 days.", seq=0)
    poison.produce(t, session, json.dumps(delta).encode())
    poison.produce(t, session, json.dumps(event("response.completed", session, rid)).encode())
    ok = valid_after(poison, session)
    poison.wait("the refused stream's verdict", lambda: bool(poison.verdicts(rid)))
    poison.wait("the verdict after it", lambda: bool(poison.verdicts(ok)))
    verdict = poison.verdicts(rid)[0]
    assert (verdict.state, verdict.unavailable_reason) == ("unavailable", "stream_incomplete")
    letters = poison.dead_letters(session)
    assert [d.reason for d in letters] == ["stream_too_large"]
    assert "max_stream_bytes" in letters[0].error and letters[0].value_cut_bytes > 0
    poison.table.append(
        Row(
            "950 kB of context in one stream",
            "stream_too_large, unavailable",
            time.monotonic() - t0,
        )
    )


PATHOLOGICAL = {
    "form line": "Name: " + "_" * 40 + " Date. ",
    "unclosed quotes": "“a ",
    "digit run": "1 ",
    "dot run": ". . . ",
    "clause separators": "a, and ",
}


@pytest.mark.parametrize("case", list(PATHOLOGICAL))
def test_pathological_regex_input_gets_a_verdict_within_its_budget(
    poison: Poison, case: str
) -> None:
    t0 = time.monotonic()
    unit = PATHOLOGICAL[case]
    text = (unit * (49_000 // len(unit) + 1))[:49_000]  # at the answer limit
    session, rid = f"s-re-{uuid.uuid4().hex[:6]}", f"r-{uuid.uuid4().hex[:8]}"
    doc = {"source_id": "policy", "text": POLICY}
    value = json.dumps(event("response", session, rid, text=text, context={"documents": [doc]}))
    poison.produce(poison.settings.topics.traces, session, value.encode())
    ok = valid_after(poison, session)
    poison.wait(f"the verdict of the {case} answer", lambda: bool(poison.verdicts(rid)))
    poison.wait("the verdict after it", lambda: bool(poison.verdicts(ok)))
    verdict = poison.verdicts(rid)[0]
    budget_s = poison.settings.verifier.answer_budget_s
    assert verdict.timings.verification_ms < (budget_s + 5) * 1000
    if verdict.state == "unavailable":
        assert verdict.unavailable_reason == "evaluation_failed" and verdict.error
    outcome = verdict.state + (
        f" {verdict.unavailable_reason}" if verdict.unavailable_reason else ""
    )
    poison.table.append(Row(f"49k chars of {case}", outcome, time.monotonic() - t0))


def test_worker_never_exited(poison: Poison) -> None:
    assert poison.worker.proc is not None
    assert poison.worker.proc.poll() is None, poison.worker.tail()
    assert "exited with" not in poison.worker.tail(400)
    width = max((len(r.case) for r in poison.table), default=10)
    print(f"\n{'input':<{width}}  {'outcome':<40} seconds")
    for r in poison.table:
        print(f"{r.case:<{width}}  {r.outcome:<40} {r.seconds:6.2f}")
    print(f"{len(poison.table)} inputs, worker exits: 0")
