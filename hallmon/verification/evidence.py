"""Evidence: the sources an answer had, cut into passages, and the passages that fit a claim.

Sources. One `Source` per context item: the user's input (and the question), each retrieved
document, each tool result, each memory item. Text inside them is data: nothing here reads it
as an instruction, it is only split, indexed and quoted.

Rendered sources (data2text). A document whose whole text is a JSON object or array (RAGTruth
data2text sends a business record as one JSON string) is rendered into short sentences
("Name: Goodland Kitchen.", "Hours: Monday 7:00-14:00, Tuesday 7:00-14:00.") because an NLI
model and BM25 both read sentences far better than JSON. The rendering becomes the `Source`
text, so every passage and every `Evidence.span` is an exact slice of the text of the source it
names, and `content_hash` is the hash of that text; `Source.derived_from` (and
`Evidence.derived_from`) holds the hash of the JSON the producer sent, so a consumer can tell a
rendering from the producer's bytes. Tool results are always rendered (their output arrives as
a value, not as text): tool name, call id, status, arguments, then the output.

Passages. Sentence-aware windows (default at most 3 sentences and 150 words, about 200
word-pieces, overlapping by one sentence); a sentence longer than the window is cut into word
chunks. Every non-whitespace character of a source lies in at least one passage: long sources
are windowed, never truncated.

Retrieval. `Retriever` scores every passage of an answer for a query; `BM25Retriever` (Lucene
BM25) is the default, and a dense retriever can take its place later. `EvidenceIndex.top_k` adds a
bonus for passages that hold the claim's numbers and names, so that the passage with "14 days"
is considered for a claim about "15 days" even when other words dominate BM25.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from hallmon.schemas import AssembledResponse, Evidence, Source, Span, content_hash
from hallmon.schemas.events import ToolResultItem
from hallmon.verification.sentences import Engine, split_sentences
from hallmon.verification.text import STOPWORDS, content_tokens, tokens

__all__ = [
    "BM25Retriever",
    "EvidenceIndex",
    "Passage",
    "PassageConfig",
    "Retriever",
    "approx_tokens",
    "collect_sources",
    "lexical_support",
    "parse_json_record",
    "render_record",
    "split_passages",
    "tool_result_text",
]

USER_INPUT_ID = "user_input"
QUESTION_ID = "question"


# --- context size ----------------------------------------------------------------------------


def approx_tokens(text: str, count: Callable[[str], int] | None = None) -> int:
    """Approximate model tokens of `text`: `count(text)` when given, else words x 1.3."""
    if count is not None:
        return count(text)
    return math.ceil(len(text.split()) * 1.3)


# --- sources ---------------------------------------------------------------------------------


def collect_sources(response: AssembledResponse) -> list[Source]:
    """Every item of the answer's context as a `Source`, in a stable order.

    Order: user input, question, documents, tool results, memory. Source ids: "user_input",
    "question", the document's own `source_id`, f"tool:{tool}:{call_id}", f"memory:{memory_id}".
    Empty texts are left out (they can back nothing).
    """
    ctx = response.context
    sources: list[Source] = []
    if ctx.user_input and ctx.user_input.strip():
        sources.append(Source(source_id=USER_INPUT_ID, kind="user_input", text=ctx.user_input))
    question = response.question
    if question and question.strip() and question.strip() != (ctx.user_input or "").strip():
        sources.append(Source(source_id=QUESTION_ID, kind="user_input", text=question))
    for doc in ctx.documents:
        if not doc.text.strip():
            continue
        record = parse_json_record(doc.text)
        if record is not None:
            rendered = render_record(record)
            if rendered.strip():
                sources.append(
                    Source(
                        source_id=doc.source_id,
                        kind="document",
                        text=rendered,
                        trust=doc.trust,
                        locator=doc.locator,
                        derived_from=content_hash(doc.text),
                    )
                )
                continue
        sources.append(
            Source(
                source_id=doc.source_id,
                kind="document",
                text=doc.text,
                trust=doc.trust,
                locator=doc.locator,
            )
        )
    for tool in ctx.tool_results:
        sources.append(
            Source(
                source_id=f"tool:{tool.tool}:{tool.call_id}",
                kind="tool_result",
                text=tool_result_text(tool),
                tool=tool.tool,
                tool_status=tool.status,
            )
        )
    for mem in ctx.memory:
        if mem.text.strip():
            sources.append(
                Source(
                    source_id=f"memory:{mem.memory_id}",
                    kind="memory",
                    text=mem.text,
                    trust=mem.trust,
                )
            )
    return sources


def tool_result_text(item: ToolResultItem) -> str:
    """A tool result as text: a header naming the tool, call and status, then the output.

    Action claims are matched against this text, so the tool name and status come first.
    """
    lines = [f"Tool {item.tool} (call {item.call_id}) returned status {item.status}."]
    if item.arguments:
        lines.append("Arguments: " + _inline(item.arguments) + ".")
    output: Any = item.output
    if isinstance(output, str):
        parsed = parse_json_record(output)
        output = parsed if parsed is not None else output
    if isinstance(output, dict | list):
        lines.append("Output:")
        lines.append(render_record(output))
    elif output is not None and str(output).strip():
        lines.append("Output: " + str(output))
    return "\n".join(lines)


def parse_json_record(text: str) -> dict[str, Any] | list[Any] | None:
    """The JSON object/array when the whole of `text` is one, else None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return None
    try:
        value = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None
    if isinstance(value, dict) and value:
        return value
    if isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        return value
    return None


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
_SHORT_TIME = re.compile(r"\b(\d{1,2}):(\d)\b")
_PY_STR = re.compile(r"^u?'(.*)'$", re.DOTALL)
_INLINE_MAX = 12
# Amounts in minor units ("amount_cents": 8900 is 89.00), as payment APIs report them.
# (and by the minor unit's own name: "price_rappen" in Swiss francs, "fee_ore" in kronor)
MINOR_UNIT_KEY = re.compile(
    # ("face_value_pence_each", "price_cents_per_seat": a per-unit amount in minor units)
    r"(?:^|_)(?:cents|minor|minor_units|in_cents|pence|rappen|centimes|ore|oere|groszy|"
    r"halers|kopecks|paise|sen)(?:_(?:each|per_\w+|total|gross|net))?$",
    re.I,
)
# Currencies without a minor unit, and those with a thousandth: ¥14,170 is `amount_minor: 14170`
_ZERO_DECIMAL = frozenset(
    {"JPY", "KRW", "VND", "ISK", "CLP", "UGX", "XAF", "XOF", "PYG", "RWF", "KMF", "GNF", "VUV",
     "XPF", "DJF", "BIF"}
)  # fmt: skip
_THREE_DECIMAL = frozenset({"BHD", "KWD", "OMR", "JOD", "TND", "LYD", "IQD"})


