"""Answers a small model cannot get wrong: a question on memory is answered from memory itself.

A 135M model given the right memory line still writes "The user asked about a car, and the
assistant provided a list of options." (measured: 2 of 8 facts right in its own words). So with
the embedded model a question about what the user said is answered with the memory line that
holds it, said back as a sentence ("You told me on 25 October 2026 that your car is a green
2014 Subaru Outback."), or "I don't remember you telling me that." when memory holds nothing
that answers it; the model writes only small talk and general replies. Which way a message
goes is learned (router.py); which sentence answers is learned too (slot.py), over the user's
own sentences of the pages the prompt holds, its facts and the recent exchanges.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..asides import INTERJECTION
from ..llm import Embedder
from ..memory import kinship
from ..memory.fact_history import asks_about_past, asks_of_earlier, names_former, says_change
from ..text import casual_restored, sentences, stem, words
from . import asking, courtesy, memory_sentences, names, router, saying, slot, slot_features, social_acts
from .lists import all_parts, extreme_part
from .saying import reflect
from .types import Retrieval

DONT_REMEMBER = "I don't remember you telling me that."
NOT_SURE = "I'm not sure this answers it"
# how an answer from memory opens: the message it answered was a question on memory
MEMORY_ANSWERS = ("You told me", "Here is what you've told me", NOT_SURE, DONT_REMEMBER)
CONSIDERED_SHOWN = 5  # candidates the trace explains

_INTERJECTION = INTERJECTION


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

    kind: str  # memory | courtesy (both built, no model call) | general | chat | social
    evidence: Evidence | None = None
    built: str | None = None  # a courtesy reply, or what memory holds of the user
    routed: dict[str, Any] | None = None  # the router's decision (router.Routed.view)
    considered: tuple[dict[str, Any], ...] = ()  # the candidates weighed, and why each

    @property
    def text(self) -> str:
        """The built answer ('' for the model's kinds)."""
        if self.built:
            return self.built
        if self.kind != "memory":
            return ""
        return said_back(self.evidence) if self.evidence else DONT_REMEMBER


def plan(embedder: Embedder, trace: Retrieval, question: str,
         recent: Sequence[Mapping[str, Any]] = ()) -> Plan:
    """The learned router decides (router.py): small talk and facts told are answered in
    kind where a set reply fits (small talk by its learned act, social_acts.py; courtesy.py),
    else by the model; requests are the model's; a question on memory gets the memory
    sentence that answers its slot (slot.py), or what was found when none surely does, or "I
    don't remember" when memory holds nothing near."""
    qvec = np.asarray(embedder.embed([question]), dtype=np.float32)[0]  # routed and weighed
    routed = router.route(embedder, question, qvec)
    view = routed.view()
    if routed.route in ("social", "told"):
        said = [str(r.get("user_text") or "") for r in recent]
        is_name = names.first_name_check(embedder)
        # small talk is met as the act it is, learned (social_acts.py), where that is sure;
        # a name given in it first by courtesy.py's "Nice to meet you"; else the model
        named_now = courtesy.known_name([question], is_name)
        act = social_acts.reply(embedder, question, qvec, named_now or courtesy.known_name(
            reversed(said), is_name)) if routed.route == "social" else None
        fits = courtesy.reply(question, said, reflect, is_name, told=routed.route == "told")
        polite = (fits or act) if named_now else (act or fits)
        if polite is not None:
            return Plan("courtesy", built=polite, routed=view)
        return Plan("social" if routed.route == "social" else "chat", routed=view)
    likeliest = max(routed.probabilities, key=lambda r: routed.probabilities[r])
    if routed.unsure and likeliest == "social":  # a greeting the router is unsure of
        polite = social_acts.reply(embedder, question, qvec, only=social_acts.PLAIN_ACTS)
        if polite is not None:
            return Plan("courtesy", built=polite, routed=view)
    # unsure, but likeliest on memory: memory answers where it holds a likely answer, else
    # the model (a weak answer beats a confident "I don't remember")
    leaning = routed.unsure and likeliest == "memory"
    if routed.route == "model" and not leaning:  # "general": its plain reply says so
        return Plan("general" if "?" in question else "chat", routed=view)
    return from_memory(embedder, trace, question, recent, qvec, view, leaning)


def from_memory(embedder: Embedder, trace: Retrieval, question: str,
                recent: Sequence[Mapping[str, Any]], qvec: np.ndarray,
                view: dict[str, Any] | None = None, leaning: bool = False) -> Plan:
    """A question on memory answered from memory: the sentence that answers its slot, what
    was found when none surely does, or "I don't remember" (the model's, when `leaning`: the
    router was unsure) when memory holds nothing near."""
    if ABOUT_ME.search(question):
        named = own_name(trace, recent, names.first_name_check(embedder))
        return dataclasses.replace(about_me(trace, recent, named), routed=view)
    if ASKS_OWN_NAME.search(question):  # the name the user gave, as they gave it
        named = own_name(trace, recent, names.first_name_check(embedder))
        if named is not None:
            return Plan("memory", named, routed=view)
    # the sentences that ask ("haha yeah nah. how old's my daughter again"), and "Which of my
    # children looks after animals?" as who does: the answer names one, not "children"
    weighed = asking.weighed(question)
    wvec = qvec if weighed == question else \
        np.asarray(embedder.embed([weighed]), dtype=np.float32)[0]
    candidates, vectors = memory_sentences.told_candidates(
        embedder, wvec, memory_sentences.candidates(trace, recent),
        answered_from_memory(trace, recent))
    found = slot.answer(embedder, weighed, candidates,
                        past=asks_of_earlier(weighed),
                        vectors=vectors)
    considered = tuple(found.considered[:CONSIDERED_SHOWN])
    terms = slot_features.head_terms(weighed, candidates, embedder)
    if found.pick is not None:
        c = _as_answered(weighed, found.pick, candidates)
        news = memory_sentences.news_of(weighed, c, trace, recent)
        evidence = Evidence(news.sentence if news != c else focus(c.sentence, terms, weighed),
                            c.page_id, c.fact_id, c.timestamp, round(found.chance, 4), 0)
        return Plan("memory", evidence, routed=view, considered=considered)
    if found.maybe:  # offered as "not sure": its page is shown beside the answer too
        c = _as_answered(weighed, found.maybe[0], candidates)
        news = memory_sentences.news_of(weighed, c, trace, recent)
        c = news if news != c else \
            slot.Candidate(focus(c.sentence, terms, weighed), c.page_id, c.fact_id, c.timestamp)
        return Plan("memory", Evidence(c.sentence, c.page_id, c.fact_id, c.timestamp, 0.0, 0),
                    built=hedged([c]), routed=view, considered=considered)
    listed = [c for c in candidates if extreme_part(weighed, c.sentence) is not None]
    if listed:  # "my eldest" where a list of ages was told, though not likeliest: offered
        c = _as_answered(weighed, listed[0], candidates)
        return Plan("memory", Evidence(c.sentence, c.page_id, c.fact_id, c.timestamp, 0.0, 0),
                    built=hedged([c]), routed=view, considered=considered)
    if leaning:  # nothing found for a message the router was unsure of: the model's
        return Plan("general" if "?" in question else "chat", routed=view,
                    considered=considered)
    return Plan("memory", routed=view, considered=considered)


def _as_answered(question: str, c: slot.Candidate, candidates: Sequence[slot.Candidate]
                 ) -> slot.Candidate:
    """The found sentence as it answers: "How old's my youngest?" by a list of ages, its
    youngest item (lists.extreme_part); a question on now by a part naming the value before
    ("I used to drive a Corolla"), the whole sentence that names the change ("…but I sold
    it, now I am using a Lexus"); else the found one."""
    mine = [o for o in candidates if o.page_id == c.page_id and o != c]
    for whole in [c] + mine:
        part = extreme_part(question, whole.sentence)
        if part is not None and c.sentence.rstrip(" .") in whole.sentence:
            return slot.Candidate(part, c.page_id, c.fact_id, c.timestamp)
    if names_former(c.sentence) and not asks_about_past(question):
        clause = c.sentence.rstrip(" .!")
        changed = [o for o in mine if clause in o.sentence and says_change(
            o.sentence.replace(clause, ""))]
        if changed:
            return min(changed, key=lambda o: len(o.sentence))
    return c


def focus(sentence: str, terms: set[str], question: str = "") -> str:
    """The part of a sentence that says several things about the asked person or thing, with
    the sentence's opening: "What's my cat called?" is answered "I have a cat called Kiki",
    not with the dog beside it; "How old is Somto?" with "Somto is 9", not "while Ebuka is
    5". The part naming the asked head, else the one naming the question's own words; the
    whole sentence where no single part does; a relative told by pronoun ("Our daughter
    Siobhán…, and her fella Kevin is a firefighter") from there on, whose said ("Siobhán's
    fella Kevin is a firefighter.")."""
    for at, made, name in kinship.by_pronoun(sentence):
        if made in terms:
            said = re.split(r"(?<=[.!?])\s", sentence[at:])[0].split(maxsplit=1)[1:]
            return f"{name}'s {said[0]}".rstrip(" .") + "." if said else sentence
    parts = list(dict.fromkeys(p.rstrip(" .") + "." for p in all_parts(sentence)))
    if not parts:
        return sentence
    own = {stem(w) for w in slot_features.content(question)}
    for wanted in (terms, own):
        named = [p for p in parts if wanted and (slot_features.names(wanted, p) if
                                                 wanted is terms else _holds(own, p))]
        # the smallest part naming it: a clause within a named list item is the same part
        least = {p for p in named if not any(q != p and q[:-1] in p for q in named)}
        if len(least) == 1:
            return least.pop()
        if named:
            return sentence
    return sentence


def _holds(stems: set[str], part: str) -> bool:
    """Whether a part says one of the question's words (a stem or a longer form of it)."""
    said = {stem(w) for w in slot_features.content(part)}
    return any(slot_features.met(s, said) for s in stems)


def hedged(maybe: Sequence[slot.Candidate]) -> str:
    """"I'm not sure this answers it, but you told me …": the nearest sentence memory holds,
    said back, where none surely answers."""
    c = maybe[0]
    plain = _INTERJECTION.sub("", c.sentence).strip() or c.sentence
    back = saying.reflected_clause(plain)
    when = saying.spoken_date(c.timestamp)
    if back is None:
        return f"{NOT_SURE}, but you told me{when}: \u201c{plain}\u201d"
    return f"{NOT_SURE}, but you told me{when} that " \
        f"{_sentences_capitalised(saying.opening_lowered(back)).rstrip(' .!')}."


ABOUT_ME = re.compile(r"\b(?:know|remember|recall|learned|learnt)\b[^.?!]*\babout (?:me|myself)\b"
                      r"|\bwho am i\b|\bwhat have i told you\b|\btell me about myself\b",
                      re.IGNORECASE)
ABOUT_ME_MOST = 6  # sentences said back for "What do you know about me?"
ABOUT_ME_ROWS = 60  # the newest exchanges of any tier it reads
# "What's my name?", "do you remember my name": the user's own name, asked by its syntax
ASKS_OWN_NAME = re.compile(r"\bmy name\b(?!\s+(?:is|was|'s)\b)", re.IGNORECASE)


def own_name(trace: Retrieval, recent: Sequence[Mapping[str, Any]] = (),
             is_name: Any = None) -> Evidence | None:
    """The newest message where the user gave their name ("My name is Dana", "Hi! I'm Sam"),
    among the recent exchanges and the pages in the prompt, or None when they never did."""
    check = is_name or (lambda word: False)
    said = [(r.get("ts"), str(r.get("user_text") or ""), int(r["id"])) for r in recent]
    said += [(p.get("timestamp"), str(p.get("user") or ""), p["id"]) for p in trace.pages
             if p.get("selected")]
    for ts, text, page in sorted(said, key=lambda x: -(x[0] or 0.0)):
        # "I'm Rosalind, I'm a paramedic…", "bit about me, im Declan": a clause of its own
        name = courtesy.known_name([text] + [p.strip() for s in sentences(casual_restored(text))
                                             for c in courtesy.clauses(s) for p in c.split(",")],
                                   check)
        if name is not None:
            return Evidence(f"My name is {name}.", page, None, ts, 1.0, 0)
    return None


def about_me(trace: Retrieval, recent: Sequence[Mapping[str, Any]] = (),
             named: Evidence | None = None) -> Plan:
    """"What do you know about me?": the user's name where they gave it, then their own
    statements, newest first, said back; or that they have told nothing yet."""
    told: list[tuple[float, str, Evidence]] = []
    seen: set[str] = set()
    for sentence, page, fact, ts, _ in memory_sentences.candidates(trace, recent):
        plain = _INTERJECTION.sub("", sentence).strip() or sentence
        reflected = reflect(plain)
        if reflected is None or (fact is None and not courtesy.tells_a_fact(plain)):
            continue
        key = " ".join(words(reflected))
        if any(key in k or k in key for k in seen):  # a sentence and its own clause: one
            continue
        seen.add(key)
        told.append((ts or 0.0, reflected.rstrip(" .!"), Evidence(sentence, page, fact, ts, 1.0, 0)))
    if not told and named is None:
        return Plan("memory", built="You haven't told me anything about yourself yet.")
    told.sort(key=lambda t: -t[0])
    said = [saying.opening_lowered(t[1]) for t in told[:ABOUT_ME_MOST]]
    # who they are first: the sentence said back that gives the name, else the name
    if named is not None:
        name = named.sentence[len("My name is "):].rstrip(".")
        giving = next((s for s in said if re.search(rf"\b{re.escape(name)}\b", s)), None)
        if giving is None:
            said = [saying.opening_lowered(reflect(named.sentence) or named.sentence)
                    .rstrip(" .")] + said[:ABOUT_ME_MOST - 1]
        else:
            said = [giving] + [s for s in said if s != giving]
    evidence = told[0][2] if told else named
    return Plan("memory", evidence, built=f"Here is what you've told me: {'; '.join(said)}.")


def answered_from_memory(trace: Retrieval, recent: Sequence[Mapping[str, Any]] = ()
                         ) -> set[int]:
    """The pages and recent exchanges whose message the chat read as a question on memory:
    their reply is a memory answer ("You told me…", "I don't remember…")."""
    replies = [(int(p["id"]), str(p.get("assistant") or "")) for p in trace.pages
               if p.get("selected")]
    replies += [(int(r["id"]), str(r.get("assistant_text") or "")) for r in recent]
    return {pid for pid, reply in replies if reply.startswith(MEMORY_ANSWERS)}


def _sentences_capitalised(text: str) -> str:
    """A reflected sentence after the first opens with a capital ("…a tortoise. You named…")."""
    return re.sub(r"([.!?]\s+)(you|your|you're|you've|you'd|you'll)\b",
                  lambda m: m.group(1) + m.group(2).capitalize(), text)


def said_back(evidence: Evidence) -> str:
    """The evidence as the answer: 'You told me on 3 December 2026 that your sister…'."""
    sentence = _INTERJECTION.sub("", evidence.sentence).strip() or evidence.sentence
    sentence = sentence[0].upper() + sentence[1:]
    when = saying.spoken_date(evidence.timestamp)
    reflected = saying.reflected_clause(sentence)
    if reflected is None:
        return f"You told me{when}: \u201c{sentence}\u201d"
    body = _sentences_capitalised(saying.opening_lowered(reflected)).rstrip()
    if body[-1:] not in ".!?":
        body += "."
    if body.endswith("!"):
        body = body[:-1] + "."
    return f"You told me{when} that {body}"


def built_answer(text: str) -> bool:
    """An answer this module built ("You told me…", "I don't remember…"), not the model's."""
    return text.startswith(("You told me", "Here is what you've told me", "Got it:",
                            "Nice to meet you", NOT_SURE)) or text == DONT_REMEMBER


def evidence_view(evidence: Evidence | None) -> dict[str, Any] | None:
    """The evidence as a host shows it beside the answer (never inside its text)."""
    if evidence is None:
        return None
    return {"text": evidence.sentence, "page_id": evidence.page_id,
            "fact_id": evidence.fact_id, "timestamp": evidence.timestamp}


def warm_up(embedder: Embedder) -> None:
    """Load what the first message needs before it comes: the embedding model (a cold first
    answer waited ~6 s on it), the router and the slot model."""
    router.route(embedder, "Hi! What's my dog's name?")
    slot.answer(embedder, "Where do I live now?", [slot.Candidate("I live in Paris.", None,
                                                                  None, None)])
