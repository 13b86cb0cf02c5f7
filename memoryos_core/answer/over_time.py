"""Which of the sentences that state a value holds now: the newest, or a later one that says
it changed ("I'm on Jardiance now instead of the metformin" after "I'm on metformin")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..memory import attributes, fact_history, fact_kinds
from ..text import STOP_WORDS, stem

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_QUANTITY = re.compile(r"\b\d+(?:[.,]\d+)?([^\W\d_]{1,4})\b")
_NO_UNIT = frozenset({"st", "nd", "rd", "th", "s"})  # "the 3rd", "the 90s": no quantity


def units(sentence: str) -> set[str]:
    """The units of a sentence's quantities typed as one word ("75mcg", "80kg", "5k"): a dose
    or a weight changed ("I'm taking 100mcg now" after "levothyroxine, 75mcg") shares its
    unit, not its number, with the value it replaces."""
    return {m.group(1).lower() for m in _QUANTITY.finditer(sentence)} - _NO_UNIT


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|me|my|we|we're|we've|our|us)\b",
                           re.IGNORECASE)
_BEFORE_THAT = re.compile(r"\b(?:before|prior to) (?:that|then|this)\b", re.IGNORECASE)


def _names_past(sentence: str) -> bool:
    """A sentence that names a value gone or one held before ("before that I was a teacher",
    "I grew up in Sapporo")."""
    return fact_history.names_former(sentence) or _BEFORE_THAT.search(sentence) is not None \
        or fact_history.of_childhood(sentence)


def of_its_time(stating: list[int], texts: Sequence[str], times: Sequence[float],
                past: bool) -> int:
    """Of the statements of one attribute, oldest first, the one that holds now or, for the
    past, the one before it. A statement naming a value that no longer holds ("we moved out
    of Bologna", "I quit the hotel job") is the past unless a value was said before it (the one
    it replaced), and the present only where nothing said since or with it names a value."""
    former = [j for j in stating if _names_past(texts[j])]
    current = [j for j in stating if j not in former]
    if past:
        young = [j for j in former if fact_history.of_childhood(texts[j])]
        if young:  # "I grew up in Sapporo" is itself the value before, not news of a change
            return young[-1]
        if former:  # the value said before the news that it is gone, else the news itself
            replaced = [j for j in current if times[j] < times[former[-1]]]
            return replaced[-1] if replaced else former[-1]
        return current[-2] if len(current) > 1 else current[-1]
    if current and (not former or times[current[-1]] >= times[former[-1]]):
        return current[-1]
    return stating[-1]


def named_in(sentence: str, first_words: bool = False) -> set[str]:
    """The stems of a sentence's names (a capital inside it): who or where it is about, not a
    value ("Lwazi is starting grade 7" says nothing new of Lwazi's age); `first_words`: a
    sentence's first word too, "I" and other stop words aside (whom it names)."""
    return {stem(m.group(0).lower()) for m in _WORD.finditer(sentence)
            if m.group(0)[0].isupper() and m.group(0).lower() not in STOP_WORDS and (
                first_words or m.start() and not re.search(r"[.!?]\s*$", sentence[:m.start()]))}


def updates(sentences: Sequence[str], own: Sequence[set[str]], times: Sequence[float],
            allowed: Sequence[bool], kinds: Sequence[str] | None = None) -> list[list[int]]:
    """For each sentence, the ones said after it (in a later message) that say a change and
    share a word of meaning with it (`own`: each one's, less the question's): its value ("the
    metformin", "hauling", "geology"), named again as changed; each may answer (`allowed`) or
    names whom the older one names ("Callum is switching from geology" after "…is Callum.
    He is studying geology"); where the learned fact kinds class both as one-value kinds, of
    one kind ("we are now in Edinburgh, the flat is small" is a home, no update of a job that
    said "flat"; "other", or a kind of many values, decides nothing)."""
    change = [fact_history.says_change(s) for s in sentences]
    named = [named_in(s, first_words=True) for s in sentences]
    return [[j for j in range(len(sentences))
             if times[j] > times[i] and change[j] and own[i] & own[j]
             and (allowed[j] or named[i] & named[j])
             and not (kinds and {kinds[i], kinds[j]} <= fact_kinds.ONE_VALUE
                      and kinds[i] != kinds[j])]
            for i in range(len(sentences))]


def latest(i: int, updated_by: Sequence[Sequence[int]], times: Sequence[float]) -> int:
    """The newest sentence that updates sentence i, following the chain; i if none."""
    seen = {i}
    while later := [j for j in updated_by[i] if j not in seen]:
        i = max(later, key=lambda j: (times[j], j))
        seen.add(i)
    return i


def before_now(now: int, kinds: Sequence[str], texts: Sequence[str], times: Sequence[float],
               allowed: Sequence[bool]) -> int | None:
    """For a question on the past ("What did I do before?"): given the sentence that answers
    it for now, the value before it: the latest sentence told before it of the same learned
    one-value kind and holder (a job before the job, a home before the home). Where the
    sentence found names a value gone ("I stop the high work"), the kind is its message's
    ("From Monday I am driving instructor"), and the sentence itself answers where nothing
    of that kind was told before it; None where none is."""
    former = fact_history.names_former(texts[now])
    kind = kinds[now] if kinds[now] in fact_kinds.ONE_VALUE or not former else next(
        (kinds[j] for j in range(len(texts)) if times[j] == times[now]
         and kinds[j] in fact_kinds.ONE_VALUE), "")
    if kind not in fact_kinds.ONE_VALUE:
        return now if former else None
    held = [set(t.split()) for t in texts]
    whose = attributes.holder(texts[now], kind)  # the user's job, not the father's
    # of the same message only a sentence naming the value gone ("I quit the hotel job. Now
    # I run a cooking school.", "… before that I was a teacher"), not the news said twice
    # ("writing from Toronto, we moved"); the user's own only where they speak of themselves
    # ("Tunde is a bus driver" is no job of theirs)
    older = [j for j in range(len(texts)) if kinds[j] == kind and allowed[j]
             and (times[j] < times[now] or times[j] == times[now] and not former
                  and _names_past(texts[j]))
             and not (held[j] <= held[now] or held[now] <= held[j])
             and attributes.holder(texts[j], kind) == whose
             and (whose != "self" or _FIRST_PERSON.search(texts[j]) is not None)]
    if older:
        return max(older, key=lambda j: (times[j], j))
    return now if former else None
