"""Is a model-written text true to its pages? Echoes of our own prompts and ungrounded words.

Small models often copy the instructions they were given ("Reply with JSON", "[topic2]") or
write generic text that names nothing from the dialogue. Memory stores only what the dialogue
says: a summary, fact or profile reason must not echo a prompt and most of its content words
must occur in the pages it is about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..text import STOP_WORDS, words

# Phrases of our maintenance prompts and JSON schemas; a stored text holding one is an echo.
INSTRUCTION_PHRASES = (
    "reply with json", "json object", "continues_previous", "user_facts", "assistant_facts",
    "dialogue pages", "new pages", "previous page", "page numbers", "page number", "topic1",
    "topic2", "topic 1", "topic 2", "one or two topics", "next topic", "3-6 keywords",
    "short summary", "one-line reason", "allowed dimensions", "allowed list", "supporting pages",
    "durable facts", "who they are", "what they did", "one short sentence", "at most 8",
    "the ids of", "conversation memory", "structured profile", "profile dimensions",
    "exactly one topic", "leave a list empty", "overview so far", "goes on with the previous",
    "naming its people", "names what its pages say", "in your own words", "nothing fits",
    "something the user said", "something the assistant said", "the page ids",
)
_PLACEHOLDER = re.compile(r"\[(?:topic|summary|keyword|page|fact|name|reason)[^\]]*\]|<[a-z_ ]+>",
                          re.IGNORECASE)
GENERIC = frozenset(
    """user assistant conversation dialogue talk talks talked talking discuss discusses discussed
    discussion chat chats chatting page pages topic topics summary summaries mention mentions
    mentioned share shares shared sharing person people someone something about various different
    general specific other others both each user's assistant's""".split()
)
SUMMARY_GROUNDING = 0.5  # share of a summary's content words that must occur in its pages
FACT_GROUNDING = 0.6
REASON_GROUNDING = 0.5


def content_words(text: str, ignore: Iterable[str] = ()) -> list[str]:
    """The words that carry content: no stop words, no generic dialogue words, not `ignore`."""
    skip = {w.lower() for w in ignore}
    return [w for w in words(text) if len(w) > 2 and w not in STOP_WORDS and w not in GENERIC
            and w not in skip and not w.isdigit()]


def _stem(word: str) -> str:
    """A crude stem so 'painting', 'painted' and 'paints' meet."""
    for suffix in ("ings", "ing", "ied", "ies", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def echo(text: str) -> str | None:
    """The prompt phrase or placeholder a text copies, or None."""
    low = " ".join(text.lower().split())
    for phrase in INSTRUCTION_PHRASES:
        if phrase in low:
            return phrase
    match = _PLACEHOLDER.search(text)
    return match.group(0) if match else None


def grounding(text: str, source: str, ignore: Iterable[str] = ()) -> float:
    """Share of the text's content words (stemmed) that occur in `source`; 0 with none."""
    mine = content_words(text, ignore)
    if not mine:
        return 0.0
    theirs = {_stem(w) for w in words(source)}
    return sum(1 for w in mine if _stem(w) in theirs) / len(mine)


def check(text: str, source: str, least: float, what: str, ignore: Iterable[str] = ()) -> None:
    """ValueError when `text` echoes a prompt or is not grounded in `source`."""
    copied = echo(text)
    if copied:
        raise ValueError(f"{what} repeats the instructions ({copied!r}); write it from the pages")
    share = grounding(text, source, ignore)
    if share < least:
        raise ValueError(f"{what} {text[:80]!r} names too little of its pages"
                         f" ({share:.0%} of its words occur there)")


def is_true_to(text: str, source: str, least: float, ignore: Iterable[str] = ()) -> bool:
    """True when `text` neither echoes a prompt nor lacks grounding in `source`."""
    try:
        check(text, source, least, "text", ignore)
    except ValueError:
        return False
    return True
