"""A follow-up that names nothing is read with the memory question it follows.

"Where do we live now?" answered, then "And before?": the second message has no word of
meaning, so neither search nor the slot model can tell what it asks (the newcomer chats' dev
set holds 11 such follow-ups; 8 were answered "I don't remember" or with another sentence). A
person reads it as the same question about another time, and so does this: the question is
searched and weighed as the one before it followed by it ("Where do we live now? And
before?"); the message itself, shown and stored, is unchanged. A follow-up that names its
person only by a pronoun ("And where does she live?" after "What's my daughter's job?") is read
with the person the question before it asked about ("And where does my daughter live?").
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..memory import fact_history
from ..text import STOP_WORDS, owned, words
from . import grounded
from .answer_kinds import ASKS_NAME
from .asking import asks
from .slot_features import content

FOLLOWS_WITHIN = 30 * 60  # seconds: a follow-up answers the exchange just before it
# it turns the question before it to another time or opens as its continuation
_TURNS = re.compile(r"^\W*(?:and|but|&|what about|how about|y)\b|\b(?:before|now|previously|"
                    r"earlier|then|prior|originally|these days|nowadays|antes|ahora)\b",
                    re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:she|he|her|his|him|they|them|their)\b", re.IGNORECASE)
_NAME = re.compile(r"(?<=\w\W)(?<!\. )\b[A-Z][a-z\u00e0-\u024f]+\b")  # a capital inside
# a name the question asks about as its subject ("What does Kemal do?", "How old is Zara?")
_ASKED_NAME = re.compile(r"\b(?:does|did|is|was|has|had)\s+([A-Z][\w\u00e0-\u024f]+)\b")
_NOT_OWNED = frozenset({"last", "next", "this", "every", "yesterday", "today", "tomorrow",
                        "again", "once", "twice"})  # "what did I buy her last year"
_OWNER = re.compile(r"\b(my|our)\s+(?:\w+\s+){0,2}?(\w+?)(?:'s|\u2019s)?\b", re.IGNORECASE)


def names_nothing(text: str) -> bool:
    """True for a message with no word of meaning that turns a question to another time or
    continues it ("And before?", "what did I do before that?", "and now?")."""
    return bool(words(text)) and not content(text) and ASKS_NAME.search(text) is None \
        and _TURNS.search(text) is not None


def person_asked(question: str) -> str | None:
    """Whom a question asks about, as it names them: "my daughter" ("What's my daughter's
    job?"), "Kemal" ("What does Kemal do?"); None where it asks of the user or names no one."""
    heads = owned(question, named=False)
    if heads:
        for m in _OWNER.finditer(question):
            if m.group(2).lower() == heads[0]:
                return f"{m.group(1).lower()} {heads[0]}"
    found = _ASKED_NAME.findall(question)
    return found[0] if len(found) == 1 and found[0].lower() not in STOP_WORDS else None


def with_person(text: str, person: str) -> str:
    """`text` with its third-person pronouns read as `person` ("her christening" -> "my
    niece's christening"; "her" before a word of meaning is hers, else her)."""
    def swap(m: re.Match[str]) -> str:
        word = m.group(0).lower()
        rest = text[m.end():].split()
        after = words(rest[0])[:1] if rest else []
        owns = word in ("his", "their") or word == "her" and bool(after) and \
            after[0] not in STOP_WORDS and after[0] not in _NOT_OWNED
        return f"{person}'s" if owns else person
    return _PRONOUN.sub(swap, text)


def _names_someone(text: str) -> bool:
    """Whether a message names a person or thing of its own ("my son", "Kuba")."""
    return bool(owned(text)) or any(m.group(0).lower() not in STOP_WORDS
                                    for m in _NAME.finditer(text))


def with_previous(text: str, rows: Sequence[Mapping[str, Any]],
                  now: float | None = None) -> str:
    """The question as it is searched and weighed: `text`, or the memory question of the
    exchange just before it followed by `text` where `text` names nothing, or `text` with
    its pronouns read as the person that question asked about."""
    # only a question follows up ("Tomas changed his career!" tells, it asks of no one)
    by_pronoun = _PRONOUN.search(text) is not None and not _names_someone(text) and (
        "?" in text or asks(text))
    if not rows or not (names_nothing(text) or by_pronoun):
        return text
    last = rows[-1]
    asked = str(last.get("user_text") or "").strip()
    answered = str(last.get("assistant_text") or "")
    ts = last.get("ts")
    now = time.time() if now is None else now
    if ts is not None and now - float(ts) > FOLLOWS_WITHIN:
        return text
    if not asked or not answered.startswith(grounded.MEMORY_ANSWERS) or names_nothing(asked):
        return text
    person = person_asked(asked) if by_pronoun else None
    if person:
        return with_person(text, person)
    return f"{at_its_time(asked, text)} {text}" if names_nothing(text) else text


def at_its_time(asked: str, text: str) -> str:
    """The question before without the time words the follow-up turns from: "What dose am I
    on now?" then "And before?" asks of the past alone, "Where did I live before?" then "and
    now?" of the present alone."""
    if fact_history.asks_about_past(text):
        return fact_history.without_now(asked)
    if fact_history.asks_about_now(text):
        return fact_history.without_past(asked)
    return asked

