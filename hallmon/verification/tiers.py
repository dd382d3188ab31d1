"""A figure of another tier's terms said of the customer's own tier.

"Your policy is on our Plus tier. The medical expenses excess on Plus is £250" where the policy
reads "Excess per person, per claim section: Essential £250; Plus £100; Premier nil": a tool
says which plan, tier or membership the customer has, the claim speaks of that tier (names it,
or says "your plan"), and its figure is one the documents give only in a clause about another
tier, parallel to a clause of the customer's own that gives another figure of the same kind.
Pure; reads the flattened tool calls and the documents' text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from hallmon.schemas import CheckResult, Source
from hallmon.verification.numbers import Quantity, extract_quantities, find_match
from hallmon.verification.text import content_tokens
from hallmon.verification.tools import ToolCall

# a tool field that says which tier the customer is on
_TIER_KEY = re.compile(
    r"(?:^|[._])(?:plan|tier|membership|membership_tier|package|level|plan_name|tier_name|"
    r"product|cover_level|policy_tier|subscription_plan|account_type)$",
    re.I,
)
# the claim speaks of the customer's own tier
_YOURS = re.compile(
    r"\byour\s+(?:[\w-]+\s+){0,2}?(?:plan|tier|policy|membership|package|cover|subscription|"
    r"account|level)(?:['’]s)?\b|\byou(?:['’]re|\s+are)\s+on\b",
    re.I,
)
# a clause of a document: sentences, and the parts of a list ("Essential £250; Plus £100")
_CLAUSE = re.compile(r"[^.;!?\n]+(?:\.(?=\d)[^.;!?\n]+)*")
_MAX_DOC_CHARS = 20_000
_MAX_FIGURES = 16
_PARALLEL = 0.5
_MAX_CLAUSES = 400
_MAX_OWN = 40


def _tiers(calls: Sequence[ToolCall]) -> list[str]:
    """The customer's tier names the ok calls give ("Plus", "keepwell business",
    "pay as you go"), lower case, with separators as spaces."""
    out: list[str] = []
    for call in calls:
        if call.status != "ok":
            continue
        for key, value in call.fields:
            if key.startswith("output.") and _TIER_KEY.search(key) and 2 < len(value) <= 40:
                name = " ".join(re.split(r"[\s_-]+", value.lower().strip()))
                if re.search(r"[a-z]", name) and name not in out:
                    out.append(name)
    return out


def _mentions(clause: str, tier: str) -> bool:
    """Whether a clause names the tier itself, not a longer one it starts ("Keepwell
    Business" in "Keepwell Business Plus keeps them for 1 year")."""
    spelled = r"[\s_-]+".join(re.escape(w) for w in tier.split())
    for m in re.finditer(rf"(?<![\w-]){spelled}(?![\w-])", clause, re.I):
        after = clause[m.end() : m.end() + 20]
        if not re.match(r"\s+[A-Z][a-z]+\b(?<!\bPlan)", after) or re.match(
            r"\s+(?:Plan|Tier|Members?|Membership|Package|Cover|Policy|Customers?)\b", after
        ):
            return True
    return False


@lru_cache(maxsize=1024)
def _frame(clause: str) -> frozenset[str]:
    """A clause's words without its figures and names (tiers are named in capitals): what it
    says of its tier."""
    names = {w.lower() for w in re.findall(r"\b[A-Z][\w-]*", clause)}
    return frozenset(w for w in content_tokens(clause) if not w[:1].isdigit() and w not in names)


# a list item that is a name and its figure ("Essential £250")
_NAMED_FIGURE = re.compile(r"[A-Z][\w-]*\s+\S*\d\S*\s*$")


def _parallel(other: str, mine: str) -> bool:
    """Whether two clauses say the same of two tiers: most of their words in common, or both
    a list's "Name figure" items."""
    a, b = _frame(other), _frame(mine)
    if not b and _NAMED_FIGURE.search(other.strip()):
        return True
    # (the overlap of the smaller: "keeps them for 90 days" and "keeps them for 1 year and
    # adds legal hold" say the same of two plans, one adding more)
    smaller = min(len(a), len(b))
    return smaller > 0 and len(a & b) / smaller >= _PARALLEL


def check_tier_figures(
    claim_text: str, sources: Sequence[Source], calls: Sequence[ToolCall]
) -> CheckResult | None:
    """A figure the claim says of the customer's tier that the documents give only for
    another tier, where a parallel clause of the customer's tier gives another figure of the
    same kind. None when no tool names a tier, the claim speaks of none, or the figure is the
    tier's own or no other tier's."""
    tiers = _tiers(calls)
    if not tiers:
        return None
    tier = next((t for t in tiers if _mentions(claim_text, t)), None)
    if tier is None:
        if not _YOURS.search(claim_text):
            return None
        tier = tiers[0]
    figures = [
        q
        for q in extract_quantities(claim_text, True)[:_MAX_FIGURES]
        if q.kind in ("money", "percent", "number") and q.values
    ]
    if not figures:
        return None
    clauses = [
        m.group(0)
        for s in sources
        if s.kind == "document"
        for m in _CLAUSE.finditer(s.text[:_MAX_DOC_CHARS])
    ]
    clauses = clauses[:_MAX_CLAUSES]
    own = [c for c in clauses if _mentions(c, tier)][:_MAX_OWN]
    if not own:
        return None
    others = [c for c in clauses if c not in own]
    # (each clause's figures read once: every figure of the claim asks)
    held = {c: extract_quantities(c, False) for c in (*own, *others)}
    for q in figures:
        if any(find_match(q, held[c]) is not None for c in own):
            continue  # the tier's own figure
        for other in others:
            if find_match(q, held[other]) is None:
                continue
            for mine in own:
                theirs = _same_kind(q, held[mine])
                if theirs and _parallel(other, mine):
                    return CheckResult(
                        name="tool_fact",
                        passed=False,
                        detail=f"{q.describe()} is another tier's (“{other.strip()[:80]}”); "
                        f"{tier} has {theirs[0].describe()} (“{mine.strip()[:80]}”): mismatch",
                    )
    return None


def _same_kind(q: Quantity, found: Sequence[Quantity]) -> list[Quantity]:
    """The figures of `found` of the claim figure's kind and unit."""
    return [
        f
        for f in found
        if f.kind == q.kind
        and (
            q.kind != "number"
            or f.unit == q.unit
            or (q.duration_days is not None and f.duration_days is not None)
        )
    ]
