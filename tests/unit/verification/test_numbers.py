"""Quantities read from text: the forms tool outputs use."""

from __future__ import annotations

from hallmon.verification.numbers import extract_quantities


def test_an_iso_datetime_is_a_date_and_a_local_time_not_its_offset() -> None:
    found = extract_quantities("Start: 2026-12-02T16:00:00+01:00.", False)
    dates = [q for q in found if q.kind == "date"]
    times = [q for q in found if q.kind == "time"]
    assert [q.dates for q in dates] == [frozenset({"2026-12-02"})]
    assert [q.values for q in times] == [frozenset({960.0})]  # 16:00, not the +01:00 offset
    claim = extract_quantities("December 2 at 4 pm", True)
    assert any(q.values == frozenset({960.0}) for q in claim)
