"""A follow-up that names nothing is read with the memory question it follows.

"Where do we live now?" answered, then "And before?": the second message has no word of
meaning, so neither search nor the slot model can tell what it asks (the newcomer chats' dev
set holds 11 such follow-ups; 8 were answered "I don't remember" or with another sentence). A
person reads it as the same question about another time, and so does this: the question is
searched and weighed as the one before it followed by it ("Where do we live now? And
before?"); the message itself, shown and stored, is unchanged.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..text import words
from . import grounded
from .answer_kinds import ASKS_NAME
from .slot import content

FOLLOWS_WITHIN = 30 * 60  # seconds: a follow-up answers the exchange just before it
# it turns the question before it to another time or opens as its continuation
_TURNS = re.compile(r"^\W*(?:and|but|&|what about|how about|y)\b|\b(?:before|now|previously|"
                    r"earlier|then|prior|originally|these days|nowadays|antes|ahora)\b",
                    re.IGNORECASE)
_MEMORY_ANSWER = ("You told me", grounded.NOT_SURE, grounded.DONT_REMEMBER)


def names_nothing(text: str) -> bool:
    """True for a message with no word of meaning that turns a question to another time or
    continues it ("And before?", "what did I do before that?", "and now?")."""
    return bool(words(text)) and not content(text) and ASKS_NAME.search(text) is None \
        and _TURNS.search(text) is not None


def with_previous(text: str, rows: Sequence[Mapping[str, Any]],
                  now: float | None = None) -> str:
    """The question as it is searched and weighed: `text`, or the memory question of the
    exchange just before it followed by `text` where `text` names nothing."""
    if not rows or not names_nothing(text):
        return text
    last = rows[-1]
    asked = str(last.get("user_text") or "").strip()
    answered = str(last.get("assistant_text") or "")
    ts = last.get("ts")
    now = time.time() if now is None else now
    if ts is not None and now - float(ts) > FOLLOWS_WITHIN:
        return text
    if not asked or not answered.startswith(_MEMORY_ANSWER) or names_nothing(asked):
        return text
    return f"{asked} {text}"
