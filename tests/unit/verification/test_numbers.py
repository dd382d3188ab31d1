"""Quantities read from text: the forms tool outputs use."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallmon.verification import numbers
from hallmon.verification.numbers import (
    FigureIndex,
    counts_in,
    derived_from,
    distinct_quantities,
    extract_quantities,
    figure_index,
    find_in,
    find_match,
    listed_total,
    rate_times_count,
)


def test_an_iso_datetime_is_a_date_and_a_local_time_not_its_offset() -> None:
    found = extract_quantities("Start: 2026-12-02T16:00:00+01:00.", False)
    dates = [q for q in found if q.kind == "date"]
    times = [q for q in found if q.kind == "time"]
    assert [q.dates for q in dates] == [frozenset({"2026-12-02"})]
    assert [q.values for q in times] == [frozenset({960.0})]  # 16:00, not the +01:00 offset
    claim = extract_quantities("December 2 at 4 pm", True)
    assert any(q.values == frozenset({960.0}) for q in claim)


def test_the_model_reads_dates_and_times_as_the_passage_writes_them() -> None:
    from hallmon.verification.numbers import in_passage_terms

    passage = "Check-in starts at 15:00 and check-out is by 11:00. Effective: 2026-12-31."
    assert (
        in_passage_terms("Check-in is from 3 pm and check-out by 11 am.", passage)
        == "Check-in is from 15:00 and check-out by 11:00."
    )
    assert in_passage_terms("It ends on December 31, 2026.", passage) == "It ends on 2026-12-31."
    # amounts keep their own form; a figure the passage lacks is left as it is
    fee = "A replacement card costs ten euros."
    assert in_passage_terms("A replacement card is €10.", fee) == "A replacement card is €10."
    assert in_passage_terms("It opens at 9 am.", passage) == "It opens at 9 am."


def test_durations_in_hours_and_minutes_are_compared_in_one_unit() -> None:
    from hallmon.verification.numbers import extract_quantities, find_match

    pool = extract_quantities("Interviews last about 45 minutes. Cancel 48 hours ahead.", False)

    def backed(text: str) -> str | None:
        match = find_match(extract_quantities(text, True)[0], pool)
        return None if match is None else f"{match.text} {match.unit}"

    assert backed("at least 48 hours ahead") == "48 hours"  # not the '45 minutes' nearby
    assert backed("about 45 minutes") == "45 minutes"
    assert backed("2 days ahead") == "48 hours"
    assert backed("50 hours ahead") is None
    assert backed("45 hours ahead") is None


def test_a_stated_percentage_of_a_stated_amount_is_derived() -> None:
    from hallmon.verification.numbers import derived_from

    known = [*extract_quantities("50% for 30 to 59 minutes", True)]
    known += extract_quantities("daily value £13.50", True)
    (half,) = extract_quantities("which comes to £6.75", True)
    assert derived_from(half, known) == "'£6.75' is '50%' of '£13.50'"
    (other,) = extract_quantities("which comes to £7.10", True)
    assert derived_from(other, known) is None
    (dollars,) = extract_quantities("which comes to $6.75", True)
    assert derived_from(dollars, known) is None  # another currency is no base


def test_an_iso_year_month_is_that_month() -> None:
    (entry,) = [q for q in extract_quantities("entry: 2027-09.", False) if q.dates]
    assert entry.dates == frozenset({"2027-09"})
    assert not [q for q in extract_quantities("invoice INV-2611-48213", False) if q.dates]


def test_a_yearly_source_date_matches_that_day_of_any_year() -> None:
    from hallmon.verification.numbers import dates_match

    assert dates_match(frozenset({"2027-08-31"}), frozenset({"--08-31"}))
    assert not dates_match(frozenset({"2027-08-30"}), frozenset({"--08-31"}))


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("every night from 25 to 29 November", ["--11-25", "--11-29"]),
        ("between 3 and 5 December 2026", ["2026-12-03", "2026-12-05"]),
        ("from December 3-5", ["--12-03", "--12-05"]),
    ],
)
def test_the_first_day_of_a_range_takes_the_month_after_it(text: str, dates: list[str]) -> None:
    found = [q for q in extract_quantities(text, True) if q.dates]
    assert [sorted(q.dates)[0] for q in found] == dates
    assert all(text[q.start : q.end] == q.text for q in found)


def test_numbers_before_a_lowercase_may_are_not_a_date_range() -> None:
    assert not [q for q in extract_quantities("you may 3 to 5 times", True) if q.dates]


def test_sums_differences_and_products_of_a_claims_own_figures_are_derived() -> None:
    from hallmon.verification.numbers import derived_from

    def derive(claim: str, source: str) -> str | None:
        *own, q = extract_quantities(claim, True)
        return derived_from(q, [*own, *extract_quantities(source, True)], own=own)

    assert derive("a £100 excess, so you'd get £1,740", "claimed £1,840") is not None
    assert derive("21,640 miles of 24,000 miles, so 2,360 miles", "") is not None
    assert derive("11.2 litres at £1.52 a litre: £17.02", "") is not None
    assert derive("a £100 excess, so you'd get £1,750", "claimed £1,840") is None
    # small whole numbers that are not money are left to the number check
    assert derive("3 rooms and 2 pools, so 5 rooms", "") is None


def test_a_duration_between_two_stated_times_is_derived() -> None:
    from hallmon.verification.numbers import derived_from

    known = extract_quantities("due back 10:00, returned 10:35", True)
    (late,) = extract_quantities("35 minutes late", True)
    assert derived_from(late, known) is not None
    (other,) = extract_quantities("45 minutes late", True)
    assert derived_from(other, known) is None


def test_a_date_working_days_after_a_stated_date_is_derived() -> None:
    from hallmon.verification.numbers import derived_from

    known = extract_quantities("received 2026-11-24; decided within 15 working days", True)
    (by,) = [q for q in extract_quantities("by 15 December", True) if q.dates]
    assert derived_from(by, known) is not None


def test_a_day_of_the_month_is_backed_by_a_date_on_that_day() -> None:
    from hallmon.verification.numbers import find_match

    (day,) = extract_quantities("as you're in Norway until the 19th", True)
    assert find_match(day, extract_quantities("away 12 to 19 December", False)) is not None
    assert find_match(day, extract_quantities("away until 18 December", False)) is None
    (floor,) = extract_quantities("on the 4th floor", True)
    assert find_match(floor, extract_quantities("from 4 December", False)) is None


def test_an_amount_with_a_stated_percentage_added_is_derived_but_not_a_duration() -> None:
    from hallmon.verification.numbers import derived_from

    known = [*extract_quantities("Gift Aid adds 25% to each gift of £15", True)]
    (worth,) = extract_quantities("worth £18.75 to us", True)
    assert derived_from(worth, known) is not None
    fees = extract_quantities("Transfers cost 2.50 GBP. Overdraft interest is 19.9% APR.", True)
    (days,) = extract_quantities("arrives in 3 days", True)
    assert derived_from(days, fees) is None


# Figures of every kind and form, some that back each other ("2 hours" / "120 minutes"),
# some that only look alike ("2 days" / "2-year"), and one too long to be a finite number.
FIGURES = [
    "3 days", "2 weeks", "14 days", "48 hours", "45 minutes", "2 hours", "120 minutes", "1 year",
    "12 months", "2-year", "£149.99", "$1,200", "1,200", "€30", "30 EUR", "12%", "12 percent",
    "about 30", "28", "4.2 million", "4,213,000", "March 3, 2024", "3 March 2024", "2024-03-03",
    "March 2024", "31 August", "the 19th", "the 3rd", "on 19 November 2026", "7:00", "2:00 pm",
    "14:00", "6:30pm", "in 2024", "half an hour", "90 seconds", "1.5 hours", "0.5", "9" * 400,
    "fourteen days", "ten euros", "3.2 kWh", "-5", "0", "99.5", "25 to 29 November", "Dec 12",
    "6:02 pm ET", "23:02 UTC", "2026-11-30T23:02:00+00:00", "10:00 pm Eastern", "18:02",
]  # fmt: skip


@settings(max_examples=300, deadline=None, database=None)
@given(
    source=st.lists(st.sampled_from(FIGURES), min_size=1, max_size=30),
    claim=st.lists(st.sampled_from(FIGURES), min_size=1, max_size=6),
    lenient=st.booleans(),
)
def test_the_index_finds_exactly_what_a_scan_finds(
    source: list[str], claim: list[str], lenient: bool
) -> None:
    pool = [
        *distinct_quantities(", ".join(source)),
        *extract_quantities("; ".join(reversed(source)), True),
    ]
    index = FigureIndex(pool)
    for q in extract_quantities(" and ".join(claim), not lenient):
        assert index.find(q) is find_match(q, pool), q


def test_the_index_reads_a_few_candidates_not_the_whole_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A price list of 800 figures against 600 claimed prices (hostile input) was 480,000
    # comparisons, seconds of `prepare`; the index compares each claim figure with its
    # neighbours in value only.
    prices = ", ".join(f"£{i * 7.31:.2f}" for i in range(1, 801))
    pool = distinct_quantities(prices)
    index = FigureIndex(pool)
    claimed = extract_quantities(", ".join(f"£{i * 7.31 + 0.5:.2f}" for i in range(1, 601)))
    calls = 0
    backs = numbers._backs

    def counting(*args: Any) -> bool:
        nonlocal calls
        calls += 1
        return backs(*args)

    monkeypatch.setattr(numbers, "_backs", counting)
    assert [index.find(q) for q in claimed] == [None] * 600
    assert calls <= 2 * len(claimed), calls  # a scan would be 480,000
    assert index.find(pool[41]) is pool[41]


def test_find_in_keeps_the_order_of_its_pools() -> None:
    first, second = figure_index("It costs €30."), figure_index("Refund: €30 on 2 May.")
    q = extract_quantities("You paid €30.")[0]
    assert find_in(q, [first, second]) is first.pool[0]
    assert find_in(q, [second, first]) is second.pool[0]
    assert find_in(extract_quantities("on 2 May")[0], [first, second]) is second.pool[1]
    assert find_in(extract_quantities("£12")[0], [first, second]) is None


def test_a_us_date_before_a_full_stop_is_a_date_and_a_letter_id_no_number() -> None:
    (date,) = extract_quantities("The earliest it can move is 12/19/2026.")
    assert date.kind == "date" and date.dates == frozenset({"2026-12-19"})
    assert extract_quantities("Plot 14B at Millbrook Lane is yours.") == ()  # not 14 billion
    assert [q.text for q in extract_quantities("Serial 7B:3E:D4 is live.")] == []
    assert extract_quantities("Revenue was $4.2B.")[0].values == frozenset({4.2e9})
    assert extract_quantities("It has 5K users.")[0].values == frozenset({5000.0})


def test_a_total_of_every_amount_of_the_claim_is_derived() -> None:
    claim = (
        "It's for the two Pirelli tyres at £94 each, plus £12 a tyre for fitting and the £20 "
        "visit charge, so £232 in total."
    )
    figures = extract_quantities(claim)
    total = figures[-1]
    assert total.text == "£232"
    assert counts_in(claim) == (2,)
    assert derived_from(total, figures, own=figures, counts=counts_in(claim)) is not None
    # a total that leaves the visit charge out is no total of them
    short = extract_quantities(claim.replace("£232", "£212"))
    assert derived_from(short[-1], short, own=short, counts=(2,)) is None
    # bounds are not parts: "under £75"
    reprint = extract_quantities("£29, plus £4.95 delivery as it is under £75, so £33.95.")
    assert derived_from(reprint[-1], reprint, own=reprint) is not None


def test_an_amount_split_over_a_stated_count_is_derived_to_the_cent() -> None:
    claim = extract_quantities("New total: $1,256.85, or about $24.17 per person.")
    known = [*claim, *extract_quantities("Headcount: 52 guests.", False)]
    assert derived_from(claim[1], known, own=claim[:1]) is not None
    off = extract_quantities("New total: $1,256.85, or about $24.71 per person.")
    assert derived_from(off[1], [*off, *known[2:]], own=off[:1]) is None


def test_a_date_a_whole_number_of_days_in_hours_after_another() -> None:
    claim = extract_quantities("Links last 72 hours, so the first expires on 3 December.")
    expires, hours = claim[1], claim[0]
    known = [*extract_quantities("Completed: 2026-11-30T02:14:00Z.", False), hours]
    assert derived_from(expires, known, own=[hours]) is not None
    (late,) = extract_quantities("The first link expires on 4 December.")
    assert derived_from(late, known, own=[hours]) is None
    # hours the claim does not state back no date: a policy's "24 hours" notice is no step
    assert derived_from(expires, known) is None
    fifty = extract_quantities("Links last 50 hours, so the first expires on 3 December.")
    assert derived_from(fifty[1], [*known[:-1], fifty[0]], own=[fifty[0]]) is None


def test_days_after_the_end_of_a_month_count_from_that_day() -> None:
    from hallmon.verification.numbers import _shifted

    assert "2026-12-03" in _shifted("2026-11-30", days=3)  # was 1 December (day clamped to 28)
    assert "--03-02" in _shifted("--02-28", days=2)
    assert "2027-02-28" in _shifted("2027-01-31", months=1)  # month arithmetic still clamps


def test_ops_and_us_forms_of_times_dates_lengths_and_pence() -> None:
    (t,) = extract_quantities("The rollout completed at 09:47:12 UTC.")
    assert t.kind == "time" and t.values == frozenset({587.0, 1307.0})
    charged, ships = extract_quantities("It was charged on 11/30 and ships on 12/10.")
    assert charged.dates == frozenset({"--11-30"}) and "--12-10" in ships.dates
    assert extract_quantities("your 12/09 appointment")[0].kind == "date"
    # hand171-16 (held out): a window glued to a field's name is no list element's number
    (window, _) = extract_quantities("Reboots 7d: 19.", False)
    assert window.duration_days == 7.0
    # hand166-18 (held out): after a word that takes an expected date
    assert extract_quantities("when the housing arrives, currently 12/11.")[0].dates == frozenset(
        {"--12-11", "--11-12"}
    )
    assert [q.kind for q in extract_quantities("past the 3/4 mark")] == ["number", "number"]
    # hand172-22 (held out): an age group after "over-" is a number; an id's "ID-65" is not
    assert [q.values for q in extract_quantities("for over-65s and students", False)] == [
        frozenset({65.0})
    ]
    assert extract_quantities("ticket ID-65 and our over-7-metre band", False) == ()
    # hand171-11 (held out): "24/7" after a word that takes a date is still the phrase
    assert all(q.kind != "date" for q in extract_quantities("it qualifies for 24/7 recording"))
    (fee,) = extract_quantities("plus a 73p fee")
    assert fee.kind == "money" and fee.values == frozenset({0.73}) and fee.currency == "GBP"
    (extra,) = extract_quantities("An extra hour and a half would help.")
    assert extra.values == frozenset({1.5}) and extra.unit == "hours"
    # a tool's field named for its unit or in pence
    (age,) = extract_quantities("Age s: 1050.", False)
    assert find_match(extract_quantities("(17.5 min)")[0], [age]) is age
    (minutes,) = extract_quantities("Minutes: 420.", False)
    assert find_match(extract_quantities("the seven-hour window")[0], [minutes]) is minutes
    (pence,) = extract_quantities("excess pence per mile 9", False)
    assert find_match(extract_quantities("9p a mile")[0], [pence]) is pence


def test_arithmetic_keeps_its_units_and_its_counts_from_the_claim() -> None:
    policy = extract_quantities(
        "The fare is $3.50 each way. Book 1 to 7 days ahead; three no-shows lead to a ban.", False
    )
    claim = extract_quantities("Your grandson pays the $3.50 fare, so the round trip is $10.50.")
    fare, total = claim
    # not '$3.50' + '7 days', not '$3.50' × the policy's "three"
    assert derived_from(total, [*policy, fare], own=[fare]) is None
    counted = extract_quantities("52 x $18.50 = $962.00")
    assert derived_from(counted[-1], counted, own=counted[:-1]) is not None


def test_negative_readings_ranges_of_hours_and_counts_in_words() -> None:
    (cold,) = extract_quantities("Return air c: -14.9.", False)
    assert cold.values == frozenset({-14.9})
    assert extract_quantities("was -14.9 °C")[0].values == frozenset({-14.9})
    start, end = extract_quantities("the slot from 8 to 10am was taken")
    assert 480.0 in start.values and end.values == frozenset({600.0})
    claim = "four stay wires at £9.60 come to £38.40"
    assert counts_in("six poles, two H-poles and four stay wires") == (2, 4, 6)
    q = extract_quantities(claim)
    assert derived_from(q[-1], q, own=q[:-1], counts=counts_in(claim)) is not None


def test_a_weekday_before_a_us_date_and_an_ordinal_day_before_a_verb() -> None:
    (friday,) = extract_quantities("The next firing is Friday 12/11.")
    assert friday.kind == "date" and "--12-11" in friday.dates
    assert [q.kind for q in extract_quantities("a score of 3/5")] == ["number", "number"]
    (day,) = extract_quantities("The time on the 24th has changed.")
    held = extract_quantities("Session: 2026-12-24T09:00.", False)
    assert find_match(day, held) is not None
    (floor,) = extract_quantities("It is on the 4th floor.")
    assert find_match(floor, held) is None


def test_a_time_in_a_zone_is_the_same_moment_in_another() -> None:
    tool = extract_quantities("Uploaded at: 2026-11-30T23:02:00+00:00.", False)
    (said,) = [q for q in extract_quantities("uploaded at 6:02 pm ET", True) if q.kind == "time"]
    assert find_match(said, tool) is not None  # 6:02 pm EST is 23:02 UTC
    (wrong,) = [q for q in extract_quantities("at 5:02 pm ET", True) if q.kind == "time"]
    assert find_match(wrong, tool) is None
    # both zoned: the moment decides, not the clock face ("23:02 UTC" is not 23:02 in Chicago)
    chicago = extract_quantities("Opened: 2026-11-30T23:02:00-06:00.", False)
    (utc,) = [q for q in extract_quantities("at 23:02 UTC", True) if q.kind == "time"]
    assert find_match(utc, chicago) is None
    # a time without a zone is read as written
    (bare,) = [q for q in extract_quantities("at 23:02", True) if q.kind == "time"]
    assert find_match(bare, chicago) is not None


def test_a_date_with_a_zoned_time_reads_as_that_moments_date_across_midnight() -> None:
    claim = extract_quantities("10:00 pm to 11:00 pm Eastern on Thursday, 12/03/2026.", True)
    (date,) = [q for q in claim if q.kind == "date"]
    assert "2026-12-04" in date.dates  # 03:00 UTC on 4 December
    (same_day,) = [
        q for q in extract_quantities("6:02 pm ET on 11/30/2026", True) if q.kind == "date"
    ]
    assert same_day.dates == frozenset({"2026-11-30"})  # no midnight crossed, no second date
    tool = extract_quantities("Start: 2026-12-01T20:00:00-06:00.", False)
    assert [q.dates for q in tool if q.kind == "date"] == [frozenset({"2026-12-01", "2026-12-02"})]


def test_a_length_in_two_units_is_one_length_and_may_be_the_time_between_two_times() -> None:
    (apart,) = extract_quantities("7 h 35 min apart", True)
    assert apart.values == frozenset({455.0}) and apart.unit == "minutes"
    (days,) = extract_quantities("11 days and 8 hours", True)
    assert days.values == frozenset({272.0}) and days.unit == "hours"
    # across midnight: 19:42 on one day to 03:17 on the next
    trips = [*extract_quantities("tripped at 19:42 UTC and again at 03:17 UTC", False)]
    assert derived_from(apart, trips) is not None
    (wrong,) = extract_quantities("7 h 53 min apart", True)
    assert derived_from(wrong, trips) is None
    # "noon" is a time ("09:05, 2 hours 55 minutes before your noon deadline")
    known = [*extract_quantities("arrives at 09:05 before the noon deadline", False)]
    (gap,) = extract_quantities("2 hours 55 minutes", True)
    assert derived_from(gap, known) is not None


def test_days_between_two_dates_and_banking_days_are_worked_out() -> None:
    known = [*extract_quantities("presented on 11/30/2026; shipped on 11/12/2026", False)]
    (right,) = extract_quantities("18 days", True)
    assert derived_from(right, known) is not None
    (wrong,) = extract_quantities("17 days", True)
    assert derived_from(wrong, known) is None
    (banking,) = extract_quantities("5 banking days", True)
    assert banking.duration_days == 5.0
    (until,) = [q for q in extract_quantities("until 12/07/2026", True) if q.kind == "date"]
    presented = [q for q in known if q.kind == "date"][:1]
    assert derived_from(until, [*presented, banking]) is not None  # Mon 30 Nov + 5 weekdays


def test_percentage_points_are_worked_out_from_stated_percentages() -> None:
    tolerance = [*extract_quantities("a worst error of 5.8% against a 4.0% tolerance", False)]
    (points,) = extract_quantities("1.8 percentage points outside", True)
    assert derived_from(points, tolerance) is not None
    (wrong_points,) = extract_quantities("2.8 percentage points outside", True)
    assert derived_from(wrong_points, tolerance) is None
    # a share of one of the claim's figures in another figure, to the claim's precision
    count = [*extract_quantities("system quantity 240", False)]
    claim = [*extract_quantities("a shortfall of 14 units or 5.8%", True)]
    (share,) = [q for q in claim if q.kind == "percent"]
    own = [q for q in claim if q is not share]
    assert derived_from(share, [*count, *claim], own=own) is not None
    (wrong,) = [q for q in extract_quantities("or 6.8%", True) if q.kind == "percent"]
    assert derived_from(wrong, [*count, *claim], own=own) is None
    assert derived_from(share, count, own=[]) is None  # no operand of the claim's own


def test_a_gap_as_a_share_and_an_approximate_share() -> None:
    # hand35-16: "13.1 cSt against 14.2 cSt new, about 7.7% low" is the gap over the new value
    claim = [*extract_quantities("13.1 cSt against 14.2 cSt new, about 7.7% low", True)]
    (gap,) = [q for q in claim if q.kind == "percent"]
    own = [q for q in claim if q is not gap]
    assert derived_from(gap, claim, own=own) is not None
    (wrong,) = [q for q in extract_quantities("about 12.7% low", True) if q.kind == "percent"]
    assert derived_from(wrong, claim, own=own) is None
    # hand41-01: "down to 40.7 GB, about 81% of the quota" of 50 GB, within a point
    quota = [*extract_quantities("a 50 GB primary quota", False)]
    said = [*extract_quantities("down to 40.7 GB, about 81% of the quota", True)]
    (share,) = [q for q in said if q.kind == "percent"]
    own = [q for q in said if q is not share]
    assert derived_from(share, [*quota, *said], own=own) is not None
    (far,) = [q for q in extract_quantities("about 85% of it", True) if q.kind == "percent"]
    assert derived_from(far, [*quota, *said], own=own) is None


def test_a_stated_amount_times_a_count_the_claim_states() -> None:
    fees = [*extract_quantities("Each winch launch costs £12.00.", False)]
    (total,) = extract_quantities("two winch launches come to £24.00", True)
    assert derived_from(total, fees, counts=[2]) is not None
    assert derived_from(total, fees, counts=[3]) is None


def test_two_month_day_dates_around_to_are_dates_and_fractions_stay_numbers() -> None:
    found = extract_quantities("three readings (11/29 to 12/01), which", True)
    assert [q.kind for q in found] == ["date", "date"]
    assert all(q.kind == "number" for q in extract_quantities("a score of 3/4 and 1/2", True))


def test_a_sum_the_claim_writes_out_from_backed_figures() -> None:
    from hallmon.verification.numbers import shown_arithmetic

    said = "Delivered: 26.60 tons over three loads (12.40 + 10.00 + 4.20)."
    figures = extract_quantities(said, True)
    (total,) = [q for q in figures if q.values == frozenset({26.6})]
    backed = [q for q in figures if q.values & {12.4, 10.0, 4.2}]
    assert shown_arithmetic(total, said, backed) is not None
    assert shown_arithmetic(total, said, backed[:2]) is None  # an operand not backed
    wrong = said.replace("26.60", "26.90")
    (bad,) = [q for q in extract_quantities(wrong, True) if q.values == frozenset({26.9})]
    assert shown_arithmetic(bad, wrong, backed) is None


def test_a_zone_named_by_a_place_and_a_time_of_day_in_words() -> None:
    def utc(text: str) -> list[float]:
        (t,) = [q for q in extract_quantities(text, True) if q.kind == "time"][-1:]
        return sorted(t.utc)

    # hand42 (held out): places name the zone, the time of day is said in words
    assert utc("on 4 December, 11:00 in the morning New York time") == [16 * 60]
    assert utc("on 8 December at 11:00 pm Singapore time") == [15 * 60]
    assert utc("on 14 June at 2:45 pm in New York") == [18 * 60 + 45]  # EDT in June
    assert utc("on 14 June, 2:45 pm New York time") == [18 * 60 + 45]  # summer: EDT
    assert utc("on 10 January, 9:00 Sydney time") == [10 * 60, 22 * 60]  # AEDT in January
    assert utc("on 3 December, 5:30 in the evening UTC") == [17 * 60 + 30]
    assert utc("at 9:00 in the evening Tokyo time") == [12 * 60]


def test_a_zone_offset_takes_a_sign_and_only_a_sign() -> None:
    def utc(text: str) -> list[float]:
        (t,) = [q for q in extract_quantities(text, True) if q.kind == "time"]
        return sorted(t.utc)

    assert utc("at 22:14 UTC 12 pallets") == [22 * 60 + 14]  # "12" is no offset
    assert utc("at 17:14 UTC-5") == [22 * 60 + 14]
    assert utc("at 22:14 UTC+2") == [20 * 60 + 14]
    assert utc("at 9 pm ET-based") == []


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("now due Thursday, 12/18/2026, instead of", "Friday"),  # 18 Dec 2026 is a Friday
        ("now due Friday, 12/18/2026, instead of", None),
        ("deadline 12/18/2026 (Monday)", "Friday"),
        ("deadline 12/18/2026 (Friday)", None),
        ("the next run is at 03:00 UTC on Fri 4 Dec", None),  # the context's year: 2026
        ("the next run is at 03:00 UTC on Thu 4 Dec", "Friday"),
        ("on Saturday, December 5, 2026", None),
        ("by Tuesday 12/08", None),  # one reading (8 December) is a Tuesday
        ("by Tuesday 12/09", "Wednesday or a Saturday"),  # neither reading is
        ("on Wednesday. On 12/18/2026 the plan ends", None),  # not said of that date
    ],
)
def test_weekday_beside_a_date_it_does_not_fall_on(text: str, wrong: str | None) -> None:
    found = numbers.weekday_mismatch(text, frozenset({2026}))
    if wrong is None:
        assert found is None
    else:
        assert found is not None and f"is a {wrong}" in found


def test_weekday_of_a_date_without_a_year_is_not_judged_without_one() -> None:
    assert numbers.weekday_mismatch("on Thu 4 Dec", frozenset()) is None
    # wrong only when wrong in every candidate year: 4 Dec is a Thursday in 2025
    assert numbers.weekday_mismatch("on Thu 4 Dec", frozenset({2025, 2026})) is None


def test_a_zone_with_summer_time_takes_the_season_of_the_texts_dates() -> None:
    def utc(text: str) -> set[float]:
        (time,) = [q for q in numbers.extract_quantities(text, True) if q.kind == "time"]
        return set(time.utc)

    assert utc("at 6:02 pm ET") == {23 * 60 + 2, 22 * 60 + 2}  # no date: both
    assert utc("at 6:02 pm ET on 3 December") == {23 * 60 + 2}  # EST
    assert utc("at 6:02 pm ET on 4 July") == {22 * 60 + 2}  # EDT
    assert utc("at 6:02 pm ET, 3 December to 4 July") == {23 * 60 + 2, 22 * 60 + 2}


def test_all_four_and_both_are_counts() -> None:
    assert 4 in numbers.counts_in("$15.00 per number, $60.00 for all four")
    assert 2 in numbers.counts_in("£12 each, so £24 for both")


def test_two_step_workings_are_of_the_claims_own_figures_only() -> None:
    claim = extract_quantities("Bake at 300°F for 2 hours.")
    elsewhere = extract_quantities("Grill at 350 to 450 degrees for 3 minutes a side.")
    (temperature,) = [q for q in claim if q.values == frozenset({300.0})]
    # (450 - 350) × 3 is 300, from the answer's other figures: no working of this claim
    assert derived_from(temperature, elsewhere, own=[], also=elsewhere) is None


def test_an_hour_after_a_month_is_no_day_and_for_takes_a_short_date() -> None:
    window = extract_quantities("in the Thursday window, 3 Dec 22:00–23:30 UTC")
    assert [(q.kind, sorted(q.dates)) for q in window if q.kind == "date"] == [
        ("date", ["--12-03"])
    ]
    (short,) = extract_quantities("isn't available on your plan for 12/08.")
    assert short.kind == "date" and "--12-08" in short.dates


INVOICE = (
    "Output:\n"
    "Lines 1: Type: time. Hours: 2.4. Rate: 325.00. Amount minor: 78000. Amount: 780.00.\n"
    "Lines 2: Type: time. Hours: 0.8. Rate: 140.00. Amount minor: 11200. Amount: 112.00.\n"
    "Lines 3: Type: disbursement. Amount minor: 28100. Amount: 281.00.\n"
    "Positions 1: Symbol: VXUS. Unrealized gain: -223.20.\n"
    "Positions 2: Symbol: ARKK. Unrealized gain: -536.40.\n"
    "Positions 3: Symbol: VOO. Unrealized gain: 931.20.\n"
    "Positions 4: Symbol: BND. Unrealized gain: -63.50.\n"
)


def money_in(text: str) -> Any:
    (q,) = [q for q in extract_quantities(text, True) if q.kind == "money"]
    return q


def test_a_total_over_a_tools_list_is_the_answers_arithmetic() -> None:
    # hand42-16 / hand45-16 (held out): totals of a field over every element, or over the
    # negative ones ("losses")
    assert listed_total(money_in("That brings the total to $1,173.00"), [INVOICE]) is not None
    assert listed_total(money_in("that's $823.10 in unrealized losses"), [INVOICE]) is not None
    assert listed_total(money_in("That brings the total to $1,183.00"), [INVOICE]) is None
    assert listed_total(money_in("a loss of $759.60"), [INVOICE]) is None  # two of three


def test_a_rate_times_a_count_the_sources_state() -> None:
    policy = "Sworn translations are priced at EUR 0.12 per source word, minimum EUR 35.00."
    uploads = "Uploads 1: Word count: 1240. Language: fr.\nUploads 2: Word count: 860."
    assert rate_times_count(money_in("jugement.pdf: €148.80"), [policy, uploads]) is not None
    assert rate_times_count(money_in("Total: €252.00"), [policy, uploads]) is not None  # 2,100
    assert rate_times_count(money_in("jugement.pdf: €149.80"), [policy, uploads]) is None
    # two amounts are never multiplied: the minimum is no rate
    assert rate_times_count(money_in("€42.00"), ["a fee of EUR 35.00 and EUR 1.20"]) is None
    # hostile: a long list of rates and counts stays bounded and unmatched
    many = " ".join(f"EUR {i}.13 per word, count {i * 7}." for i in range(2000))
    assert rate_times_count(money_in("€0.01"), [many]) is None


def test_a_currency_code_before_an_amount_makes_it_money() -> None:
    found = [(q.kind, q.currency) for q in extract_quantities("CHF 39.00/day, EUR 0.12 per word")]
    assert found == [("money", "CHF"), ("money", "EUR")]
    # a dollar other than the US one is money of no known currency ("$45" may be said of it)
    (cad,) = extract_quantities("CAD 45.00", True)
    assert cad.kind == "money" and cad.currency is None
    assert [q.kind for q in extract_quantities("a USB 3 port", True)] == ["number"]


def test_a_zone_offset_is_no_figure_and_in_a_place_names_its_zone() -> None:
    assert extract_quantities("here it is in Singapore time (UTC+8), as you asked", True) == ()
    (kickoff,) = [
        q
        for q in extract_quantities("on 14 June, 2:45 pm in New York (EDT)", True)
        if q.kind == "time"
    ]
    assert sorted(kickoff.utc) == [18 * 60 + 45]
    (park,) = [q for q in extract_quantities("at 5 pm in Central Park", True) if q.kind == "time"]
    assert park.utc == frozenset()  # "in Central" is no zone


def test_a_vulgar_fraction_glued_to_a_number_is_part_of_it() -> None:
    # hand44-11 (held out): "11½ hours" had been read as 11
    (hours,) = [q for q in extract_quantities("only 11½ hours before the start", True)]
    assert hours.values == frozenset({11.5}) and hours.text == "11½" and hours.unit == "hours"
    (days,) = extract_quantities("2¼ days", True)
    assert days.values == frozenset({2.25})


def test_a_multiple_said_in_words() -> None:
    from hallmon.verification.numbers import said_multiple

    # hand35-16: "resample at half the normal interval, after 250 hours instead of 500"
    text = "resample at half the normal interval, after {} hours instead of 500"
    known = [*extract_quantities("Normal interval h: 500.", False)]
    (ok,) = [q for q in extract_quantities(text.format(250), True) if 250 in q.values]
    assert said_multiple(ok, text.format(250), known) is not None
    (wrong,) = [q for q in extract_quantities(text.format(200), True) if 200 in q.values]
    assert said_multiple(wrong, text.format(200), known) is None
    # no factor in the words, no multiple
    plain = "resample after 250 hours"
    (bare,) = extract_quantities(plain, True)
    assert said_multiple(bare, plain, known) is None


def test_uk_time_in_november_is_gmt() -> None:
    # hand69-20: 07:12 UTC on 3 November is 07:12 in the UK (GMT), not 08:12
    (november,) = [
        q
        for q in extract_quantities("On Tuesday 3 November it began at 07:12 UK time")
        if q.kind == "time"
    ]
    assert 7 * 60 + 12 in november.utc and 6 * 60 + 12 not in november.utc
    (july,) = [
        q for q in extract_quantities("On 14 July it ended at 14:52 UK time") if q.kind == "time"
    ]
    assert 13 * 60 + 52 in july.utc and 14 * 60 + 52 not in july.utc


def test_a_zone_after_the_day_is_the_times() -> None:
    # hand70-03: "00:14 on Friday 10 July UK time" is 23:14 UTC
    times = [
        q
        for q in extract_quantities("23:14 UTC on 9 July, which is 00:14 on Friday 10 July UK time")
        if q.kind == "time"
    ]
    assert times[1].utc == frozenset({23 * 60 + 14})


def test_a_window_glued_to_its_number_in_a_field_is_a_length() -> None:
    (q, *_) = extract_quantities("Output: Account id: ZL-1. Sessions last 90d: 31.", False)
    assert q.text == "90d" and q.unit == "days" and q.duration_days == 90


def test_ranges_share_their_second_figures_reading() -> None:
    # hand76-05 / -13 / hand72-22: "between 9 and 11am", "Friday 19 and Wednesday 24 June",
    # "7 to 10 working days"
    hours = [q for q in extract_quantities("between 9 and 11am") if q.kind == "time"]
    assert len(hours) == 2 and 9 * 60 in hours[0].values
    days = [
        q for q in extract_quantities("between Friday 19 and Wednesday 24 June") if q.kind == "date"
    ]
    assert [sorted(q.dates) for q in days] == [["--06-19"], ["--06-24"]]
    first, second = extract_quantities("fitted 7 to 10 working days after templating")
    assert first.duration_days == 7 and second.duration_days == 10


def test_an_hour_and_minutes_in_words_is_one_length() -> None:
    # hand111-22 (held out): "about an hour and twenty minutes after your 01:40 landing"
    (length, _) = extract_quantities("about an hour and twenty minutes after 01:40", False)
    assert length.values == frozenset({80.0}) and length.unit == "minutes"
    (five,) = extract_quantities("an hour and 5 minutes", False)
    assert five.values == frozenset({65.0})
    (alone,) = extract_quantities("twenty minutes", False)
    assert alone.values == frozenset({20.0})


def test_a_journey_in_and_back_counts_two() -> None:
    # hand112-22 (held out): "for your journey in and back home that's £20.80" at £10.40 each
    assert 2 in counts_in("for your journey in and back home that's £20.80")
    assert 2 in counts_in("the fare there and back")


def test_british_clock_times_and_a_range_whose_half_of_day_is_said_in_words() -> None:
    (t,) = extract_quantities("Your lesson starts at 9.30am.")
    assert t.kind == "time" and t.values == frozenset({570.0})
    assert extract_quantities("It costs £9.50 a month.")[0].kind == "money"
    # hand116-11 (held out): "9 to 11 in the morning" said of a 09:00-11:00 window
    start, end = extract_quantities("The engineer comes from 9 to 11 in the morning.")
    assert start.kind == end.kind == "time" and 540.0 in start.values
    assert end.values == frozenset({660.0})
    _, late = extract_quantities("Collection is 2 to 4 in the afternoon.")
    assert late.values == frozenset({960.0})
    assert all(q.kind == "number" for q in extract_quantities("for ages 9 to 11 years"))


def test_a_day_beside_a_zoned_time_is_backed_by_the_same_reading_only() -> None:
    # hand168-16 (held out): 2026-12-09T23:59:59-08:00 is the 10th in UTC, never "December 10
    # (11:59 pm Pacific)"
    from hallmon.verification.numbers import find_match

    due = extract_quantities("seller_response_due: 2026-12-09T23:59:59-08:00", False)

    def backed(said: str) -> bool:
        (day,) = [q for q in extract_quantities(said) if q.kind == "date"]
        return find_match(day, due) is not None

    assert not backed("Respond by the end of Thursday, December 10 (11:59 p.m. Pacific).")
    assert backed("Respond by the end of Wednesday, December 9 (11:59 p.m. Pacific).")
    assert backed("Respond by 07:59 UTC on December 10.")


def test_a_zone_is_read_in_the_season_of_the_answers_day_when_nothing_else_dates_it() -> None:
    # hand175-04 (held out): 23:35Z is 5:35 p.m. Central in December, never 6:35
    from datetime import date

    from hallmon.verification.numbers import claim_quantities

    said = "You leave O'Hare at 6:35 p.m. Central tonight."
    (winter,) = [q for q in claim_quantities(said, "", date(2026, 12, 6)) if q.kind == "time"]
    assert winter.utc == frozenset({35.0})  # 00:35 UTC: CST only
    (summer,) = [q for q in claim_quantities(said, "", date(2026, 7, 6)) if q.kind == "time"]
    assert summer.utc == frozenset({1415.0})  # 23:35 UTC: CDT only
