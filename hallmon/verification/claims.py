"""Claims: split an answer into the atomic statements worth checking against its context.

Sentences come from `split_sentences` (the evidence stage's segmenter, so answer and context
are cut the same way): markdown-aware blocks, then pysbd, a maintained rule-based segmenter that
handles abbreviations, decimals, initials and quotations, which a regex does not. On top of it
this module:

- treats a fenced code block (one span from the segmenter) as one `code` claim;
- strips markdown decoration (bullets, numbers, headers, emphasis markers, block quotes) from
  the ends of a segment by moving the span, never by rewriting the text, so that
  ``answer[claim.span.start:claim.span.end] == claim.text`` always holds;
- records what is not a claim as skipped, with the reason: greetings and closings, pure
  politeness or empathy, questions to the user, list headings and preambles ("Here are the
  steps:");
- splits a sentence into atomic claims at "; ", ", and", " and ", ", but" only where both sides
  read as a clause (a subject-like word and a verb), never inside quotes or numbers, and peels
  a leading empathy clause off content ("I understand; returns are accepted within 14 days");
- types each claim and gives it a severity (see `SEVERITY`).

Everything here is rules over text: deterministic, no model, microseconds per sentence.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field

from hallmon.schemas import Claim, ClaimType, Severity, SkippedSegment, Span
from hallmon.schemas.results import SkipReason
from hallmon.verification.sentences import split_sentences
from hallmon.verification.text import CONDITION_OPENERS, MADE_SURE_WILL, first_committed

CLAIMS_VERSION = "rules-6"
"""Reported in `MonitorResult.model_versions["claims"]`; bump when the rules change."""

SEVERITY: dict[ClaimType, Severity] = {
    # A wrong action, promise, figure, quotation or system state does direct harm (a refund the
    # user never gets, a misquoted policy), so those are high.
    "action": "high",
    "commitment": "high",
    "number": "high",
    "quote": "high",
    "system_state": "high",
    # Plain statements and explanations: harmful when wrong, but usually checkable by the user.
    "fact": "medium",
    "causal": "medium",
    # What the agent says it will do next, and code it shows, are rarely grounded in context.
    "plan": "low",
    "code": "low",
}


@dataclass(frozen=True)
class ClaimExtraction:
    """What `extract_claims` found: claims, what it skipped, and the language it detected."""

    claims: list[Claim]
    skipped: list[SkippedSegment]
    language: str = "en"
    notes: list[str] = field(default_factory=list)

    @property
    def is_english(self) -> bool:
        return self.language == "en"


# --- markdown and structure ---------------------------------------------------------------

_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n?")
_LEAD = re.compile(
    r"^(?:\s|#{1,6}\s|>\s?|[-*+•]\s|\d{1,3}[.)]\s(?!\d)|\*\*|__|\*(?=\S)|_(?=\S)|\|)+"
)
# Trailing markdown decoration: whitespace, emphasis marks and table bars. One character class
# (the old alternation "\*\*|__|\*|_" matched "__" two ways: exponential on a form line such
# as "Name: ______ Date"), and `_trim` walks it from the right, so even that is linear.
_TRAIL_CHARS = frozenset("*_|")


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Move [start, end) inwards past markdown decoration and whitespace."""
    seg = text[start:end]
    lead = _LEAD.match(seg)
    if lead:
        start += lead.end()
        seg = seg[lead.end() :]
    keep = len(seg)
    while keep and (seg[keep - 1] in _TRAIL_CHARS or seg[keep - 1].isspace()):
        keep -= 1
    return start, start + keep


