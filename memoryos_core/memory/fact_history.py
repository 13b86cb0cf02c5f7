"""Facts over time: when a newer fact replaces an older one, and which questions ask the past.

A fact holds from the turn that said it (`valid_from`) until a later turn says otherwise
(`valid_until`, with `superseded_by` naming the newer fact); the older fact is kept as history.
Without a chat model the rule is extractive: the two facts are about the same subject (their
embeddings are close, yet not so close that they are one fact said twice, which is merged) and
each names a value the other lacks (numbers, names, content words). With a model, the fact
extraction call is shown the related facts and says which one a new fact replaces.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from ..storage.tables.facts import Fact
from ..text import STOP_WORDS, words
from ..timeframe import named_period
from . import attributes
from .grounding import GENERIC, _stem

# Lower bound of the cosine band of "the same subject" (all-MiniLM-L6-v2); the upper bound is
# the merge threshold (fact_merge_similarity). Tuned on the 3 LoCoMo dev conversations with
# benchmarks/supersession.py (docs/benchmarks.md, "Facts over time").
SAME_SUBJECT = 0.55

# words that say a value no longer holds ("I used to drive a Volvo", "no longer")
_NO_LONGER = r"used to|use to|previously|formerly|former|no longer|anymore|any more"
_PAST = re.compile(
    rf"\b(before|b4|{_NO_LONGER}|previous|earlier|originally|at first|in the past|back then|"
    r"back when|last year|ago|prior|(?<!how )old)\b", re.IGNORECASE)
# words that say a state changed ("I sold the Subaru", "now", "moved to Denver")
_CHANGE = re.compile(
    r"\b(now|new|newly|no longer|anymore|any more|sold|moved|switched|changed|quit|replaced|"
    r"upgraded|instead|these days|nowadays|broke up|divorced)\b", re.IGNORECASE)
# number words ("one" is left out: mostly a pronoun, "the one I just bought")
_NUMBER_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11",
                 "twelve": "12", "twenty": "20", "hundred": "100"}
# names of a date, stemmed as `values` gives them: when something happened, not what it is
_DATE_NAMES = frozenset(_stem(w) for w in (
    "january february march april may june july august september october november december"
    " monday tuesday wednesday thursday friday saturday sunday christmas easter").split())
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"'(]\s*)$")


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in words(text)}


def values(text: str) -> set[str]:
    """The words that name a value: numbers (digits or number words) and names (a capital
    inside a sentence: 'Subaru', 'Denver', 'Coldplay'), stemmed and lower-cased."""
    out = set()
    for match in _TOKEN.finditer(text):
        word = match.group(0)
        low = word.lower().replace("’", "'")
        if any(c.isdigit() for c in word) or low in _NUMBER_WORDS:
            out.add(_NUMBER_WORDS.get(low, low))
        elif word[0].isupper() and low not in STOP_WORDS and low not in ("i", "i'm", "i've") \
                and not _SENTENCE_START.search(text[: match.start()]):
            out.add(_stem(low))
    return out


def subject_words(text: str) -> set[str]:
    """Content words (stemmed), which two statements on one subject share."""
    return {_stem(w) for w in words(text)
            if len(w) > 2 and w not in STOP_WORDS and w not in GENERIC and not w.isdigit()}


def numbers_differ(old: str, new: str) -> bool:
    """True when each text holds a number the other lacks ('for 6 months' -> 'for 9 months')."""
    a = {v for v in values(old) if v[0].isdigit()}
    b = {v for v in values(new) if v[0].isdigit()}
    return bool(a - b) and bool(b - a)


def same_subject_other_value(old: str, new: str, cos: float, merge: float,
                             least: float = SAME_SUBJECT) -> bool:
    """The extractive rule: the newer statement is on the older one's subject and names another
    value.

    At or above the merge similarity only numbers tell an update from a repetition. Within the
    band, the two share a content word (the subject), the newer names a value (number or name)
    the older does not mention, and either the older names one the newer drops or the newer
    says that something changed ("now", "sold", "moved").
    """
    if cos >= merge:
        return numbers_differ(old, new)
    if cos < least or not subject_words(old) & subject_words(new):
        return False
    gained = {v for v in values(new) if v not in _stems(old) and v not in words(old)}
    dropped = {v for v in values(old) if v not in _stems(new) and v not in words(new)}
    return bool(gained) and (bool(dropped) or _CHANGE.search(new) is not None)


def _names(text: str) -> set[str]:
    """`values` and the names written with a capital inside ("iPhone", "eBay"), even first."""
    return values(text) | {_stem(m.group(0).lower()) for m in _TOKEN.finditer(text)
                           if any(c.isupper() for c in m.group(0)[1:])}


def other_value(old: str, new: str, attribute: str) -> bool:
    """The attribute rule: the newer statement of the same attribute names another value.

    A single-valued attribute (a home, a job) changes when the numbers differ, or when the
    newer names a name the older lacks and either the older names one the newer drops or the
    newer says a change ("moved", "now"). A date is no value ("my exams start in June"), and
    without a name nothing is replaced: "I won't quit" after "I lost my job" says no new job
    (LoCoMo dev: taking another content word with a change word as a value caught 3 more
    written updates and made 22 false replacements). A pet is replaced only when the numbers
    differ or the older one is said to be gone.
    """
    if numbers_differ(old, new):
        return True
    gained = {v for v in _names(new) if v not in _stems(old) and v not in words(old)
              and not v[0].isdigit() and v not in _DATE_NAMES}
    if not attributes.single_valued(attribute):
        return bool(gained) and attributes.says_gone(new)
    dropped = {v for v in _names(old) if v not in _stems(new) and v not in words(new)}
    return bool(gained) and (bool(dropped) or _CHANGE.search(new) is not None)


def replaces(old: str, new: str, cos: float, merge: float, old_attrs: dict[str, float],
             new_attrs: dict[str, float], least: float = SAME_SUBJECT) -> bool:
    """Whether the newer statement replaces the older: by the attribute rule when both are
    about an attribute (`attributes.classify`), else by the extractive rule.

    Two statements share an attribute when one of each one's near attributes is the same and
    its holder is too ("my sister lives in Rome" is not the user's home); statements of
    different attributes never replace each other.
    """
    if not old_attrs or not new_attrs:
        return same_subject_other_value(old, new, cos, merge, least)
    shared = sorted(set(old_attrs) & set(new_attrs), key=lambda a: -old_attrs[a] - new_attrs[a])
    shared = [a for a in shared if attributes.holder(old, a) == attributes.holder(new, a)]
    if not shared:
        return False
    if cos >= merge:
        return numbers_differ(old, new)
    return other_value(old, new, shared[0])


def to_replace(scored: list[tuple[float, dict[str, Any]]], text: str,
               attrs: dict[str, float], merge: float,
               least: float = SAME_SUBJECT) -> list[dict[str, Any]]:
    """The current facts a new statement replaces, given them with their cosine to it
    (closest first), each with its "attrs" (`attributes.classify`; {} when the new statement
    has none): every fact of its attribute with another value (an attribute holds one), else
    the closest the extractive rule matches."""
    found = [k for cos, k in scored
             if replaces(k["text"], text, cos, merge, k.get("attrs") or {}, attrs, least)]
    by_attribute = [k for k in found if k.get("attrs") and attrs]
    return by_attribute or found[:1]


def holds_at(row: dict[str, Any], when: float) -> bool:
    """True when a stored fact was still current at `when` (a duplicate said then joins it)."""
    until = row.get("valid_until")
    return until is None or when < float(until)


# words that put the value a sentence names in the past: "I quit the hotel job", "we moved out
# of Bologna", "I used to drive a Volvo" name what no longer holds, not what holds now
_FORMER = re.compile(rf"\b({_NO_LONGER}|ex-|quit|left|moved (?:out|away)|moved from|sold|"
                     r"gave up|stopped)\b", re.IGNORECASE)


def names_former(sentence: str) -> bool:
    """True when a sentence names a value that no longer holds ("I quit the hotel job")."""
    return _FORMER.search(sentence) is not None


def ends_value(old: str, new: str) -> bool:
    """True when the newer statement says a value the older names is gone, as the object of
    its gone word ("I sold the Clio!" ends "I drive an old Renault Clio.", "I'm no longer at
    Café Lumen" ends "I'm a barista at Café Lumen."); "I left my umbrella at Leeds General"
    ends nothing: a thing of its own stands between."""
    named = values(old)
    for gone in _FORMER.finditer(new):
        for k, match in enumerate(_TOKEN.finditer(new[gone.end():])):
            word = match.group(0)
            low = word.lower()
            if _stem(low) in named and word[0].isupper():
                return True
            if k >= 3 or not (low in STOP_WORDS or low.endswith("ing")):
                break
    return False


# the same, and a change under way ("he is switching from geology to civil engineering")
_CHANGING = re.compile(r"\b(?:switching|changing|started|starting)\b", re.IGNORECASE)


def says_change(sentence: str) -> bool:
    """True when a sentence says something changed ("now", "new", "instead", "switching")."""
    return _CHANGE.search(sentence) is not None or _CHANGING.search(sentence) is not None


# words that ask what holds now, knowing it may have changed ("Where do I live now?", "what
# am I hauling these days", "Where is my new job?")
_NOW = re.compile(r"\b(?:now|these days|nowadays|currently|at the moment|still|anymore|"
                  r"any more|rn|new|latest)\b", re.IGNORECASE)


def asks_about_now(query: str) -> bool:
    """True when a question asks what holds now ("now", "these days", "still", "new")."""
    return _NOW.search(query) is not None


# words that place a state in childhood ("I grew up in Sapporo", "I was born in Lagos"):
# a value held before, beside the one that holds now, even when told in the same message
_CHILDHOOD = re.compile(r"\b(?:gr[eo]w(?:n|ing)? up|born|(?:was|were)(?: i| we| you)? raised|"
                        r"raised (?:in|by)|brought up|"
                        r"as a (?:kid|child|boy|girl|teen(?:ager)?)|in my childhood|"
                        r"when i was (?:young|little|small|a (?:kid|child|boy|girl)))\b",
                        re.IGNORECASE)


def of_childhood(text: str) -> bool:
    """True when a sentence or question places a state in childhood ("where did I grow up")."""
    return _CHILDHOOD.search(text) is not None


def asks_about_past(query: str) -> bool:
    """True when a question asks about an earlier state ("before", "used to", "previous")."""
    return _PAST.search(query) is not None


def asks_of_earlier(query: str) -> bool:
    """True when a question asks about an earlier state, childhood included ("where was I born")."""
    return asks_about_past(query) or of_childhood(query)


_BEFORE_WHAT = re.compile(r"\b(?:before|b4|prior to|until)\s+((?:[\w'\u2019-]+\s*){1,4})",
                          re.IGNORECASE)


def past_reference(query: str) -> str:
    """What a question on the past names as what came after ("What did I drive before the
    Ranger?" -> "the Ranger"): the sentence naming it is the new value, not the asked one."""
    m = _BEFORE_WHAT.search(query)
    return m.group(1).strip() if m else ""


def without_now(query: str) -> str:
    """`query` less its words asking what holds now."""
    return _tidy(_NOW.sub("", query))


def without_past(query: str) -> str:
    """`query` less its words asking about an earlier state."""
    return _tidy(_PAST.sub("", query))


def _tidy(query: str) -> str:
    """A query with words cut out, its spaces closed up."""
    return re.sub(r"\s+(?=[?.!,])", "", re.sub(r"\s{2,}", " ", query)).strip()


def past_window(query: str, now: float) -> tuple[float, float] | None:
    """The span of time whose replaced facts a question may want: all of it for "before" and
    its kin, a named period's span ("in May 2023"), else None (current facts only)."""
    if asks_about_past(query):
        return (float("-inf"), float("inf"))
    return named_period(query, now)


def held_during(row: dict[str, Any], window: tuple[float, float]) -> bool:
    """True when a fact's validity overlaps the window."""
    start = float(row.get("valid_from") or row.get("created_at") or 0.0)
    until = row.get("valid_until")
    end = float("inf") if until is None else float(until)
    return start < window[1] and end > window[0]


def date_label(ts: float) -> str:
    """A day as facts show it, e.g. '12 May 2023'."""
    d = dt.datetime.fromtimestamp(ts, tz=dt.UTC)
    return f"{d.day} {d:%B %Y}"


def timeline(facts: Iterable[Fact]) -> list[tuple[Fact, list[Fact]]]:
    """Facts with their history: each current fact (or replaced fact whose successor is gone)
    with the chain of the values it replaced, newest first, each with its dates."""
    facts = list(facts)
    by_id = {f.id: f for f in facts}
    before: dict[int, list[Fact]] = {}
    for f in facts:
        if f.superseded_by is not None and f.superseded_by in by_id:
            before.setdefault(f.superseded_by, []).append(f)
    out = []
    for f in facts:
        if f.superseded_by is not None and f.superseded_by in by_id:
            continue  # shown in the history of the fact that replaced it
        chain: list[Fact] = []
        todo = sorted(before.get(f.id, []), key=lambda x: -(x.valid_until or 0.0))
        seen = {f.id}
        while todo:
            older = todo.pop(0)
            if older.id in seen:
                continue
            seen.add(older.id)
            chain.append(older)
            todo = sorted(todo + before.get(older.id, []), key=lambda x: -(x.valid_until or 0.0))
        out.append((f, chain))
    return out
