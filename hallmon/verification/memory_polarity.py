"""A clause of the claim that denies what an earlier turn says, or says what it denies.

Memory is what the user told the agent before: "Helena uses a wheelchair and needs a cabin with a
roll-in shower", "they sent the £5,000 deposit by bank transfer on 1 December", "the doorbell is
hardwired and they never run it on the battery". An answer that goes on "since she doesn't need
a roll-in shower", "as you haven't sent the transfer yet" or "your doorbell is running on its
battery" contradicts it, yet the small NLI model rarely says so of a long claim against a long
memory note. This check compares them clause by clause: a negated clause of the claim whose
content words a plain clause of a memory note holds, or the reverse. A request in memory
("please cancel my order") is no fact, so an honest "the order hasn't been cancelled" never
trips it, and a clause that says something has not happened yet reports a state, not a denial.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from hallmon.schemas import CheckResult, Source
from hallmon.verification.sentences import source_sentences
from hallmon.verification.text import content_tokens, negation_pattern

__all__ = ["check_memory_polarity"]

_NOT = negation_pattern("without", r"rather\s+than", r"instead\s+of", r"other\s+than")
# (not at the colon of "17:00" or the comma of "£5,000")
_CLAUSE = re.compile(
    r"[;—–]|(?<!\d):(?!\d)|,(?=\s)|\s(?:and|but|so|because|since|as|while|which|who)\s"
    r"|\s(?=(?:before|after|until|unless|if|once|when)\s)",
    re.I,
)
# clauses no fact is denied or said in: a bare answer ("No for K3", "Not at 1 pm"), a time or
# condition clause ("before you wash or cut it"), "not until 1pm" (which says "from 1pm")
_NOT_A_FACT = re.compile(
    r"^\W*(?:no|not|nope|before|after|until|unless|if|when|once|whether)\b|\buntil\b", re.I
)
_UNTIL = re.compile(r"\buntil\b", re.I)
# words too weak to make two clauses say the same thing
_WEAK = frozenset({"before", "after", "until", "from", "about", "over", "under", "more",
                   "less", "than", "pm", "am", "need", "want", "get", "have"})  # fmt: skip
# a wish or a request of the user's, not a fact about them
_REQUEST = re.compile(
    r"\b(?:please|can\s+you|could\s+you|would\s+you|i['’]?d\s+like|i\s+would\s+like|"
    r"i\s+want|wants?\s+to|asked|asks|hoping|hope|would\s+prefer|if\s+possible)\b",
    re.I,
)
# "hasn't been cancelled yet", "still isn't booked", "couldn't": an outcome reported
_REPORTED = re.compile(
    r"\b(?:yet|still|anymore|any\s+more|able|unable|could|couldn['’]t|wasn['’]t\s+able|"
    r"managed|possible|sure|confirm)\b",
    re.I,
)
_NEGATORS = frozenset(
    {"not", "no", "never", "without", "nt", "n't", "doesn", "don", "isn", "aren", "wasn",
     "weren", "haven", "hasn", "hadn", "won", "wouldn", "couldn", "shouldn", "didn", "cannot",
     "yet", "still", "any", "anymore"}
)  # fmt: skip
# the user's own doing ("as you haven't sent the transfer yet"): memory knows better
_YOU = re.compile(r"\byou\b", re.I)
MIN_SHARED = 2
"""Content words a denied clause must share with the clause it denies (a proper name alone,
"not Manchester", also counts)."""
MAX_CLAUSES = 40
"""Clauses read per memory note and per claim (hostile input is long)."""
MAX_NOTES = 8
"""Memory notes read per claim: an answer's earlier turns, not a pasted archive."""


@lru_cache(maxsize=256)
def _clauses(text: str, claim: bool) -> tuple[tuple[str, bool, frozenset[str]], ...]:
    """(clause, negated, content words without negators) of each clause of `text`; of a
    claim, not its bare answers and time or condition clauses."""
    out = []
    for sentence in source_sentences(text)[:MAX_CLAUSES]:
        for clause in _CLAUSE.split(sentence)[:MAX_CLAUSES]:
            words = frozenset(
                w for w in content_tokens(clause) - _NEGATORS if not any(ch.isdigit() for ch in w)
            )
            if words and not (_NOT_A_FACT if claim else _UNTIL).search(clause):
                out.append((clause, _NOT.search(clause) is not None, words))
    return tuple(out[:MAX_CLAUSES])


def _names(clause: str) -> frozenset[str]:
    """Capitalised words after the clause's first word ("not Manchester")."""
    return frozenset(w.lower() for w in re.findall(r"(?<=\s)[A-Z][a-z]{2,}", f" {clause}"))


def check_memory_polarity(claim_text: str, sources: Sequence[Source]) -> CheckResult | None:
    """A failed profile check when a clause of the claim and a clause of a memory note say the
    same words, one denying them; None otherwise."""
    notes = [s for s in sources if s.kind == "memory"][:MAX_NOTES]
    if not notes:
        return None
    said = [
        (c, negated, words)
        for c, negated, words in _clauses(claim_text, True)
        if not (negated and _REPORTED.search(c) and not _YOU.search(c))
    ]
    if not said:
        return None
    for note in notes:
        for m_clause, m_negated, m_words in _clauses(note.text, False):
            if _REQUEST.search(m_clause):
                continue
            for c_clause, c_negated, c_words in said:
                if c_negated == m_negated:
                    continue
                denied, held = (c_words, m_words) if c_negated else (m_words, c_words)
                names = _names(m_clause if m_negated else c_clause) & (
                    _names(c_clause if m_negated else m_clause) | held
                )
                if (len(denied - _WEAK) >= MIN_SHARED and denied <= held) or (
                    m_negated and names and len(m_words) == 1
                ):
                    return CheckResult(
                        name="profile",
                        passed=False,
                        detail=f"the claim's “{c_clause.strip()[:80]}” "
                        f"{'denies' if c_negated else 'says what'} {note.source_id}'s "
                        f"“{m_clause.strip()[:80]}”{'' if c_negated else ' denies'} "
                        "(contradicts it)",
                    )
    return None
