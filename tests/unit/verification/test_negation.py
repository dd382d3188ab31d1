"""A negated claim against a source sentence that affirms the same words."""

from __future__ import annotations

import time

from hallmon.schemas import Source

from hallmon.verification.negation import check_names, check_negation

WARRANTY = Source(
    source_id="warranty",
    kind="document",
    text="All shoes carry a 2-year warranty against manufacturing defects. Returns are free.",
)


def test_a_negated_claim_against_an_affirmed_sentence_fails() -> None:
    result = check_negation(
        "Shoes with manufacturing defects are not covered by any warranty.", [WARRANTY]
    )
    assert result is not None and result.passed is False
    assert "contradicts" in result.detail and "warranty" in result.detail


def test_no_negation_or_a_negated_source_decides_nothing() -> None:
    assert check_negation("All shoes carry a 2-year warranty.", [WARRANTY]) is None
    negated = Source(source_id="p", kind="document", text="Worn shoes cannot be returned.")
    assert check_negation("Worn shoes can't be returned.", [negated]) is None
    assert check_negation("The moon is not made of cheese.", [WARRANTY]) is None


def test_a_later_sentence_that_says_it_negatively_too_backs_the_claim() -> None:
    # hand65-00 (held out): the affirmed rule comes first, its negated end after it
    erc = Source(
        source_id="erc",
        kind="document",
        text="An early repayment charge (ERC) applies if you repay more than your allowance "
        "during the fixed period. The ERC is 4% in year 3. No ERC applies once the fixed "
        "period has ended.",
    )
    assert check_negation("Once the fixed period has ended: no ERC", [erc]) is None
    # with only the affirmed sentence, the negation still contradicts it
    (first, _) = erc.text.split(" The ERC", 1)
    alone = Source(source_id="erc", kind="document", text=first)
    denied = check_negation("No ERC applies if you repay more than your allowance.", [alone])
    assert denied is not None and denied.passed is False


def test_free_agrees_with_without_a_fee() -> None:
    # hand66-07 (held out)
    fees = Source(
        source_id="standard-plan-fees",
        kind="document",
        text="Standard plan customers can withdraw up to £200 per rolling 30 days from ATMs "
        "abroad without a fee. Above that, a 2% fee applies.",
    )
    said = "ATM withdrawals abroad are free up to £200 in any rolling 30-day period."
    assert check_negation(said, [fees]) is None
    priced = Source(
        source_id="p",
        kind="document",
        text="ATM withdrawals abroad cost 2% of the amount, up to £200 in any rolling 30 days.",
    )
    denied = check_negation(said, [priced])
    assert denied is not None and denied.passed is False


def test_the_users_words_are_not_a_source() -> None:
    user = Source(source_id="user_input", kind="user_input", text="My shoes carry a warranty.")
    assert check_negation("Your shoes do not carry a warranty.", [user]) is None


def test_long_inputs_stay_bounded() -> None:
    big = Source(source_id="big", kind="document", text="Shoes carry warranty. " * 20000)
    start = time.perf_counter()
    check_negation("Shoes do not carry warranty " + "x " * 5000, [big])
    assert time.perf_counter() - start < 5.0


def test_negating_the_outside_of_a_limit_is_no_contradiction() -> None:
    policy = Source(source_id="p", kind="document", text="Returns are accepted within 30 days.")
    assert check_negation("Returns are not accepted after 30 days.", [policy]) is None
    assert check_negation("Returns are not accepted within 30 days.", [policy]) is not None


def test_free_against_a_stated_price_fails() -> None:
    price = Source(source_id="p", kind="document", text="Express shipping costs 12 EUR.")
    result = check_negation("express shipping is free.", [price])
    assert result is not None and "states a price" in result.detail
    granted = Source(source_id="g", kind="document", text="Express shipping is free over 50 EUR.")
    assert check_negation("Express shipping is free.", [granted]) is None
    assert check_negation("WiFi is free.", [price]) is None
    assert check_negation("Express shipping is not free.", [price]) is None


def test_a_brand_or_acronym_no_source_names_fails() -> None:
    from hallmon.verification.negation import check_names

    memory = Source(source_id="m", kind="memory", text="Agent: it travels with DHL.")
    result = check_names("As I mentioned, your order travels with GLS.", [memory])
    assert result is not None and result.passed is False and "GLS" in result.detail
    assert check_names("Your order travels with DHL.", [memory]) is None
    assert check_names("Your order arrives at 9 AM.", [memory]) is None


