"""Every parser of untrusted text runs in bounded (linear) time on long adversarial strings.

Property-based: hypothesis builds long strings from repeated fragments that trip backtracking
regexes (runs of markdown marks, unclosed quotes, separators, digits, dots) and each stage must
finish within a bound far below the quadratic or exponential times these inputs used to take
(the form line `Name: ____ Date` took minutes at 40 underscores; unclosed quotes, long digit runs
and long paragraphs took tens of seconds at the answer limit).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from hallmon.schemas import AssembledResponse, DocumentItem, ResponseContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hallmon.verification.checks import citation_markers, quotations
from hallmon.verification.claims import _trim, claim_type, extract_claims
from hallmon.verification.numbers import extract_quantities
from hallmon.verification.sentences import split_sentences
from hallmon.verification.verifier import Verifier

pytestmark = pytest.mark.timeout(300)

# Fragments that make backtracking regexes or quadratic scans blow up when repeated.
FRAGMENTS = [
    "_", "__", "*", "**", "|", " ", "\t", "\n", " _", "“a ", "„a ", "«a ", "‘a ", "「a", '"a ',
    "'a b", "(", "((a ", "[", "[a", "【a", "`", "` x", "#1", "1", "1 ", "1,", "1.", "$1", "1 2 ",
    "5 days ", "1.5 million ", "a-", "a.", "e.g. ", ". . . ", "...", "…", ".", "a, and ", "; ",
    "I'm sorry ", "thanks ", "sure, ", "Here is ", "the service is ", "we will ", "I have ",
    "x@", "a@b.", "Name: ", "Date", "step 1, ", "out of ", "https://a", "- ", "1. ", "> ", "# ",
]  # fmt: skip
TAILS = ["", "!", "?", " Date", "\n", "”", "»", "\x00", "a"]
LENGTH = 20_000
STAGE_BOUND_S = 2.5  # one stage on 20k characters; the quadratic versions took 10 s and more
PREPARE_BOUND_S = 6.0  # everything before the model, answer and a context of 20k characters

SETTINGS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@st.composite
def adversarial(draw: st.DrawFn, length: int = LENGTH) -> str:
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=3))
    noise = draw(st.text(max_size=3))
    unit = "".join(parts) + noise
    tail = draw(st.sampled_from(TAILS))
    return (unit * (length // len(unit) + 1))[: length - len(tail)] + tail


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


STAGES: dict[str, Callable[[str], Any]] = {
    "sentences": split_sentences,
    "claims": extract_claims,
    "claim_type": claim_type,
    "numbers (claim)": extract_quantities,
    "numbers (evidence)": lambda s: extract_quantities(s, claim=False),
    "quotes": quotations,
    "citations": citation_markers,
}


@pytest.mark.parametrize("stage", list(STAGES))
@SETTINGS
@given(text=adversarial())
def test_each_stage_is_fast_on_long_adversarial_text(stage: str, text: str) -> None:
    fn = STAGES[stage]
    elapsed = timed(lambda: fn(text))
    assert elapsed < STAGE_BOUND_S, f"{stage} took {elapsed:.2f}s on {text[:60]!r}..."


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier(None)  # prepare needs no model


@SETTINGS
@given(answer=adversarial(), context=adversarial())
def test_whole_prepare_is_bounded(verifier: Verifier, answer: str, context: str) -> None:
    response = AssembledResponse(
        response_id="r",
        session_id="s",
        agent_id="a",
        text=answer,
        context=ResponseContext(documents=[DocumentItem(source_id="d", text=context)]),
    )
    elapsed = timed(lambda: verifier.prepare(response))
    assert elapsed < PREPARE_BOUND_S, f"prepare took {elapsed:.2f}s on {answer[:60]!r}..."


@pytest.mark.parametrize("underscores", [28, 40, 5_000])
def test_form_line_is_linear(underscores: int) -> None:
    # The exponential case from the issue: minutes at 40 underscores before the rewrite.
    line = "Name: " + "_" * underscores + " Date"
    assert timed(lambda: extract_claims(line)) < 1.0
    assert timed(lambda: _trim(line + " **__ |\t", 0, len(line) + 8)) < 0.1


def test_trailing_decoration_is_still_trimmed() -> None:
    text = "Refunds take 5 days. **__ | \n"
    assert _trim(text, 0, len(text)) == (0, len("Refunds take 5 days."))
    start, end = _trim("** __", 0, 5)
    assert end <= start  # nothing but decoration: an empty span


@pytest.mark.parametrize("tail", ["?", "", "!"])
def test_runs_of_courtesy_phrases_are_linear(tail: str) -> None:
    # "I'm sorry “a I'm sorry “a …" with no punctuation: the courtesy regex once tried every
    # split of the run into phrases (a 220-character run took 0.8 s, 20k never finished).
    unit = "I'm sorry “a "
    text = (unit * (LENGTH // len(unit) + 1))[: LENGTH - len(tail)] + tail
    assert timed(lambda: extract_claims(text)) < STAGE_BOUND_S