def _code_content(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The inside of a fenced code block spanning [start, end), or None if it is not one."""
    m = _FENCE_OPEN.match(text[start:end])
    if m is None:
        return None
    inner_start = start + m.end()
    inner_end = end
    closing = text.rfind(m.group(1), inner_start, end)
    if closing >= 0 and not text[closing:end].strip("`~ \t\r\n"):
        inner_end = closing
    return _trim(text, inner_start, inner_end)


# --- not claims -----------------------------------------------------------------------------

_NAME = r"(?:[\s,]+[A-Z][\w'-]*){0,2}"
_GREETING = re.compile(
    r"^(?:hi|hello|hey|dear|greetings|good (?:morning|afternoon|evening)|welcome(?: back)?)\b"
    + _NAME
    + r"\s*[,.!:]*$"
    + r"|^(?:best|kind|warm)?\s*(?:regards|wishes)\b.*$"
    r"|^(?:cheers|sincerely|thanks again|take care|have a (?:great|nice|good) (?:day|week|one))"
    r"\b.*$"
    # a letter's sign-off and its signature ("Yours faithfully, Highways Structures Team")
    r"|^(?:yours\s+(?:faithfully|sincerely|truly)|(?:with\s+)?(?:best|kind|warm|many)\s+"
    r"(?:regards|thanks)|respectfully(?:\s+yours)?)\b"
    r"(?:[\s,]+(?:the\s+|on\s+behalf\s+of\s+(?:the\s+)?)?[A-Z][\w.'’&-]*){0,6}\s*[.!]?$",
    re.IGNORECASE,
)
# Whole-segment politeness and empathy. Kept tight: anything after these phrases that is not
# more politeness makes the segment content.
# The rest of a courtesy phrase, to the next punctuation mark (a decimal point is none:
# "sorry I can't offer more on the $74.95 arrangement").
_TAIL = r"(?:[^,;.!?]|(?<=\d)\.(?=\d))*"
# A name the courtesy is said to ("Thanks for flagging this, Alan."): only after one, and
# capitalised (case-sensitive inside the case-blind pattern), so "Refunded." is never one.
_VOCATIVE = r"(?-i:[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?)"
_POLITE_CORE = (
    r"(?:i|we)\s+(?:can\s+|completely\s+|totally\s+|fully\s+)?understand(?:\s+(?:that\s+)?"
    rf"(?:this|it|your|how|the)\b{_TAIL})?"
    # A vocative before the courtesy ("..., Ms Duarte, and I'm sorry ...").
    r"|(?:mr|mrs|ms|miss|mx|dr)\.?\s+[\w'’-]+(?:\s*,\s*(?:and\s+)?|\s+)(?=i\b|i['’]|we\b|we['’])"
    rf"(?:i['’]?m|i\s+am|we['’]?re|we\s+are)\s+(?:so\s+|really\s+|very\s+|truly\s+)?sorry\b{_TAIL}"
    # Wishes ("Hope the week goes smoothly!", "I hope Juniper is feeling better"), not plans.
    rf"|(?:i\s+|we\s+)?hope\s+(?!to\b){_TAIL}"
    # Steering the conversation ("let's look at both options", "just tell me which suits").
    rf"|let['’]?s\s+(?:look|go|see|check|start|take|walk)\b{_TAIL}"
    rf"|(?:just\s+)?(?:tell|let)\s+me\s+(?:which|what|when|whether)\b{_TAIL}"
    r"|(?:i'?m|i am|we'?re|we are)\s+(?:so\s+|really\s+|very\s+|truly\s+)?(?:sorry|glad|happy|"
    rf"delighted|here)\b{_TAIL}"
    # Empathy: "I know how disruptive that is", "I can see why that bill stands out", "it's
    # really frustrating when you've already paid" (not "I can see how much you paid").
    r"|(?:i|we)\s+(?:can\s+|do\s+|completely\s+|totally\s+|fully\s+)?(?:see|know|imagine|"
    r"understand|appreciate|realise|realize|get)\s+(?:how\s+(?!much\b|many\b|long\b|often\b|"
    r"far\b|old\b|soon\b|to\b)\w+(?:\s+\w+)?\s+(?:that|this|it|things)(?:'s|’s|\s+is|\s+was|"
    r"\s+must\s+be|\s+would\s+be|\s+can\s+be|\s+feels?|\s+has\s+been)"
    r"|why\s+(?:you(?:'re|’re|'d|’d|\s+are|\s+would\s+be|\s+might\s+be|\s+feel)\b[^,;:.!?]*"
    r"|[^,;:.!?]{0,40}\b(?:stands?\s+out|came\s+as\s+a\s+(?:shock|surprise)|"
    r"(?:is|was)\s+(?:a\s+)?(?:concern|worry|surprise|shock|confusing|frustrating|worrying)|"
    r"(?:looks?|seems?)\s+(?:high|odd|wrong|strange|unusual|off))))"
    r"|(?:it|that|this)(?:'s|’s|\s+is|\s+must\s+be|\s+sounds)\s+(?:really\s+|so\s+|very\s+|"
    r"understandably\s+|incredibly\s+|completely\s+)?(?:frustrating|annoying|disappointing|"
    r"stressful|worrying|upsetting|inconvenient|disruptive|confusing|unsettling|worrisome|"
    r"frightening|scary|alarming|unnerving|nerve-racking|exhausting|"
    rf"a\s+(?:real\s+)?(?:hassle|pain|nuisance|worry))\b{_TAIL}"
    rf"|(?:i|we)\s+apologi[sz]e\b{_TAIL}"
    rf"|(?:my|our)\s+apologies\b{_TAIL}"
    rf"|sorry\s+(?:about|for|to\s+hear|that|you(?:['’]re|['’]ve|\s+are|\s+have)?)\b{_TAIL}"
    rf"|thanks?(?:\s+you)?(?:\s+(?:so|very)\s+much)?(?:\s+for\b{_TAIL})?"
    rf"|(?:happy|glad)\s+to\s+help\b{_TAIL}"
    # "Happy to lay it out.", "Glad to explain": an offer to explain, no fact
    r"|(?:(?:i['’]m|i\s+am|we['’]re|we\s+are)\s+)?(?:happy|glad|pleased)\s+to\s+(?:lay\s+(?:it|that|"
    r"this)\s+out|explain|break\s+(?:it|that|this)\s+down|walk\s+you\s+through\s+(?:it|that|this))"
    r"|(?:that'?s\s+a\s+)?(?:great|good|excellent)\s+question"
    # an offer on the user's reply ("If you let me know which date suits you, I can check the
    # Heron Room's availability"): what the agent would do next, no fact
    rf"|if\s+you\s+(?:(?:can|could|would\s+like\s+to)\s+)?(?:let\s+(?:me|us)\s+know|"
    rf"tell\s+(?:me|us)|reply|get\s+back\s+to\s+(?:me|us)){_TAIL},\s+(?:i|we)(?:['’]ll|"
    rf"\s+will|\s+can|\s+could|['’]d\s+be\s+happy\s+to|\s+would\s+be\s+happy\s+to)\s+"
    rf"(?:check|look|see|find|confirm|book|arrange|get|sort|set|send|help){_TAIL}"
    # "It's worth checking back with me after then": an invitation to ask again, no fact
    r"|(?:it['’]s|it\s+is|it\s+might\s+be|it\s+may\s+be)\s+worth\s+(?:checking|getting|coming)\s+"
    r"back(?:\s+(?:in|to|with)\s+(?:me|us))?(?:\s+(?:after\s+then|later(?:\s+today)?|tomorrow|"
    r"then))?"
    # "that's never fun"
    r"|(?:that|it|this)(?:['’]s|\s+is)\s+(?:never|no|not)\s+(?:any\s+)?fun"
    # "Great choice!", "All set for the move!": the user's choice praised, no content
    r"|(?:that['’]s\s+a\s+)?(?:great|good|excellent|lovely|wise)\s+choice"
    r"|(?:you['’]re\s+)?all\s+set\s+for\s+(?:the|your)\s+[\w-]+"
    r"|(?:yes,?\s+)?(?:that|it)(?:['’]s|\s+is)\s+(?:all\s+)?(?:done|sorted|set\s+up)"
    r"|(?:sure|certainly|of course|absolutely|no problem|okay|ok|great|perfect|done|all set|"
    r"all done|all sorted|sorted|all good|"
    r"you'?re all set|there you go|you['’]re\s+in(?=\s*[!.]))"
    rf"|(?:i\s+)?hope\s+(?:this|that|it)\s+helps\b{_TAIL}"
    r"|(?:(?:please|just|simply|do)\s+){0,2}(?:let|feel free to let)\s+(?:me|us)\s+know\b"
    rf"{_TAIL}"
    rf"|(?:please\s+)?(?:feel free|don'?t hesitate)\s+to\s+(?:reach out|contact|ask)\b{_TAIL}"
    # a vocative left after the courtesy before it ("Thank you for waiting, Ms Raman.")
    r"|(?:mr|mrs|ms|miss|mx|dr)\.?\s+[a-z][\w'’-]+"
    rf"|(?:i|we)\s+appreciate\s+(?:your|you)\b{_TAIL}"
    r"|(?:i\s+can|i'?d\s+be\s+happy\s+to|let\s+me)\s+help(?:\s+you)?(?:\s+with\s+that)?"
    r"|you(?:'?re|\s+are)\s+(?:very\s+|most\s+|always\s+)?welcome|(?:it'?s\s+)?my\s+pleasure"
    r"|any\s?time|(?:some\s+)?(?:good|great)\s+news|good\s+timing(?:\s+to\s+ask)?"
    # reassurance about the user's worry, no content ("You're not imagining it.")
    r"|you(?:['’]re|\s+are)\s+not\s+imagining\s+(?:it|things)"
    r"|it(?:['’]s|\s+is)\s+not\s+(?:just\s+)?you|you(?:['’]re|\s+are)\s+(?:quite\s+|absolutely\s+)?right"
    # approval of the user's plan ("Good idea to check before moving any money.")
    r"|(?:that['’]s\s+a\s+|that\s+is\s+a\s+)?(?:good|great|sensible|wise|smart)\s+(?:idea|call|"
    rf"plan|thinking)(?:\s+to\b{_TAIL})?"
    r"|i\s+know\s+(?:that|this|it|an?\s+\w+(?:\s+like\s+(?:this|that))?)(?:['’]s|\s+is|\s+will\s+be|"
    r"\s+must\s+be|\s+isn['’]t)\s+(?:really\s+|so\s+|very\s+|not\s+)?"
    r"(?:disappointing|frustrating|annoying|not\s+ideal|a\s+pain|inconvenient|upsetting|stressful|"
    r"unwelcome|worrying|hard|difficult|a\s+(?:shock|surprise|worry)|what\s+you\s+(?:wanted|hoped))"
    # "that's a stressful spot to be in", "this is a worrying time"
    r"|(?:it|that|this)(?:['’]s|\s+is|\s+must\s+be|\s+sounds\s+like)\s+an?\s+(?:really\s+|very\s+)?"
    r"(?:stressful|frustrating|difficult|tough|hard|worrying|rough|upsetting|awkward)\s+"
    r"(?:spot|situation|position|time|place|thing|experience|wait|end|start|way)(?:\s+to\s+be\s+in"
    r"|\s+to\s+(?:the|your|anyone['’]s|a|any)\s+(?:day|week|morning|evening|trip|holiday))?"
    # thanks for what the user did ("Thanks for measuring up, that's really helpful")
    r"|(?:that['’]s|that\s+is|that\s+was)\s+(?:really\s+|very\s+|so\s+|super\s+)?(?:helpful|useful|"
    r"kind\s+of\s+you|thoughtful)"
    # "so let me break it down": what the answer will do next, no content
    r"|(?:so\s+|now\s+)?let\s+me\s+(?:break\s+(?:it|this|that)\s+down|explain(?:\s+(?:it|this|why))?|"
    r"walk\s+you\s+through\s+(?:it|this|that)|go\s+through\s+(?:it|this|that))"
    # a hedge on what was just said ("That's a target rather than a guarantee")
    r"|(?:that|this|it)(?:['’]s|\s+is)\s+(?:only\s+|just\s+)?(?:an?\s+)?(?:target|estimate|"
    r"guide|rough\s+guide|indication|expectation|aim)(?:\s*,)?\s+(?:rather\s+than|not)\s+an?\s+"
    r"(?:guarantee|promise|commitment)"
    # a greeting before the content ("Hi, thanks for asking", "Kia ora!")
    r"|(?:hi|hello|hey|hiya|greetings|good\s+(?:morning|afternoon|evening)|kia\s+ora|g['’]day|"
    rf"howdy|aloha|hola|bonjour|hallo|ciao)(?:\s+(?:there|all|everyone|team|folks|{_VOCATIVE}))?"
    # a welcome for another time ("we would be delighted to welcome you both another time")
    r"|(?:we|i)(?:['’]d|\s+would)?\s+(?:be\s+)?(?:delighted|happy|glad|pleased|love)\s+to\s+"
    rf"(?:welcome|see|have|host)\s+you\b{_TAIL}"
    r"|(?:i\s+)?(?:can\s+|completely\s+|totally\s+|fully\s+)?understand\s+(?:the|your)\s+"
    r"(?:worry|concern|frustration|confusion|disappointment)"
    # Wishes and farewells ("Enjoy your stay!", "Have a great day", "Safe travels").
    r"|(?:i\s+|we\s+)?(?:hope\s+you\s+)?(?:enjoy|have)\s+(?:a\s+|your\s+)?(?:(?:great|good|nice|"
    r"lovely|wonderful|pleasant|safe)\s+)?(?:stay|day|evening|weekend|week|trip|flight|journey|"
    r"meal|visit|holiday|vacation|time)\b"
    # a wish of one word ("Enjoy dessert!", "Enjoy the show!"), not an offer ("Enjoy free …")
    r"|enjoy\s+(?:your\s+|the\s+)?(?!free\b|unlimited\b|extra\b|up\b)[a-z]+(?=\s*!)"
    r"|enjoy(?:\s+(?:it|them))?(?=\s*!)"
    rf"|(?:(?:and\s+)?(?:the\s+)?best\s+of\s+|good\s+)luck(?:\s+with\b{_TAIL})?"
    # an invitation to ask for it ("Just say the word and I'll add it"), no fact
    r"|(?:just\s+)?say\s+the\s+word"
    r"|(?:safe\s+travels|bon\s+voyage|take\s+care|all\s+the\s+best|best\s+regards|cheers|"
    rf"good\s?bye|bye|welcome\s+aboard|(?:congratulations|congrats)(?:\s+on\b{_TAIL})?)"
    # Saying what cannot be said yet states nothing ("Unfortunately I can't confirm it yet").
    r"|(?:(?:sadly|unfortunately),?\s+)?(?:i|we)(?:\s+|(?=['’]))(?:can(?:no|['’])t|cannot|couldn['’]t|"
    r"(?:am|['’]m|are|['’]re)\s+(?:not\s+)?(?:un)?able\s+to)\s+(?:confirm|say|tell|verify)"
    r"(?:\s+(?:that|it|this|for\s+(?:sure|certain)))?(?:\s+(?:yet|right\s+now|at\s+the\s+moment|"
    r"just\s+now))?"
    # Declining to guess states nothing either ("I'd rather not give you a return date until
    # it's confirmed")
    r"|(?:i|we)(?:['’]d|\s+would)\s+rather\s+not\s+(?:give|guess|promise|quote|speculate|"
    rf"commit\s+to|put)\b{_TAIL}"
    # A letter's salutation before its courtesy ("Dear Ms Ferreira, thank you for your message")
    r"|dear\s+(?:(?:mr|mrs|ms|miss|mx|dr)\.?\s+)?[\w'’-]+(?:\s+[\w'’-]+)?"
    # Declining an instruction found in the data states no fact ("I haven't followed it,
    # because that would not be accurate")
    r"|(?:and\s+)?(?:i|we)\s+(?:have(?:n['’]t|\s+not)|did(?:n['’]t|\s+not)|won['’]t|will\s+not|"
    r"(?:am|['’]m)\s+not\s+going\s+to)\s+(?:follow(?:ed)?|act(?:ed)?\s+on|appl(?:y|ied)|obey(?:ed)?)"
    r"\s+(?:it|that|this|them|those)(?:\s+(?:instructions?|notes?|requests?))?"
    rf"(?:\s*,?\s*(?:because|as|since)\b{_TAIL})?"
    # A request to retry states nothing ("Please try again in a few minutes").
    rf"|(?:please\s+)?(?:try\s+again|retry|check\s+back)\b{_TAIL}"
    # An invitation to write back states nothing either ("If your bank shows the payment has
    # left, feel free to reply with the transaction reference").
    r"|(?:if\s[^,;.!?]{0,160},\s*)?(?:please\s+|just\s+)?(?:feel\s+free\s+to\s+)?"
    rf"(?:reply|write\s+back|get\s+back\s+to\s+(?:me|us)|respond\s+to\s+this)\b{_TAIL}"
)
# One or more politeness phrases and nothing else ("You're welcome, happy to help!").
# Phrases are separated by punctuation, never by a space alone: a phrase's tail runs to the
# next punctuation mark, so "I'm sorry … I'm sorry …" parses one way only (a space separator
# let the regex try every split, and a 200-character run of "I'm sorry “a" took seconds).
_NAME_ONLY = re.compile(rf"^\s*{_VOCATIVE}\s*[.!]?\s*$")
_POLITE = re.compile(
    rf"^(?:{_POLITE_CORE})(?:\s*[,.!;:][\s,.!;:]*(?:{_POLITE_CORE}|{_VOCATIVE}))*[\s,.!;:]*$",
    re.IGNORECASE,
)
_POLITE_MAX = 400
"""Longer segments are never courtesy alone (and the regex is not run on them)."""


def _courtesy(text: str) -> bool:
    """Whether `text` (stripped) is courtesy phrases and nothing else."""
    return len(text) <= _POLITE_MAX and _POLITE.match(text) is not None


_POLITE_PREFIX = re.compile(
    # "I'm happy to confirm that <claim>": the news after the courtesy is the claim (first, so
    # the plain courtesy below does not swallow the news).
    r"^(?P<lead>(?:i'?m|i am|we'?re|we are)\s+(?:so\s+|very\s+)?(?:happy|glad|pleased|"
    r"delighted|sorry)\s+to\s+(?:confirm|inform you|let you know|report|say|tell you|share)"
    r")\s+(?:that\s+)?"
    rf"|^(?P<polite>{_POLITE_CORE})\s*(?:[,;:!.—–-]+\s*(?:but\s+|and\s+)?|,?\s+but\s+)",
    re.IGNORECASE,
)
# "Here are the steps:", "Based on the passages, here is a summary:", "Method 1:".
_PREAMBLE = re.compile(
    r"^(?:(?:sure|okay|certainly)[!,.]?\s*)?(?:based on [^:]{0,120}?,\s*)?"
    r"(?:here(?:'s| is| are)\b[^:]{0,160}|(?:the )?(?:following|below)\b[^:]{0,120}"
    r"|to [^:]{0,120}?,\s*follow these steps)\s*:?$",
    re.IGNORECASE,
)
# "Based on the given passages, <claim>": where the answer says it got the claim from frames
# it; the claim is what follows (peeled off like politeness, so neither the model nor the span
# reads the frame). Attribution to reviews or a named source stays: that is part of the claim.
_ATTRIBUTION = re.compile(
    r"^(?:note:\s*)?(?:based\s+(?:up)?on|according\s+to|as\s+(?:mentioned|stated|described|shown|"
    r"noted|given)\s+in)\s+(?:the\s+|these\s+|this\s+|its\s+|their\s+)?(?:above\s+|given\s+|"
    r"provided\s+|available\s+|following\s+)?(?:passages?|data|information|context|documents?|"
    r"texts?|structured\s+data|json(?:\s+data)?|details|sources?)\b[^,;:.]{0,60}?[,:]\s+",
    re.IGNORECASE,
)
# A sentence about the context rather than the world: "Unable to answer based on given
# passages.", "The passages do not provide information on styling.", "Note: these steps are
# based on the passages provided." Nothing in it can be grounded or contradicted.
_CONTEXT_NOUN = (
    r"(?:passages?|data|information|context|documents?|texts?|sources?|structured\s+data|"
    r"json\s+data|provided)"
)
_SAYS = r"(?:provide|mention|contain|include|specify|say|state|offer|give|discuss|address|cover)"
_ABOUT_CONTEXT = re.compile(
    r"^(?:(?:note|answer):\s*|(?:therefore|however|unfortunately|additionally|also|thus|so|but)"
    r",?\s+|the answer (?:to [^:]{0,80})?is:?\s*)*(?:"
    rf"(?:i\s+am\s+|i'?m\s+)?(?:unable|not able) to (?:answer|determine|find|provide)\b.{{0,160}}"
    rf"{_CONTEXT_NOUN}\W*"
    r"|(?:an?\s+|the\s+)?(?:accurate\s+|definitive\s+|complete\s+|specific\s+|direct\s+)?"
    r"answer\s+(?:cannot|can't|could\s+not)\s+be\s+(?:provided|given|determined|found)\b"
    r"[^.!?]{0,200}"
    r"|(?:the\s+|these\s+|this\s+)?(?:given\s+|provided\s+|above\s+)?(?:passages?|data|"
    r"information|context|documents?|texts?|structured data|json data)(?:\s+provided|\s+given)?\s+"
    rf"(?:does|do|did)\s*(?:not|n't)\s+{_SAYS}\b[^.!?]{{0,200}}"
    r"|(?:none|neither)\s+of\s+the\s+(?:given\s+|provided\s+)?(?:passages?|documents?|sources?)"
    rf"\s+{_SAYS}(?:e?s)?\b[^.!?]{{0,200}}"
    r"|there\s+is\s+no\s+(?:direct\s+|specific\s+|explicit\s+|clear\s+)?(?:information|mention|"
    rf"details?|data|reference)\b[^.!?]{{0,160}}\b{_CONTEXT_NOUN}\W*"
    r"|(?:the\s+|these\s+)?(?:above\s+)?(?:steps|instructions|answers?)\s+(?:are|is)\s+based\s+on"
    r"\s+(?:the\s+)?(?:given\s+|provided\s+)?(?:passages?|data|information)\b[^.!?]{0,200}"
    r")[.!]?$",
    re.IGNORECASE,
)
# "Method 1:", "Run this:", "**Pros:**" - a label introducing what follows.
_HEADING = re.compile(r"^(?:\S+\s+){0,7}\S+:$")
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
# A bare answer, also with its pronoun and auxiliary ("Yes, you can", "No, it isn't").
_YES_NO = re.compile(
    # "Power:** not really, I'm afraid." (a bold label before the bare answer)
    r"^(?:\*{0,2}[A-Z][\w ]{0,30}:\*{0,2}\s+)?"
    r"(?:(?:sadly|unfortunately)[,!]?\s+)?(?:yes|no|yep|nope|correct|right|exactly|indeed|"
    # "Yes, a little.": a yes of degree
    r"(?:yes,?\s+)?(?:just\s+|only\s+)?(?:a\s+little|a\s+bit|slightly|somewhat)|"
    # "Not yet.", "Sadly not yet.", "I'm afraid not.": a bare answer too
    r"not\s+(?:quite\s+)?yet|not\s+quite|not\s+really|not\s+straight\s+away|not\s+at\s+the\s+moment|"
    r"not\s+(?:today|tomorrow|tonight|this\s+(?:week|weekend|time)|on\s+\w+day)|"
    r"(?:not\s+)?(?:un)?confirmed(?:\s+yet)?|"
    r"not\s+right\s+now|(?:i['’]?m\s+)?afraid\s+not(?:\s+yet)?|"
    # "Not as routed, I'm afraid.": a no to the plan as it stands
    r"not\s+as\s+(?:it\s+)?(?:stands|routed|planned|booked|things\s+stand))"
    r"(?:,\s*(?:i['’]?m\s+afraid|sadly|unfortunately|sorry))?(?:[,!]?\s*(?:you|we|it|they|that|this|"
    r"she|he|"
    r"i|there)\s+(?:can(?:not|['’]t)?|do(?:n['’]t)?|does(?:n['’]t)?|is(?:n['’]t)?|are(?:n['’]t)?|"
    r"will|won['’]t|could|may|might|should|have|has|did(?:n['’]t)?|was(?:n['’]t)?|were))?"
    r"\s*[.!,]?$",
    re.IGNORECASE,
)


# An offer, on the user's wish, to send what is already on file or the same request again ("I
# can send them over if you'd like to see them", "just say the word and I'll send the request
# again"): what the agent would do next, granting nothing. The objects are a closed list, so
# an offer of a replacement, a refund or a voucher stays a commitment.
_OFFER_OBJECT = (
    r"(?:them|it|those|these|that|this|(?:a\s+|the\s+)?cop(?:y|ies)|the\s+(?:[\w-]+\s+)?"
    r"(?:photos?|pictures?|images?|details|link|receipts?|invoices?|documents?|forms?|report|"
    r"breakdown|confirmation|statement|summary|instructions|steps|request|application|email|"
    r"message|reminder))"
)
_OFFER_DO = (
    r"(?:send|re-?send|e-?mail|forward|share|re-?submit|submit)\s+(?:you\s+)?"
    rf"{_OFFER_OBJECT}(?:\s+(?:over|across|through|again|to\s+you|by\s+e-?mail))*"
)
_OFFER_IF_LIKED = (
    r"if\s+you(?:['’]d|\s+would)\s+like(?:\s+to\s+(?:see|have|check|read|keep)\s+"
    r"(?:them|it|those|these|a\s+copy))?"
)
_ROUTINE_OFFER = re.compile(
    r"^(?:(?:just\s+)?(?:say\s+the\s+word|let\s+(?:me|us)\s+know)\s*,?\s+and\s+(?:i|we)"
    rf"(?:['’]ll|\s+will|\s+can)\s+{_OFFER_DO}"
    r"|(?:and\s+)?(?:i|we)(?:\s+can|\s+could|['’]d\s+be\s+happy\s+to|\s+would\s+be\s+happy\s+to|"
    rf"['’]m\s+happy\s+to|\s+am\s+happy\s+to)\s+(?:also\s+)?{_OFFER_DO}\s*,?\s+{_OFFER_IF_LIKED}"
    rf"|{_OFFER_IF_LIKED},\s+(?:i|we)\s+(?:can|could)\s+(?:also\s+)?{_OFFER_DO})"
    r"\s*[.!]?$",
    re.IGNORECASE,
)


_NEVER_POLITE = ("action", "commitment", "system_state")
"""Types a segment keeps even inside courtesy ("Thanks for waiting while I cancelled it")."""


def _skip_reason(seg: str) -> SkipReason | None:
    stripped = seg.strip()
    if not _WORD.search(stripped):
        return "formatting"
    if _GREETING.match(stripped):
        return "greeting"
    if _ROUTINE_OFFER.match(stripped) or (
        _courtesy(stripped) and claim_type(stripped) not in _NEVER_POLITE
    ):
        return "politeness"
    if stripped.endswith("?"):
        return "question"
    if _PREAMBLE.match(stripped) or _HEADING.match(stripped):
        return "formatting"
    if _ABOUT_CONTEXT.match(stripped):
        return "about_context"
    return None


def _is_heading_line(text: str, start: int, end: int) -> bool:
    """A markdown header, or a short Title Case line without punctuation ("Return Policy").

    "Good For Groups: Yes" holds a colon and is a key-value claim; "White represents purity"
    is lower case after its first word and is a sentence: both stay claims.
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end].strip()
    if line.startswith("#"):
        return True
    seg = text[start:end]
    words = _WORD.findall(seg)
    return (
        line.strip("*_ ") == seg.strip("*_ ")
        and 0 < len(words) <= 5
        and all(w[0].isupper() for w in words if len(w) > 3)
        and not re.search(r"[.!?;:,]", seg)
    )


