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
