"""The app's own words in an answer: text the app wrote or quoted from memory, never a fact.

The answer path can put its own text where the model's answer goes: a fallback listing memory
lines ("Here is what I remember that may answer this:"), a "nothing found" line, an appended
evidence line ("(What I remember: 8 May 2023, Monday, you said: "...")") and answers built from
memory ("You told me on 3 December 2026 that ...", "I don't remember you telling me that.").
Such text is kept as the exchange's answer, but analysis must never store it as the
assistant's fact (nor as the user's: it quotes memory, it is no new statement). The patterns
live here, once, for the answer path and analysis alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .grounding import _stem, content_words

FALLBACK_HEAD = "Here is what I remember that may answer this:"
NOTHING_FOUND = "I don't find anything about that in my memory of our conversations."
NOT_TOLD = "I don't remember you telling me that."
EVIDENCE_OPEN = "(What I remember:"

# an evidence line appended to an answer: from its own line to the end of the text
_EVIDENCE_LINE = re.compile(r"\s*\n\(What I remember: .*\Z", re.DOTALL)
# the fallback block: its head line and the "- " memory lines after it
_FALLBACK_BLOCK = re.compile(re.escape(FALLBACK_HEAD) + r"[ \t]*(?:\n[ \t]*- [^\n]*)*")
# a memory line quoted with its day: '25 October 2026, Sunday, you said: "..."'
_YOU_SAID = re.compile(r"\b\d{1,2} [A-Z][a-z]+ \d{4}, [A-Z][a-z]+, you said: [\"“]")
# answers built from memory, each its own sentence: "You told me on 3 December 2026 that ..."
_BUILT = re.compile(
    r"^\s*(?:you told me\b|you said\b[^.?!]{0,60}\bthat\b|you mentioned\b[^.?!]{0,60}\bthat\b|"
    r"i don['’]t remember you (?:telling|saying|mentioning)\b|"
    r"i don['’]t find anything about that in my memory\b|"
    r"here is what i remember\b|\(?what i remember:)", re.IGNORECASE)
COPY_SHARE = 0.75  # an assistant sentence whose content words are this much one user line's
COPY_LEAST_WORDS = 2  # ... and that has at least this many content words


def strip_app_text(text: str) -> str:
    """The answer without the app's additions: an appended "(What I remember: ...)" line and
    the fallback block of memory lines are removed (what is left may be empty)."""
    text = _EVIDENCE_LINE.sub("", text)
    text = _FALLBACK_BLOCK.sub("", text)
    return text.strip()


def without_evidence(text: str) -> str:
    """The answer without an appended "(What I remember: ...)" line (what earlier versions
    stored as part of the answer); a text without one is returned as it is."""
    stripped = _EVIDENCE_LINE.sub("", text)
    return text if stripped == text else stripped.rstrip()


def is_app_text(text: str) -> bool:
    """True when a text (an answer, a sentence, a fact) is the app's own: a fallback, a quoted
    memory line, an evidence line, or an answer built from memory."""
    low = " ".join(text.split()).lower()
    if not low:
        return False
    if FALLBACK_HEAD.lower() in low or NOTHING_FOUND.lower() in low \
            or EVIDENCE_OPEN.lower() in low or NOT_TOLD.lower() in low:
        return True
    return bool(_YOU_SAID.search(text) or _BUILT.search(text))


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def analysable_reply(text: str) -> str:
    """The assistant's own words of an answer, for analysis: the app's additions stripped and
    every sentence that is app text (a built answer, a quoted memory line) left out."""
    kept = [s for s in _SENTENCE.split(strip_app_text(text)) if s.strip() and not is_app_text(s)]
    return " ".join(s.strip() for s in kept)


def copies_user(text: str, user_lines: Iterable[str]) -> bool:
    """True when a text is mostly a copy of one of the user's lines: three quarters or more of
    its content words (stemmed) occur in that line ("You live in Paris near the canal." after
    "I live in Paris near the canal.")."""
    mine = {_stem(w) for w in content_words(text)}
    if len(mine) < COPY_LEAST_WORDS:
        return False
    for line in user_lines:
        theirs = {_stem(w) for w in content_words(line)}
        if theirs and len(mine & theirs) >= COPY_SHARE * len(mine):
            return True
    return False


def without_app_facts(facts: dict[str, list[dict[str, Any]]],
                      pages: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The facts of one analysis less the app's text, and less the assistant facts that copy
    a user line of the pages analysed (a small model often says the user's words back)."""
    user_lines = [str(p["user_text"]) for p in pages]
    return {"user": [f for f in facts["user"] if not is_app_text(f["text"])],
            "assistant": [f for f in facts["assistant"] if not is_app_text(f["text"])
                          and not copies_user(f["text"], user_lines)]}
