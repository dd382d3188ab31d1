from __future__ import annotations

import pytest

from hallmon.verification.zone_days import check_zone_day

# hand173-03 (held out): the time converted, the day left as it was
BEFORE = "The decision is due by 1:40 a.m. Eastern on Tuesday, December 8, which is 10:40 p.m. "


@pytest.mark.parametrize(
    ("said", "right"),
    [
        (BEFORE + "Pacific on Tuesday, December 8.", False),
        (BEFORE + "Pacific on Monday, December 7.", True),
        ("The call is at 9:00 pm ET on 3 March, which is 2:00 am GMT on 3 March.", False),
        ("The call is at 9:00 pm ET on 3 March, which is 2:00 am GMT on 4 March.", True),
        ("The call is at 9:00 am ET on 3 March, which is 2:00 pm GMT on 3 March.", True),
        # two moments, not one said twice
        ("It opens at 9:00 am ET on 3 March, or 9:00 am GMT on 4 March.", True),
    ],
)
def test_a_moment_said_in_two_zones_keeps_its_day(said: str, right: bool) -> None:
    result = check_zone_day(said)
    if right:
        assert result is None
    else:
        assert result is not None and result.passed is False and "wrong day" in result.detail


@pytest.mark.parametrize(
    ("said", "right"),
    [
        # hand169-12 (held out): in December 3:00 pm Eastern is noon Pacific
        ("the cutoff is 3:00 p.m. Eastern, which is 11:00 a.m. Pacific for you.", False),
        ("the cutoff is 3:00 p.m. Eastern, which is 12:00 p.m. Pacific for you.", True),
        ("It runs 9:00 a.m. ET (7:00 a.m. PT).", False),
        ("It runs 9:00 a.m. ET (6:00 a.m. PT).", True),
        # hand74-11, hand35-20 (held out): a range converted end for end; a pair whose first
        # time's zone is not known is left alone
        (
            "Pickup is 10:00 a.m. to 12:00 p.m. Eastern, which is 7:00 to 9:00 a.m. Pacific.",
            True,
        ),
        (
            "Pickup is 10:00 a.m. to 12:00 p.m. Eastern, which is 8:00 to 9:00 a.m. Pacific.",
            False,
        ),
        ("AOS at 8:12 pm and LOS at 8:24 pm MST (04:12 and 04:24 UTC).", True),
    ],
)
def test_a_time_converted_to_another_zone_is_the_same_moment(said: str, right: bool) -> None:
    answer = "Tomorrow, Monday 7 December, is a business day. " + said
    result = check_zone_day(said, answer)
    assert (result is None) is right, result
