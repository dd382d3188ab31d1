"""Polarity and names: a claim that negates what a source affirms, or names what no source does.

Negation: a claim that negates what a source sentence affirms, word for word.

"Defects on your headphones are not covered by any warranty" against "Every headphones carries
a 2-year warranty against defects": the claim's content words are (nearly) all in one source
sentence, the claim is negated and that sentence is not. Small NLI models read such pairs as
contradiction only some of the time; word overlap reads them as support. The check fails them,
and the calibration file says how often such a flip is really unsupported (`checks.negation`):
where that is below the flag threshold the claim is `unclear`, never `supported`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from hallmon.schemas import CheckResult, Source
from hallmon.verification.numbers import ZONE_NAMES
from hallmon.verification.sentences import source_sentences
from hallmon.verification.text import BARE_ANSWER, content_tokens, negation_pattern

_NEGATION = negation_pattern(
    "none", "neither", "nor", "without", "cannot", "nobody", "nothing", r"no\s+one",
    # "non-refundable in all cases" says "not refundable"
    r"not?\s+longer", r"non-?(?:refund|transfer|return|exchange|cancel|negoti)\w*able",
)  # fmt: skip
# "Not accepted after 30 days" says the same as "accepted within 30 days": a negation over the
# outside of a limit the source states from the inside is no contradiction.
_OUTSIDE = re.compile(
    r"\b(?:after|beyond|outside|later than|more than|over|past|exceed\w*)\b", re.I
)
_INSIDE = re.compile(r"\b(?:within|before|up to|until|less than|under|at most|no later)\b", re.I)
# "Express shipping is free" against "Express shipping costs 12 EUR": free is the negation of a
# stated price.
_FREE = re.compile(
    r"\b(?:free(?:\s+of\s+charge)?|no\s+(?:extra\s+)?(?:cost|charge|fee)|"
    r"at\s+no\s+(?:extra\s+)?(?:cost|charge)|complimentary|"
    # "withdraw up to £200 … without a fee", "fee-free"
    r"without\s+(?:a\s+|any\s+)?(?:\w+\s+)?(?:fee|charge|cost)s?|fee[\s-]free|"
    r"nothing\s+(?:extra\s+|more\s+|further\s+)?to\s+pay)\b",
    re.I,
)
_PRICED = re.compile(
    r"\b(?:costs?|fee|charged?|price[sd]?)\b[^.;!?]{0,30}?\d|[$€£]\s?\d|\d\s?(?:eur|usd|gbp)\b",
    re.I,
)
_CONTRAST = re.compile(r"\b(?:while|whereas|unlike|but|however|although|though)\b", re.I)
_FREE_WORDS = frozenset({"free", "cost", "charge", "fee", "complimentary", "extra"})
# Negations that deny only part of a sentence or none of it ("not only ... but also", "not
# shipped until March", "no later than"): such a sentence denies no affirmative restatement.
_SCOPED = re.compile(
    r"\b(?:only|just|merely|until|till|unless|except|without|nor|neither|matter)\b|"
    r"\bno\s+(?:later|sooner|more|less|fewer)\b",
    re.I,
)
_WORDS = re.compile(r"[^\W_]+")
# Predicates that deny availability as a whole ("not supported", "not allowed"): the claim need
# not repeat the word, only what is unavailable.
_AVAILABILITY = frozenset(
    content_tokens(
        "supported available allowed permitted offered possible accepted included eligible "
        "covered provided"
    )
)
# Negation words as `content_tokens` leaves them ("doesn't" -> "doesn").
_NEGATION_TOKENS = frozenset(
    {
        "non",
        "not",
        "no",
        "never",
        "none",
        "neither",
        "nor",
        "without",
        "cannot",
        "longer",
        "doesn",
        "don",
        "isn",
        "aren",
        "wasn",
        "weren",
        "won",
        "can",
        "couldn",
        "shouldn",
        "wouldn",
        "hasn",
        "haven",
        "hadn",
        "didn",
        "mustn",
        "nobody",
        "nothing",
    }
)
COVERAGE = 0.75
"""Share of the claim's content words one source sentence must hold."""
DENIAL_COVERAGE = 0.8
"""Share of a negated source sentence's content words an affirmative claim must state."""
MAX_SENTENCES = 2000
"""Source sentences looked at per claim (a bound on work for huge contexts)."""