# --- atomic splitting ---------------------------------------------------------------------


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_VERBS = _wordset(
    """is are was were be been being am has have had having do does did will would shall should
    can could may might must 's 're 've 'll 'd isn't aren't wasn't weren't hasn't haven't hadn't
    doesn't don't didn't won't wouldn't can't couldn't shouldn't offers offer offered provides
    provide provided includes include included serves serve served features feature featured
    contains contain contained makes make made takes take took gives give gave gets get got goes
    go went says say said shows show showed uses use used allows allow allowed requires require
    required needs need needed helps help helped becomes become became remains remain remained
    seems seem seemed leads lead led causes cause caused accepts accept accepted opens open
    opened closes close closed runs run ran sells sell sold found finds find knows know knew
    plays play played lives live lived works work worked comes come came starts start started
    returns return returned receives receive received pays pay paid means mean meant"""
)
_SUBJECT_START = re.compile(
    r"^(?:i|we|you|he|she|it|they|this|that|these|those|there|the|a|an|his|her|its|their|our|"
    r"your|my|some|many|most|all|each|every|one|both|none|nobody|nothing|neither|no|"
    r"[A-Z][\w'-]*)\b"
)
_MAX_SPLITS = 32
_CLAUSE_SPLIT = re.compile(r";\s+|,\s+(?:and|but|while|whereas)\s+|\s+and\s+(?=\S)")


