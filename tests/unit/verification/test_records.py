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
