"""A value corrected as it is told: the sentence said back holds the value that stands.

People correct themselves in the message ("Ayomide is 8 not 7", "…to see the whales in Percé,
non pardon, in Tadoussac", "Saturday the 9th. Nah hang on, it's the Sunday, the 10th") or in a
later one ("sorry my mistake, it is Kuala Lumpur not Singapore"). Said back as typed, the
answer names the wrong value beside the right one, or only the wrong one. So a message is read
with its repair made (the wrong value replaced, the words of the repair left out), and a
message before a correction "A not B" reads A where it said B. A value is a number, an
ordinal, a weekday, a month or a capitalised name; both sides of a correction are of one kind,
so "we are not married" or "Amersfoort, not far from me" correct nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..text import STOP_WORDS, stem, words

_MONTHS = frozenset("january february march april may june july august september october "
                    "november december".split())
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
# short forms, a value only where capitalised ("Sat", not "we sat"; "May", not "we may")
_SHORT = {**{m[:3]: "month" for m in _MONTHS}, "sept": "month", "may": "month",
          **{d[:3]: "weekday" for d in _WEEKDAYS}, "tues": "weekday", "thur": "weekday",
          "thurs": "weekday"}
_FEASTS = frozenset("easter christmas xmas diwali eid thanksgiving hanukkah ramadan halloween "
                    "passover".split())
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'd", "I'll", "OK", "Ok"})
# a value, or a name of several capitalised words ("Kuala Lumpur", "East London")
_TOKEN = re.compile(r"\d+(?:st|nd|rd|th)\b|[£$€]?\d+(?:[.,]\d+)*k?\b"
                    r"|[A-ZÀ-Ý][\w-]*(?:\s+[A-ZÀ-Ý][\w-]*)*|[^\W\d_][\w-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n)\W*$")
# "Wait no, sorry, it's", "Nah hang on, it's the", "non pardon, in", "Wait, no, I mean": a
# repair must hold a word that takes back (no, I mean, my mistake, pardon…), not an apology alone
_REPAIR = re.compile(
    r"(?:,\s*|\s+-+\s*|\s*[—–]\s*|(?<=[.!?])\s+|^)"
    r"(?P<words>(?:(?:wait|hang on|hold on|no|nah|naw|nope|non|sorry|pardon|perdón|perdon|"
    r"oops|my mistake|my bad|correction|i mean|i meant|scratch that)\b[\s,.!—–-]*)+)"
    r"(?:(?:it'?s|it is|it was|make (?:that|it))\b\s*)?"
    r"(?:(?:in|on|at|to|from|near|by)\s+)?(?:the\s+)?", re.IGNORECASE)
_TAKES_BACK = re.compile(r"\b(?:no|nah|naw|nope|non|pardon|perdón|perdon|my mistake|my bad|"
                         r"correction|i mean|i meant|scratch that)\b", re.IGNORECASE)
_OPENING_WORDS = r"(?:sorry|correction|wait|naw|nah|no|oops|my mistake|my bad|perdón|perdon|pardon)"
_OPENER = re.compile(rf"(?:^|(?<=[.!?]\s))(?:{_OPENING_WORDS}\b[\s,—–-]*)*{_OPENING_WORDS}\b"
                     r"\s*[,—–-]\s*", re.IGNORECASE)
_NOT = re.compile(r"(,?\s+)(not|no)\s+(?:the\s+)?", re.IGNORECASE)


def kind(value: str) -> str | None:
    """What a value is: number, ordinal, weekday, month, feast or name; None for a word."""
    low = value.lower()
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", low):
        return "ordinal"
    if re.fullmatch(r"[£$€]?\d+(?:[.,]\d+)*k?", low):
        return "number"
    if low in _WEEKDAYS:
        return "weekday"
    if low in _MONTHS - {"may"}:
        return "month"
    if low in _SHORT and (value[:1].isupper() or len(low) > 3 and low != "thur"):
        return _SHORT[low]
    if low in _FEASTS:
        return "feast"
    shouted = value.isupper() and (len(value) > 4 or " " in value)  # "CAN NOT BE SKIPPED"
    if value[:1].isupper() and value.split()[0] not in _NOT_NAMES and not shouted:
        return "name"
    return None


def _values_before(text: str, end: int) -> list[re.Match[str]]:
    """The values of a text before `end`; a capitalised word opening a sentence is no name."""
    out = []
    for m in _TOKEN.finditer(text, 0, end):
        k = kind(m.group())
        if k and not (k == "name" and _SENTENCE_START.search(text[:m.start()])):
            out.append(m)
    return out


def _values_after(text: str, start: int) -> tuple[list[str], int] | None:
    """The values a repair gives ("the Sunday, the 10th"), one of each kind, and where they
    end; None unless they end the sentence or a clause (", I was looking at…")."""
    found: list[str] = []
    at = start
    while True:
        m = _TOKEN.match(text, at)
        k = kind(m.group()) if m else None
        if m is None or k is None or k in {kind(v) for v in found}:
            break
        found.append(m.group())
        at = m.end()
        more = re.match(r",?\s+(?:the\s+)?", text[at:])
        nxt = _TOKEN.match(text, at + more.end()) if more else None
        if nxt is None or kind(nxt.group()) in {None, *map(kind, found)}:
            break
        at += more.end() if more else 0
    if not found or not re.match(r"\s*(?:[^\w\s'’]|$)", text[at:]):
        return None
    return found, at


def _self_repaired(text: str) -> str:
    """A message with "A. Wait no, it's B" made "B": each value given replaces the last one
    of its kind before the repair, and the repair's words go."""
    for m in _REPAIR.finditer(text):
        if not _TAKES_BACK.search(m.group("words")):
            continue
        after = _values_after(text, m.end())
        if after is None:
            continue
        given, end = after
        before = _values_before(text, m.start())
        swaps = []
        for value in given:
            same = [b for b in before if kind(b.group()) == kind(value)]
            if same:
                swaps.append((same[-1], value))
        if len(swaps) != len(given):
            continue
        out = text[:m.start()] + text[end:]
        for old, value in sorted(swaps, key=lambda s: -s[0].start()):
            out = out[:old.start()] + value + out[old.end():]
        out = re.sub(r"([.!?])\s*[.,;:]+", r"\1", out)
        return _self_repaired(out.strip())
    return text


