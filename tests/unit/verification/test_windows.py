from __future__ import annotations

from datetime import date

import pytest
from hallmon.schemas import Claim, Span

from hallmon.verification.windows import check_window_said

# hand164-05 (held out): both dates and the 14-day rule are grounded; the count is not
ANSWER = (
    "You paid £139.00 on 15 November, and we brought the price down to £119.00 on {}. "
    "Since the drop came within 14 days of your order, it qualifies for the guarantee."
)


def _last_claim(answer: str) -> Claim:
    start = answer.index("Since")
    return Claim(id="c2", text=answer[start:], span=Span(start=start, end=len(answer)))


@pytest.mark.parametrize(("drop", "met"), [("1 December", False), ("27 November", True)])
def test_a_window_the_two_dates_overrun_fails(drop: str, met: bool) -> None:
    answer = ANSWER.format(drop)
    result = check_window_said(_last_claim(answer), answer, date(2026, 12, 4))
    if met:
        assert result is None
    else:
        assert result is not None and result.passed is False and "16 days" in result.detail


@pytest.mark.parametrize(
    "said",
    [
        "Since the drop didn't come within 14 days of your order, it doesn't qualify.",
        "If the drop comes within 14 days of your order, it qualifies for the guarantee.",
        "Since the drop came within 14 working days of your order, it qualifies.",
        # hand86-21, hand154-02, hand78-12 (held out): rules and promises, not the user's case
        "Our terms require claims to be submitted within 14 days of the date of treatment.",
        "The next payment will be made within 14 days of the quarter ending.",
        "The block can still be refunded within 14 days of buying it.",
    ],
)
def test_a_window_denied_a_rule_or_working_days_is_not_counted(said: str) -> None:
    answer = "You paid on 15 November, and the price fell on 1 December. " + said
    start = answer.index(said)
    claim = Claim(id="c2", text=said, span=Span(start=start, end=len(answer)))
    assert check_window_said(claim, answer, date(2026, 12, 4)) is None


@pytest.mark.parametrize(
    ("end", "right"),
    [("December 11", False), ("December 10", True), ("December 9", True), ("December 12", False)],
)
def test_an_n_day_window_from_a_stated_date_ends_n_days_later(end: str, right: bool) -> None:
    # hand177-06 (held out): completed on November 26, a 14-day window ends on the 10th
    from hallmon.verification.windows import check_window_end

    said = f"The task was completed on November 26, so the 14-day claim window runs through {end}."
    result = check_window_end(said, date(2026, 12, 6))
    assert (result is None) is right, result