def _failed(what: str, sentence: str) -> CheckResult:
    """A failed negation check quoting the source sentence; "(contradicts it)" makes the claim
    `contradicted`, not `not_found` (`verdicts.forced_outcome`)."""
    shown = " ".join(sentence.split())[:90]
    return CheckResult(name="negation", passed=False, detail=f"{what}: “{shown}” (contradicts it)")


# "… is not included in standard clearing and is charged at $2.50 per metre": the predicate
# coordinated after the negated one, said affirmatively
_AFFIRMED_CONJUNCT = re.compile(
    r"(?:,\s*|\s+)(?:and|but)\s+(?:(?:is|are|was|were|will\s+be|can\s+be|costs?|gets?|"
    r"has|have)\b)(?P<rest>[^;]*)$",
    re.I,
)


@lru_cache(maxsize=256)
def _negated_sentences(
    text: str,
) -> tuple[tuple[str, frozenset[str], str, frozenset[str]], ...]:
    """A source's plainly negated sentences: the sentence, its content words (negation words
    left out), the first content word after the negation (what it denies) and the content
    words of a predicate coordinated after the negated one and said affirmatively (empty when
    there is none)."""
    out = []
    for sentence in source_sentences(text)[:MAX_SENTENCES]:
        m = _NEGATION.search(sentence)
        if m is None or _FREE.search(sentence) or _SCOPED.search(sentence):
            continue
        lead = _LEADING_CONDITION.match(sentence)
        if lead and m.start() < lead.end() and not _NEGATION.search(sentence, lead.end()):
            continue  # "If you cannot check in online, you can check in at a kiosk": affirms
        said = content_tokens(sentence) - _NEGATION_TOKENS
        after = [content_tokens(w) for w in _WORDS.findall(sentence[m.end() : m.end() + 80])]
        if m.group(0).lower().startswith("non"):
            # "non-refundable": what it denies is in the word itself
            after = [content_tokens(m.group(0)[3:].lstrip("-"))]
        negated = next((min(t) for t in after if t), None)
        conjunct = _AFFIRMED_CONJUNCT.search(sentence, m.end())
        affirmed: frozenset[str] = frozenset()
        if conjunct is not None and not _NEGATION.search(conjunct.group("rest")):
            affirmed = frozenset(content_tokens(conjunct.group("rest")))
        if len(said) >= 2 and negated is not None:
            out.append((sentence, said, negated, affirmed))
    return tuple(out)


# what follows these is excluded from what the claim affirms
_EXCEPTION = re.compile(
    r"\b(?:unless|except|other\s+than|excluding|apart\s+from|but\s+not)\b", re.I
)


_RATHER_THAN = re.compile(r"\b(?:rather\s+than|instead\s+of)\b", re.I)


def _denial(
    claim_text: str, words: frozenset[str], sources: Sequence[Source]
) -> CheckResult | None:
    """A negated source sentence that denies the affirmative claim: the claim states (nearly)
    every content word of the sentence and most of the claim is about it ("Opened software can
    be returned for a full refund" against "Opened software cannot be returned")."""
    exception = _EXCEPTION.search(claim_text)
    excepted = content_tokens(claim_text[exception.end() :]) if exception else frozenset()
    # "applied to your next invoice rather than paid out as cash" denies the payout itself
    rather = _RATHER_THAN.search(claim_text)
    instead = (
        content_tokens(claim_text[rather.end() : rather.end() + 40]) if rather else frozenset()
    )
    for source in sources:
        if source.kind == "user_input":
            continue
        for sentence, said, negated_word, affirmed in _negated_sentences(source.text):
            if (
                negated_word not in words
                and affirmed
                and len(affirmed & words) * 2 >= len(affirmed)
            ):
                continue  # the claim states the sentence's affirmed predicate, not the denied one
            if negated_word not in words:
                if negated_word not in _AVAILABILITY:
                    continue  # "costs 4.95 EUR and is not refundable" denies "refundable" only
                # "Cash withdrawals abroad are not supported": what is denied is the subject,
                # which the claim must state ("You can withdraw cash abroad").
                said = said - {negated_word}
            shared = len(said & words)
            if shared < 2 or shared / len(said) < DENIAL_COVERAGE or shared / len(words) < 0.5:
                continue
            if negated_word in instead or 2 * len(said & excepted) >= shared:
                # "covered, unless it was caused by freezing" against "It does not cover
                # damage caused by freezing": the claim keeps the source's exclusion
                continue
            # "Not accepted after 30 days" denies nothing that "accepted within 30 days" states.
            if _OUTSIDE.search(sentence) and _INSIDE.search(claim_text):
                continue
            return _failed(f"{source.source_id} denies what the claim states", sentence)
    return None