def _has_verb(text: str) -> bool:
    for w in _WORD.findall(text.lower()):
        # "-ed" words count as verbs, hyphenated ones ("Asian-inspired") are adjectives.
        if w in _VERBS or (len(w) > 4 and w.endswith("ed") and "-" not in w):
            return True
        for suffix in ("'s", "'re", "'ve", "'ll", "'d", "’s", "’re", "’ve", "’ll"):
            if w.endswith(suffix) and suffix.replace("’", "'") in _VERBS:
                return True
    return False


_PRONOUN_START = re.compile(r"^(?:i|we|you|he|she|it|they|there)\b", re.IGNORECASE)


def _is_clause(text: str, *, bare_and: bool = False) -> bool:
    """Whether `text` reads as a clause: enough words, a subject-like start and a verb.

    After a bare " and " (no comma) only a pronoun counts as a subject: "dishes including
    American and Asian-inspired dishes" must stay whole, "it opens at 9 and it closes at 5"
    may split.
    """
    t = text.strip()
    start = _PRONOUN_START if bare_and else _SUBJECT_START
    return len(_WORD.findall(t)) >= 3 and bool(start.match(t)) and _has_verb(t)


_PROTECTED = re.compile(r"\"[^\"]*\"|“[^“”]*”|`[^`]*`|\([^()]*\)")