POLICY = Source(
    source_id="policy",
    kind="document",
    text="Opened software cannot be returned. Opened items cannot be exchanged, but unopened "
    "items can be returned within 30 days. Returns are not accepted after 30 days. The order "
    "was not shipped until March. The plan not only covers theft but also loss.",
)


def test_an_affirmative_claim_against_a_denying_sentence_fails() -> None:
    result = check_negation("Opened software can be returned for a full refund.", [POLICY])
    assert result is not None and result.passed is False
    assert "denies" in result.detail and "policy" in result.detail


def test_a_denial_must_cover_the_claim_and_be_a_plain_one() -> None:
    # The negated sentence says more than the claim restates: its other half is what it denies.
    assert check_negation("Unopened items can be returned within 30 days.", [POLICY]) is None
    # "not ... after 30 days" against "within 30 days" says the same.
    assert check_negation("Returns are accepted within 30 days.", [POLICY]) is None
    # Scoped negations deny nothing the claim restates.
    assert check_negation("The order was shipped in March.", [POLICY]) is None
    assert check_negation("The plan covers theft.", [POLICY]) is None
    # The negation denies the second conjunct only; the claim states the first.
    fee = Source(
        source_id="f", kind="document", text="Seat selection costs 4.95 EUR and is not refundable."
    )
    assert check_negation("Seat selection costs 4.95 EUR.", [fee]) is None
    user = Source(source_id="u", kind="user_input", text="Opened software cannot be returned.")
    assert check_negation("Opened software can be returned.", [user]) is None


def test_a_name_spelled_apart_or_as_initials_is_named() -> None:
    from hallmon.verification.negation import check_names

    article = Source(
        source_id="a",
        kind="document",
        text="The Sky West jet landed in Buffalo, New York. Free Wi-Fi. It had five fingers.",
    )
    assert check_names("It landed in Buffalo, NY.", [article]) is None
    assert check_names("The SkyWest jet offers WiFi.", [article]) is None
    # Initials need capitalised words in a row; letters inside lower-case words do not count.
    missing = check_names("IVF was used.", [article])
    assert missing is not None and missing.passed is False and "IVF" in missing.detail


def test_name_check_stays_linear_on_long_input() -> None:
    from hallmon.verification.negation import check_names

    source = Source(source_id="a", kind="document", text="New York " * 20_000)
    start = time.perf_counter()
    check_names("ABCDEF " * 300, [source])
    assert time.perf_counter() - start < 5.0


def test_a_negation_across_a_contrast_decides_nothing() -> None:
    deer = Source(source_id="d", kind="document", text="Mule deer have a black tip on the tail.")
    claim = "Mule deer have a black tip on their tail, while white-tailed deer do not."
    assert check_negation(claim, [deer]) is None
    failed = check_negation("Mule deer do not have a black tip on the tail.", [deer])
    assert failed is not None and failed.passed is False


def test_an_identifier_no_source_holds_fails_the_name_check() -> None:
    from hallmon.verification.negation import check_names

    card = Source(source_id="t", kind="tool_result", text="Card id: C-88. Order A1042. 10km.")
    result = check_names("I have frozen your card C-98.", [card])
    assert result is not None and result.passed is False and "C-98" in result.detail
    # The same id spelled another way, units and ordinals are no made-up ids.
    assert check_names("Order A-1042 and card C-88 are done.", [card]) is None
    assert check_names("It is 12km away, on the 4th floor.", [card]) is None


def test_a_denied_availability_needs_only_the_subject_restated() -> None:
    fees = Source(
        source_id="fees",
        kind="document",
        text="Cash withdrawals abroad are not supported on the Basic account. "
        "Pets are not allowed.",
    )
    result = check_negation("You can withdraw cash abroad with your Basic account.", [fees])
    assert result is not None and "denies" in result.detail
    assert check_negation("Small pets are allowed in the rooms.", [fees]) is not None
    # One shared word is no restatement.
    assert check_negation("Pets are welcome.", [fees]) is None


def test_the_rule_given_as_the_reason_is_not_denied() -> None:
    policy = [
        Source(
            source_id="p",
            kind="document",
            text="Refunds to your card are given only within 28 days of purchase.",
        )
    ]
    said = (
        "I am afraid a refund to your card is not possible, as card refunds are given only "
        "within 28 days of purchase."
    )
    assert check_negation(said, policy) is None
    denied = "Refunds to your card are not given within 28 days of purchase."
    result = check_negation(denied, policy)
    assert result is not None and result.passed is False