def minor_digits(currency: str | None) -> int:
    """The decimal places of `currency`'s minor unit (2 unless it has none or a thousandth)."""
    code = (currency or "").upper()
    return 0 if code in _ZERO_DECIMAL else 3 if code in _THREE_DECIMAL else 2


def render_record(value: Any) -> str:
    """A JSON value as short sentences, one line per leaf or per small group.

    Keys are made readable ("business_stars" -> "business stars", "RestaurantsTakeOut" ->
    "Restaurants Take Out"), booleans read "yes"/"no", nulls are left out, a flat object or a
    list of scalars becomes one sentence, a list of objects one line per item ("review info 2:
    review stars: 5.0. review text: ..."). Values are kept verbatim apart from zero-padding
    minutes ("7:0" -> "7:00") and unwrapping Python-style string reprs ("u'free'" -> "free").
    """
    return "\n".join(_render(value, []))


def _label(key: str) -> str:
    parts = _CAMEL.split(str(key).replace("_", " "))
    # Keep short camel words ("WiFi") whole: split they would not match the answer's word.
    if any(len(p.strip()) < 3 for p in parts):
        return str(key).replace("_", " ")
    return " ".join(p.strip() for p in parts)


def _scalar(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    text = str(value).strip()
    m = _PY_STR.match(text)
    if m:
        text = m.group(1)
    return _SHORT_TIME.sub(r"\1:\g<2>0", text) if ":" in text else text


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _sentence(text: str) -> str:
    # Capitalised and closed, so that the sentence splitter sees ". Next" as a boundary.
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _inline(obj: dict[str, Any]) -> str:
    return ", ".join(f"{_label(k)}: {_scalar(v)}" for k, v in obj.items() if v is not None)


# Rates APIs give as fractions ("apr": 0.069 is 6.9 %); keys saying "percent" already are.
RATE_KEY = re.compile(
    r"(?:^|_)(?:apr|apy|rate|ratio|share|discount|interest|tax|vat|commission|fraction|"
    r"utili[sz]ation|occupancy|probability)(?:$|_)",
    re.I,
)


def _with_major_units(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Each minor-unit amount followed by its major-unit reading ("amount 89.00 EUR"), and each
    rate given as a fraction by its percentage ("apr 0.069" -> "apr percent 6.9%"), so the
    number check and the model see the figure an answer states."""
    currency = next(
        (v for k, v in items if str(k).lower() == "currency" and isinstance(v, str)), ""
    )
    out: list[tuple[Any, Any]] = []
    for k, v in items:
        out.append((k, v))
        if _is_amount(v) and MINOR_UNIT_KEY.search(str(k)):
            base = MINOR_UNIT_KEY.sub("", str(k)) or "amount"
            digits = minor_digits(currency)
            out.append((base, f"{v / 10**digits:.{digits}f} {currency[:8]}".strip()))
        elif (
            isinstance(v, list)
            and v
            and all(_is_amount(x) for x in v)
            and MINOR_UNIT_KEY.search(str(k))
        ):
            # "price_pence": [5500, 5500]: each seat's amount in major units too
            base = MINOR_UNIT_KEY.sub("", str(k)) or "amounts"
            digits = minor_digits(currency)
            out.append((base, [f"{x / 10**digits:.{digits}f}" for x in v[: _INLINE_MAX * 4]]))
        elif isinstance(v, float) and 0 < v < 1 and RATE_KEY.search(str(k)):
            out.append((f"{k} percent", f"{round(v * 100, 6):g}%"))
    return out


def _render(value: Any, path: list[str]) -> list[str]:
    label = " ".join(_label(p) for p in path)
    if isinstance(value, dict):
        # An empty list is a fact ("refunds: none"), not a missing value: a tool that found
        # nothing backs "there are no refunds" and contradicts "I can see your refund".
        items = [
            (k, "none" if v == [] else v) for k, v in value.items() if v is not None and v != ""
        ]
        items = _with_major_units(items)
        major: list[str] = []
        if (
            path
            and MINOR_UNIT_KEY.search(path[-1])
            and items
            and all(_is_amount(v) for _, v in items)
        ):
            # {"rates_minor": {"day": 38500, "week": 115500}}: each amount in major units
            # too ("Rates: day 385.00, week 1155.00"), as for a minor-unit field
            base = MINOR_UNIT_KEY.sub("", path[-1]) or "amounts"
            major = _render({k: f"{v / 100:.2f}" for k, v in items}, [*path[:-1], base])
        if path and items and len(items) <= _INLINE_MAX and all(_is_scalar(v) for _, v in items):
            return [
                _sentence(f"{label}: " + ", ".join(f"{_label(k)} {_scalar(v)}" for k, v in items)),
                *major,
            ]
        lines: list[str] = []
        for k, v in items:
            lines.extend(_render(v, [*path, str(k)]))
        return lines + major
    if isinstance(value, list):
        items_l = [v for v in value if v is not None]
        if not items_l:
            return []
        if all(_is_scalar(v) for v in items_l):
            joined = ", ".join(_scalar(v) for v in items_l)
            return [_sentence(f"{label}: {joined}" if label else joined)]
        lines = []
        for i, item in enumerate(items_l, start=1):
            head = _sentence(f"{label} {i}:" if label else f"{i}:")[:-1]
            if isinstance(item, dict):
                parts = [_sentence(line) for line in _render_flat(item)]
                lines.append(head + " " + " ".join(parts))
            else:
                lines.extend(_render(item, [*path, str(i)]))
        return lines
    text = _scalar(value)
    if not text:
        return []
    return [_sentence(f"{label}: {text}" if label else text)]


def _is_amount(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _render_flat(obj: dict[str, Any]) -> list[str]:
    """Lines of an object inside a list item (keys relative to the item)."""
    return _render(obj, [])


# --- passages --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassageConfig:
    """How sources are cut into passages.

    `max_words` x ~1.3 is the passage's share of the model window (the claim needs the rest);
    rendered records hold many short sentences, so they get more sentences per window.
    `sentence_engine="regex"` is the fast splitter: windows overlap, so an imperfect boundary
    costs little here, while pysbd costs about 6 ms per 1,000 characters.
    """

    max_sentences: int = 3
    max_words: int = 150
    overlap_sentences: int = 1
    record_max_sentences: int = 8
    sentence_engine: Engine = "regex"

    def __post_init__(self) -> None:
        if self.max_sentences < 1 or self.record_max_sentences < 1:
            raise ValueError("PassageConfig: max_sentences must be at least 1")
        if self.max_words < 8:
            raise ValueError(f"PassageConfig: max_words={self.max_words} must be at least 8")
        if not 0 <= self.overlap_sentences < self.max_sentences:
            raise ValueError(
                f"PassageConfig: overlap_sentences={self.overlap_sentences} must be between 0 "
                f"and max_sentences - 1 ({self.max_sentences - 1})"
            )


@dataclass(frozen=True, slots=True)
class Passage:
    """A window of one source: `text == source.text[start:end]`."""

    source_index: int
    source_id: str
    start: int
    end: int
    text: str

    def to_evidence(self, source: Source, retrieval_score: float | None = None) -> Evidence:
        return Evidence(
            source_id=source.source_id,
            kind=source.kind,
            content_hash=source.content_hash,
            text=self.text,
            span=Span(start=self.start, end=self.end),
            trust=source.trust,
            retrieval_score=retrieval_score,
            derived_from=source.derived_from,
        )


_WORD = re.compile(r"\S+")


def _units(text: str, engine: Engine, max_words: int) -> list[tuple[int, int, int]]:
    """(start, end, words) of sentence units that together cover every non-space character."""
    spans = split_sentences(text, engine=engine)
    if not spans:
        return []
    # Widen each sentence back to the previous one's end, so characters the splitter left out
    # (list markers, table separators) belong to a unit too; then trim the whitespace again.
    widened: list[tuple[int, int]] = []
    prev_end = 0
    for i, (_, end) in enumerate(spans):
        stop = len(text) if i == len(spans) - 1 else end
        start = prev_end
        while start < stop and text[start].isspace():
            start += 1
        e = stop
        while e > start and text[e - 1].isspace():
            e -= 1
        if e > start:
            widened.append((start, e))
        prev_end = stop
    units: list[tuple[int, int, int]] = []
    for start, end in widened:
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
        if len(words) <= max_words:
            units.append((start, end, len(words)))
            continue
        # A sentence longer than a window (a table flattened to one line, a run-on list):
        # cut it into word chunks rather than lose its tail.
        for i in range(0, len(words), max_words):
            chunk = words[i : i + max_words]
            units.append((chunk[0][0], chunk[-1][1], len(chunk)))
    return units


def split_passages(
    source: Source, source_index: int = 0, config: PassageConfig | None = None
) -> list[Passage]:
    """Overlapping sentence windows over `source.text`; see `PassageConfig`."""
    cfg = config or PassageConfig()
    text = source.text
    units = _units(text, cfg.sentence_engine, cfg.max_words)
    max_sent = cfg.record_max_sentences if source.derived_from else cfg.max_sentences
    overlap = min(cfg.overlap_sentences, max_sent - 1)
    passages: list[Passage] = []
    i = 0
    while i < len(units):
        j = i
        words = 0
        while (
            j < len(units) and j - i < max_sent and (j == i or words + units[j][2] <= cfg.max_words)
        ):
            words += units[j][2]
            j += 1
        start, end = units[i][0], units[j - 1][1]
        passages.append(Passage(source_index, source.source_id, start, end, text[start:end]))
        if j >= len(units):
            break
        i = max(i + 1, j - overlap)
    return passages


# --- lexical support -------------------------------------------------------------------------


def lexical_support(claim_text: str, passage_text: str) -> float:
    """Fraction of the claim's content words (normalised, stemmed) present in the passage.

    0.0 for a claim without content words: nothing in it could be found. This is the seed's
    word-overlap baseline signal; tokenisation is cached, so repeated passages cost a lookup.
    """
    claim = content_tokens(claim_text)
    if not claim:
        return 0.0
    return len(claim & content_tokens(passage_text)) / len(claim)


# --- retrieval -------------------------------------------------------------------------------


class Retriever(Protocol):
    """Scores all passages of one answer against a query (higher is better)."""

    def scores(self, query_tokens: Sequence[str], query_text: str) -> npt.NDArray[np.float32]: ...


RetrieverFactory = Callable[[Sequence[Sequence[str]], Sequence[str]], Retriever]
"""Builds a retriever from the passages' tokens and texts."""


class BM25Retriever:
    """Lucene BM25 (k1=1.5, b=0.75) over the normalised tokens of each passage.

    Written out rather than taken from a library: an answer's index is a few hundred short
    passages, built and queried once, where a general index's setup and imports (~11 MB in
    each verifier process) cost more than the arithmetic."""

    K1 = 1.5
    B = 0.75

    def __init__(
        self, passage_tokens: Sequence[Sequence[str]], passage_texts: Sequence[str]
    ) -> None:
        self._n = len(passage_tokens)
        counts: dict[str, dict[int, int]] = {}
        for doc, doc_tokens in enumerate(passage_tokens):
            for token in doc_tokens:
                per_doc = counts.setdefault(token, {})
                per_doc[doc] = per_doc.get(doc, 0) + 1
        lengths = np.array([len(t) for t in passage_tokens], dtype=np.float64)
        average = float(lengths.mean()) if self._n else 0.0
        # Per passage, the length normalisation of the term-frequency saturation.
        norm = self.K1 * (1.0 - self.B + self.B * lengths / average) if average else lengths
        # token -> (passages that hold it, its score in each): a query token adds its row.
        # Scores are float32 with the idf rounded to float32 first, the arithmetic of the
        # bm25s index this replaced, so no ranking (ties included) moved.
        self._postings: dict[str, tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]] = {}
        for token, per_doc in counts.items():
            docs = np.fromiter(per_doc.keys(), dtype=np.intp, count=len(per_doc))
            tf = np.fromiter(per_doc.values(), dtype=np.float64, count=len(per_doc))
            df = len(per_doc)
            idf = float(np.float32(math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))))
            self._postings[token] = (docs, (idf * tf / (tf + norm[docs])).astype(np.float32))

    def scores(self, query_tokens: Sequence[str], query_text: str) -> npt.NDArray[np.float32]:
        total = np.zeros(self._n, dtype=np.float32)
        for token in query_tokens:  # a repeated query token counts each time, as in Lucene
            posting = self._postings.get(token)
            if posting is not None:
                total[posting[0]] += posting[1]
        return total