def _not_pairs(text: str) -> list[tuple[int, int, str, str]]:
    """Each "A not B" of a text (both values of one kind; "no" between numbers alone, as in
    "Isla's 7 no 6"): where ", not B" starts and ends, A and B."""
    out = []
    for m in _NOT.finditer(text):
        before = _values_before(text, m.start())
        after = _values_after(text, m.end())
        if not before or before[-1].end() != m.start() or after is None:
            continue
        a, b = before[-1].group(), after[0][0]
        if kind(a) == kind(b) and a.lower() != b.lower() and (
                m.group(2).lower() == "not" or kind(a) in ("number", "ordinal")):
            out.append((m.start(), m.end() + text[m.end():].find(b) + len(b), a, b))
    return out


def corrections(text: str) -> list[tuple[str, str, set[str]]]:
    """The corrections "A not B" a message makes: (B, A, the stems of its other words)."""
    own = _stems(text)
    return [(b, a, own - _stems(f"{a} {b}")) for *_, a, b in _not_pairs(text)]


def _stems(text: str) -> set[str]:
    """The stems of a text's words of meaning, a possessive's ending off ("Poppy's" -> poppy)."""
    said = (w.replace("’", "'").removesuffix("'s") for w in words(text))
    return {stem(w) for w in said if w not in STOP_WORDS and len(w) > 2}


def repaired(text: str) -> str:
    """A message as it stands corrected: "Correction, Ayomide is 8 not 7" -> "Ayomide is 8";
    "…in Percé, non pardon, in Tadoussac." -> "…in Tadoussac."."""
    made = text  # "…600 a month. no wait, its 650 not 600": "not 600" goes, then the repair
    for start, end, _, _ in reversed(_not_pairs(made)):
        made = made[:start] + made[end:]
    made = _self_repaired(made)
    # the words that announce it are no part of what is said back
    return text if made == text else _OPENER.sub("", made)


def with_later(text: str, later: Sequence[str]) -> str:
    """A message read with the corrections of later ones: "I'm going to Singapore" after
    "sorry, it is Kuala Lumpur not Singapore" reads "…to Kuala Lumpur". A name is replaced
    wherever it stands; a number, day or month only in a sentence sharing another word with the
    correction (Ayomide's 7, not every 7)."""
    for message in later:
        for old, new, near in corrections(message):
            pattern = re.compile(rf"(?<![\w£$€]){re.escape(old)}(?!\w)", re.IGNORECASE)
            if kind(new) == "name":
                text = pattern.sub(new, text)
                continue
            pieces = re.split(r"(?<=[.!?])\s+", text)
            text = " ".join(pattern.sub(new, p) if near & _stems(p) else p
                            for p in pieces)
    return text


def as_corrected(told: Sequence[tuple[float | None, str]]) -> Callable[[float | None, str], str]:
    """A reader of the texts of a time: each as `repaired`, with the corrections of the
    `told` messages after it (`with_later`)."""
    fixes = sorted((ts or 0.0, text) for ts, text in told if _not_pairs(text))

    def read(ts: float | None, text: str) -> str:
        later = [t for when, t in fixes if when > (ts or 0.0)]
        return repaired(with_later(text, later) if later else text)
    return read
