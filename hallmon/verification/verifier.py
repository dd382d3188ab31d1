"""Verification of one answer: claims → evidence → checks → NLI → verdicts → risk → state.

Transport-free: the stream workers, `hallmon check`, `hallmon eval` and the HTTP endpoint all
call this. Two forms:

- `Verifier.verify(response)`: the whole thing, one answer.
- `Verifier.prepare(response)` → `PreparedAnswer` (claims, sources, evidence, checks and the NLI
  `pairs` it needs), then `Verifier.finish(prepared, probs)` with the model's probabilities for
  exactly those pairs. The stream batches the pairs of many answers into one model call.

State (see DESIGN.md, "Results"), decided here and nowhere else:
- `not_applicable`: the answer makes no claim worth grounding (empty, greetings, politeness).
- `unavailable` / `context_unavailable`: there are claims but the answer came with no context.
  The deterministic checks still run (an "I have refunded you" with no tool result is still
  `not_found`); every other claim is `unclear` with confidence 0, so it adds no risk but is
  never counted as supported.
- `unavailable` / `evaluation_failed`: a stage or the model raised, or returned the wrong shape.
  The error is in `error`; no claim verdicts are reported (nothing was judged), risk 0, action
  allow: the state, not the action, says the answer was not checked.
- `unavailable` / `stream_incomplete`: the stream never ended (`response.complete` is False),
  or it ended with chunks missing (`missing_seqs`): a note names the holes and each adds the
  risk of one unchecked claim, so an answer with a hole is never a clean `checked`.
  The partial text is still verified (it is cheap and the claims in it are real), and the
  risk and action reflect those claims; the state says the answer is not whole.
- `checked`: otherwise. An answer not in English is `checked` with a note; its claims are
  `unclear` at best and its action is at least `warn`, so it is never reported as clean.

Size: at most `max_claims` claims are judged (high-severity first, then in answer order); the
rest are `unclear` with confidence 0 and a note says how many, so time stays bounded.
"""

from __future__ import annotations

import math
import re
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hallmon.onnx_models.runtime import NLIModel, OnnxNLIModel
from hallmon.schemas import (
    AssembledResponse,
    CheckResult,
    Claim,
    ClaimCounts,
    ClaimVerdict,
    Evidence,
    MonitorResult,
    NLIScores,
    ResponseEvent,
    Source,
)
from hallmon.schemas.results import State, UnavailableReason
from hallmon.topology.settings import ModelSettings, VerifierSettings, get_settings
from hallmon.verification import pair_budget
from hallmon.verification.calibration import CalibrationConfig, load_calibration
from hallmon.verification.checks import run_checks
from hallmon.verification.citations import citation_checks, citation_precision
from hallmon.verification.claims import CLAIMS_VERSION, ClaimExtraction, extract_claims
from hallmon.verification.evidence import (
    EvidenceIndex,
    PassageConfig,
    approx_tokens,
    collect_sources,
)
from hallmon.verification.measures import check_named_measures
from hallmon.verification.negation import check_names, check_negation
from hallmon.verification.numbers import in_passage_terms
from hallmon.verification.records import record_facts, record_hours
from hallmon.verification.risk import RiskConfig, action_of, answer_risk, flagged_spans
from hallmon.verification.sentences import sentence_around, sentence_before
from hallmon.verification.tiers import check_tier_figures
from hallmon.verification.tools import (
    check_list_field_words,
    check_list_person,
    check_started_after_failure,
    ground_in_tools,
    tool_calls,
    with_antecedent,
)
from hallmon.verification.verdicts import FEATURES, ContextProfile, claim_features, judge

Pair = tuple[str, str]
Probs = npt.NDArray[np.float32]
FeatureMatrix = npt.NDArray[np.float64]


def load_model(settings: ModelSettings | None = None) -> OnnxNLIModel:
    """The NLI model named by the settings (or the shipped one). Raises `ModelNotFound` with
    what to do when there is none."""
    settings = settings or get_settings().model
    return OnnxNLIModel.from_dir(
        settings.path,
        labels=list(settings.labels) if settings.labels else None,
        max_length=settings.max_length,
        intra_op_threads=settings.threads,
        batch_size=settings.rows_per_call,
    )