# A permission or an offer the claim gives ("a black coffee is okay too", "we can fix the
# electronics"), and a source clause that forbids or declines it ("Do not drink tea, coffee
# (including black coffee) or juice", "we do not repair the electronics of digital pianos").
_PERMITS = re.compile(
    r"\b(?:is|are|'s|’s|be)\s+(?:(?:absolutely|perfectly|completely|totally|also)\s+)?"
    r"(?:fine|okay|ok|allowed|permitted|welcome|acceptable|no\s+problem)\b|"
    r"\b(?:you|we|they)\s+(?:can|may|are\s+welcome\s+to)\b|\bfeel\s+free\s+to\b",
    re.I,
)
_FORBIDS = re.compile(
    r"\b(?:is|are)\s+not\s+(?:permitted|allowed|accepted)|\bnot\s+(?:be\s+)?(?:permitted|allowed)|"
    r"\b(?:is|are)\s+(?:prohibited|forbidden|banned)|"
    # (not "you do not need to", "does not have to": no prohibition)
    r"\b(?:do|does)\s+not\b(?!\s+(?:need|have|require))|\b(?:don|doesn)['’]t\b(?!\s+(?:need|have))|"
    r"\b(?:cannot|can['’]t|must\s+not|mustn['’]t|may\s+not)\b",
    re.I,
)
# the part of a forbidding clause that is let through ("Outside food is not permitted, with
# the exception of a birthday cake")
_LET_THROUGH = re.compile(
    r"\b(?:with\s+the\s+exception\s+of|except(?:\s+for)?|other\s+than|apart\s+from|"
    r"excluding|but\b|however)\b",
    re.I,
)
# a clause whose prohibition or permission holds on a condition or a limit: not read here
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|provided|as\s+long\s+as|only|without|until|within|after|before|"
    r"more\s+than|less\s+than|under|over|once|when|where)\b|\d",
    re.I,
)
_LEADING_CONDITION = re.compile(r"^\W*(?:if|unless|when|once|in\s+case)\b[^,;.]{1,160},\s*", re.I)
_CLAUSE_BREAK = re.compile(r"[;:—–]|,?\s+(?:but|so|whereas|while)\s+|,\s+(?:and|or)\s+", re.I)
_PLAIN_NEGATION = negation_pattern("cannot", "nor")
_PERMISSION_WORDS = frozenset(
    content_tokens(
        "fine okay ok allowed permitted welcome acceptable problem can may free feel also too "
        "absolutely perfectly completely totally without"
    )
)
PROHIBITION_SHARED = 2
"""Content words a permission clause of the claim must share with a forbidding clause."""


@lru_cache(maxsize=256)
def _forbidding_clauses(text: str) -> tuple[tuple[frozenset[str], bool, str], ...]:
    """A source's clauses: content words (negation and permission words left out, and what a
    forbidding clause lets through), whether the clause forbids, and its sentence."""
    out = []
    for sentence in source_sentences(text)[:MAX_SENTENCES]:
        for clause in _CLAUSE_BREAK.split(sentence):
            if not clause or not clause.strip():
                continue
            forbids = _FORBIDS.search(clause) is not None
            if forbids:
                if _CONDITIONAL.search(clause):
                    continue
                cut = _LET_THROUGH.search(clause)
                clause = clause[: cut.start()] if cut else clause
            words = content_tokens(clause) - _NEGATION_TOKENS - _PERMISSION_WORDS - _AVAILABILITY
            if words:
                out.append((words, forbids, sentence))
    return tuple(out)


