"""Sentence spans: exact slices of the text, markdown-aware, never dropping content."""

from __future__ import annotations

import pytest

from hallmon.verification.sentences import Engine, split_sentences

ENGINES: list[Engine] = ["pysbd", "regex"]


def sentences(text: str, engine: Engine = "pysbd") -> list[str]:
    return [text[s:e] for s, e in split_sentences(text, engine=engine)]


def test_abbreviations_decimals_and_percentages_do_not_split() -> None:
    text = (
        "Dr. Smith paid $4.2 million in 2023. The U.S. economy grew 3.5% e.g. in Q1. "
        "Returns are accepted within 14 days of delivery."
    )
    for engine in ENGINES:
        assert sentences(text, engine) == [
            "Dr. Smith paid $4.2 million in 2023.",
            "The U.S. economy grew 3.5% e.g. in Q1.",
            "Returns are accepted within 14 days of delivery.",
        ]


def test_markdown_headings_bullets_and_numbered_lists() -> None:
    text = (
        "## Return policy\n"
        "Returns are accepted within 14 days\nof delivery. Refunds take 5 days.\n\n"
        "- Item one. Item one b.\n"
        "- Item two\n  continues here\n"
        "1. First step\n"
        "2) Second step\n"
        "---\n"
        "**Note:** keep the receipt."
    )
    assert sentences(text) == [
        "Return policy",
        "Returns are accepted within 14 days\nof delivery.",
        "Refunds take 5 days.",
        "Item one.",
        "Item one b.",
        "Item two\n  continues here",
        "First step",
        "Second step",
        "**Note:** keep the receipt.",
    ]


def test_code_block_is_one_unit() -> None:
    text = "Run this:\n\n```python\nx = 1. \nprint(x)\n```\nAfter code. Done!"
    got = sentences(text)
    assert got == ["Run this:", "```python\nx = 1. \nprint(x)\n```", "After code.", "Done!"]


def test_unclosed_code_fence_keeps_the_rest_as_one_unit() -> None:
    text = "Intro.\n```\ncode. more code."
    assert sentences(text) == ["Intro.", "```\ncode. more code."]


def test_title_line_without_punctuation_is_its_own_sentence() -> None:
    assert sentences("Summary\nThe policy is fine.") == ["Summary", "The policy is fine."]


def test_table_rows_are_units_and_separator_rows_dropped() -> None:
    assert sentences("| a | b |\n|---|---|\n| 1 | 2 |") == ["| a | b |", "| 1 | 2 |"]


def test_quotation_with_inner_full_stops_stays_whole_with_pysbd() -> None:
    assert sentences('He said "Stop. Now." Then left.') == ['He said "Stop. Now."', "Then left."]


@pytest.mark.parametrize("engine", ENGINES)
def test_spans_are_exact_ordered_and_cover_all_words(engine: Engine) -> None:
    text = (
        "# Title\n\nFirst para, line one\nline two. Second sentence!\n\n"
        "* bullet with 1.5 kg\n* another? yes.\n\n```\ncode\n```\n"
        "Der Preis beträgt 4,5 Mio. Euro. 今日は晴れです。明日は雨です。 Ünïcödé ok."
    )
    spans = split_sentences(text, engine=engine)
    prev_end = 0
    for s, e in spans:
        assert prev_end <= s < e <= len(text)
        assert text[s:e] == text[s:e].strip()
        prev_end = e
    covered = "".join(text[s:e] for s, e in spans)
    for word in ("Title", "two.", "1.5", "another?", "code", "Euro.", "明日は雨です。", "Ünïcödé"):
        assert word in covered


@pytest.mark.parametrize("engine", ENGINES)
def test_non_english_does_not_crash(engine: Engine) -> None:
    text = "今日は晴れです。明日は雨です。 Привет, мир. Это тест! مرحبا بالعالم."
    got = sentences(text, engine)
    assert got[:2] == ["今日は晴れです。", "明日は雨です。"]
    assert any("Привет" in s for s in got)


def test_empty_and_whitespace() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t ") == []
    assert sentences("no punctuation at all") == ["no punctuation at all"]


def test_unknown_language_falls_back_to_english_rules() -> None:
    assert split_sentences("One. Two.", language="xx") == [(0, 4), (5, 9)]
    assert split_sentences("Eins. Zwei.", language="de") == [(0, 5), (6, 11)]


def test_a_clock_time_before_a_day_month_or_zone_does_not_end_the_sentence() -> None:
    text = "Shifts run to 8:00 a.m. Thursday, December 10, 48 hours in all. Next one."
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "Shifts run to 8:00 a.m. Thursday, December 10, 48 hours in all.",
        "Next one.",
    ]
    zoned = "Amendments are free until 5:00 p.m. EST on Wednesday. Then $75."
    assert len(split_sentences(zoned)) == 2


def test_a_clock_time_before_a_spelled_zone_does_not_end_the_sentence() -> None:
    text = "It is 8:00 to 10:00 a.m. Central, but the gateway did not respond. Next."
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "It is 8:00 to 10:00 a.m. Central, but the gateway did not respond.",
        "Next.",
    ]


def test_a_figure_that_ends_a_sentence_is_no_list_item() -> None:
    # pysbd read "15." and "16." as the items of a numbered list and cut the seats off.
    text = "Adults are in seats 14 and 15. The child is in seat 16. Tickets are mobile-only."
    for engine in ENGINES:
        assert sentences(text, engine) == [
            "Adults are in seats 14 and 15.",
            "The child is in seat 16.",
            "Tickets are mobile-only.",
        ]
    # An inline numbered list keeps its items: the first after a colon, then each successor.
    steps = "To reset: 1. Open Settings. 2. Tap Privacy. 3. Enable 2FA."
    assert sentences(steps) == [
        "To reset:",
        "1. Open Settings.",
        "2. Tap Privacy.",
        "3. Enable 2FA.",
    ]
    assert sentences("Items: 4. Ship it. 5. Done.") == ["Items:", "4. Ship it.", "5. Done."]


def test_the_sentence_around_a_span() -> None:
    from hallmon.verification.sentences import sentence_around

    text = "Hi there. Your fitting is on 8 August, and Priya will see you. Bring shoes."
    start = text.index("Priya")
    assert (
        sentence_around(text, start, start + 5)
        == " Your fitting is on 8 August, and Priya will see you."
    )
    assert sentence_around("x" * 5000, 2500, 2501, limit=10) == "x" * 21


def test_a_claim_that_ends_its_sentence_reads_no_further() -> None:
    from hallmon.verification.sentences import sentence_around

    text = "The approval is with Priya. Your cover is confirmed."
    end = text.index(".") + 1
    assert sentence_around(text, 0, end) == "The approval is with Priya."
