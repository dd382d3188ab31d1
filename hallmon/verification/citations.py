"""Citation precision of one answer: how many of its citations point at a source that backs
the claim they are attached to.

A citation is precise when it names a source the answer was given (`checks.cited_sources`
resolves ids, positions and URLs) *and* that source supports the claim: the claim's verdict is
`supported` and the named source is the best evidence or one of its passages entails the claim
(`SUPPORT_ENTAILMENT`). A citation of a source never given (spoofing) or of a given source that
says something else is imprecise. An answer without citations has no precision (None), never 0:
citing nothing is not citing badly.

Only the cited source's passages among the claim's top-k evidence are looked at: a given source
that supports the claim but was not retrieved for it counts as not supporting (rare, since the
retriever ranks a source that states the claim high).
"""

from __future__ import annotations

from collections.abc import Sequence

from hallmon.schemas.results import CitationCheck, ClaimVerdict, Source
from hallmon.verification.checks import cited_sources

SUPPORT_ENTAILMENT = 0.5
"""Entailment probability from which a passage of the cited source supports the claim."""


def _supports(verdict: ClaimVerdict, source_id: str) -> bool:
    if verdict.status != "supported":
        return False
    if verdict.evidence and verdict.evidence[0].source_id == source_id:
        return True  # the verdict names it: "supported by <source>"
    return any(
        ev.source_id == source_id and ev.nli is not None and ev.nli.entailment >= SUPPORT_ENTAILMENT
        for ev in verdict.evidence
    )


def citation_checks(
    verdicts: Sequence[ClaimVerdict], sources: Sequence[Source], answer_text: str
) -> list[CitationCheck]:
    """Every citation the claims make, each judged precise or not."""
    out: list[CitationCheck] = []
    for verdict in verdicts:
        claim = verdict.claim
        for marker, source_id in cited_sources(
            claim.text, sources, answer_text=answer_text, claim=claim
        ):
            out.append(
                CitationCheck(
                    claim_id=claim.id,
                    marker=marker,
                    source_id=source_id,
                    supports=source_id is not None and _supports(verdict, source_id),
                )
            )
    return out


def citation_precision(citations: Sequence[CitationCheck]) -> float | None:
    """Share of precise citations; None when there is none."""
    if not citations:
        return None
    return round(sum(c.precise for c in citations) / len(citations), 4)


__all__ = ["SUPPORT_ENTAILMENT", "citation_checks", "citation_precision"]
