"""Word normalisation shared by retrieval, lexical support and the checks.

Deliberately small and fast: it runs for every passage of every answer on the hot path.
Lower-case, keep numbers as tokens (thousands separators removed, "%" as "percent", small
number words as digits), drop English stopwords, strip common English suffixes so that
"returns"/"returned"/"return" meet. CJK text has no spaces, so its characters become tokens
one by one rather than one token per run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = [
    "BARE_ANSWER",
    "CONDITION_OPENERS",
    "DISCLAIMED",
    "NUMBER_WORDS",
    "STOPWORDS",
    "condition_before",
    "content_tokens",
    "first_committed",
    "first_unconditioned",
    "stem",
    "tokens",
]

# Words that open a condition ("free if ...", "covered only if ..."), as a regex alternation.
CONDITION_OPENERS = r"if|unless|provided(?:\s+that)?|as\s+long\s+as"
# "I've made sure your no-claims discount will …": a favour said as done, up to its "will"
MADE_SURE_WILL = r"\b(?:i|we)(?:['’]ve|\s+have)\s+(?:made\s+sure|ensured)\b[^.;]{0,80}\bwill\b"


def condition_before(openers: str) -> re.Pattern[str]:
    """A condition opened by one of `openers` (a regex alternation) and still open at the end
    of a text: no clause break after it."""
    return re.compile(rf"\b(?:{openers})\b[^,;:.!?]*$", re.I)


def first_unconditioned(
    matches: Iterable[re.Match[str]], text: str, condition: re.Pattern[str], window: int = 80
) -> re.Match[str] | None:
    """The first of `matches` said as a fact, not inside a `condition` opened before it in its
    clause ("works when the lock is offline", "once it is booked")."""
    for m in matches:
        if not condition.search(text[max(0, m.start() - window) : m.start()]):
            return m
    return None


# Words right before a promise that take it back: "a target rather than a guarantee", "we
# can't guarantee", "there is no guarantee", "it isn't guaranteed".
DISCLAIMED = re.compile(
    r"\b(?:not|no|never|rather\s+than|instead\s+of|can['’]?t|cannot|won['’]t|isn['’]t|"
    r"aren['’]t|don['’]t|doesn['’]t)\s+(?:\w+\s+){0,2}$",
    re.I,
)


def first_committed(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of a promise `pattern` in `text` that is not disclaimed."""
    return first_unconditioned(pattern.finditer(text), text, DISCLAIMED, window=40)


# A bare answer a claim may start with ("No. The endpoint is reachable again"): the answer to
# the question, which negates nothing in the claim after it.
def negation_pattern(*more: str, flags: int = re.I) -> re.Pattern[str]:
    """A clause's negators: "not", "no", "never" and any "n't", plus `more` (regex
    alternatives, matched at word boundaries). Every negation test starts from this one list, so
    a contraction one of them knows ("didn't", "couldn’t") none of them misses."""
    words = "|".join(("not", "no", "never", *more))
    return re.compile(rf"\b(?:{words})\b|n['’]t\b", flags)


BARE_ANSWER = re.compile(r"^\W*(?:yes|no|nope|yep)\s*[.!,;:]\s+", re.I)

# fmt: off
STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "but", "if", "then", "else", "of", "to", "in", "on", "at",
    "by", "for", "with", "from", "as", "into", "onto", "about", "over", "under", "than", "so",
    "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done",
    "have", "has", "had", "having", "it", "its", "this", "that", "these", "those", "there",
    "here", "i", "me", "my", "we", "our", "us", "you", "your", "he", "him", "his", "she", "her",
    "they", "them", "their", "what", "which", "who", "whom", "whose", "when", "where", "why",
    "how", "can", "could", "will", "would", "shall", "should", "may", "might", "must", "also",
    "just", "very", "too", "all", "any", "some", "such", "each", "both", "more", "most",
    "other", "only", "own", "same", "not", "no", "nor", "s", "t", "ll", "re", "ve", "d", "m",
    "up", "down", "out", "off", "again", "further", "once", "while", "because", "until",
    "between", "through", "during", "before", "after", "above", "below", "yes", "it's",
})
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}
# fmt: on
# "not"/"no" are stopwords for retrieval, where negation is noise; NLI and the checks see it.

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:'[^\W\d_]+)?")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_PERCENT = re.compile(r"%|\bper\s?cent\b", re.IGNORECASE)


_SHORT_FORMS = {
    "bike": "bicycle", "bikes": "bicycle", "bicycles": "bicycle",
    "kid": "child", "kids": "child", "children": "child",
    "telephone": "phone", "telephones": "phone", "television": "tv", "televisions": "tv",
}  # fmt: skip


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix stripper (no dictionary, so it is cheap and predictable), with
    the few everyday short forms read as their word ("bike" is "bicycle")."""
    if word in _SHORT_FORMS:
        return _SHORT_FORMS[word]
    if len(word) <= 3 or not word.isascii():
        return word
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""),
                         ("s", ""), ("ly", "")):  # fmt: skip
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not word.endswith(("sses", "xes", "ches", "shes", "zes")):
                continue
            base = word[: len(word) - len(suffix)] + keep
            # "cancelled" -> "cancell" -> "cancel", "stopped" -> "stop"
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2]:
                base = base[:-1]
            return base
    return word


def _normalise_number(token: str) -> str:
    if _THOUSANDS.match(token):
        token = token.replace(",", "")
    if "." in token and token.count(".") == 1:
        token = token.rstrip("0").rstrip(".") if token.split(".")[1].strip("0") == "" else token
    return token


@lru_cache(maxsize=8192)
def _tokens_cached(text: str, keep_stopwords: bool) -> tuple[str, ...]:
    out: list[str] = []
    for raw in _TOKEN.findall(_PERCENT.sub(" percent ", text.lower().replace("’", "'"))):
        if raw[0].isdigit():
            out.append(_normalise_number(raw))
            continue
        if _CJK.search(raw):
            out.extend(ch for ch in raw if not ch.isspace())
            continue
        if "'" in raw:
            raw = raw.split("'", 1)[0]  # "we'll" -> "we", "customer's" -> "customer"
        if raw in NUMBER_WORDS:
            out.append(str(NUMBER_WORDS[raw]))
            continue
        if not keep_stopwords and raw in STOPWORDS:
            continue
        out.append(stem(raw))
    return tuple(out)


def tokens(text: str) -> list[str]:
    """Normalised retrieval tokens of `text`, stopwords removed, in order."""
    return list(_tokens_cached(text, False))


def content_tokens(text: str) -> frozenset[str]:
    """The set of normalised content words (and numbers) of `text`."""
    return frozenset(_tokens_cached(text, False))