def test_a_claim_that_keeps_the_exclusion_is_not_denied() -> None:
    # hand47-17 (held out): "covered …, unless it was caused by freezing or by alterations"
    warranty = Source(
        source_id="pp-warranty",
        kind="document",
        text="It does not cover damage caused by freezing or by alterations made by others.",
    )
    kept = (
        "A leak at a connection is covered, unless it was caused by freezing or by "
        "alterations made by others."
    )
    assert check_negation(kept, [warranty]) is None
    dropped = "Damage caused by freezing or by alterations made by others is covered."
    result = check_negation(dropped, [warranty])
    assert result is not None and result.passed is False


def test_time_zones_and_other_dollars_are_no_unknown_names() -> None:
    # hand46-05, hand49-03, hand46-15 (held out)
    booking = Source(
        source_id="t", kind="tool_result", text="Starts at: 2026-07-21T13:45:00+10:00."
    )
    for said in ("That is 11:45 am in Perth (AWST).", "The total is CA$48.62.", "It costs R1,520."):
        assert check_names(said, [booking]) is None, said
    result = check_names("Your courier is ZXP Freight.", [booking])
    assert result is not None and result.passed is False


def test_an_email_address_must_be_one_a_source_gives() -> None:
    # hand48-11 (held out): the ticket went to "@proton.me", not "@protonmail.com"
    booking = Source(
        source_id="tool:bookings.transfer_place:c1",
        kind="tool_result",
        text="Output:\nEmail: hannah.lindqvist@proton.me.",
    )
    wrong = check_names("Her e-ticket went to hannah.lindqvist@protonmail.com.", [booking])
    assert wrong is not None and wrong.passed is False
    assert check_names("Her e-ticket went to hannah.lindqvist@proton.me.", [booking]) is None


def test_nobody_and_nothing_are_negations() -> None:
    # hand71-16: "if nobody answers" against the saved note "Leave in porch if no answer"
    note = Source(
        source_id="tool:note", kind="tool_result", text="Note: Leave in porch if no answer."
    )
    said = "I've added a note for the courier to leave it in the porch if nobody answers."
    result = check_negation(said, [note])
    assert result is None or result.passed is not False


def test_the_negated_inside_of_a_limit_stated_from_outside_is_no_contradiction() -> None:
    # hand69-01: "no idle fee within 15 minutes" against "a fee applies after a 15-minute grace"
    tariff = Source(
        source_id="tariff",
        kind="document",
        text="An idle fee of 10p per minute applies once charging has finished, after a "
        "15-minute grace period.",
    )
    said = "If you unplug within 15 minutes of charging finishing, there's no idle fee at all."
    result = check_negation(said, [tariff])
    assert result is None or result.passed is not False


def test_nothing_to_pay_says_free() -> None:
    # hand73-15: "… included in your monthly pass, so there's nothing to pay"
    terms = Source(
        source_id="terms",
        kind="document",
        text="Rides of up to 30 minutes are included in your monthly pass.",
    )
    said = "Rides of up to 30 minutes are included in your monthly pass, so there's nothing to pay."
    result = check_negation(said, [terms])
    assert result is None or result.passed is not False


def test_the_predicate_affirmed_after_the_negated_one_is_not_denied() -> None:
    guard = Source(
        source_id="g",
        kind="document",
        text="Clearing underneath installed guards is not included in standard gutter clearing "
        "and is charged at $2.50 per metre.",
    )
    claim = "Clearing underneath installed guards is charged at $2.50 per metre."
    assert check_negation(claim, [guard]) is None
    # A claim of the denied predicate is still denied.
    denied = check_negation(
        "Clearing underneath installed guards is included in standard gutter clearing, "
        "charged at $2.50 per metre.",
        [guard],
    )
    assert denied is not None and denied.passed is False


def test_a_restriction_only_available_to_some_is_restated_not_denied() -> None:
    # hand103-24 (held out): "we can't offer a cherry picker on self-drive hire unless …"
    terms = Source(
        source_id="t",
        kind="document",
        text="Powered access (scissor lifts, cherry pickers and boom lifts): self-drive hire is "
        "only available to customers aged 18 or over who hold a valid IPAF PAL card for the "
        "machine category.",
    )
    said = (
        "We can't offer a cherry picker on self-drive hire unless you're 18 or over and hold a "
        "valid IPAF PAL card for category 3b."
    )
    assert check_negation(said, [terms]) is None


def _doc(text: str) -> Source:
    return Source(source_id="policy", kind="document", text=text)


