"""Sentence spans over answers and sources: markdown-aware, offsets into the original text.

One splitter serves the claims stage (answer sentences) and the evidence stage (passages), so a
claim and the passages it is checked against are cut the same way.

How it works: the text is first cut into blocks by its layout (fenced code, headings, table
rows, list items, blank lines), because no sentence segmenter knows markdown and LLM answers are
full of it. Prose blocks then go to pysbd (rule-based, maintained, handles abbreviations,
initials, decimals, "e.g.", ellipses and quotations far better than a regex), with a small regex
splitter as the fast/fallback engine. List markers, heading hashes and blockquote markers are
blanked out (replaced by spaces, which keeps every offset valid) before segmentation, so a span
never starts with "- " or "## ".

Spans are `(start, end)` character offsets, end exclusive, trimmed of surrounding whitespace,
in order and non-overlapping: `text[start:end]` is the sentence, exactly.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

import pysbd

Engine = Literal["pysbd", "regex"]

__all__ = ["Engine", "sentence_around", "source_sentences", "split_sentences"]

# pysbd languages (ISO 639-1); anything else is segmented with the English rules, which still
# split at ". ", "! ", "? " and the CJK full stops.
# fmt: off
_PYSBD_LANGUAGES = frozenset({
    "en", "hi", "mr", "zh", "es", "am", "ar", "hy", "bg", "ur", "ru", "pl", "fa", "nl", "da",
    "fr", "my", "el", "it", "ja", "de", "kk", "sk",
})
# fmt: on

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]+|$)")
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_TABLE_SEPARATOR = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$"
)
# "- ", "* ", "+ ", "• ", "1. ", "12) ", "(3) ", "a) ", "(b) ", "a. " (lower-case only, so that
# an initial such as "A. Smith" at the start of a line stays part of the sentence).
_BULLET = re.compile(r"^[ \t]*(?:[-*+•◦▪‣]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)]|\([a-z]\))[ \t]+")
_QUOTE_MARKER = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_TERMINAL = re.compile(r"[.!?:;…。！？]['\"”’)\]]*\s*$")

# A line this short that ends without punctuation and is followed by a capitalised line is a
# title or label ("Summary", "Return policy"), not the first half of a hard-wrapped sentence.
_TITLE_MAX_CHARS = 60


def split_sentences(
    text: str, *, engine: Engine = "pysbd", language: str = "en"
) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text`.

    `engine="pysbd"` (default) is the accurate one; `engine="regex"` is several times faster and
    good enough where the spans only need to be roughly sentence-shaped (evidence windows).
    A fenced code block is one span. Text without any sentence punctuation is one span per
    paragraph/line block, so nothing is ever dropped except whitespace and list/heading markers.
    """
    if not text or text.isspace():
        return []
    lang = language.lower()[:2] if language else "en"
    return list(_split_cached(text, engine, lang if lang in _PYSBD_LANGUAGES else "en"))


@lru_cache(maxsize=512)
def _split_cached(text: str, engine: Engine, language: str) -> tuple[tuple[int, int], ...]:
    # Cached because the same retrieved documents come back answer after answer.
    spans: list[tuple[int, int]] = []
    for kind, start, masked in _blocks(text):
        if kind == "unit":
            # Trim on the masked text so that a heading's "## " stays outside the span.
            lead = len(masked) - len(masked.lstrip())
            spans.extend(_trim(text, start + lead, start + len(masked)))
            continue
        for s, e in _segment_block(masked, engine, language):
            spans.extend(_trim(text, start + s, start + e))
    return tuple(spans)