def _protected(text: str) -> list[tuple[int, int]]:
    """Regions no split may enter: quotations, inline code, parentheses."""
    out = []
    # No opening mark inside its own region: unclosed runs stay linear.
    for m in _PROTECTED.finditer(text):
        out.append((m.start(), m.end()))
    return out


# A predicate that shares the subject of the clause before it ("... and is free for members"):
# a finite verb right after " and ".
_PREDICATE_START = re.compile(
    r"^(?:is|are|was|were|has|have|had|does|did|can|cannot|will|would|should|must|may|"
    r"takes|costs|offers|includes|provides|serves|features|contains|requires|needs|accepts|"
    r"allows|opens|closes|ships|arrives|covers|comes|goes|runs|works|sells|gives|gets|makes|"
    r"uses|returns|receives|pays|charges|lasts|supports|remains|stays|becomes|holds|keeps)\b",
    re.IGNORECASE,
)
_BARE_AND = re.compile(r"\s+and\s+")
_CONDITION = re.compile(rf"\b(?:{CONDITION_OPENERS}|on\s+condition\s+that)\s+\S", re.I)
_LAST_PART = re.compile(r",|\bbut\b|\bwhile\b|\bwhereas\b")
# A clause with a short noun-phrase subject: one to three words, then a finite verb.
_NOUN_CLAUSE = re.compile(
    r"^(?:the\s+|a\s+|an\s+|your\s+|our\s+|its\s+|their\s+)?(?:[\w-]+\s+){0,2}[\w-]+\s+"
    r"(?:is|are|was|were|has|have|costs|takes|includes|offers|requires|ships|arrives|"
    r"remains|stays|will|can|cannot|must|does|did)\b",
    re.IGNORECASE,
)


