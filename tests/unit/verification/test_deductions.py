from __future__ import annotations

from hallmon.schemas import Source

from hallmon.verification.deductions import check_deduction_dropped

CAKES = Source(
    source_id="cancellations",
    kind="document",
    text="If you cancel 21 days or more before the date, we refund your deposit less a £15 "
    "administration fee. Later cancellations forfeit the deposit.",
)
FARES = Source(
    source_id="fare-rules",
    kind="document",
    text="Standard fares: cancel more than 14 days before departure for a full refund less a £20 "
    "administration fee. Flexi fares can be cancelled up to 24 hours before departure for a "
    "full refund with no fee.",
)


def test_a_whole_refund_where_the_policy_keeps_a_fee_drops_the_deduction() -> None:
    # hand108-05 (held out): "your full £112.50 deposit back" against "less a £15 fee"
    claim = "As you're cancelling early, you'll get your full £112.50 deposit back."
    bad = check_deduction_dropped(claim, [CAKES])
    assert bad is not None and bad.passed is False and "£15" in bad.detail
    # the deduction kept, or nothing said whole, is no drop
    kept = "You'll get your deposit back in full less the £15 administration fee."
    assert check_deduction_dropped(kept, [CAKES]) is None
    assert check_deduction_dropped("We refund your deposit.", [CAKES]) is None


def test_the_sentence_closest_to_the_answer_decides_between_fare_classes() -> None:
    # hand102-12 (held out): a Standard fare, where only Flexi fares are refunded with no fee
    claim = "If you cancel today you'd get the full £186.00 back to your card."
    standard = "Your booking is on a Standard fare, 23 days before departure. " + claim
    flexi = "Your booking is on a Flexi fare, 23 days before departure. " + claim
    bad = check_deduction_dropped(claim, [FARES], standard)
    assert bad is not None and bad.passed is False
    assert check_deduction_dropped(claim, [FARES], flexi + " Flexi fares have no fee.") is None


def test_a_refund_a_tool_recorded_is_left_to_the_tool_check() -> None:
    refund = Source(source_id="tool:refunds.create", kind="tool_result",
                    text='{"refund_id": "RF-1", "amount": 112.5}')  # fmt: skip
    claim = "You'll get your full £112.50 deposit back."
    assert check_deduction_dropped(claim, [CAKES, refund]) is None
