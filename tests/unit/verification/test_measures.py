from __future__ import annotations

from typing import Any

from hallmon.schemas import ToolResultItem

from hallmon.verification.measures import check_named_measures
from hallmon.verification.tools import ToolCall


def call(tool: str, output: Any, status: str = "ok") -> ToolCall:
    item = ToolResultItem(tool=tool, call_id="c1", output=output, status=status)  # type: ignore[arg-type]
    return ToolCall.of(item)


WATER = call(
    "pools.get_water_test",
    {"pool": "main", "free_chlorine_ppm": 0.4, "ph": 7.4, "combined_chlorine_ppm": 0.2},
)


def test_a_reading_said_of_the_field_that_records_another_value() -> None:
    # hand117-08 (held out): 1.4 could be made of 1 and 0.4, but the claim names the field
    bad = check_named_measures("Your free chlorine came back at 1.4 ppm.", [WATER])
    assert bad is not None and bad.passed is False
    assert "free_chlorine_ppm=0.4" in bad.detail and bad.name == "tool_fact"


def test_the_right_reading_or_a_bound_or_another_field_says_nothing() -> None:
    assert check_named_measures("Your free chlorine came back at 0.4 ppm.", [WATER]) is None
    # a bound or a target is not a reading
    assert check_named_measures("Free chlorine should stay below 1.4 ppm.", [WATER]) is None
    # one key word is not enough to name a field ("chlorine" alone: free or combined?)
    assert check_named_measures("The chlorine came back at 1.4 ppm.", [WATER]) is None
    # a failed call records nothing
    failed = call("pools.get_water_test", {"free_chlorine_ppm": 0.4}, status="error")
    assert check_named_measures("Your free chlorine came back at 1.4 ppm.", [failed]) is None


def test_a_unit_only_the_claim_says_is_not_compared() -> None:
    # the key's "_c" is not read as a unit: 104°F against 38 (Celsius?) cannot be compared
    heater = call("spa.get_heater", {"water_temp_c": 38})
    assert check_named_measures("The water temp reads 104°F right now.", [heater]) is None


def test_another_figure_of_the_clause_that_is_the_fields() -> None:
    lanes = call("pools.get_lanes", {"lanes_open": 2})
    assert check_named_measures("The lanes open are 1 of the 2 you booked.", [lanes]) is None
    bad = check_named_measures("The lanes open right now are 3.", [lanes])
    assert bad is not None and bad.passed is False