_NAME = re.compile(r"\b[A-Z][\w'’-]*[\w]|\b[A-Z]{2,}\b")
_ANCHOR_BONUS = 0.6


def claim_anchors(claim_text: str) -> frozenset[str]:
    """Tokens a supporting passage must almost surely share: numbers and capitalised names.

    The first word of the claim is skipped as a name unless it is capitalised mid-sentence too
    (sentence-initial capitals say nothing).
    """
    anchors = {t for t in tokens(claim_text) if t[0].isdigit()}
    for m in _NAME.finditer(claim_text):
        if m.start() == 0:
            continue
        for t in tokens(m.group(0)):
            if t not in STOPWORDS:
                anchors.add(t)
    return frozenset(anchors)


class EvidenceIndex:
    """All passages of one answer's sources, indexed once, queried per claim.

    Built on the hot path for every answer: sentence splitting is cached per source text and
    BM25 indexing of a few hundred short passages takes about a millisecond.
    """

    def __init__(
        self,
        sources: Sequence[Source],
        *,
        config: PassageConfig | None = None,
        retriever: RetrieverFactory = BM25Retriever,
    ) -> None:
        self.sources = list(sources)
        self.config = config or PassageConfig()
        self.passages: list[Passage] = []
        for i, source in enumerate(self.sources):
            self.passages.extend(split_passages(source, i, self.config))
        self._tokens = [tokens(p.text) for p in self.passages]
        self._sets = [frozenset(t) for t in self._tokens]
        self._retriever = retriever(self._tokens, [p.text for p in self.passages])

    @classmethod
    def from_response(
        cls, response: AssembledResponse, *, config: PassageConfig | None = None
    ) -> EvidenceIndex:
        return cls(collect_sources(response), config=config)

    def __len__(self) -> int:
        return len(self.passages)

    def scores(self, claim_text: str) -> npt.NDArray[np.float32]:
        """Retrieval score per passage: BM25 plus a bonus for the claim's numbers and names."""
        query = tokens(claim_text)
        if not self.passages:
            return np.zeros(0, dtype=np.float32)
        base = self._retriever.scores(query, claim_text)
        anchors = claim_anchors(claim_text)
        if not anchors:
            return base
        top = float(base.max()) if base.size and base.max() > 0 else 1.0
        bonus = np.array([len(anchors & s) / len(anchors) for s in self._sets], dtype=np.float32)
        return base + bonus * np.float32(_ANCHOR_BONUS * top)

    def top_k(self, claim_text: str, k: int = 4) -> list[Evidence]:
        """The k best passages for the claim, best first, as `Evidence` with retrieval scores.

        Ties break by source order, then position in the source, so results are deterministic.
        Passages that score zero fill up the k only when fewer than k score above zero: the
        NLI model judges paraphrases that share no word with the claim.
        """
        if k <= 0 or not self.passages:
            return []
        scores = self.scores(claim_text)
        # lexsort: last key is primary -> by -score, then source index, then start offset.
        order = np.lexsort(
            (
                np.array([p.start for p in self.passages]),
                np.array([p.source_index for p in self.passages]),
                -scores.astype(np.float64),
            )
        )
        chosen = [int(i) for i in order[:k]]
        return [
            self.passages[i].to_evidence(
                self.sources[self.passages[i].source_index], round(float(scores[i]), 4)
            )
            for i in chosen
        ]

    def lexical_support(self, claim_text: str) -> float:
        """Best word-overlap support of the claim over all passages (the baseline feature)."""
        claim = content_tokens(claim_text)
        if not claim or not self._sets:
            return 0.0
        return max(len(claim & s) for s in self._sets) / len(claim)

    def source_texts(self) -> Iterable[str]:
        return (s.text for s in self.sources)