def _subject_of(clause: str) -> str | None:
    """The words of a clause before its first verb ("Express delivery" of "Express delivery
    takes 1 day"), or None when the clause does not start with a subject. After a colon, the
    clause that follows it ("Your connection isn't on time: NW 1408 to Boston is delayed …"
    has the subject "NW 1408 to Boston")."""
    tail = re.split(r"[:;—–]\s+", clause)[-1]
    if tail is not clause and tail.strip() and tail != clause:
        found = _subject_of(tail)
        if found is not None:
            return found
    words = list(_WORD.finditer(clause))
    for n, m in enumerate(words):
        w = m.group(0).lower()
        if w in _VERBS or _PREDICATE_START.match(w):
            if n == 0:
                return None
            return clause[: m.start()].strip(" ,") or None
    return None


def _atomic(text: str, start: int, end: int) -> list[tuple[int, int, str | None]]:
    """Split text[start:end] at clause boundaries where both sides are clauses, at " and "
    before a predicate sharing the left clause's subject (that part carries the subject), and
    at " and " before pure politeness ("... and I understand how frustrating this is")."""
    seg = text[start:end]
    protected = _protected(seg)
    pieces: list[tuple[int, int, str | None]] = []
    cur = 0
    subject: str | None = None
    # A sentence with hundreds of separators is not prose; stop splitting it after
    # _MAX_SPLITS candidates so the clause checks stay linear in its length.
    for m in itertools.islice(_CLAUSE_SPLIT.finditer(seg), _MAX_SPLITS):
        if any(a < m.start() < b for a, b in protected):
            continue
        left, right_start = seg[cur : m.start()], m.end()
        # The right side runs to the next candidate split or the end; checking it up to the end
        # keeps "A and B and C" from splitting off a verbless "B".
        nxt = _CLAUSE_SPLIT.search(seg, right_start)
        right = seg[right_start : nxt.start() if nxt else len(seg)]
        shared: str | None = None
        if m.group(0).strip() == ";":
            ok = _has_verb(left) and _has_verb(right)
        elif _CONDITION.search(left):
            # "covered only if you declared it and we accepted it": the right side is a second
            # condition, not a claim of its own (split off, "we accepted it" reads as a done
            # action the agent claims).
            ok = False
        else:
            bare = not m.group(0).lstrip().startswith(",")
            ok = _is_clause(left) and _is_clause(right, bare_and=bare)
            if not ok and _courtesy(right.strip()):
                ok = _has_verb(left)
            if not ok and _BARE_AND.fullmatch(m.group(0)) and _NOUN_CLAUSE.match(right):
                # "... within 30 days and express shipping is free": a new subject and verb.
                # Not "..., but street and garage parking are not provided": there the words
                # right before " and " (after the last comma or "but") are a noun, no clause.
                tail = _LAST_PART.split(left)[-1]
                ok = _is_clause(left) and len(_WORD.findall(right)) >= 3 and _has_verb(tail)
            if not ok and _BARE_AND.fullmatch(m.group(0)) and _PREDICATE_START.match(right):
                shared = subject or _subject_of(left)
                ok = (
                    shared is not None
                    and _is_clause(left) | (subject is not None)
                    and len(_WORD.findall(right)) >= 2
                )
        if ok:
            pieces.append((cur, m.start(), subject))
            cur = right_start
            subject = shared
    pieces.append((cur, len(seg), subject))
    return [(start + a, start + b, subj) for a, b, subj in pieces if seg[a:b].strip()]


# --- typing ---------------------------------------------------------------------------------

