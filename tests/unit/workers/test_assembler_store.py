"""The assembler's table layout: each event appends its parts; the state reads back whole."""

from __future__ import annotations

from hallmon.workers.assembler import store
from hallmon.workers.assembler.state import Assembler, StreamState

from .test_assembler import completed, ev, stream


def replay(
    asm: Assembler, events: list, table: dict[str, bytes]
) -> tuple[StreamState | None, list[int]]:
    """Apply the events as the agent does, keeping `table` as the changelog would; the bytes
    written for each event."""
    state: StreamState | None = None
    written: list[int] = []
    for event in events:
        step = asm.apply(state, event, now=100.0, open_streams=0, partition=1)
        new = None if step.delete else step.state
        if not step.changes_state:
            written.append(0)
            continue
        writes = store.changes(state, new)
        for key, value in writes:
            if value is None:
                table.pop(key, None)
            else:
                table[key] = value
        written.append(sum(len(k) + len(v or b"") for k, v in writes))
        state = new
    return state, written


def test_the_state_reads_back_whole_after_every_event() -> None:
    events = [*stream(["You can ", "return ", "them."]), completed(2)]
    for n in range(1, len(events)):  # the last one closes the stream
        table: dict[str, bytes] = {}
        state, _ = replay(Assembler(), events[:n], table)
        assert state is not None and state.is_open
        assert store.load(table["r-1"], table.get) == state


def test_an_event_writes_its_own_size_not_the_whole_state() -> None:
    # A 60 kB document, then 300 one-word deltas: rewriting the whole state on every delta
    # wrote ~18 MB for this answer; with the context stored once, a delta rewrites only the
    # header (the fields and the answer so far).
    asm = Assembler()
    table: dict[str, bytes] = {}
    big = "Returns are accepted within 30 days of delivery. " * 1200
    events = [
        ev("context.retrieved", "d", source_id="policy", text=big),
        *[ev("response.delta", f"x{i}", seq=i, text="word ") for i in range(300)],
    ]
    state, written = replay(asm, events, table)
    assert written[0] > len(big)  # the document is written once
    whole = 0  # what rewriting the whole state on every event wrote
    grown: StreamState | None = None
    for event in events:
        grown = asm.apply(grown, event, now=100.0, open_streams=0, partition=1).state
        assert grown is not None
        whole += len(grown.to_bytes())
    assert whole > 17_000_000 and sum(written) < 800_000, (whole, sum(written))
    assert max(written[1:]) < 5_000, max(written[1:])  # the header: chunks, no context
    assert state is not None and store.load(table["r-1"], table.get) == state
    # the header holds the answer, never the context
    assert len(table["r-1"]) < 5_000 and b"Returns are accepted" not in table["r-1"]


def test_closing_a_stream_deletes_its_parts_and_keeps_the_header_as_tombstone() -> None:
    asm = Assembler()
    table: dict[str, bytes] = {}
    state, _ = replay(asm, [*stream(["A", "B"]), completed(1)], table)
    assert state is not None and state.status == "completed"
    assert list(table) == ["r-1"]
    assert store.load(table["r-1"], table.get) == state
    # forgetting the tombstone deletes the header too
    writes = store.changes(state, None)
    assert writes == [("r-1", None)]


def test_a_state_in_the_previous_layout_still_loads() -> None:
    asm = Assembler()
    table: dict[str, bytes] = {}
    state, _ = replay(asm, stream(["A", "B"]), table)
    assert state is not None
    assert store.load(state.to_bytes(), lambda _: None) == state


def test_a_stream_stored_whole_by_the_previous_layout_is_rewritten_in_parts() -> None:
    asm = Assembler()
    state, _ = replay(asm, stream(["A", "B"]), {})
    assert state is not None
    table = {"r-1": state.to_bytes()}  # what the previous release left in the changelog
    assert store.is_whole(table["r-1"]) and not store.is_whole(store.header_bytes(state))
    step = asm.apply(state, ev("response.delta", "x2", seq=2, text="C"), now=1.0, open_streams=1)
    assert step.state is not None
    # the agent diffs against nothing when the stored header is whole: every part is written
    for key, value in store.changes(None, step.state):
        assert value is not None
        table[key] = value
    again = store.load(table["r-1"], table.get)
    assert again.chunks == {0: "A", 1: "B", 2: "C"} and len(again.documents) == 1


def test_a_missing_part_is_left_out_not_an_error() -> None:
    asm = Assembler()
    table: dict[str, bytes] = {}
    replay(asm, stream(["A", "B", "C"]), table)
    del table[store.part_key("r-1", "d", 0)]
    again = store.load(table["r-1"], table.get)
    assert again.documents == [] and again.chunks == {0: "A", 1: "B", 2: "C"}


def test_any_response_id_has_keys_of_its_own() -> None:
    # A response_id that looks like a part key of another stream gets an escaped header key.
    other = store.part_key("r-1", "c", 0)
    keys = {
        store.header_key("r-1"),
        store.header_key(other),
        store.header_key("\x00h" + other),
        other,
        store.part_key(other, "c", 0),
    }
    assert len(keys) == 5
    assert not store.is_part_key(store.header_key(other))
    assert store.is_part_key(other) and not store.is_part_key("r-1")
    asm = Assembler()
    table: dict[str, bytes] = {}
    state: StreamState | None = None
    for rid in ("r-1", other):
        ids = {"response_id": rid}
        for event in stream(["A", "B"]):
            event = event.model_copy(update=ids)
            step = asm.apply(
                state if state and state.response_id == rid else None,
                event,
                now=1.0,
                open_streams=0,
                partition=1,
            )
            assert step.state is not None
            for key, value in store.changes(
                state if state and state.response_id == rid else None, step.state
            ):
                table[key] = value  # type: ignore[assignment]
            state = step.state
    first = store.load(table[store.header_key("r-1")], table.get)
    second = store.load(table[store.header_key(other)], table.get)
    assert first.chunks == second.chunks == {0: "A", 1: "B"}
    assert (first.response_id, second.response_id) == ("r-1", other)
