"""The verdict on one claim, from its deterministic checks and the NLI scores of its evidence.

Order of precedence:
1. A failed deterministic check decides (NLI models are weak exactly where these checks are
   strong: numbers, verbatim quotes, tool results), and so does a passed structural one (a
   matching successful tool call). See `forced_outcome`; P(unsupported) is then the check's
   calibrated probability.
2. Otherwise P(unsupported) comes from a calibrated combiner: where the NLI model is confident
   (`calibration.NLIGate`) from the NLI scores alone, elsewhere from all features, monotone in
   the NLI scores; per-type thresholds map it to `supported` / `unclear` / `not_found`, and to
   `contradicted` when the model's contradiction on some passage dominates.
3. An answer whose language is not English is never judged `supported`: the model is
   English-only, so a claim it would have supported is `unclear` instead.

Features (`FEATURES`) are per claim and cheap: NLI maxima over the top-k passages, word overlap,
and how much of the claim (words, numbers, names) never occurs anywhere in the context. A claim
that contradicts a yes/no field of a JSON record in the context is decided by the record check
(`records.check_record`), like the other deterministic checks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hallmon.schemas import CheckResult, Claim, ClaimStatus, ClaimVerdict, Evidence
from hallmon.verification.calibration import CalibrationConfig, decide
from hallmon.verification.text import MADE_SURE_WILL

FEATURES: tuple[str, ...] = (
    "ent_max",  # best entailment over the top-k passages
    "con_max",  # strongest contradiction over them
    "lex_max",  # best word-overlap support over all passages (the lexical baseline's signal)
    "novel_words",  # share of the claim's content words absent from the whole context
    "novel_count",  # how many of them (capped at 10): a long claim adds more unbacked words
    "novel_names",  # capitalised words (not sentence-initial) absent from the context
    "novel_numbers",  # numbers absent from the context
    "number_failed",  # the deterministic number check failed
    "other_check_failed",  # quote / citation / action / system_state / commitment / record
    "record_context",  # the best passage is a rendered JSON record, not prose
    "prose_lex",  # lex_max where the best passage is prose (word overlap reads prose well)
    "prose_novel",  # novel_words where the best passage is prose
    "log_words",  # log(1 + words in the claim)
    "position",  # where the claim sits in the answer, 0 (first) .. 1 (last)
    "type_number",
    "type_quote",
    "type_causal",
    "tool_context",  # the answer's context holds tool results: an agent's answer
)

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_STOP = frozenset(
    str.split(
        """a an the and or but if then of to in on at by for with from as is are was were be been
    being has have had do does did will would can could should may might must it its this that
    these those there their they them he she his her him we our you your i my me not no so such
    than too very also just about into over after before while which who whom what when where
    why how all any each both more most other some only own same up down out off again further
    once here s t based passage passages provided given information according"""
    )
)


def _stem(word: str) -> str:
    """A crude stem: enough to match "accepted"/"accepts", never used for display."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def _number_key(token: str) -> str:
    return token.replace(",", "").rstrip(".").lstrip("0") or "0"


@dataclass(frozen=True)
class ContextProfile:
    """The words, names and numbers of an answer's whole context, for novelty features, and
    whether it holds tool results: in an agent's answer most claims restate tool fields and
    policies in the agent's own words, and the NLI model and word overlap read those otherwise
    than RAGTruth's prose, so such claims have a combiner of their own
    (`CalibrationConfig.agent_combiner`)."""

    stems: frozenset[str]
    numbers: frozenset[str]
    tools: bool = False

    @classmethod
    def of(cls, texts: Sequence[str], *, tools: bool = False) -> ContextProfile:
        stems: set[str] = set()
        numbers: set[str] = set()
        for text in texts:
            stems.update(_stem(t) for t in _TOKEN.findall(text))
            numbers.update(_number_key(n) for n in _NUMBER.findall(text))
        return cls(frozenset(stems), frozenset(numbers), tools)


def _novelty(text: str, profile: ContextProfile) -> tuple[float, float, float, float]:
    tokens = _TOKEN.findall(text)
    content = [t for t in tokens if t.lower() not in _STOP and not t.isdigit()]
    novel_count = float(sum(_stem(t) not in profile.stems for t in content))
    novel_words = novel_count / len(content) if content else 0.0
    names = [
        t for i, t in enumerate(tokens) if i > 0 and t[:1].isupper() and t.lower() not in _STOP
    ]
    novel_names = float(sum(_stem(t) not in profile.stems for t in names))
    numbers = [_number_key(n) for n in _NUMBER.findall(text)]
    novel_numbers = float(sum(n not in profile.numbers for n in numbers))
    return novel_words, novel_count, novel_names, novel_numbers


