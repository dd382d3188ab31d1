"""The sample traffic of `hallmon demo`: a shoe shop's support bot, four sessions.

- `steady`: grounded answers throughout.
- `tired`: the conversation and the context grow every turn, and from turn 4 on the answers
  drift: wrong numbers, commitments the policy never makes, an action claimed without a tool
  result. Its unsupported-claim rate climbs, which the fatigue alert should catch.
- `orders`: tool results back what the bot says it did, plus a greeting with nothing to check.
- `dropped`: a stream that never ends (the agent crashed), verified as `stream_incomplete`.
- `forgetful`: grounded at first, then each answer contradicts one the bot gave earlier in the
  same conversation (14 days after 30, a 6-month warranty after 2 years): the `contradictions`
  signal, from the verdicts' `session_conflicts`.
- `drifting`: cites its sources correctly at first, then cites documents it was never given
  or a given one that says something else: the `citation_precision` signal falls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RETURNS = (
    "Unworn shoes can be returned within 30 days of delivery. Refunds go back to the original "
    "payment method within 5 business days after the return arrives at our warehouse. Return "
    "shipping costs 4.95 EUR unless the item is defective."
)
SHIPPING = (
    "Standard delivery takes 3 to 5 business days. Express delivery takes 1 business day and "
    "costs 9.90 EUR. Orders placed before 14:00 ship the same day."
)
WARRANTY = (
    "All shoes carry a 2-year warranty against manufacturing defects. A warranty claim needs a "
    "photo of the defect and the order number."
)
LOYALTY = (
    "Members earn 1 point per euro spent. 100 points can be redeemed for a 5 EUR voucher. "
    "Points expire after 12 months."
)
DOCS = {
    "returns-policy": RETURNS,
    "shipping-faq": SHIPPING,
    "warranty": WARRANTY,
    "loyalty-program": LOYALTY,
}
ORDER = {
    "order_id": "A-1042",
    "status": "shipped",
    "carrier": "DHL",
    "eta": "2026-12-02",
    "items": [{"sku": "RUN-42", "name": "Trail runner", "price_eur": 89.0}],
}


@dataclass
class Turn:
    question: str
    answer: str
    docs: list[str] = field(default_factory=list)
    tools: list[tuple[str, str, Any]] = field(default_factory=list)
    complete: bool = True


@dataclass
class Session:
    name: str
    turns: list[Turn]
    history_in_context: bool = False
    """Carry every earlier turn as memory, so the context grows with the conversation."""


STEADY = Session(
    "steady",
    [
        Turn(
            "How long do I have to return shoes?",
            "You can return unworn shoes within 30 days of delivery.",
            ["returns-policy"],
        ),
        Turn(
            "When do I get my money back?",
            "Refunds go back to your original payment method within 5 business days after the "
            "return arrives at our warehouse.",
            ["returns-policy"],
        ),
        Turn(
            "Do I pay for the return?",
            "Return shipping costs 4.95 EUR, unless the item is defective.",
            ["returns-policy"],
        ),
        Turn(
            "How fast is express delivery?",
            "Express delivery takes 1 business day and costs 9.90 EUR.",
            ["shipping-faq"],
        ),
        Turn(
            "Thanks!",
            "You're welcome, happy to help! Have a great day.",
            [],
        ),
    ],
)

TIRED = Session(
    "tired",
    [
        Turn(
            "Hi, can I still return my trail runners?",
            "Yes. Unworn shoes can be returned within 30 days of delivery.",
            ["returns-policy"],
        ),
        Turn(
            "What does the return cost?",
            "Return shipping costs 4.95 EUR unless the item is defective.",
            ["returns-policy"],
        ),
        Turn(
            "The sole came off after two weeks. Is that covered?",
            "All shoes carry a 2-year warranty against manufacturing defects. Please send a photo "
            "of the defect and your order number.",
            ["returns-policy", "warranty"],
        ),
        Turn(
            "How do points work?",
            "Members earn 1 point per euro spent, and 100 points can be redeemed for a 5 EUR "
            "voucher.",
            ["returns-policy", "warranty", "loyalty-program"],
        ),
        Turn(
            "How long does the refund take?",
            "Refunds go back to the original payment method within 5 business days. Because you "
            "are a member, we will waive the return shipping fee for you.",
            ["returns-policy", "warranty", "loyalty-program"],
        ),
        Turn(
            "Can I get a replacement instead?",
            "A replacement pair ships within 24 hours. Express delivery is free for members. "
            "The warranty covers defects for 2 years.",
            ["returns-policy", "warranty", "loyalty-program", "shipping-faq"],
        ),
        Turn(
            "I really need them by the weekend.",
            "I have already upgraded your order to express delivery at no cost. Your new pair "
            "will arrive tomorrow before 10:00. Orders placed before 14:00 ship the same day.",
            ["returns-policy", "warranty", "loyalty-program", "shipping-faq"],
        ),
        Turn(
            "And my refund?",
            "I have issued a refund of 89 EUR to your card. You will also receive 200 bonus "
            "points as an apology. Refunds usually arrive within 2 days.",
            ["returns-policy", "warranty", "loyalty-program", "shipping-faq"],
        ),
        Turn(
            "Can I return the other pair too, I bought it 7 weeks ago?",
            "We will make an exception and accept the return within 60 days. Members can return "
            "worn shoes as well. I have sent you a prepaid return label by email.",
            ["returns-policy", "warranty", "loyalty-program", "shipping-faq"],
        ),
    ],
    history_in_context=True,
)

ORDERS = Session(
    "orders",
    [
        Turn("Hello!", "Hello! How can I help you today?", []),
        Turn(
            "Where is my order A-1042?",
            "Your order A-1042 has shipped with DHL and should arrive on 2026-12-02.",
            [],
            [("orders.lookup", "call-1", ORDER)],
        ),
        Turn(
            "Please refund the trail runners, they are too small.",
            "I have created a refund of 89 EUR for the trail runners. It goes back to your "
            "original payment method within 5 business days after the return arrives.",
            ["returns-policy"],
            [
                ("orders.lookup", "call-2", ORDER),
                (
                    "refunds.create",
                    "call-3",
                    {"refund_id": "RF-77", "order_id": "A-1042", "amount_eur": 89.0},
                ),
            ],
        ),
    ],
)

DROPPED = Session(
    "dropped",
    [
        Turn(
            "Is express delivery available for my order?",
            "Express delivery takes 1 business day and costs 9.90 EUR. Let me check whether",
            ["shipping-faq"],
            complete=False,
        ),
    ],
)

ALL_DOCS = ["returns-policy", "shipping-faq", "warranty", "loyalty-program"]

FORGETFUL = Session(
    "forgetful",
    [
        Turn(
            "How long do I have to return shoes?",
            "You can return unworn shoes within 30 days of delivery.",
            ALL_DOCS,
        ),
        Turn(
            "How fast is express delivery?",
            "Express delivery takes 1 business day.",
            ALL_DOCS,
        ),
        Turn(
            "Is there a warranty?",
            "All shoes carry a 2-year warranty against manufacturing defects.",
            ALL_DOCS,
        ),
        Turn(
            "How many points do I earn?",
            "Members earn 1 point per euro spent.",
            ALL_DOCS,
        ),
        Turn(
            "Sorry, how long was the return window again?",
            "You can return unworn shoes within 14 days of delivery.",
            ALL_DOCS,
        ),
        Turn(
            "And express delivery?",
            "Express delivery takes 3 business days.",
            ALL_DOCS,
        ),
        Turn(
            "What about the warranty?",
            "All shoes carry a 6-month warranty against manufacturing defects.",
            ALL_DOCS,
        ),
        Turn(
            "And the points?",
            "Members earn 5 points per euro spent.",
            ALL_DOCS,
        ),
    ],
)

DRIFTING = Session(
    "drifting",
    [
        Turn(
            "Can I return my shoes?",
            "Unworn shoes can be returned within 30 days of delivery [returns-policy].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "How fast is express delivery?",
            "Express delivery takes 1 business day [shipping-faq].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "Do I pay for the return?",
            "Return shipping costs 4.95 EUR unless the item is defective [returns-policy].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "When will my order ship?",
            "Orders placed before 14:00 ship the same day [shipping-faq].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "When do I get my money back?",
            "Refunds go back to the original payment method within 5 business days [shipping-faq].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "How long does standard delivery take?",
            "Standard delivery takes 3 to 5 business days [delivery-handbook].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "What does express cost?",
            "Express delivery costs 9.90 EUR [pricing-2024].",
            ["returns-policy", "shipping-faq"],
        ),
        Turn(
            "Remind me of the return window?",
            "Unworn shoes can be returned within 30 days of delivery [kb-118].",
            ["returns-policy", "shipping-faq"],
        ),
    ],
)

SESSIONS = [STEADY, TIRED, ORDERS, DROPPED, FORGETFUL, DRIFTING]


def chunks(text: str, words: int = 4) -> list[str]:
    """The answer as a model would stream it: a few words at a time, spaces kept."""
    parts = text.split(" ")
    out = [" ".join(parts[i : i + words]) for i in range(0, len(parts), words)]
    return [c + (" " if i < len(out) - 1 else "") for i, c in enumerate(out)]