def _prohibited(claim_text: str, sources: Sequence[Source]) -> CheckResult | None:
    """A permission or offer of the claim that a source clause forbids, where no source
    clause says as much of it without forbidding it."""
    for clause in _CLAUSE_BREAK.split(claim_text):
        if not clause or not _PERMITS.search(clause):
            continue
        if _PLAIN_NEGATION.search(clause) or _CONDITIONAL.search(clause.replace("without", "")):
            continue
        words = content_tokens(clause) - _PERMISSION_WORDS - _AVAILABILITY
        if len(words) < PROHIBITION_SHARED:
            continue
        best_forbidding: tuple[int, str, str] | None = None
        best_allowing = 0
        for source in sources:
            if source.kind == "user_input":
                continue
            for said, forbids, sentence in _forbidding_clauses(source.text):
                shared = len(words & said)
                if forbids:
                    if (
                        shared >= PROHIBITION_SHARED
                        and 2 * shared >= len(words)
                        and (best_forbidding is None or shared > best_forbidding[0])
                    ):
                        best_forbidding = (shared, source.source_id, sentence)
                else:
                    best_allowing = max(best_allowing, shared)
        if best_forbidding is not None and best_forbidding[0] > best_allowing:
            _, source_id, sentence = best_forbidding
            return _failed(f"{source_id} forbids what the claim allows", sentence)
    return None


_RULE = re.compile(r"\b(?:may|might|can|could|must|should|shall)\b(?!\s+not\b)", re.I)
_NO_LONGER = re.compile(r"\bno\s+longer\b|\bnot\b[^.;]{0,40}\bany\s?more\b", re.I)
# a tool that reads ("get_student", "orders.list"), against one that acts
_LOOKUP = re.compile(r"(?:^|[._])(?:get|list|search|lookup|fetch|read|view|status|describe|"
                     r"find|query|check|track)(?:[._]|$)", re.I)  # fmt: skip


_ELLIPTICAL_NOT = re.compile(
    r"^\W*(?:no,?\s+)?not\s+(?:after|before|until|till|once|if|while|when|unless|during|yet)\b",
    re.I,
)


def check_negation(claim_text: str, sources: Sequence[Source]) -> CheckResult | None:
    """Fails when the claim is negated and a source sentence with (nearly) all its content
    words is not, or the other way round (`_denies`); None otherwise."""
    # a bare answer folded before the claim ("No. The endpoint is reachable again") is the
    # answer to the question, not a negation of what follows
    claim_text = BARE_ANSWER.sub("", claim_text, count=1)
    # a denial inside a leading condition ("If that doesn't work, you can pay by transfer")
    # is the condition's, not the claim's
    lead = _LEADING_CONDITION.match(claim_text)
    if lead and _NEGATION.search(lead.group(0)) and not _NEGATION.search(claim_text, lead.end()):
        claim_text = claim_text[lead.end() :]
    if _ELLIPTICAL_NOT.match(claim_text):
        # "Not after the cancellation takes effect, I'm afraid": the answer's elided verb is
        # denied, not what the time clause says (which the source states too)
        return None
    forbidden = _prohibited(claim_text, sources)
    if forbidden is not None:
        return forbidden
    # "free" claims a price of zero; "not free" agrees with any price.
    # ("there's nothing to pay", "at no extra cost" say free, not a negation)
    negated = bool(_NEGATION.search(_FREE.sub(" ", claim_text)))
    free = bool(_FREE.search(claim_text)) and not negated
    if negated and _CONTRAST.search(claim_text):
        # "Mule deer have a black tip, while white-tailed deer do not": the negation is about
        # the other side of the contrast, which word overlap cannot tell apart.
        return None
    words = content_tokens(claim_text) - (_FREE_WORDS if free else frozenset())
    if len(words) < 2:
        return None
    if not negated and not free:
        return _denial(claim_text, words, sources)
    if _NO_LONGER.search(claim_text) and any(
        s.kind == "tool_result" and s.tool_status == "ok" and not _LOOKUP.search(s.tool or "")
        for s in sources
    ):
        # "She's no longer in the Thursday group" after a move the agent made: the lookup
        # before it still says the old state, which is the claim's point, not its denial.
        return None
    seen = 0
    # The first sentence the claim denies; it counts only when no other sentence as close
    # says it the claim's way ("an ERC applies if you repay more … during the fixed period"
    # and then "No ERC applies once the fixed period has ended").
    denied: CheckResult | None = None
    # (read once: the claim may be long, the source's sentences many)
    claim_outside = _OUTSIDE.search(claim_text) is not None
    claim_inside = _INSIDE.search(claim_text) is not None
    for source in sources:
        if source.kind == "user_input":
            continue
        for sentence in source_sentences(source.text):
            seen += 1
            if seen > MAX_SENTENCES:
                return denied
            if negated and not free and _RULE.search(sentence):
                continue  # "may extend … only by publishing a notice": a rule, no fact denied
            covered = len(words & content_tokens(sentence)) / len(words)
            if free and covered >= COVERAGE:
                if _FREE.search(sentence):
                    return None  # a source says it is free too
                if _PRICED.search(sentence) and denied is None:
                    denied = _failed(
                        f"the claim says free but {source.source_id} states a price", sentence
                    )
            if free:
                continue
            if covered >= COVERAGE:
                if _NEGATION.search(sentence):
                    return None  # the source says it negatively too
                if _ONLY_FOR.search(sentence):
                    # "transport is provided only for patients who meet the criteria": saying
                    # someone does not meet them applies the restriction, it does not deny it
                    return None
                if claim_outside and _INSIDE.search(sentence):
                    return None  # the negated outside of the source's limit
                if claim_inside and _OUTSIDE.search(sentence):
                    # "no idle fee within 15 minutes" against "an idle fee applies after a
                    # 15-minute grace period": the negated inside of the source's outside
                    return None
                if _restates(claim_text, sentence):
                    # "a refund to your card is not possible, as card refunds are given only
                    # within 28 days": the rule given as the reason, not denied
                    return None
                if denied is None:
                    denied = _failed(f"the claim negates what {source.source_id} states", sentence)
    return denied


