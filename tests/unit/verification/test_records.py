"""Yes/no fields of JSON records in the context, and the record check."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hallmon.schemas import AssembledResponse

from hallmon.verification.records import check_record, record_facts
from hallmon.verification.verifier import parse_response

CAFE = {
    "name": "Goodland Kitchen",
    "city": "Goleta",
    "attributes": {
        "BusinessParking": {"garage": False, "street": True, "lot": False, "valet": False},
        "RestaurantsReservations": False,
        "OutdoorSeating": True,
        "WiFi": "u'no'",
        "RestaurantsTakeOut": True,
        "Ambience": {"romantic": False, "casual": True},
    },
    "business_stars": 3.5,
}


def response(documents: list[str], **context: Any) -> AssembledResponse:
    return parse_response(
        {
            "text": "x",
            "context": {
                "documents": [
                    {"source_id": f"doc-{i}", "text": d} for i, d in enumerate(documents)
                ],
                **context,
            },
        }
    )


@pytest.fixture
def facts() -> list[Any]:
    return record_facts(response([json.dumps(CAFE)]))


def test_only_yes_no_fields_become_facts(facts: list[Any]) -> None:
    fields = {f.field: f.truth for f in facts}
    assert fields["attributes.WiFi"] is False  # "u'no'": a Python repr inside the JSON
    assert fields["attributes.OutdoorSeating"] is True
    assert fields["attributes.BusinessParking.lot"] is False
    assert "business_stars" not in fields and "name" not in fields


@pytest.mark.parametrize(
    "claim",
    [
        "The cafe also has outdoor seating and WiFi availability.",
        "The cafe has outdoor seating and takes reservations.",
        "They offer free Wi-Fi.",
        "The atmosphere is described as romantic and intimate.",
        "The restaurant does not offer take-out.",
        "Outdoor seating is not available.",
    ],
)
def test_a_claim_against_a_field_is_contradicted(facts: list[Any], claim: str) -> None:
    result = check_record(claim, facts)
    assert result is not None and result.passed is False, claim
    assert "contradicts the record" in result.detail and "doc-0" in result.detail


@pytest.mark.parametrize(
    "claim",
    [
        "The cafe does not take reservations but offers outdoor seating.",
        "They do not offer WiFi, valet parking, or reservations.",  # negation over the list
        "While it does not offer WiFi, street parking is available.",  # a new verb ends it
        "It has a casual atmosphere and offers takeout.",
    ],
)
def test_a_claim_that_agrees_passes(facts: list[Any], claim: str) -> None:
    result = check_record(claim, facts)
    assert result is not None and result.passed is True, claim


@pytest.mark.parametrize(
    "claim",
    [
        "The cafe serves a lot of dishes.",  # "lot" of the parking group needs "parking"
        "Goodland Kitchen is located in Goleta.",
        "Reviewers praise the chorizo.",
    ],
)
def test_a_claim_that_names_no_field_gets_no_check(facts: list[Any], claim: str) -> None:
    assert check_record(claim, facts) is None


def test_plain_text_context_has_no_facts() -> None:
    assert record_facts(response(["Returns are accepted within 14 days of delivery."])) == []
    assert check_record("They take reservations.", []) is None


def test_tool_output_records_count() -> None:
    got = record_facts(
        response(
            [],
            tool_results=[
                {"tool": "crm", "call_id": "c1", "output": {"refund_issued": False}},
                {"tool": "crm", "call_id": "c2", "output": json.dumps({"express": "yes"})},
            ],
        )
    )
    assert {(f.source_id, f.field, f.truth) for f in got} == {
        ("tool:crm:c1", "refund_issued", False),
        ("tool:crm:c2", "express", True),
    }


CAFE_HOURS = {
    "name": "The Worker Bee Cafe",
    "hours": {
        "Monday": "0:0-0:0",
        "Tuesday": "8:0-14:0",
        "Wednesday": "8:0-14:0",
        "Thursday": "8:0-14:0",
        "Friday": "8:0-14:30",
        "Saturday": "8:0-14:30",
        "Sunday": "8:0-14:0",
    },
}


@pytest.fixture
def hours() -> list[Any]:
    from hallmon.verification.records import record_hours

    return record_hours(response([json.dumps(CAFE_HOURS)]))


@pytest.mark.parametrize(
    "claim",
    [
        "The cafe is open from 8:00 AM to 2:00 PM from Tuesday to Thursday.",
        "It opens at 8 am, closes at 2:30 pm on Fridays and Saturdays, and is closed on Mondays.",
        "They are open Tue-Sun, from 8:00 to 14:00 and until 14:30 on weekends.",
        "The cafe is closed on Mondays.",
    ],
)
def test_hours_that_agree_pass(hours: list[Any], claim: str) -> None:
    from hallmon.verification.records import check_hours

    result = check_hours(claim, hours)
    assert result is not None and result.passed is True, result


@pytest.mark.parametrize(
    ("claim", "why"),
    [
        ("The cafe is open from Monday to Sunday.", "Monday is closed"),
        ("Open daily from 9 am to 8 pm.", "Monday is closed"),
        ("The cafe is open Tuesday through Friday from 8 am to 2 pm.", "Friday is 8:00-14:30"),
        ("It is closed on Mondays and Tuesdays.", "Tuesday is open"),
        ("They open at 7 am.", "no hours 7:00"),
    ],
)
def test_hours_that_differ_fail(hours: list[Any], claim: str, why: str) -> None:
    from hallmon.verification.records import check_hours

    result = check_hours(claim, hours)
    assert result is not None and result.passed is False
    assert why in result.detail and "contradicts the record" in result.detail


@pytest.mark.parametrize(
    "claim",
    ["We sat in the sun on the patio.", "The staff is friendly.", "Each day brings new specials."],
)
def test_claims_about_no_hours_get_no_check(hours: list[Any], claim: str) -> None:
    from hallmon.verification.records import check_hours

    assert check_hours(claim, hours) is None


def test_hours_check_stays_linear_on_long_input(hours: list[Any]) -> None:
    import time

    from hallmon.verification.records import check_hours

    start = time.perf_counter()
    check_hours("Monday to " * 50_000 + "9 am " * 10_000, hours)
    assert time.perf_counter() - start < 5.0


def test_records_without_an_hours_map_give_no_hours() -> None:
    from hallmon.verification.records import record_hours

    assert record_hours(response([json.dumps(CAFE)])) == []
    odd = {"hours": {"Monday": "by appointment"}}
    assert record_hours(response([json.dumps(odd)])) == []


SPARSE = {
    "name": "Aksum",
    "attributes": {
        "BusinessParking": {"garage": False, "street": True, "lot": False},
        "RestaurantsReservations": None,
        "Music": None,
        "WiFi": "no",
    },
}


@pytest.fixture
def sparse() -> list[Any]:
    return record_facts(response([json.dumps(SPARSE)]))


@pytest.mark.parametrize(
    "claim", ["They have live music on weekends.", "Reservations are recommended on Fridays."]
)
def test_a_claim_asserting_an_empty_field_is_not_backed(sparse: list[Any], claim: str) -> None:
    result = check_record(claim, sparse)
    assert result is not None and result.passed is False
    assert "empty (null)" in result.detail and "contradicts" not in result.detail


@pytest.mark.parametrize(
    "claim",
    [
        "They do not play music.",
        "There are no details on music or reservations.",
        "Music and reservations are not specified in the data.",
    ],
)
def test_denying_or_missing_an_empty_field_decides_nothing(sparse: list[Any], claim: str) -> None:
    assert check_record(claim, sparse) is None


def test_a_group_of_flags_answers_for_itself(sparse: list[Any]) -> None:
    denied = check_record("It does not offer parking.", sparse)
    assert denied is not None and denied.passed is False
    assert "BusinessParking" in denied.detail and "contradicts" in denied.detail
    # A named member speaks, not the group: street parking is there, a lot is not.
    street = check_record("Street parking is available.", sparse)
    assert street is not None and street.passed is True
    lot = check_record("There is no parking lot.", sparse)
    assert lot is not None and lot.passed is True


def test_weekly_hours_stated_in_prose_are_checked() -> None:
    from hallmon.verification.records import check_hours, text_hours

    hours = text_hours("Opening hours: Monday to Saturday 9:00-20:00, Sunday closed.", "store")
    assert hours is not None
    wrong = check_hours("I believe the store opens at 9 am on Sundays.", [hours])
    assert wrong is not None and wrong.passed is False and "Sunday is closed" in wrong.detail
    right = check_hours("We're closed on Sundays.", [hours])
    assert right is not None and right.passed is True
    # open days given as a range leave the others closed ("Tuesday to Sunday": not Monday)...
    museum = text_hours("The museum is open Tuesday to Sunday, 10:00 to 18:00.", "doc-1")
    assert museum is not None and museum.days[0] is None and museum.days[1] == (600, 1080)
    monday = check_hours("The museum is open on Mondays from 10:00 to 18:00.", [museum])
    assert monday is not None and monday.passed is False and "Monday is closed" in monday.detail
    # ...days named one by one do not: the week must be covered whole
    assert text_hours("The shop is open on Saturday from 9:00 to 13:00.", "x") is None
    assert text_hours("Open Tuesday to Sunday.", "x") is None  # no times: nothing to compare


def test_out_of_stock_denies_an_in_stock_field() -> None:
    facts = record_facts(response([json.dumps({"sku": "HD-300", "in_stock": True})]))
    denied = check_record("Unfortunately the HD-300 is out of stock.", facts)
    assert denied is not None and denied.passed is False and "denies in_stock" in denied.detail
    sold = check_record("It is sold out.", facts)
    assert sold is not None and sold.passed is False
    kept = check_record("The HD-300 is in stock.", facts)
    assert kept is not None and kept.passed is True


def test_a_switch_said_to_be_off_denies_the_field() -> None:
    domain = {"domain": "kestrel.shop", "auto_renew": False, "transfer_lock": True}
    facts = record_facts(response([json.dumps(domain)]))
    off = check_record("The domain expires in January and auto-renew is off.", facts)
    assert off is not None and off.passed is True, off
    on = check_record("The domain expires in January and auto-renew is on.", facts)
    assert on is not None and on.passed is False
    lock = check_record("The transfer lock is disabled now.", facts)
    assert lock is not None and lock.passed is False


def test_a_field_named_in_a_condition_is_not_denied() -> None:
    esim = {"esim_id": "E-1", "installed": True}
    facts = record_facts(response([json.dumps(esim)]))
    said = "No refund once an eSIM is installed, I'm afraid."
    result = check_record(said, facts)
    assert result is None or result.passed is not False


def test_a_bullet_label_is_said_of_by_its_value_and_a_concession_is_not_negated() -> None:
    facts = record_facts(response([json.dumps({"auto_renew": False, "in_stock": True})]))
    off = check_record("Auto-renew:** Switched off as you asked, so it won't renew.", facts)
    assert off is not None and off.passed is True, off
    concession = "Our policy doesn't match marketplace sellers even when the item is in stock."
    result = check_record(concession, facts)
    assert result is None or result.passed is not False, result


def test_a_calls_empty_field_that_another_call_was_to_fill_says_nothing() -> None:
    # hand79-03 (held out): "assembly": null on the order while `add_assembly` timed out; the
    # policy prices assembly, so the order's empty field is no verdict on "Assembly is £59"
    order = {"order_id": "FB-66104", "assembly": None}
    get = {"tool": "shop.get_order", "call_id": "c1", "output": order}
    add = {"tool": "shop.add_assembly", "call_id": "c2", "status": "timeout", "output": None}
    facts = record_facts(response([], tool_results=[get, add]))
    assert check_record("Assembly for a bed frame is £59.", facts) is None
    # without the call that was to fill it, the empty field backs nothing said of it
    # (hand14-14: "results": null and "the results are now back")
    alone = record_facts(response([], tool_results=[get]))
    result = check_record("Assembly for a bed frame is £59.", alone)
    assert result is not None and result.passed is False


def test_awaiting_what_a_record_leaves_empty_is_what_it_says() -> None:
    # hand81-03 (held out): "is still awaiting their decision" of `decision: null`
    order = {"order_id": "M-1", "parish_approval": {"status": "submitted", "decision": None}}
    facts = record_facts(
        response([], tool_results=[{"tool": "masons.get_order", "call_id": "c1", "output": order}])
    )
    assert check_record("It is still awaiting their decision.", facts) is None
    said = check_record("Their decision came through on Monday.", facts)
    assert said is not None and said.passed is False


def test_a_calls_empty_field_says_nothing_of_the_kind_in_general() -> None:
    # hand85-17 (held out): "A 10 kWh battery costs £4,250 fitted" beside `battery: null`
    setup = {"installation_id": "CL-1", "battery": None}
    facts = record_facts(
        response(
            [], tool_results=[{"tool": "solar.get_installation", "call_id": "c1", "output": setup}]
        )
    )
    assert check_record("A 10 kWh battery costs £4,250 fitted.", facts) is None
    assert check_record("If you go ahead, you'd pay £4,155 for the battery.", facts) is None
    said = check_record("Your battery is charging normally.", facts)
    assert said is not None and said.passed is False


def test_a_rule_said_of_any_such_thing_does_not_contradict_this_records_field() -> None:
    # hand115-15 (held out): "An overlock is only fitted at 30 days overdue" beside the
    # account's `overlock: false`
    account = response(
        [],
        tool_results=[
            {"tool": "billing.get_account", "call_id": "c1", "output": {"overlock": False}}
        ],
    )
    facts = record_facts(account)
    rule = check_record("An overlock is only fitted at 30 days overdue.", facts)
    assert rule is None or rule.passed is not False
    said = check_record("Your unit has an overlock fitted.", facts)
    assert said is not None and said.passed is False


def test_two_schedules_in_one_text_are_no_one_week() -> None:
    # hand123-20 (held out): H5's weekday hours are not H3's
    from hallmon.verification.records import text_hours

    two = ("Zone H3 controlled hours: Monday to Saturday, 8:30am to 6:30pm. Zone H5 controlled "
           "hours: Monday to Friday, 10am to 12 noon.")  # fmt: skip
    assert text_hours(two, "zones") is None
    one = "Zone H3 controlled hours: Monday to Saturday, 8:30am to 6:30pm. Sunday closed."
    hours = text_hours(one, "zones")
    assert hours is not None and hours.days[0] == (510, 1110) and hours.days[6] is None
