"""Answers a small model cannot get wrong: a question on memory is answered from memory itself.

A 135M model given the right memory line still writes "The user asked about a car, and the
assistant provided a list of options." (measured: 2 of 8 facts right in its own words). So with
the embedded model a question about what the user said is answered with the memory line that
holds it, said back as a sentence ("You told me on 25 October 2026 that your car is a green
2014 Subaru Outback."), or "I don't remember you telling me that." when memory holds nothing
that answers it; the model writes only small talk and general replies. Which sentence: the
user's own sentences of the pages the prompt holds and the facts it holds, ranked by the
question's distinctive words and by meaning (MiniLM), the newest of near-equals first.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..llm import Embedder
from ..memory import attributes
from ..memory.fact_history import asks_about_past
from ..memory.grounding import grounding
from ..text import STOP_WORDS, sentences, stem, stems_held, words
from . import courtesy
from .types import Retrieval

DONT_REMEMBER = "I don't remember you telling me that."
CANDIDATE_PAGES = 6  # pages of the prompt whose sentences may answer
KEYWORD_WEIGHT = 0.25  # a distinctive word of the question held, on top of the cosine
MEANING_ONLY_COS = 0.45  # a sentence found by meaning alone must be this close to the question
CLEAR_COS, CLEAR_LEAD = 0.3, 0.1  # ...or this close and this far ahead of every other one
FACT_COS = 0.3  # a fact retrieval put in the prompt (it scored, or is the asked attribute's)
FACT_BONUS = 0.1  # a fact is the distilled statement: it leads a page sentence saying the same
NEAR_EQUAL = 0.08  # candidates this close to the best: the newest one answers (facts change)
MAX_SENTENCE_CHARS = 600  # longer ones (a pasted document) are never said back: nor cut

# "me" is left out: "Can you give me ideas for dinner?" asks for help, not for memory
FIRST_PERSON = frozenset({"i", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})
QUESTION_STARTS = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "why",
                             "how", "do", "does", "did", "is", "are", "was", "were", "can",
                             "could", "have", "has", "had", "remind"})
# first-person questions that ask for advice, not for what the user said
_ADVICE = re.compile(r"^\s*(?:how\s+(?:do|can|could|should|would)|should|can|could|would|shall"
                     r"|must|what\s+should|where\s+(?:can|should)|when\s+should)\s+i\b",
                     re.IGNORECASE)
# "you" said to the assistant: reflected only where the sentence has none (quoted otherwise)
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "you're", "you've", "you'd",
                           "you'll", "u"})
_REFLECT = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
            "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "am": "are",
            "was": "were", "wasn't": "weren't", "we": "you", "us": "you", "our": "your",
            "ours": "yours", "ourselves": "yourselves", "we're": "you're", "we've": "you've",
            "we'd": "you'd", "we'll": "you'll"}
# openings that join a sentence to the talk, not to the fact: "Oh, by the way, speaking of
# bikes, I just got a new one" is said back as "you just got a new one"
_INTERJECTION = re.compile(r"^(?:(?:oh|well|yeah|yes|wow|hey|so|haha|lol|ok|okay|um|hmm|"
                           r"ah|aw|omg|actually|honestly|anyway|btw|by the way|also)\b[\s,!.]*"
                           r"|speaking of [^,.!?]{1,40},\s*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Evidence:
    """The memory sentence that answers a question, where it came from and how it scored."""

    sentence: str
    page_id: int | None
    fact_id: int | None
    timestamp: float | None
    score: float
    keyword_hits: int


@dataclass(frozen=True)
class Plan:
    """How a message is answered: `kind` memory (from memory), general or chat (the model)."""

    kind: str  # memory | courtesy (both built, no model call) | general | chat
    evidence: Evidence | None = None
    built: str | None = None  # a courtesy reply, or what memory holds of the user

    @property
    def text(self) -> str:
        """The built answer ('' for the model's kinds)."""
        if self.built:
            return self.built
        if self.kind != "memory":
            return ""
        return said_back(self.evidence) if self.evidence else DONT_REMEMBER


def is_question(text: str) -> bool:
    """A question or a request to recall: a '?' or a question word first."""
    said = words(text)
    return bool(said) and ("?" in text or said[0] in QUESTION_STARTS)


def asks_about_user(question: str) -> bool:
    """A question about the user's own life: a question in the first person ("What do I do
    for a living?"), not one asking for advice ("How do I cook rice?" is "my" free)."""
    said = words(question)
    if not is_question(question) or not any(w in FIRST_PERSON for w in said):
        return False
    return "my" in said or "mine" in said or not _ADVICE.match(question)


_TO_ASSISTANT = re.compile(r"\b(?:are|do|can|could|will|would|have|did|were)\s+you\b|^\s*how\s+"
                           r"(?:are|is)\b", re.IGNORECASE)


def addressed_to_assistant(question: str) -> bool:
    """A question to the assistant about itself or asking it for something, with no word of
    the user's own life: "How are you today?", "Can you give me soup ideas?"."""
    return _TO_ASSISTANT.search(question) is not None \
        and not any(w in FIRST_PERSON for w in words(question))


def plan(embedder: Embedder, trace: Retrieval, question: str,
         recent: Sequence[Mapping[str, Any]] = ()) -> Plan:
    """A question memory answers gets memory's sentence; a question on the user's life or on
    what memory names (its distinctive words found) that memory cannot answer gets "I don't
    remember"; greetings, thanks and facts told are answered in kind (courtesy.py); other
    questions and small talk are the model's."""
    polite = courtesy.reply(question, [str(r.get("user_text") or "") for r in recent], reflect)
    if polite is not None:
        return Plan("courtesy", built=polite)
    if not is_question(question):
        return Plan("chat")
    if ABOUT_ME.search(question):
        return about_me(trace, recent)
    # a question on memory is about the user ("my", "I") or names someone or something memory
    # may hold ("What did Caroline paint?"); one with neither ("What's a good way to relax after
    # a long shift?") is general even where its words occur in memory
    about_user = asks_about_user(question)
    if addressed_to_assistant(question) or not (about_user or names_someone(question)):
        return Plan("general")
    evidence = best_sentence(embedder, trace, question, recent)
    if evidence is not None:
        return Plan("memory", evidence)
    named = any(p.get("keyword_rank") for p in trace.pages)
    return Plan("memory") if about_user or named else Plan("general")


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+")
ABOUT_ME = re.compile(r"\b(?:know|remember|recall|learned|learnt)\b[^.?!]*\babout (?:me|myself)\b"
                      r"|\bwho am i\b|\bwhat have i told you\b|\btell me about myself\b",
                      re.IGNORECASE)
ABOUT_ME_MOST = 6  # sentences said back for "What do you know about me?"


def about_me(trace: Retrieval, recent: Sequence[Mapping[str, Any]] = ()) -> Plan:
    """"What do you know about me?": the user's own statements the prompt holds, newest
    first, said back; or that they have told nothing yet."""
    told: list[tuple[float, str, Evidence]] = []
    seen: set[str] = set()
    for sentence, page, fact, ts in _candidates(trace, recent):
        plain = _INTERJECTION.sub("", sentence).strip() or sentence
        reflected = reflect(plain)
        if reflected is None or (fact is None and not courtesy.tells_a_fact(plain)):
            continue
        key = " ".join(words(reflected))
        if any(key in k or k in key for k in seen):  # a sentence and its own clause: one
            continue
        seen.add(key)
        told.append((ts or 0.0, reflected.rstrip(" .!"), Evidence(sentence, page, fact, ts, 1.0, 0)))
    if not told:
        return Plan("memory", built="You haven't told me anything about yourself yet.")
    told.sort(key=lambda t: -t[0])
    body = "; ".join(_opening_lowered(t[1]) for t in told[:ABOUT_ME_MOST])
    return Plan("memory", told[0][2], built=f"Here is what you've told me: {body}.")


def names_someone(question: str) -> bool:
    """A capitalised word past a sentence's start: a name ("Caroline", "Berlin"), not "I"."""
    return any(m.group(0).split("'")[0].split("’")[0] != "I"
               for m in _NAME.finditer(question.strip()))


def _sentences(text: str) -> list[str]:
    """The sentences of a text of three words or more."""
    return [s for s in sentences(text) if len(s.split()) >= 3]


def _candidates(trace: Retrieval, recent: Sequence[Mapping[str, Any]] = ()
                ) -> list[tuple[str, int | None, int | None, float | None]]:
    """(sentence, page id, fact id, time) of the prompt's facts, its pages and its recent
    exchanges (the user's side: "My name is Priya" said three turns ago answers "What's my
    name?"); a page sentence that states a replaced fact is left out unless the question is on
    the past, and a question is never an answer."""
    past = asks_about_past(trace.query)
    replaced = [] if past else [f for f in trace.facts.get("superseded_left_out", [])]
    out: list[tuple[str, int | None, int | None, float | None]] = []  # fact ids are > 0
    for kind in ("user", "assistant"):
        for f in trace.facts[kind]:
            if f.get("in_prompt") and (past or not f.get("superseded")):
                out.append((f["text"], None, f["id"], f.get("valid_from")))
    pages = [(p["id"], p.get("user", ""), p.get("timestamp"))
             for p in trace.pages if p.get("selected")][:CANDIDATE_PAGES]
    pages += [(int(r["id"]), str(r.get("user_text") or ""), r.get("ts")) for r in recent]
    for page_id, text, ts in pages:
        for s in _sentences(text):
            if "?" in s or len(s) > MAX_SENTENCE_CHARS:
                continue
            if any(page_id in f["sources"] and grounding(f["text"], s) >= 0.6
                   for f in replaced):
                continue
            # "My name is Dana and I work as a nurse": each half answers its own question
            # (cosine to "What's my name?" 0.35 whole, 0.53 for its half, MiniLM)
            parts = courtesy.clauses(s)
            out += [(c, page_id, None, ts) for c in parts if len(c.split()) >= 3]
            if len(parts) > 1:
                out.append((s, page_id, None, ts))
    return out


def best_sentence(embedder: Embedder, trace: Retrieval, question: str,
                  recent: Sequence[Mapping[str, Any]] = ()) -> Evidence | None:
    """The candidate sentence that answers the question best, or None when none is close
    enough: it must hold a distinctive word of the question, or, for a question about the
    user, be near it by meaning."""
    found = _candidates(trace, recent)
    if not found:
        return None
    terms = {stem(w) for w in (trace.keyword_search_terms or trace.query_keywords)}
    vecs = embedder.embed([question] + [s for s, *_ in found])
    cos = np.asarray(vecs[1:] @ vecs[0], dtype=float)
    scored: list[Evidence] = []
    ranked = sorted(cos, reverse=True)
    clear = ranked[0] if len(ranked) == 1 or ranked[0] - ranked[1] >= CLEAR_LEAD else 2.0
    for (sentence, page, fact, ts), c in zip(found, cos, strict=True):
        hits = stems_held(sentence, terms) if terms else 0
        score = float(c) + KEYWORD_WEIGHT * hits
        least = FACT_COS if fact is not None \
            else (CLEAR_COS if c >= clear else MEANING_ONLY_COS)
        score += FACT_BONUS if fact is not None else 0.0
        if hits or (asks_about_user(question) and c >= least):
            scored.append(Evidence(sentence, page, fact, ts, round(score, 4), hits))
    current = _attribute_answer(embedder, question, vecs, found, cos)
    if current is not None:
        return current
    if not scored:
        return None
    best = max(e.score for e in scored)
    near = [e for e in scored if e.score >= best - NEAR_EQUAL]
    if asks_about_past(question):
        return max(near, key=lambda e: e.score)
    return max(near, key=lambda e: ((e.timestamp or 0.0), e.score))  # the newest holds now


def _attribute_answer(embedder: Embedder, question: str, vecs: Any,
                      found: list[tuple[str, int | None, int | None, float | None]],
                      cos: Any) -> Evidence | None:
    """For a question on a one-value attribute of the user (where they live, their job, car),
    the newest sentence stating it ("I moved to Berlin last month." over "I live in Paris.",
    though only Paris shares the word "live"), or the one before it for a question on the
    past; None when the question names no such attribute or no sentence states it."""
    if not asks_about_user(question):  # "Where does Caroline live?" has no holder we can read
        return None
    asked = {name for name in attributes.classify(vecs[0], embedder)
             if attributes.single_valued(name) and attributes.holder(question, name) == "self"}
    if not asked:
        return None
    kinds = attributes.classify_many(vecs[1:], embedder)
    stating = [(c, ts, i) for i, ((s, _, _, ts), of, c) in enumerate(zip(found, kinds, cos,
                                                                          strict=True))
               if asked & set(of) and all(attributes.holder(s, n) == "self"
                                          for n in asked & set(of))]
    if not stating:
        return None
    stating.sort(key=lambda x: (x[1] or 0.0, x[0]))  # oldest first
    _, _, i = stating[-2] if asks_about_past(question) and len(stating) > 1 else stating[-1]
    sentence, page, fact, ts = found[i]
    return Evidence(sentence, page, fact, ts, round(float(cos[i]), 4), 0)


def reflect(sentence: str) -> str | None:
    """The user's sentence said back to them ("My car is…" -> "your car is…"); None when it
    speaks to the assistant ("you"), which is quoted instead."""
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


def _opening_lowered(text: str) -> str:
    """The sentence's first word lower-cased where it is a common word, not a name."""
    first = text.split(" ", 1)[0]
    if first.lower().strip(",") in STOP_WORDS | {"your", "you", "you're", "last", "yesterday",
                                                 "today", "tomorrow"}:
        return first.lower() + text[len(first):]
    return text


def _date(ts: float | None, now: float | None = None) -> str:
    """' on 3 December 2026', or ' earlier today' for what was said today."""
    if ts is None:
        return ""
    d = dt.datetime.fromtimestamp(ts, tz=dt.UTC)
    if d.date() == dt.datetime.fromtimestamp(time.time() if now is None else now,
                                             tz=dt.UTC).date():
        return " earlier today"
    return f" on {d.day} {d:%B %Y}"


def said_back(evidence: Evidence) -> str:
    """The evidence as the answer: 'You told me on 3 December 2026 that your sister…'."""
    sentence = _INTERJECTION.sub("", evidence.sentence).strip() or evidence.sentence
    sentence = sentence[0].upper() + sentence[1:]
    when = _date(evidence.timestamp)
    reflected = reflect(sentence)
    if reflected is None:
        return f"You told me{when}: \u201c{sentence}\u201d"
    body = _opening_lowered(reflected).rstrip()
    if body[-1:] not in ".!?":
        body += "."
    if body.endswith("!"):
        body = body[:-1] + "."
    return f"You told me{when} that {body}"


def built_answer(text: str) -> bool:
    """An answer this module built ("You told me…", "I don't remember…"), not the model's."""
    return text.startswith(("You told me", "Here is what you've told me", "Got it:",
                            "Nice to meet you")) or text == DONT_REMEMBER


def evidence_view(evidence: Evidence | None) -> dict[str, Any] | None:
    """The evidence as a host shows it beside the answer (never inside its text)."""
    if evidence is None:
        return None
    return {"text": evidence.sentence, "page_id": evidence.page_id,
            "fact_id": evidence.fact_id, "timestamp": evidence.timestamp}