_REASON = re.compile(r"[,;:]?\s+\b(?:as|because|since|given\s+that)\s+", re.I)


def _restates(claim_text: str, sentence: str) -> bool:
    """Whether a reason clause of the claim ("…, as card refunds are given only within 28
    days") says the source sentence itself, without a negation."""
    wanted = content_tokens(sentence)
    if not wanted:
        return False
    return any(
        len(words & wanted) / len(wanted) >= COVERAGE for words in _reason_clauses(claim_text)
    )


@lru_cache(maxsize=64)
def _reason_clauses(claim_text: str) -> tuple[frozenset[str], ...]:
    """The content words of each affirmative reason clause of a claim (read once a claim, not
    once per source sentence)."""
    return tuple(
        frozenset(content_tokens(clause))
        for clause in _REASON.split(claim_text)[1:]
        if not _NEGATION.search(clause)
    )


# ("self-drive hire is only available to customers aged 18 or over")
_ONLY_FOR = re.compile(
    r"\bonly\s+(?:(?:available|open|offered|permitted|allowed|possible|given|granted)\s+)?"
    r"(?:for|to|if|when|where|once|after|with|by)\b",
    re.I,
)
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _spelled(name: str) -> str:
    """A lower-case pattern for `name` that also matches it spelled apart at its capitals:
    "Wi-Fi" or "wi fi" for "WiFi", "Sky West" for "SkyWest"."""
    if re.fullmatch(r"[A-Z]{2,}s", name):
        name = name[:-1]  # "DVDs" is the plural of "DVD"
    parts = [re.escape(p.lower()) for p in _CAMEL_PART.findall(name)] or [re.escape(name.lower())]
    # A plural or possessive of the name is the name ("DVDs", "NASA's").
    return r"\b" + r"[\s-]?".join(parts) + r"(?:s|es|['’]s)?\b"


_CAPITALISED = re.compile(r"\b[A-Za-z][a-z]+\b")


@lru_cache(maxsize=16)
def _initials(text: str, longest: int = 6) -> frozenset[str]:
    """Initials of runs of 2..`longest` consecutive words ("New York" -> "NY", "emission
    limit value" -> "ELV"; "of"/"and" may sit between them), so that "NY" counts as named by a
    text saying "New York". Linear: at most `longest` runs start at each word; cached, as every
    claim of an answer reads the same sources."""
    words = [
        (m.start(), m.end(), m.group(0)[0].upper())
        for m in _CAPITALISED.finditer(text)
        if m.group(0).lower() not in ("of", "and")
    ]
    out: set[str] = set()
    for i in range(len(words)):
        letters = words[i][2]
        for k in range(i + 1, min(i + longest, len(words))):
            if text[words[k - 1][1] : words[k][0]].strip(" ") not in ("", "of", "and"):
                break
            letters += words[k][2]
            out.add(letters)
    return frozenset(out)