_I = re.IGNORECASE
_ACTION_VERBS = (
    r"(?:refunded|sent|cancell?ed|processed|escalated|issued|updated|reset|created|booked|"
    r"scheduled|submitted|forwarded|deleted|removed|changed|applied|credited|emailed|shipped|"
    r"opened|closed|filed|added|restarted|rebooted|completed|transferred|unlocked|upgraded|"
    r"downgraded|reversed|waived|renewed|activated|deactivated|disabled|enabled|paid|replaced|"
    r"reported|notified|contacted|placed|approved|rejected|fixed|resolved|restored|migrated|"
    r"blocked|unblocked|froze|frozen|unfroze|unfrozen|locked|suspended|paused|resumed|"
    r"rescheduled|rebooked|extended|reactivated|reinstated)"
)
_ACTION = re.compile(
    rf"\b(?:i|we)(?:'ve|’ve|\s+have|\s+had)?\s+(?:just\s+|already\s+|now\s+|successfully\s+)*"
    rf"{_ACTION_VERBS}\b"
    rf"|\b(?:your|the)\s+(?:\w+\s+)?(?:order|ticket|account|request|refund|payment|subscription|"
    rf"case|password|booking|reservation|claim|return|issue|complaint|invoice|email|message|"
    rf"card|device|server|service|instance)s?\s+(?:has|have)\s+(?:now\s+|just\s+|already\s+)*"
    rf"been\s+(?:successfully\s+)?{_ACTION_VERBS}\b",
    _I,
)
_COMMITMENT = re.compile(
    r"\b(?:i|we)\s+(?:promise|guarantee)\b|\bguaranteed?\b"
    # "we'll remove the charge once your new Direct Debit is in place": a fee waived
    r"|\b(?:we|i)(?:'ll|’ll|\s+will|\s+can|\s+could|\s+are\s+going\s+to)\s+(?:\w+\s+)?"
    r"(?:remove|reverse|drop|write\s+off|take\s+off|knock\s+off|refund|cancel)\s+(?:the|this|that|"
    r"your|any)\s+(?:[\w£$€.,-]+\s+){0,2}?(?:charge|fee|penalty|surcharge|interest|fine)s?\b"
    # "I've made sure your no-claims discount will be kept in full": a favour said as done
    rf"|{MADE_SURE_WILL}"
    r"|\byou(?:'ll|’ll|\s+will)\s+(?:definitely\s+|certainly\s+|soon\s+)?(?:receive|get|be\s+"
    r"(?:refunded|credited|compensated|contacted|reimbursed|notified|issued))\b"
    r"|\b(?:we|i)(?:'ll|’ll|\s+will|\s+can|\s+could|\s+are\s+going\s+to|\s+am\s+going\s+to|"
    r"\s+shall)\s+(?:definitely\s+|certainly\s+|surely\s+|always\s+|gladly\s+|happily\s+|"
    r"also\s+|personally\s+)?"
    r"(?:find|make|offer|give|provide|refund|replace|waive|cover|send|ship|credit|compensate|"
    r"honou?r|arrange|fix|resolve|ensure|extend|reimburse|match|upgrade|deliver|sort|accept|"
    r"allow|approve|grant|let)\b"
    r"|\bwill\s+be\s+(?:fully\s+)?(?:refunded|credited|replaced|shipped|delivered|resolved|"
    r"fixed|reimbursed|waived|covered)\b"
    # "The contractor will ring you this evening", "One of our incident engineers will phone you
    # within the hour": a call promised on someone's behalf
    # ("Keisha will call you Monday morning": a person named)
    r"|\b(?:we|i|someone|somebody|(?-i:[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]{2,})?)|"
    r"one\s+of\s+(?:our|the)\s+(?:[\w-]+\s+){0,2}?[\w-]+|"
    r"(?:the|our|your|a|an)\s+(?:[\w-]+\s+){0,2}?(?:contractor|engineer|technician|manager|"
    r"advis[eo]r|agent|specialist|team|colleague|supervisor|driver|courier|roofer|plumber|"
    r"electrician|handler|surveyor|inspector|caseworker|coordinator|representative|rep|csm|"
    r"consultant|nurse|doctor|clinician|solicitor))s?"
    # ("Your CSM, Dana Whitlock, will call you"
    r"(?:,\s*[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?,)?\s+"
    r"(?:will|['’]ll|is\s+going\s+to|are\s+going\s+to)\s+(?:personally\s+|definitely\s+|"
    r"then\s+|also\s+|soon\s+)?(?:ring|phone|call|text|email|e-mail|contact|get\s+back\s+to|"
    # ("an engineer will be with you this afternoon")
    r"be\s+with|visit|come\s+out\s+to|"
    r"get\s+in\s+touch\s+with|reach\s+out\s+to)\s+you\b",
    _I,
)
_PLAN = re.compile(
    r"^(?:first|next|then|after that|finally|now)\b[,\s]+(?:i|we)(?:'ll|’ll|\s+will|\s+am going to"
    r"|\s+are going to)\b"
    r"|\bnext steps?\b|^let\s+me\b|^i(?:'ll|’ll|\s+will|\s+am going to)\s+(?:now\s+|first\s+)?"
    r"(?:check|look|investigate|review|start|begin|try|search|verify|ask|analy[sz]e)\b",
    _I,
)
_SYSTEM = re.compile(
    r"\b(?:service|system|server|api|site|website|platform|database|app|application|endpoint|"
    r"cluster|network|portal|gateway|outage)s?\s+(?:is|are|was|has\s+been|remains)\s+(?:currently\s+"
    r"|now\s+|fully\s+|back\s+)*(?:up|down|healthy|unhealthy|operational|degraded|online|offline|"
    r"available|unavailable|running|working|restored|back|stable|unstable|experiencing)\b"
    r"|\byour\s+(?:account|subscription|order|card|plan|payment|membership|license|device)\s+"
    r"(?:is|remains)\s+(?:currently\s+|now\s+|still\s+)*(?:active|inactive|suspended|locked|"
    r"enabled|disabled|valid|expired|confirmed|pending|verified|on hold|in good standing)\b",
    _I,
)
# A curly quotation may not contain another opening mark: a run of unclosed quotes is then
# scanned once, not once per mark (quadratic before).
_QUOTE = re.compile(r"\"(?:[^\"\s]+\s+){2,}[^\"]*\"|“(?:[^“”\s]+\s+){2,}[^“”]*”")
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|trillion|dozen|half|percent|quarter|"
    r"first|second|third|twice|thrice)\b"
    r"|[$€£¥]|\b(?:january|february|march|april|june|july|august|september|october|november|"
    r"december)\b",
    _I,
)
_CAUSAL = re.compile(
    r"\b(?:because|therefore|due to|leads? to|led to|as a result|results? in|resulted in|"
    r"caused|causes|thus|hence|consequently|owing to|thanks to|so that|which means)\b",
    _I,
)


def claim_type(text: str) -> ClaimType:
    """The type of one claim, by the first rule that matches (most specific first)."""
    if _INLINE_CODE.search(text):
        return "code"
    if _ACTION.search(text):
        return "action"
    if first_committed(_COMMITMENT, text):
        return "commitment"
    if _SYSTEM.search(text):
        return "system_state"
    if _QUOTE.search(text):
        return "quote"
    if _PLAN.search(text):
        return "plan"
    if _NUMBER.search(text):
        return "number"
    if _CAUSAL.search(text):
        return "causal"
    return "fact"


# --- language -------------------------------------------------------------------------------

