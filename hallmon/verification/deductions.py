"""A refund said to be whole where the policy keeps part of it.

"You'll get your full £112.50 deposit back" where the policy says "we refund your deposit less
a £15 administration fee": the claim drops the deduction, one of the commonest ways an agent
turns a policy into a better promise than it makes. Pure text; no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hallmon.schemas import CheckResult, Source
from hallmon.verification.sentences import source_sentences
from hallmon.verification.text import content_tokens

# "the full £186.00 back", "refunded in full", "your whole deposit", "every penny back"
_WHOLE_SAID = re.compile(
    r"\b(?:full|entire|whole)\b(?:\s+[\w£$€.,]+){0,3}?\s+(?:refund|back|deposit|amount|"
    r"premium|fare|fee|price|cost|payment|balance)\b|\b(?:refunded|repaid|reimbursed|back)\s+"
    r"in\s+full\b|\bevery\s+(?:penny|cent)\b|\b100\s?%\s+(?:refund|back)\b",
    re.I,
)
_REFUND = re.compile(r"\b(?:refund\w*|repa(?:id|y\w*)|reimburs\w*|money\s+back|back)\b", re.I)
# a part kept back: "less a £20 administration fee", "minus 15%", "we keep one day's charge"
_DEDUCTED = re.compile(
    r"\b(?:less|minus|deduct\w*|keep(?:s|ing)?|retain\w*|withh[eo]ld\w*)\b"
    r"(?![^.;]{0,12}\bthan\b)[^.;]{0,50}?(?:[£$€]\s?\d|\d+(?:\.\d+)?\s?%|\bfees?\b|\bcharges?\b)"
    r"|\b(?:fee|charge)\s+(?:is|will\s+be)\s+(?:deducted|taken|kept|retained|withheld)\b",
    re.I,
)
# the claim keeps the deduction ("in full less the £15.00 administration fee")
_KEPT = re.compile(r"\b(?:less|minus|deduct\w*|after\s+(?:the|a|an|our)\b[^.;]{0,30}\bfee)\b", re.I)
_WHOLE_GRANTED = re.compile(
    r"\b(?:full|100\s?%)\s+refund|\brefund(?:ed)?\s+(?:\w+\s+)?in\s+full\b|\bin\s+full\b", re.I
)
_NOT = re.compile(r"\b(?:no|not|never|cannot|without)\b|n['’]t\b", re.I)
_MIN_SHARED = 2
"""Content words a deduction's sentence shares with the claim before it is read as the claim's."""


def check_deduction_dropped(
    claim_text: str, sources: Sequence[Source], answer_text: str = ""
) -> CheckResult | None:
    """A claim that promises a whole refund where a policy sentence on refunds keeps part of it
    back, and that sentence is closer to the answer (`answer_text`, else the claim) than any
    sentence granting the whole without a deduction ("Flexi fares … full refund with no fee"
    beside "Standard fares … full refund less a £20 fee", for an answer about a Standard
    fare). None where the claim says nothing whole, keeps the deduction, or a tool result
    records the refund (what was paid back is then the tool check's to judge)."""
    said = _WHOLE_SAID.search(claim_text)
    if said is None or not _REFUND.search(claim_text) or _KEPT.search(claim_text):
        return None
    if any(s.kind == "tool_result" and _REFUND.search(s.text) for s in sources):
        return None
    claim_words = content_tokens(claim_text)
    answer_words = content_tokens(answer_text) | claim_words
    kept: tuple[int, str, str] | None = None
    granted = 0
    for source in sources:
        if source.kind in ("user_input", "tool_result"):
            continue
        for sentence in source_sentences(source.text):
            if _REFUND.search(sentence) is None:
                continue
            tokens = content_tokens(sentence)
            near = len(answer_words & tokens)
            if _DEDUCTED.search(sentence) is None:
                whole = _WHOLE_GRANTED.search(sentence)
                if whole is not None and not _NOT.search(sentence[: whole.start()]):
                    granted = max(granted, near)  # a whole refund the policy grants on terms
                continue
            if len(claim_words & tokens) >= _MIN_SHARED and (kept is None or near > kept[0]):
                kept = (near, source.source_id, sentence.strip())
    if kept is None or granted >= kept[0]:
        return None
    return CheckResult(
        name="scope",
        passed=False,
        detail=f"says “{said.group(0)}” but {kept[1]} keeps part back: “{kept[2][:160]}”",
    )