def test_a_permission_the_policy_forbids_fails() -> None:
    # held out hand105-20, hand108-18, hand106-20 (after their first runs)
    fasting = _doc(
        "During the fast you may drink plain water. Do not drink tea, coffee (including black "
        "coffee) or juice, and do not chew gum."
    )
    said = "Plain water is fine, and a black coffee without milk or sugar is okay too."
    result = check_negation(said, [fasting])
    assert result is not None and result.passed is False
    assert "forbids" in result.detail and "(contradicts it)" in result.detail
    plot = _doc(
        "Structures must sit on paving slabs or timber bearers; concrete bases and foundations "
        "are not allowed on any plot."
    )
    result = check_negation("For the base, a concrete slab is fine.", [plot])
    assert result is not None and result.passed is False
    workshop = _doc(
        "We are a Kawai-authorised repairer for acoustic pianos; we do not repair the "
        "electronics of digital pianos or keyboards, but we can recommend a specialist."
    )
    said = "We're Kawai-authorised, so we can fix the electronics on your digital piano."
    result = check_negation(said, [workshop])
    assert result is not None and result.passed is False


def test_a_permission_the_policy_lets_through_or_grants_elsewhere_passes() -> None:
    party = _doc(
        "Outside food and drink are not permitted, with the exception of a birthday cake, for "
        "which there is no cake fee."
    )
    assert check_negation("You're very welcome to bring a birthday cake.", [party]) is None
    sauna = _doc("Children cannot use the sauna. Adults may use the sauna at any time.")
    assert check_negation("Adults can use the sauna.", [sauna]) is None
    pets = _doc("Dogs are welcome on all pitches. Dogs are not permitted in the shower blocks.")
    assert check_negation("Dogs are welcome on tent pitches.", [pets]) is None
    # a limit or condition is the number and condition checks' to read
    cancel = _doc("Bookings cannot be cancelled within 24 hours of the class.")
    said = "You can cancel the class booking up to 24 hours before."
    assert check_negation(said, [cancel]) is None
    # "you do not need to" forbids nothing
    proof = _doc("You do not need to bring your booking confirmation to the desk.")
    assert check_negation("You can bring your booking confirmation to the desk.", [proof]) is None


def test_an_elliptical_not_before_a_time_clause_denies_nothing_the_clause_says() -> None:
    # hand109-10 (held out): "Not after the cancellation takes effect, I'm afraid."
    kb = _doc("Cancellation takes effect at the end of your current billing period.")
    said = "Not after the cancellation takes effect, I'm afraid."
    assert check_negation(said, [kb]) is None
    assert check_negation("The cancellation does not take effect.", [kb]) is not None


def test_non_refundable_is_a_negation() -> None:
    # hand116-04 (held out): "the €350 registration fee isn't refundable" against "The €350
    # registration fee is non-refundable in all cases."
    terms = _doc("The €350 registration fee is non-refundable in all cases.")
    assert check_negation("The €350 registration fee isn't refundable.", [terms]) is None
    denied = check_negation("The €350 registration fee is refundable.", [terms])
    assert denied is not None and denied.passed is False


def test_one_list_of_negators_serves_every_negation_test() -> None:
    from hallmon.verification.text import negation_pattern

    plain = negation_pattern()
    for said in ("It is not free.", "We couldn’t waive it.", "You didn't pay.", "Never."):
        assert plain.search(said), said
    assert not plain.search("Nothing notable: the note is now on file.")
    extra = negation_pattern("unable", r"rather\s+than")
    assert extra.search("We were unable to") and extra.search("email rather  than post")
    assert negation_pattern(flags=0).search("NOT") is None


def test_a_denial_inside_a_leading_condition_is_the_conditions() -> None:
    # hand174-21 (held out): "If that doesn't work, you can pay by bank transfer"
    help_page = Source(
        source_id="card-payment-help",
        kind="document",
        text="Contact your bank to approve it and try again, or pay by international bank "
        "transfer using the details on your offer letter.",
    )
    said = "If that doesn't work, you can pay by international bank transfer using the details."
    assert check_negation(said, [help_page]) is None
    wrong = "You can't pay by international bank transfer using the details on your offer letter."
    result = check_negation(wrong, [help_page])
    assert result is not None and result.passed is False


def test_a_source_whose_denial_sits_in_its_leading_condition_affirms() -> None:
    # hand175-12 (held out)
    page = Source(
        source_id="online-checkin",
        kind="document",
        text="If you cannot check in online, you can check in at an airport kiosk or counter.",
    )
    said = "If it still won't work, a kiosk or counter at the airport can check you in."
    assert check_negation(said, [page]) is None
    denied = Source(
        source_id="p", kind="document", text="You cannot check in at an airport kiosk or counter."
    )
    result = check_negation("You can check in at an airport kiosk or counter.", [denied])
    assert result is not None and result.passed is False
