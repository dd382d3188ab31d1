from __future__ import annotations

from hallmon.schemas import Source

from hallmon.verification.user_days import check_user_days, days_in


def turn(text: str, n: int = 1) -> Source:
    return Source(source_id=f"memory:m{n}", kind="memory", text=text)


def test_days_are_read_from_names_ranges_and_week_parts() -> None:
    assert days_in("Mon-Fri") == days_in("weekdays") == days_in("Monday to Friday")
    assert days_in("at weekends") == {"saturday", "sunday"}
    assert days_in("Fridays and Sat") == {"friday", "saturday"}
    assert days_in("Friday to Monday") == {"friday", "saturday", "sunday", "monday"}


def test_a_day_said_to_suit_the_user_that_they_ruled_out() -> None:
    # hand112-02 (held out)
    user = turn("Customer (earlier turn): I can do any weekday except Fridays, I look after "
                "my grandson then.")  # fmt: skip
    bad = check_user_days("Since Fridays suit you, the earliest slot is 9:15 on Friday.", [user])
    assert bad is not None and bad.passed is False and "Friday" in bad.detail
    assert check_user_days("Since Tuesdays suit you, book 9:15 on Tuesday.", [user]) is None
    # a question or a condition says nothing suits them
    assert check_user_days("If Fridays suit you, there is a slot at 9:15.", [user]) is None


def test_days_outside_the_only_days_the_user_can_do() -> None:
    # hand110-15 (held out)
    user = turn("Student (earlier turn): I can only do lessons at weekends, I work late Monday "
                "to Friday.")  # fmt: skip
    claim = "Since you mentioned weekday evenings suit you best, the 5 pm on Tuesday is ideal."
    bad = check_user_days(claim, [user])
    assert bad is not None and bad.passed is False
    assert check_user_days("As weekends work for you, Saturday at 9 am is free.", [user]) is None
    only = turn("Customer (earlier turn): I can only manage Saturdays.")
    assert check_user_days("Since Sundays suit you, try Sunday at 11.", [only]) is not None


def test_the_agents_own_turns_and_documents_are_not_the_users_word() -> None:
    agent = turn("Agent (earlier turn): We are closed on Fridays.")
    doc = Source(source_id="hours", kind="document", text="No lessons on Fridays.")
    assert check_user_days("Since Fridays suit you, book Friday.", [agent, doc]) is None