# Acronyms and brand-like names ("GLS", "FedEx", "iPhone"): a carrier, product or company the
# context never names is made up, whatever the sentence around it says.
# (not a country's letters before its dollar: "CA$48.62", "NZ$65")
_BRAND = re.compile(r"\b(?:[A-Z]{2,}[0-9]*|[A-Z][a-z]+[A-Z][A-Za-z]*|[a-z]+[A-Z][A-Za-z]*)\b(?!\$)")
_NOT_NAMES = frozenset(
    {"OK", "AM", "PM", "FAQ", "ID", "USD", "EUR", "GBP", "AI", "US", "UK", "EU", "DIY", "TV",
     # common nouns and office shorthand, not names ("per the KB", "the PDF", "your PIN")
     "KB", "SLA", "ETA", "FYI", "ASAP", "TBC", "TBD", "NB", "PS", "RSVP", "VAT", "PDF", "URL",
     "SMS", "PIN", "CSV", "IT", "HR", "QR",
     # sizes and rates: "48.6 GB", "100 Mbps" (the number check reads the figure)
     "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "Mbps", "Gbps", "kWh", "MW", "GW",
     "IST"}
    # time zones: "08:41 UTC" restates a "...T08:41:00Z" time, the number check reads it
    | {z.upper() for z in ZONE_NAMES if z.isalpha() and 2 <= len(z) <= 5}
)  # fmt: skip


# Identifiers mixing capitals and digits ("C-98", "1Z999", "RF-77"); not units, ordinals or
# compounds ("10KM", "3PM", "2nd", "4-star"), which the number check reads; nor the start of
# an amount with a letter for its currency ("R1,520": rand).
_MIXED_ID = re.compile(
    r"(?<![\w.,-])(?=[\w-]*[A-Z])(?=[\w-]*\d)[A-Za-z0-9][A-Za-z0-9-]{1,30}(?![\w-]|[.,]\d)"
)
_BRACKETED = re.compile(
    r"\[[^\[\]\n]{0,80}\]|【[^】\n]{0,80}】|\((?:source|ref|see)[^()\n]{0,80}\)", re.I
)
_UNIT_LIKE = re.compile(r"^\d+(?:[a-z]{1,3}|st|nd|rd|th|-[a-z]+)$", re.I)


_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}")


def _id_pattern(ident: str) -> str:
    # "A-1042", "A1042" and "a 1042" are one id.
    parts = re.findall(r"[a-z]+|\d+", ident.lower())
    return r"(?<![a-z0-9])" + r"[\s-]?".join(parts) + r"(?![a-z0-9])"


def check_names(claim_text: str, sources: Sequence[Source]) -> CheckResult | None:
    """Fails when the claim names an acronym, brand or identifier ("card C-98") that occurs in
    no source; None when it names none, or all of them occur."""
    names = {m.group(0) for m in _BRAND.finditer(claim_text[:2000])} - _NOT_NAMES
    # Citation markers ("[doc-3]") name sources, which the citation check judges.
    bare = _BRACKETED.sub(" ", claim_text[:2000])
    given = {re.sub(r"[^a-z0-9]", "", s.source_id.lower()) for s in sources}
    ids = {
        m.group(0)
        for m in _MIXED_ID.finditer(bare)
        if not _UNIT_LIKE.match(m.group(0))
        and not _BRAND.fullmatch(m.group(0))
        and re.sub(r"[^a-z0-9]", "", m.group(0).lower()) not in given
    }
    emails = {m.group(0).rstrip(".").lower() for m in _EMAIL.finditer(claim_text[:2000])}
    if not (names or ids or emails) or not sources:
        return None
    text = " ".join(s.text for s in sources)
    haystack = text.lower()
    unmatched = [n for n in names if not re.search(_spelled(n), haystack)]
    unmatched += [i for i in ids if not re.search(_id_pattern(i), haystack)]
    unmatched += [e for e in emails if e not in haystack]  # an address is said exactly
    initials = _initials(text) if unmatched else frozenset()
    missing = sorted(n for n in unmatched if n not in initials)
    if not missing:
        return None
    return CheckResult(
        name="name",
        passed=False,
        detail=f"{', '.join(missing)} is named by no source the answer was given",
    )
