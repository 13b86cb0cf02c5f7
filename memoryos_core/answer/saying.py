"""A user's sentence said back to them: turned to "you" where it is a clause of theirs
("I live in Osaka" -> "that you live in Osaka"), with when it was said."""

from __future__ import annotations

import datetime as dt
import re
import time

from ..text import STOP_WORDS, casual_restored, words

# "you" said to the assistant: reflected only where the sentence has none (quoted otherwise)
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "you're", "you've", "you'd",
                           "you'll", "u"})
_REFLECT = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
            "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "am": "are",
            "was": "were", "wasn't": "weren't", "we": "you", "us": "you", "our": "your",
            "ours": "yours", "ourselves": "yourselves", "we're": "you're", "we've": "you've",
            "we'd": "you'd", "we'll": "you'll"}


# Said back after "that", a sentence must be a clause with a subject: "I live in Osaka" -> "that
# you live in Osaka". A fragment ("live in osaka", "a cat called Troll", "Brewmaster at a small
# brewery") made "that" broken English in about 40 of the dev chats' 468 said-back sentences;
# a sentence that does not open with its subject is quoted as typed, which is never wrong.
_OPENER = r"^\W*(?:(?:[^,.!?]{1,25},\s*){1,2}|(?:and|but|so|also|now|then|plus|btw|oh|well)\s+)?"
_SUBJECT = re.compile(
    _OPENER + r"(?:(?:I|I['’](?:m|ve|d|ll)|we|we['’](?:re|ve|d|ll)|me and)\b"
    r"|(?:my\s+)?[^\W\d_][\w-]* and (?:I|me)\b"  # "Marit and I plan to…", "my wife and I"
    r"|(?:my|our)\b.*?\b(?:is|are|was|were|has|have|had|will|can|does|did)\b"
    r"|(?:my|our)\s+[^\W\d_]+['’]s\b"
    r"|(?:my|our)\s+[^\W\d_]+\s+[^\W\d_]{2,}s\b"  # "my dad drives road trains"
    # a name doing something: "Mara moved to Lisbon", "Sahara is very fast", "Radek's birthday"
    r"|(?-i:[A-Z])[^\W\d_]+(?<!ed)(?<!ing)(?:['’]s\b|\s+(?:is|are|was|were|has|had|will|can"
    r"|[^\W\d_]+ed|[^\W\d_]+s)\b))", re.IGNORECASE)


def reflected_clause(sentence: str) -> str | None:
    """The sentence reflected (`reflect`) where it opens with its subject, else None."""
    restored = casual_restored(sentence)
    return _reflected(restored) if _SUBJECT.search(restored) else None


def reflect(sentence: str) -> str | None:
    """The user's sentence said back to them ("My car is…" -> "your car is…"); None when it
    speaks to the assistant ("you"), which is quoted instead."""
    return _reflected(casual_restored(sentence))  # "im allergic" -> "you're allergic"


def _reflected(sentence: str) -> str | None:
    """`reflect` of a sentence whose casual typing is restored already."""
    said = words(sentence)
    if any(w in SECOND_PERSON for w in said):
        return None

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        low = word.lower().replace("’", "'")
        return _REFLECT.get(low, word) if low in _REFLECT else word

    # "was"/"am" change only after "I"; other words of _REFLECT change everywhere
    text = re.sub(r"\bI\s+(was|am|wasn't)\b", lambda m: "I " + {"was": "were", "am": "are",
                  "wasn't": "weren't"}[m.group(1).lower()], sentence, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:I['’](?:m|ve|d|ll)|we['’](?:re|ve|d|ll)|I|me|my|mine|myself|we|our"
                  r"|ours|ourselves)\b", swap, text, flags=re.IGNORECASE)
    return re.sub(r"\bus\b", "you", text)  # lower case only: "the US" stays


def opening_lowered(text: str) -> str:
    """The sentence's first word lower-cased where it is a common word, not a name."""
    first = text.split(" ", 1)[0]
    if first.lower().strip(",") in STOP_WORDS | {"your", "you", "you're", "last", "yesterday",
                                                 "today", "tomorrow"}:
        return first.lower() + text[len(first):]
    return text


def spoken_date(ts: float | None, now: float | None = None) -> str:
    """' on 3 December 2026', or ' earlier today' for what was said today."""
    if ts is None:
        return ""
    d = dt.datetime.fromtimestamp(ts, tz=dt.UTC)
    if d.date() == dt.datetime.fromtimestamp(time.time() if now is None else now,
                                             tz=dt.UTC).date():
        return " earlier today"
    return f" on {d.day} {d:%B %Y}"