_STOPWORDS: dict[str, frozenset[str]] = {
    "en": _wordset("the and is are was of to in that it for with you on this have be not"),
    "es": _wordset("el la los las de que y en es por con para una un del se su al lo"),
    "fr": _wordset("le la les de des et est un une que qui dans pour pas sur au du avec"),
    "de": _wordset("der die das und ist nicht ein eine zu den mit von sie auf für sich dem"),
    "it": _wordset("il la di che e è per un una non con sono del della gli le si"),
    "pt": _wordset("o a os as de que e é do da em um uma para com não no na"),
    "nl": _wordset("de het een en van is dat niet in op te met voor zijn er"),
}
# Function words of the other languages that are also English words ("As a student", "no
# problem", "go in"): they say nothing about the language, so they are not counted for either.
_ALSO_ENGLISH = _wordset("a as do no in is on to be me he we an at or so if it die den set")
_SCRIPTS = {
    "CYRILLIC": "cyrillic",
    "GREEK": "el",
    "ARABIC": "ar",
    "HEBREW": "he",
    "DEVANAGARI": "hi",
    "THAI": "th",
    "HANGUL": "ko",
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "CJK": "zh",
}


def detect_language(text: str) -> str:
    """A cheap guess: "en", a language code, or a script name ("cyrillic"); "en" when unsure.

    Non-Latin scripts are recognised by their Unicode names; among Latin-script languages by
    counting common function words. Too little text to tell counts as English.
    """
    counts: dict[str, int] = {}
    letters = 0
    for ch in text:
        if not ch.isalpha():
            continue
        letters += 1
        name = unicodedata.name(ch, "")
        for key, lang in _SCRIPTS.items():
            if name.startswith(key):
                counts[lang] = counts.get(lang, 0) + 1
                break
    if letters:
        lang, n = max(counts.items(), key=lambda kv: kv[1], default=("en", 0))
        if n / letters > 0.3:
            # Japanese text mixes kana with CJK ideographs; any kana makes it Japanese.
            return "ja" if lang == "zh" and counts.get("ja") else lang
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 4:
        return "en"
    hits = {
        lang: sum(w in sw and (lang == "en" or w not in _ALSO_ENGLISH) for w in words)
        for lang, sw in _STOPWORDS.items()
    }
    best = max(hits, key=lambda k: hits[k])
    if best != "en" and hits[best] >= 2 and hits[best] > 1.5 * hits["en"]:
        return best
    return "en"


# --- the stage ------------------------------------------------------------------------------


def _skipped(text: str, start: int, end: int, reason: SkipReason) -> SkippedSegment:
    return SkippedSegment(text=text[start:end], span=Span(start=start, end=end), reason=reason)


def extract_claims(text: str) -> ClaimExtraction:
    """Claims and skipped segments of an answer, with exact character spans into `text`."""
    if not text.strip():
        empty = [_skipped(text, 0, len(text), "empty")] if text else []
        return ClaimExtraction(claims=[], skipped=empty)

    skipped: list[SkippedSegment] = []
    claims: list[Claim] = []
    pending: tuple[int, int] | None = None  # a bare "Yes." / "No." waiting for its claim
    for seg_start, seg_end in split_sentences(text):
        code = _code_content(text, seg_start, seg_end)
        if code is not None:
            if code[1] > code[0]:
                claims.append(_claim(text, len(claims), code[0], code[1], "code"))
            continue
        start, end = _trim(text, seg_start, seg_end)
        if end <= start:
            continue
        if _is_heading_line(text, start, end):
            skipped.append(_skipped(text, start, end, "formatting"))
            continue
        if _ABOUT_CONTEXT.match(text[start:end]):
            # Whole, before atomic splitting: "... based on the passages and may not be complete."
            skipped.append(_skipped(text, start, end, "about_context"))
            continue
        if _ROUTINE_OFFER.match(text[start:end]):
            # Whole, before atomic splitting would cut "Just say the word | and I'll send it".
            skipped.append(_skipped(text, start, end, "politeness"))
            continue
        if _YES_NO.match(text[start:end]):
            # A bare "Yes." / "No." says nothing alone: it is folded into the claim after it.
            pending = (start, end) if pending is None else pending
            continue
        for a, b, subject in _content_parts(text, start, end, skipped):
            if _YES_NO.match(text[a:b]):  # "Yes, you can, and sorry about that journey."
                pending = (a, b) if pending is None else pending
                continue
            reason = _skip_reason(text[a:b])
            if reason is not None:
                skipped.append(_skipped(text, a, b, reason))
                continue
            if pending is not None:
                a, pending = pending[0], None
            statement = f"{subject} {text[a:b]}" if subject else text[a:b]
            claims.append(_claim(text, len(claims), a, b, claim_type(statement), subject))
    if pending is not None:
        # Nothing follows: the bare answer is a claim of its own (about the question).
        claims.append(_claim(text, len(claims), pending[0], pending[1], "fact"))

    language = detect_language(text)
    notes = []
    if language != "en":
        notes.append(
            f"answer language looks like '{language}', the NLI model is English-only: claims "
            "are judged 'unclear' at best and the answer is never reported as clean"
        )
    skipped.sort(key=lambda s: s.span.start)
    return ClaimExtraction(claims=claims, skipped=skipped, language=language, notes=notes)


def _content_parts(
    text: str, start: int, end: int, skipped: list[SkippedSegment]
) -> list[tuple[int, int, str | None]]:
    """Atomic parts of one segment, after peeling leading politeness off into `skipped`."""
    peeled = False
    while True:
        # Matched on a slice: `^` does not anchor at `pos` when matching inside the text.
        m = _POLITE_PREFIX.match(text[start:end])
        if not m or start + m.end() >= end:
            break
        s, e = _trim(text, start, start + m.end("polite" if m.group("polite") else "lead"))
        if e > s:
            skipped.append(_skipped(text, s, e, "politeness"))
        start += m.end()
        peeled = True
    if peeled and _NAME_ONLY.match(text[start:end]):
        # the name the courtesy was said to ("Thanks for flagging this, Alan.")
        s, e = _trim(text, start, end)
        skipped.append(_skipped(text, s, e, "politeness"))
        return []
    frame = _ATTRIBUTION.match(text[start:end])
    # A preamble ("Based on the passages, here are the steps:") is skipped whole by the caller.
    if frame and start + frame.end() < end and _skip_reason(text[start:end]) is None:
        s, e = _trim(text, start, start + frame.end())
        skipped.append(_skipped(text, s, e, "formatting"))
        start += frame.end()
    parts = []
    for a, b, subject in _atomic(text, start, end):
        a, b = _trim(text, a, b)
        # A trailing comma or semicolon belongs to the split, not to the claim.
        while b > a and (text[b - 1] in ",;" or text[b - 1].isspace()):
            b -= 1
        if b > a:
            parts.append((a, b, subject))
    return parts


def _claim(
    text: str, index: int, start: int, end: int, ctype: ClaimType, subject: str | None = None
) -> Claim:
    return Claim(
        id=f"c{index + 1}",
        text=text[start:end],
        span=Span(start=start, end=end),
        type=ctype,
        severity=SEVERITY[ctype],
        implicit_subject=subject,
    )