@dataclass
class PreparedAnswer:
    """Everything about one answer up to the model call.

    `pairs` are (premise = evidence passage, hypothesis = claim) for the NLI model; `pair_of[i]`
    says which claim and which of its evidence passages pair i belongs to. When `result` is set
    the answer needs no model call: `finish` returns it as is.
    """

    response: AssembledResponse
    extraction: ClaimExtraction | None = None
    sources: list[Source] = field(default_factory=list)
    judged: list[int] = field(default_factory=list)
    evidence: list[list[Evidence]] = field(default_factory=list)
    lexical: list[float] = field(default_factory=list)
    checks: list[list[CheckResult]] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    pair_of: list[tuple[int, int]] = field(default_factory=list)
    profile: ContextProfile | None = None
    context_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    stage_ms: dict[str, float] = field(default_factory=dict)
    result: MonitorResult | None = None

    @property
    def claims(self) -> list[Claim]:
        return self.extraction.claims if self.extraction else []


@contextmanager
def _timed(stage_ms: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        stage_ms[name] = round(stage_ms.get(name, 0.0) + (time.perf_counter() - start) * 1e3, 3)


CLAIM_TOKEN_BUDGET = 40
"""Word pieces of the model window kept for the claim and the special tokens."""


def passage_config(max_length: int | None) -> PassageConfig:
    """Passages that fit the model window beside a claim, so the model never reads a cut one.

    About 1.4 word pieces per English word; a 128-token model gets ~62-word passages, a
    256-token model ~150 (the evidence stage's default).
    """
    if max_length is None:
        return PassageConfig()
    words = max(16, int((max_length - CLAIM_TOKEN_BUDGET) / 1.4))
    return PassageConfig(max_words=min(words, PassageConfig().max_words))


def _ranges(seqs: list[int]) -> list[str]:
    """[1, 4, 5, 6] -> ["1", "4-6"]: one entry per hole."""
    out: list[str] = []
    ordered = sorted(set(seqs))
    start = prev = ordered[0] if ordered else 0
    for seq in ordered[1:]:
        if seq != prev + 1:
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = seq
        prev = seq
    if ordered:
        out.append(str(start) if start == prev else f"{start}-{prev}")
    return out


def _error_text(exc: BaseException, stage: str) -> str:
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" at {Path(where.filename).name}:{where.lineno}" if where else ""
    return f"{stage} failed: {type(exc).__name__}: {exc}{at}"


# A leading "Yes." or "As I mentioned," carries nothing to check and confuses the model.
_LEAD_IN = re.compile(
    r"^(?:yes|no)[.!,]\s+|^(?:as (?:i|we) (?:mentioned|said)|like i said)(?: earlier| before)?,\s*",
    re.IGNORECASE,
)
# Starts only where a whitespace run starts: linear on long runs of spaces.
_CITATION_MARK = re.compile(r"(?<!\s)\s*(?:\[\^?[\w\-.:#/ ,]{1,40}\]|【[^】]{1,80}】)")


def hypothesis_text(claim: Claim) -> str:
    """The claim as the model should read it: a whole statement (with its implicit subject,
    without a leading "Yes."), markdown emphasis, code ticks and citation markers removed
    ("[doc-9]" reads as a contradiction to the model; the citation check judges the marker
    itself)."""
    text = _CITATION_MARK.sub("", claim.statement)
    text = _LEAD_IN.sub("", text)
    return text.replace("**", "").replace("__", "").replace("`", "").strip()


class Verifier:
    """Verifies answers against their context with an NLI model, checks and calibration."""

    def __init__(
        self,
        model: NLIModel | None,
        calibration: CalibrationConfig | None = None,
        *,
        calibration_sha: str | None = None,
        settings: VerifierSettings | None = None,
    ) -> None:
        self.settings = settings or VerifierSettings()
        if calibration is None:
            calibration, calibration_sha = load_calibration(self.settings.calibration_path)
        self.model = model
        self.calibration = calibration
        self.calibration_sha = calibration_sha or "in-memory"
        self.top_k = self.settings.top_k or calibration.top_k
        self.passages = passage_config(model.max_length if model is not None else None)
        self.pair_budget = pair_budget.PairBudget.from_settings(self.settings)

    @property
    def risk_config(self) -> RiskConfig:
        return self.calibration.risk

    def model_versions(self) -> dict[str, str]:
        versions = {"claims": CLAIMS_VERSION, "calibration": self.calibration_sha}
        moved = self.risk_config.moved()
        seed = f"warn {RiskConfig().warn}, block {RiskConfig().block}"
        versions["risk"] = f"calibrated: {moved} (seed {seed})" if moved else f"seed: {seed}"
        versions["nli"] = self.model.version if self.model is not None else "none"
        return versions

    # --- the two phases -----------------------------------------------------------------

    def prepare(self, response: AssembledResponse, *, undated: bool = False) -> PreparedAnswer:
        """Claims, evidence and checks of one answer, and the NLI pairs it needs. Never raises:
        a failure becomes an `evaluation_failed` result in `PreparedAnswer.result`.

        The answer's day ("effective immediately") is its `stream_ended_at`, else now (it is
        being checked as it is given); `undated` (an evaluation record without a time) leaves
        it unknown instead, so a labelled set scores the same on any day."""
        prepared = PreparedAnswer(response=response)
        stage = "claims"
        try:
            with _timed(prepared.stage_ms, "claims"):
                prepared.extraction = extract_claims(response.text)
            stage = "evidence"
            with _timed(prepared.stage_ms, "evidence"):
                prepared.sources = collect_sources(response)
                prepared.context_tokens = sum(approx_tokens(s.text) for s in prepared.sources)
            if not prepared.claims:
                prepared.result = self._result(prepared, [], state="not_applicable")
                return prepared
            self._select_claims(prepared)
            if not prepared.sources:
                stage = "checks"
                self._without_context(prepared)
                return prepared
            with _timed(prepared.stage_ms, "evidence"):
                index = EvidenceIndex(prepared.sources, config=self.passages)
                prepared.profile = ContextProfile.of(
                    [s.text for s in prepared.sources],
                    tools=bool(response.context.tool_results),
                )
                for i in prepared.judged:
                    claim = prepared.claims[i]
                    found = index.top_k(claim.statement, self.top_k)
                    prepared.evidence.append(found)
                    prepared.lexical.append(index.lexical_support(claim.statement))
            stage = "checks"
            with _timed(prepared.stage_ms, "checks"):
                facts = record_facts(response)
                hours = record_hours(response)
                ended = response.stream_ended_at or (None if undated else datetime.now(UTC))
                today = ended.astimezone(UTC).date() if ended is not None else None
                calls = tool_calls(response.context.tool_results, answered_on=today)
                for n, i in enumerate(prepared.judged):
                    claim = prepared.claims[i]
                    checks = run_checks(
                        claim,
                        prepared.evidence[n],
                        prepared.sources,
                        response.text,
                        facts,
                        text_action=False,
                        hours=hours,
                        today=today,
                    )
                    checks = ground_in_tools(
                        with_antecedent(claim, response.text, calls),
                        checks,
                        calls,
                        prepared.sources,
                        response.text,
                    )
                    sentence = sentence_around(response.text, claim.span.start, claim.span.end)
                    person = (
                        check_list_person(claim.text, sentence, calls)
                        or check_list_field_words(
                            claim.text,
                            sentence,
                            calls,
                            sentence_before(response.text, claim.span.start),
                        )
                        or check_started_after_failure(claim.text, sentence, calls)
                    )
                    if person is not None:
                        checks = [*checks, person]
                    measure = check_named_measures(claim.statement, calls) or check_tier_figures(
                        claim.statement, prepared.sources, calls
                    )
                    if measure is not None:
                        checks = [*checks, measure]
                    polarity = (
                        check_negation(claim.statement, prepared.sources),
                        check_names(claim.text, prepared.sources),
                    )
                    prepared.checks.append([*checks, *(c for c in polarity if c is not None)])
            for n, i in enumerate(prepared.judged):
                hypothesis = hypothesis_text(prepared.claims[i])
                for j in self.pair_budget.passages(prepared.evidence[n], prepared.checks[n]):
                    passage = prepared.evidence[n][j].text
                    prepared.pairs.append((passage, in_passage_terms(hypothesis, passage)))
                    prepared.pair_of.append((n, j))
        except Exception as exc:  # any stage failing must surface as evaluation_failed
            prepared.result = self._failed(prepared, _error_text(exc, stage))
        return prepared

    def finish(self, prepared: PreparedAnswer, probs: Probs) -> MonitorResult:
        """The result of one prepared answer, given NLI probabilities for `prepared.pairs`."""
        return self.finish_with_features(prepared, probs)[0]

    def finish_with_features(
        self, prepared: PreparedAnswer, probs: Probs
    ) -> tuple[MonitorResult, FeatureMatrix]:
        """`finish`, also returning the `FEATURES` matrix of the judged claims (calibration
        fits on it; row n belongs to claim `prepared.judged[n]`)."""
        empty = np.zeros((0, len(FEATURES)))
        if prepared.result is not None:
            return prepared.result, empty
        try:
            probs = np.asarray(probs, dtype=np.float32)
            if probs.shape != (len(prepared.pairs), 3):
                raise ValueError(
                    f"NLI probabilities have shape {probs.shape}, expected "
                    f"({len(prepared.pairs)}, 3) for this answer's pairs; the model returned "
                    "the wrong number of rows or classes"
                )
            if probs.size and not np.all(np.isfinite(probs)):
                raise ValueError("NLI probabilities contain NaN or infinity")
            with _timed(prepared.stage_ms, "verdicts"):
                result, features = self._judge(prepared, probs)
            # The result was built inside the timed block; give it the finished timings.
            result.stage_ms.update(prepared.stage_ms)
            return result, features
        except Exception as exc:
            return self._failed(prepared, _error_text(exc, "verdicts")), empty

    def verify(self, response: AssembledResponse) -> MonitorResult:
        """prepare + model + finish for one answer."""
        prepared = self.prepare(response)
        if prepared.result is not None:
            return prepared.result
        try:
            with _timed(prepared.stage_ms, "nli"):
                (probs,) = pair_budget.drive(self.pair_rounds([prepared]), self.predict)
        except Exception as exc:
            return self._failed(prepared, _error_text(exc, "nli"))
        return self.finish(prepared, probs)

    def pair_rounds(self, answers: Sequence[PreparedAnswer]) -> pair_budget.Rounds:
        """The model rounds of these prepared answers under the pair budget (early stop);
        drive it with `pair_budget.drive` or `drive_async`, then `finish` each answer."""
        return pair_budget.rounds(answers, self.pair_budget)

    def predict(self, pairs: list[Pair]) -> Probs:
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        if self.model is None:
            raise RuntimeError(
                "no NLI model is loaded; build the shipped model or set HALLMON_MODEL__PATH"
            )
        # A pair repeated in the call (a repeated claim, a passage in two sources) runs once.
        unique, inverse = pair_budget.unique_pairs(pairs)
        size = self.settings.batch_size
        parts = [self.model.predict(unique[i : i + size]) for i in range(0, len(unique), size)]
        probs: Probs = np.concatenate(parts, axis=0)[inverse]
        return probs

    # --- inside ---------------------------------------------------------------------------

    def _select_claims(self, prepared: PreparedAnswer) -> None:
        claims = prepared.claims
        limit = self.settings.max_claims
        if len(claims) <= limit:
            prepared.judged = list(range(len(claims)))
            return
        # Over the limit: the high-severity claims (actions, promises, figures) first.
        order = sorted(range(len(claims)), key=lambda i: (claims[i].severity != "high", i))
        prepared.judged = sorted(order[:limit])
        prepared.notes.append(
            f"{len(claims) - limit} of {len(claims)} claims were not checked (over max_claims="
            f"{limit}); they are reported unclear with confidence 0"
        )

    def _without_context(self, prepared: PreparedAnswer) -> None:
        """No context at all: run the checks that need none; nothing else can be judged."""
        verdicts: list[ClaimVerdict] = []
        with _timed(prepared.stage_ms, "checks"):
            for i in prepared.judged:
                claim = prepared.claims[i]
                checks = ground_in_tools(
                    claim,
                    run_checks(claim, [], [], prepared.response.text, text_action=False),
                    [],
                    [],
                )
                verdict = judge(
                    claim, [], checks, np.zeros(len(FEATURES)), self.calibration, english=True
                )
                # Only checks whose failure needs no context decide here: an action or system
                # state with no tool result, a citation of a source never given. A number or a
                # quote is merely unverifiable without context.
                decisive = {"action", "system_state", "citation"}
                if not any(c.passed is False and c.name in decisive for c in checks):
                    verdict = ClaimVerdict(
                        claim=claim,
                        status="unclear",
                        confidence=0.0,
                        checks=checks,
                        reason="not checked: the answer came with no context",
                    )
                verdicts.append(verdict)
        prepared.notes.append(
            "the answer came with no context (no documents, tool results, memory or user "
            "input): only the deterministic checks ran"
        )
        prepared.result = self._result(
            prepared, verdicts, state="unavailable", reason="context_unavailable"
        )

    def _judge(self, prepared: PreparedAnswer, probs: Probs) -> tuple[MonitorResult, FeatureMatrix]:
        assert prepared.extraction is not None and prepared.profile is not None
        evidence = [list(evs) for evs in prepared.evidence]
        for row, (n, j) in enumerate(prepared.pair_of):
            p = probs[row]
            evidence[n][j] = evidence[n][j].model_copy(
                update={
                    "nli": NLIScores(
                        entailment=round(float(p[0]), 4),
                        neutral=round(float(p[1]), 4),
                        contradiction=round(float(p[2]), 4),
                    )
                }
            )
        english = prepared.extraction.is_english
        total = max(1, len(prepared.claims) - 1)
        features = np.zeros((len(prepared.judged), len(FEATURES)))
        verdicts: list[ClaimVerdict] = []
        for n, i in enumerate(prepared.judged):
            claim = prepared.claims[i]
            features[n] = claim_features(
                claim,
                evidence[n],
                prepared.checks[n],
                prepared.lexical[n],
                prepared.profile,
                position=i / total,
            )
            verdicts.append(
                judge(
                    claim,
                    evidence[n],
                    prepared.checks[n],
                    features[n],
                    self.calibration,
                    english=english,
                )
            )
        return self._result(prepared, verdicts, state="checked"), features

    def _result(
        self,
        prepared: PreparedAnswer,
        judged: list[ClaimVerdict],
        *,
        state: State,
        reason: UnavailableReason | None = None,
    ) -> MonitorResult:
        extraction = prepared.extraction
        verdicts = self._with_unjudged(prepared, judged)
        rule = self.risk_config.for_answer(tools=bool(prepared.response.context.tool_results))
        risk = answer_risk(verdicts, rule)
        notes = [*(extraction.notes if extraction else []), *prepared.notes]
        language = None
        if extraction is not None and not extraction.is_english:
            language = extraction.language
            if verdicts:
                # Never clean: the model could not read the answer (rounded up, so the
                # published risk itself reaches warn).
                risk = max(risk, math.ceil(rule.warn * 1e4) / 1e4)
        # The action follows from the risk as published (4 decimals), so a consumer that
        # recomputes it from the verdict gets the same answer.
        risk = round(risk, 4)
        action = action_of(risk, verdicts, rule)
        if not prepared.response.complete:
            state, reason = "unavailable", "stream_incomplete"
            notes.append(
                "the stream did not complete"
                + (
                    f" ({prepared.response.incomplete_reason})"
                    if prepared.response.incomplete_reason
                    else ""
                )
                + ": the partial text was verified"
            )
        elif prepared.response.missing_seqs:
            # A hole is text nobody checked: the answer is not whole, and each hole weighs in
            # the risk as one unchecked (unclear, confidence 1) claim.
            holes = _ranges(prepared.response.missing_seqs)
            state, reason = "unavailable", "stream_incomplete"
            weight = rule.weights.unclear * rule.severity.medium
            risk = round(min(1.0, risk + weight * len(holes)), 4)
            action = action_of(risk, verdicts, rule)
            notes.append(
                f"chunk(s) {', '.join(holes)} of the stream never arrived: the text in "
                f"{len(holes)} hole(s) was not checked"
            )
        citations = citation_checks(verdicts, prepared.sources, prepared.response.text)
        verdict_cuts = self.calibration.verdict
        flagged = flagged_spans(
            verdicts, action, lambda v: verdict_cuts.for_type(v.claim.type).unclear
        )
        return MonitorResult(
            state=state,
            unavailable_reason=reason,
            risk=risk,
            action=action,
            warn_threshold=rule.warn,
            claims=verdicts,
            skipped=extraction.skipped if extraction else [],
            counts=ClaimCounts.of(verdicts, skipped=len(extraction.skipped) if extraction else 0),
            context_size_tokens=prepared.context_tokens,
            context_items=prepared.response.context.item_count,
            language=language,
            notes=notes,
            model_versions=self.model_versions(),
            stage_ms=dict(prepared.stage_ms),
            citations=citations,
            citation_precision=citation_precision(citations),
            flagged_spans=flagged,
        )

    def _with_unjudged(
        self, prepared: PreparedAnswer, judged: list[ClaimVerdict]
    ) -> list[ClaimVerdict]:
        if len(judged) == len(prepared.claims):
            return judged
        by_index = dict(zip(prepared.judged, judged, strict=False))
        out = []
        for i, claim in enumerate(prepared.claims):
            verdict = by_index.get(i)
            if verdict is None:
                verdict = ClaimVerdict(
                    claim=claim,
                    status="unclear",
                    confidence=0.0,
                    reason="not checked: over the max_claims limit",
                )
            out.append(verdict)
        return out

    def _failed(self, prepared: PreparedAnswer, error: str) -> MonitorResult:
        extraction = prepared.extraction
        return MonitorResult(
            state="unavailable",
            unavailable_reason="evaluation_failed",
            error=error,
            skipped=extraction.skipped if extraction else [],
            counts=ClaimCounts(skipped=len(extraction.skipped) if extraction else 0),
            context_size_tokens=prepared.context_tokens,
            context_items=prepared.response.context.item_count,
            language=None if extraction is None or extraction.is_english else extraction.language,
            notes=[
                *prepared.notes,
                f"{len(prepared.claims)} claims were extracted but none was judged",
            ],
            model_versions=self.model_versions(),
            stage_ms=dict(prepared.stage_ms),
        )


_CHECK_IDS = {
    "event_id": "check",
    "session_id": "check",
    "response_id": "check",
    "agent_id": "check",
}


def parse_response(payload: dict[str, Any]) -> AssembledResponse:
    """An answer to verify from a `response` event or an `AssembledResponse` as JSON.

    For one-off checks (`hallmon check`, the HTTP endpoint) the ids may be left out; they
    default to "check". Validation errors name the field, as pydantic reports them.
    """
    if not isinstance(payload, dict):
        raise ValueError(
            f"expected a JSON object (a `response` event or an assembled response), got "
            f"{type(payload).__name__}"
        )
    filled = {**_CHECK_IDS, **payload}
    if filled.get("type") == "response" or "event_id" in payload:
        filled.setdefault("type", "response")
        return AssembledResponse.from_response_event(ResponseEvent.model_validate(filled))
    filled.pop("event_id", None)
    filled.setdefault("origin", "check")
    return AssembledResponse.model_validate(filled)
