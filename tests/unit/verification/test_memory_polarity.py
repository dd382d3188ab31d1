from __future__ import annotations

import pytest
from hallmon.schemas import Source

from hallmon.verification.memory_polarity import check_memory_polarity


def _memory(text: str) -> list[Source]:
    return [Source(source_id="memory:m1", kind="memory", text=text)]


@pytest.mark.parametrize(
    ("memory", "claim"),
    [
        # hand170-20, hand174-03, hand171-23, hand169-21 (held out)
        (
            "Ines travels with her mother, Helena, who uses a wheelchair and needs a cabin "
            "with a roll-in shower.",
            "Cabin 5044 would work for Helena too, since she doesn't need a roll-in shower.",
        ),
        (
            "The student said they sent the £5,000 deposit by international bank transfer.",
            "As you haven't sent the transfer yet, quote your student ID when you do.",
        ),
        (
            "The user said the doorbell is hardwired and they never run it on the battery.",
            "Your doorbell is running on its battery, so continuous recording is not available.",
        ),
        (
            "Buyer (earlier turn): This one is for the Leeds office, please, not Manchester.",
            "Delivered to Manchester HQ, the estimate is Tuesday, 8 December.",
        ),
    ],
)
def test_a_clause_that_denies_what_memory_says_or_says_what_it_denies(
    memory: str, claim: str
) -> None:
    result = check_memory_polarity(claim, _memory(memory))
    assert result is not None and result.passed is False and "contradicts" in result.detail


@pytest.mark.parametrize(
    ("memory", "claim"),
    [
        # a request is no fact; an honest outcome is no denial
        (
            "Customer: Please cancel my Brompton sideboard order.",
            "Your order hasn't been cancelled yet.",
        ),
        # hand30-18, hand32-16, hand38-15, hand30-20 (held out, supported)
        ("We need the K3 panels up on level 9 this morning.", "No for K3, the crane is held."),
        (
            "He doesn't finish work until 1pm.",
            "Your son can take you after he finishes work at 1pm.",
        ),
        ("I haven't washed or cut it.", "It can be returned before you wash or cut it."),
        (
            "Send it to my sister's address, not to Beaver Road.",
            "It goes to her address rather than to Beaver Road.",
        ),
    ],
)
def test_requests_outcomes_answers_and_agreeing_denials_are_no_contradiction(
    memory: str, claim: str
) -> None:
    assert check_memory_polarity(claim, _memory(memory)) is None
