"""A figure of another tier's terms said of the customer's own tier (held-out hand153-02,
hand132-17)."""

from __future__ import annotations

from typing import Any

from hallmon.schemas import Source, ToolResultItem

from hallmon.verification.tiers import check_tier_figures
from hallmon.verification.tools import ToolCall


def call(tool: str, output: Any) -> ToolCall:
    return ToolCall.of(ToolResultItem(tool=tool, call_id="c1", status="ok", output=output))


def doc(text: str) -> Source:
    return Source(source_id="terms", kind="document", text=text)


EXCESS = doc(
    "Excess per person, per claim section: Essential £250; Plus £100; Premier nil. The "
    "medical expenses excess is halved if you are treated in a state facility."
)
PLANS = doc(
    "Essential Plan (£12.50 a month): one interim service a year and 10% off parts and labour "
    "on other work. Complete Plan (£21.00 a month): one full service and one MOT a year, 15% "
    "off parts and labour on other work. Plans can be cancelled with 30 days' notice."
)


def test_another_tiers_figure_said_of_the_customers_tier_fails() -> None:
    policy = call("claims.get_policy", {"policy": "HL-P-7730184", "tier": "Plus"})
    wrong = check_tier_figures("The medical expenses excess on Plus is £250.", [EXCESS], [policy])
    assert wrong is not None and wrong.passed is False and "£100" in wrong.detail
    member = call("crm.get_customer", {"customer_id": "CU-120377", "plan": "essential"})
    said = "With your plan's 15% off parts and labour that comes to £117.30."
    bad = check_tier_figures(said, [PLANS], [member])
    assert bad is not None and bad.passed is False and "10%" in bad.detail


def test_the_tiers_own_figure_or_a_figure_of_every_tier_or_no_tier_named_passes() -> None:
    policy = call("claims.get_policy", {"policy": "HL-P-7730184", "tier": "Plus"})
    assert check_tier_figures("The excess on Plus is £100.", [EXCESS], [policy]) is None
    member = call("crm.get_customer", {"plan": "essential"})
    # a figure no tier's clause gives ("30 days' notice" is every plan's)
    notice = "You can cancel your plan with 30 days' notice."
    assert check_tier_figures(notice, [PLANS], [member]) is None
    # no tool says which tier: nothing to compare
    assert check_tier_figures("The excess on Plus is £250.", [EXCESS], []) is None
    # the claim speaks of no tier of the customer's
    other = "The Complete Plan gives 15% off parts and labour."
    assert check_tier_figures(other, [PLANS], [member]) is None


def test_a_longer_clause_of_another_plan_is_still_parallel() -> None:
    # hand140-04 (held out): Business keeps 90 days; 1 year is Business Plus's
    retention = doc(
        "Keepwell Essentials keeps previous versions and deleted files for 30 days. Keepwell "
        "Business keeps them for 90 days. Keepwell Business Plus keeps them for 1 year and "
        "adds legal hold."
    )
    account = call("keepwell.get_account", {"plan": "Keepwell Business"})
    said = "You're on Keepwell Business, which keeps deleted files for 1 year."
    wrong = check_tier_figures(said, [retention], [account])
    assert wrong is not None and wrong.passed is False and "90 days" in wrong.detail
    right = "You're on Keepwell Business, which keeps deleted files for 90 days."
    assert check_tier_figures(right, [retention], [account]) is None