def _trim(text: str, start: int, end: int) -> list[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return [(start, end)] if end > start else []


BlockKind = Literal["unit", "prose"]


def _blocks(text: str) -> list[tuple[BlockKind, int, str]]:
    """Cut `text` into layout blocks: (kind, start offset, block text with markers blanked).

    The block text always has the same length as the original slice, so offsets carry over.
    """
    blocks: list[tuple[BlockKind, int, str]] = []
    lines: list[tuple[int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        lines.append((pos, line))
        pos += len(line)

    para: list[str] = []
    para_start = 0

    def flush() -> None:
        nonlocal para
        if para:
            blocks.append(("prose", para_start, "".join(para)))
            para = []

    i = 0
    while i < len(lines):
        start, line = lines[i]
        body = line.rstrip("\r\n")
        fence = _FENCE.match(body)
        if fence:
            flush()
            marker = fence.group(1)
            j = i + 1
            while j < len(lines) and not lines[j][1].lstrip().startswith(marker[:3]):
                j += 1
            end_line = min(j, len(lines) - 1)
            end = lines[end_line][0] + len(lines[end_line][1])
            blocks.append(("unit", start, text[start:end]))
            i = end_line + 1
            continue
        if not body.strip() or _RULE.match(body):
            flush()
        elif _HEADING.match(body):
            flush()
            m = _HEADING.match(body)
            assert m is not None
            blocks.append(("unit", start, " " * m.end() + line[m.end() :]))
        elif _TABLE_ROW.match(body):
            flush()
            if not _TABLE_SEPARATOR.match(body):
                blocks.append(("unit", start, line))
        else:
            bullet = _BULLET.match(body)
            quote = _QUOTE_MARKER.match(body)
            marker_end = bullet.end() if bullet else quote.end() if quote else 0
            if bullet or (para and _ends_title(para[-1]) and _starts_sentence(body)):
                flush()
            if not para:
                para_start = start
            masked = " " * marker_end + line[marker_end:]
            para.append(masked.replace("\r", " "))
        i += 1
    flush()
    return blocks


def _ends_title(masked_line: str) -> bool:
    stripped = masked_line.strip()
    return bool(stripped) and len(stripped) <= _TITLE_MAX_CHARS and not _TERMINAL.search(stripped)


def _starts_sentence(line: str) -> bool:
    stripped = line.lstrip()
    return bool(stripped) and (stripped[0].isupper() or stripped[0].isdigit())


# pysbd locates every segment with a search over the whole block (quadratic), and some of its
# abbreviation rules are too; a paragraph longer than this goes to the linear regex splitter.
_PYSBD_MAX_CHARS = 5_000


@lru_cache(maxsize=4096)
def _segment_block(block: str, engine: Engine, language: str) -> tuple[tuple[int, int], ...]:
    if engine == "pysbd" and len(block) <= _PYSBD_MAX_CHARS:
        # Newlines inside a paragraph become spaces for pysbd, which treats every newline as a
        # boundary and would cut hard-wrapped sentences in two (same length, same offsets).
        spans = _pysbd_spans(block.replace("\n", " "), language)
        if spans is not None:
            return _join_clock_abbreviations(block, _join_number_ends(block, spans))
    return _join_clock_abbreviations(block, _regex_spans(block))


# "8:00 a.m. Tuesday, December 8", "5:00 p.m. EST on Wednesday": the time's "a.m." does not
# end the sentence when a day, a month or a time zone follows it.
_CLOCK_END = re.compile(r"\d\s?[ap]\.m\.$", re.I)
_CLOCK_NEXT = re.compile(
    r"(?i:(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec)[a-z]*\b)|\(?(?:UTC|GMT|ET|EST|EDT|CT|CST|CDT|MT|MST|MDT|PT|PST|PDT|CET|CEST|BST"
    r"|Eastern|Central|Mountain|Pacific)\b",
)


# pysbd reads "seats 14 and 15. The child ticket is in seat 16." as a numbered list ("15.",
# "16." open items) and cuts each figure off its sentence. A number opens a list item only as
# the list's first (1, or after a colon) or as the successor of the item before it.
_ITEM_NUMBER = re.compile(r"(\d{1,3})\.\s+")


def _join_number_ends(
    block: str, spans: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        item = _ITEM_NUMBER.match(block, start)
        if out and item and int(item.group(1)) > 1:
            before = block[out[-1][0] : out[-1][1]]
            previous = _ITEM_NUMBER.match(before)
            listed = previous is not None and int(previous.group(1)) + 1 == int(item.group(1))
            if not listed and not before.rstrip().endswith(":"):
                cut = item.start() + len(item.group(1)) + 1  # the full stop ends the sentence
                out[-1] = (out[-1][0], cut)
                if item.end() < end:
                    out.append((item.end(), end))
                continue
        out.append((start, end))
    return tuple(out)


def _join_clock_abbreviations(
    block: str, spans: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if (
            out
            and _CLOCK_END.search(block[out[-1][0] : out[-1][1]])
            and _CLOCK_NEXT.match(block, start)
        ):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return tuple(out)


@lru_cache(maxsize=32)
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language, clean=False)


def _pysbd_spans(block: str, language: str) -> tuple[tuple[int, int], ...] | None:
    """pysbd's segments located in `block`; None when pysbd altered the text (then use regex)."""
    try:
        segments: list[str] = _segmenter(language).segment(block)
    except Exception:  # pysbd is rule-based but has crashed on odd input; never lose the text
        return None
    spans: list[tuple[int, int]] = []
    cursor = 0
    for seg in segments:
        piece = seg.strip()
        if not piece:
            continue
        at = block.find(piece, cursor)
        if at < 0 or block[cursor:at].strip():
            return None
        spans.append((at, at + len(piece)))
        cursor = at + len(piece)
    if block[cursor:].strip():
        return None
    return tuple(spans)


# fmt: off
_ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "cf", "al",
    "fig", "figs", "approx", "dept", "est", "inc", "ltd", "co", "corp", "jan", "feb", "mar",
    "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ft", "rev", "gen",
    "gov", "sen", "rep", "u.s", "u.k", "a.m", "p.m", "resp", "incl", "mio", "mrd", "bzw", "usw",
    "z.b",
})
# Abbreviations only before a number ("No. 5", "p. 12", "ca. 1990"); "no." ends a sentence.
_NUMERIC_ABBREVIATIONS = frozenset({
    "no", "nos", "p", "pp", "vol", "vols", "ca", "art", "sec", "ch",
})
# fmt: on
# A boundary candidate: terminal punctuation, closing quotes/brackets, then whitespace.
# Starts only where a run of end marks starts: linear on "......." without a space.
_BOUNDARY = re.compile(r"(?<![.!?…])([.!?…]+)([\"'”’)\]]*)(\s+)")
_CJK_BOUNDARY = re.compile(r"[。！？]+[」』”’)）]*")
_WORD_BEFORE = re.compile(r"([\w.]+)$")


def _regex_spans(block: str) -> tuple[tuple[int, int], ...]:
    """A fast splitter: breaks at ". ", "! ", "? " unless an abbreviation, initial or a
    lower-case continuation says otherwise, and after CJK full stops."""
    cuts: list[int] = []
    for m in _BOUNDARY.finditer(block):
        nxt = block[m.end() : m.end() + 1]
        if not nxt:
            continue
        # A full stop at the end of a line ends a sentence whatever precedes it (rendered
        # records, "State: CA." lines); elsewhere abbreviations and initials do not.
        if "\n" in m.group(3) and not nxt.islower():
            cuts.append(m.start(3))
            continue
        if m.group(1) == ".":
            # Look back a bounded distance: scanning from 0 each time would be quadratic.
            word = _WORD_BEFORE.search(block[max(0, m.start() - 40) : m.start()])
            token = word.group(1).lower().rstrip(".") if word else ""
            if token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha()):
                continue
            if token in _NUMERIC_ABBREVIATIONS and nxt.isdigit():
                continue
        if nxt.islower():
            continue
        cuts.append(m.start(3))
    for m in _CJK_BOUNDARY.finditer(block):
        cuts.append(m.end())
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in sorted(set(cuts)):
        if cut > start:
            spans.append((start, cut))
            start = cut
    spans.append((start, len(block)))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and block[s].isspace():
            s += 1
        while e > s and block[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return tuple(out)


@lru_cache(maxsize=256)
def source_sentences(text: str) -> tuple[str, ...]:
    """A source's sentences (regex engine), cached: every claim of an answer reads the same
    sources, and the checks look at them sentence by sentence."""
    return tuple(text[s:e] for s, e in split_sentences(text, engine="regex"))


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def sentence_around(text: str, start: int, end: int, limit: int = 600) -> str:
    """The sentence of `text` that holds [start, end) (a claim's span), at most `limit`
    characters either side: the claims split from one sentence read its other parts."""
    lo = max(0, start - limit)
    before = [m.end() for m in _SENTENCE_END.finditer(text, lo, start)]
    # (from the span's last character: a claim that ends its sentence keeps its own full stop)
    after = _SENTENCE_END.search(text, max(start, end - 1), min(len(text), end + limit))
    stop = after.end() if after else min(len(text), end + limit)
    return text[before[-1] if before else lo : stop]


def sentence_before(text: str, start: int, limit: int = 600) -> str:
    """The sentence of `text` that ends before the one holding `start`, at most `limit`
    characters long ("" for the first): what a pronoun at the start of a claim points back to."""
    lo = max(0, start - 2 * limit)
    ends = [m.end() for m in _SENTENCE_END.finditer(text, lo, start)]
    if not ends:
        return ""
    begin = ends[-2] if len(ends) >= 2 else lo
    return text[max(begin, ends[-1] - limit) : ends[-1]]