def claim_features(
    claim: Claim,
    evidence: Sequence[Evidence],
    checks: Sequence[CheckResult],
    lexical: float,
    profile: ContextProfile,
    position: float,
) -> npt.NDArray[np.float64]:
    """The `FEATURES` vector of one claim. `evidence` carries NLI scores; `lexical` is the
    claim's best word-overlap support over all passages of the context."""
    ent = [e.nli.entailment for e in evidence if e.nli is not None]
    con = [e.nli.contradiction for e in evidence if e.nli is not None]
    failed = {c.name for c in checks if c.passed is False}
    novel_words, novel_count, novel_names, novel_numbers = _novelty(claim.text, profile)
    record = float(bool(evidence) and evidence[0].derived_from is not None)
    values = {
        "ent_max": max(ent, default=0.0),
        "con_max": max(con, default=0.0),
        "lex_max": lexical,
        "novel_words": novel_words,
        "novel_count": min(novel_count, 10.0),
        "novel_names": min(novel_names, 5.0),
        "novel_numbers": min(novel_numbers, 5.0),
        "number_failed": float("number" in failed),
        "other_check_failed": float(bool(failed - {"number"})),
        "record_context": record,
        "prose_lex": lexical * (1.0 - record),
        "prose_novel": novel_words * (1.0 - record),
        "log_words": math.log1p(len(_TOKEN.findall(claim.text))),
        "position": position,
        "type_number": float(claim.type == "number"),
        "type_quote": float(claim.type == "quote"),
        "type_causal": float(claim.type == "causal"),
        "tool_context": float(profile.tools),
    }
    return np.array([values[name] for name in FEATURES], dtype=np.float64)


def select(features: npt.NDArray[np.float64], names: Sequence[str]) -> npt.NDArray[np.float64]:
    """Columns `names` of a `FEATURES` matrix, in that order (a combiner may use a subset)."""
    index = {name: i for i, name in enumerate(FEATURES)}
    missing = [n for n in names if n not in index]
    if missing:
        raise ValueError(
            f"calibration combiner uses features {missing} that this hallmon does not compute "
            f"(it computes {', '.join(FEATURES)}); refit with `hallmon calibrate`"
        )
    out: npt.NDArray[np.float64] = features[..., [index[n] for n in names]]
    return out


# --- deterministic checks decide first ------------------------------------------------------

# Phrases of the checks' details (checks.py) saying the context states something else.
_DIFFERENT = re.compile(
    r"differ|mismatch|contradict|instead|conflict|but the evidence says|says otherwise", re.I
)
_TOOL_FAILED = re.compile(r"returned status (?!ok\b)|says otherwise", re.I)

DECISIVE_PASSES = ("action", "tool_fact", "record")
"""Checks whose pass backs a claim outright: a structurally matching, successful tool call,
or the fields and hours of a JSON record agreeing with every one the claim names. NLI over a
policy passage must not overrule what the tool result shows, nor a small model reading
"WiFi: no" against "does not offer WiFi" overrule the record."""


@dataclass(frozen=True)
class CheckOutcome:
    status: ClaimStatus
    check: str
    reason: str


def forced_outcome(checks: Sequence[CheckResult]) -> CheckOutcome | None:
    """The verdict a deterministic check forces, or None when none decides.

    A failed check decides first; its `detail` says whether the context states something
    different (contradicted) or nothing at all (not_found). Otherwise a passed structural
    check (`DECISIVE_PASSES`) makes the claim supported.
    """
    failed = [c for c in checks if c.passed is False]
    if not failed:
        passed = [c for c in checks if c.passed is True and c.name in DECISIVE_PASSES]
        if any(c.name == "commitment" and c.passed is None for c in checks):
            # "… but we'll refund the €9.99 directly": the amount agreeing with a lookup backs
            # the figure, not the promise; only a call that did it decides the claim.
            passed = [c for c in passed if c.name == "action"]
        if passed:
            return CheckOutcome(
                "supported", passed[0].name, f"{passed[0].name}: {passed[0].detail}"
            )
        return None
    order = (
        "injection", "action", "tool_fact", "profile", "citation", "quote", "number",
        "record", "system_state", "commitment", "scope", "negation", "name",
    )  # fmt: skip
    failed.sort(key=lambda c: order.index(c.name) if c.name in order else len(order))
    check = failed[0]
    if check.name in ("action", "tool_fact"):
        different = bool(_TOOL_FAILED.search(check.detail) or _DIFFERENT.search(check.detail))
    else:
        different = bool(_DIFFERENT.search(check.detail))
    status: ClaimStatus = "contradicted" if different else "not_found"
    return CheckOutcome(status, check.name, f"{check.name} check: {check.detail}")


# --- the verdict ----------------------------------------------------------------------------

PROMISE_ENTAILMENT = 0.5
"""Below this best entailment, a promise the commitment check could not match is unbacked."""
# The agent promising the user money or a favour ("we'll refund the €9.99", "I will cover the
# repair"), not a next step or a refusal ("a place isn't guaranteed").
_PROMISED_FAVOUR = re.compile(
    r"\b(?:i|we)(?:['’]ll|\s+will|\s+are\s+going\s+to|['’]re\s+going\s+to|['’]d\s+be\s+happy\s+to)"
    r"\s+(?:\w+\s+){0,2}?(?:refund|reimburse|compensate|credit|cover|pay|waive|replace|repair|"
    r"upgrade|extend|give\s+you|send\s+you\s+a\s+(?:voucher|credit|refund|replacement)|"
    r"make\s+an\s+exception|honou?r|"
    # "I'll also arrange a pro-rata refund for the months you won't use"
    r"(?:arrange|process|issue|organi[sz]e|set\s+up)\s+(?:you\s+)?(?:a\s+|an\s+|the\s+|your\s+)?"
    r"(?:[\w-]+\s+)?(?:refund|credit|reimbursement|compensation|goodwill))\w*"
    # "I've made sure your discount will be kept in full whatever the outcome"
    rf"|{MADE_SURE_WILL}\s+(?:be\s+)?"
    r"(?:kept|protected|honou?red|refunded|waived|covered|paid|credited|preserved)\b",
    re.I,
)


def _unbacked_promise(
    claim: Claim, checks: Sequence[CheckResult], ent_max: float
) -> CheckOutcome | None:
    """A commitment ("we'll refund the €9.99 directly") that no policy sentence states (the
    commitment check found only part of it) and the model does not find entailed either: not
    found, whatever word overlap says (DESIGN: a commitment the sources do not make is
    unsupported)."""
    if claim.type != "commitment" or ent_max >= PROMISE_ENTAILMENT:
        return None
    if not _PROMISED_FAVOUR.search(claim.text):
        return None  # "I'll ship it to your usual address" is a next step, not a favour
    partial = next((c for c in checks if c.name == "commitment" and c.passed is None), None)
    if partial is None or any(c.name in ("commitment", "quote") and c.passed for c in checks):
        return None  # granted elsewhere, or the policy quoted verbatim
    return CheckOutcome(
        "not_found",
        "commitment",
        f"commitment check: no source makes this promise ({partial.detail}; best entailment "
        f"{ent_max:.2f})",
    )


def judge(
    claim: Claim,
    evidence: list[Evidence],
    checks: list[CheckResult],
    features: npt.NDArray[np.float64],
    config: CalibrationConfig,
    *,
    english: bool = True,
) -> ClaimVerdict:
    """The verdict on one claim. `features` is its `FEATURES` vector.

    `p_unsupported` comes from the deciding check's calibrated probability, else from the
    combiner (the NLI-only one where the model is confident); the status follows from it and
    the NLI label (`calibration.decide`); `confidence` is the probability of that status.
    """
    ranked = sorted(evidence, key=lambda e: e.nli.entailment if e.nli else 0.0, reverse=True)
    ent_max = float(features[FEATURES.index("ent_max")])
    con_max = float(features[FEATURES.index("con_max")])
    forced = forced_outcome(checks) or _unbacked_promise(claim, checks, ent_max)
    if forced is not None:
        p = config.check_probability((forced.status, forced.check))
        status = forced.status
        reason = forced.reason
        if status != "supported" and p < config.verdict.for_type(claim.type).flag:
            # The check's failures are unsupported less often than the flag threshold: the
            # label follows the probability, and the model's support cannot overrule it.
            status = "unclear"
    else:
        agent = bool(features[FEATURES.index("tool_context")])
        combiner = config.combiner_for(ent_max, con_max, agent=agent)
        p = float(combiner.probability(select(features[None, :], combiner.features))[0])
        status, _ = decide(p, ent_max, con_max, bool(ranked), config.verdict.for_type(claim.type))
        gated = " (NLI-decided)" if combiner is config.nli_combiner else ""
        if not ranked:
            reason = "no passage of the context matches"
        elif status == "contradicted":
            reason = f"the context contradicts it (contradiction {con_max:.2f}){gated}"
        elif status == "not_found":
            reason = (
                f"no passage supports it (best entailment {ent_max:.2f}, P(unsupported) {p:.2f})"
            )
        elif status == "unclear":
            reason = (
                f"weak support (best entailment {ent_max:.2f}, contradiction {con_max:.2f}, "
                f"P(unsupported) {p:.2f})"
            )
        else:
            reason = f"supported by {ranked[0].source_id} (entailment {ent_max:.2f}){gated}"
    if not english and status == "supported":
        status = "unclear"
        reason = "not judged: the NLI model is English-only and the answer is not in English"
    p = round(min(1.0, max(0.0, p)), 4)
    return ClaimVerdict(
        claim=claim,
        status=status,
        confidence=round(1.0 - p, 4) if status == "supported" else p,
        p_unsupported=p,
        evidence=ranked,
        checks=checks,
        reason=reason,
    )
