"""Does a memory sentence answer the asked slot? A learned score over what the two share.

Said back from memory, only a sentence that answers what was asked may reach the user: the
dog's name, not the cat's; the partner's job, not the brother's; where the user lives now, not a
walk by the river. The old rule (a shared keyword, or a cosine over a fixed threshold, newest of
near-equals first) answered "What's my dog's name?" with the cat and "What does my partner
do?" with the brother. Each candidate is now described by a few features of the pair (meaning,
shared words, whether it names the person or thing the question asks about or another one,
whether it states the asked attribute) and a logistic regression, fitted on question/sentence
pairs of written newcomer chats and LUFY's real chats (`python -m benchmarks.slot_answers
--write-weights`), gives the chance that it answers; it is said back only above the floor
chosen on out-of-fold predictions. Measured on held-out chats: `python -m benchmarks.slot_answers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..llm import Embedder
from ..memory import attributes, fact_history, kinship
from ..text import sentences, stem, words
from .answer_kinds import HOLDS, asked_kind
from .lists import all_parts, refers_back
from .names import word_vectors
from .over_time import before_now, latest, named_in, of_its_time, units, updates
from .slot_features import _KIND_OF, _head, content, eligible, head_terms, met, names
from .slot_features import FEATURES as FEATURES
from .slot_features import Candidate as Candidate
from .slot_features import Classes as Classes
from .slot_features import classes as classes
from .slot_features import pair_features as pair_features
from .slot_model import SlotModel, shipped


@dataclass(frozen=True)
class Found:
    """The candidate said back (or None), its chance, the ones only near enough to be named
    as "not sure", and every candidate weighed with why it was taken or refused."""

    pick: Candidate | None
    chance: float
    maybe: list[Candidate]
    considered: list[dict[str, Any]]


def _why(chance: float, sure: float, model: SlotModel, role: str) -> str:
    """Why a candidate was taken, offered or refused, in a reader's words."""
    if role == "taken":
        return f"answers the question (sure {sure:.2f}, at least {model.floor:.2f})"
    if role == "offered":
        return (f"offered as \"not sure\" (sure {sure:.2f}: under {model.floor:.2f} to answer,"
                f" at least {model.hedge:.2f} to offer)")
    if role == "likeliest":  # over the hedge, it shared no word with the question
        under = model.hedge if sure < model.hedge else model.unrelated_hedge
        return f"the likeliest, but too unsure to offer (sure {sure:.2f}, under {under:.2f})"
    return f"less likely to answer (chance {chance:.2f})"


@dataclass(frozen=True)
class Setting:
    """What choosing needs beside the chances: which candidates may be said with confidence
    (and whether the question names someone's own person or thing), which state the
    one-value attribute of the user the question asks (where they live, their job), and
    when each was said."""

    allowed: list[bool]
    has_head: bool
    stating: list[bool]
    agreed: list[bool]  # states it by both the attributes' descriptions and the fact kinds
    kinds: list[bool]  # states it by the learned fact kinds
    times: list[float]
    texts: list[str]  # lower-cased, to find a clause inside its sentence
    items: list[list[int]]  # of a list sentence, the candidates that are its items
    related: list[bool]  # shares a word of meaning with the question or names its head
    # the later sentences that restate each one's value as changed (none where not asked now)
    updated_by: list[list[int]] = field(default_factory=list)


def _head_is_asked(embedder: Embedder, question: str, asked: set[str]) -> bool:
    """Whether the noun a question owns is the one-value attribute it asks of the user ("my
    job", "my home"), by the attribute the word alone is classed as."""
    head = _head(question)
    if not head or not asked:
        return False
    vec = word_vectors(embedder, head)[head[0]]
    return bool(asked & set(attributes.classify(vec, embedder)))


def setting(embedder: Embedder, question: str, qvec: np.ndarray, vecs: np.ndarray,
            candidates: Sequence[Candidate], classed: Classes | None = None) -> Setting:
    """The Setting of a question's candidates (`classed`: `classes` of vecs, when known)."""
    asked = {n for n in attributes.asked_in(question, qvec, embedder)
             if attributes.single_valued(n) and attributes.holder(question, n) == "self"}
    # which statements state it: by the attributes' descriptions or by the learned fact
    # kinds (memory/fact_kinds.py, measured on held-out sentences): the question already
    # names the attribute, so either suffices ("I moved to Berlin last month" is a home)
    described: list[set[str]] = [set() for _ in candidates]
    learned: list[set[str]] = [set() for _ in candidates]
    if asked:
        attrs, of_kind = classed or classes(embedder, vecs)
        described = [set(k) for k in attrs]
        learned = [{_KIND_OF.get(k, k)} for k in of_kind or [""] * len(candidates)]

    def states(c: Candidate, kinds: set[str]) -> bool:
        return bool(asked & kinds) and all(attributes.holder(c.sentence, n) == "self"
                                           for n in asked & kinds)

    stating = [states(c, d | k) for c, d, k in zip(candidates, described, learned, strict=True)]
    # both classifiers, measured apart, say it states the asked attribute: "I work night
    # shifts as a nurse" for "What do I do for a living?"
    agreed = [states(c, d & k) for c, d, k in zip(candidates, described, learned, strict=True)]
    kinds = [states(c, k) for c, k in zip(candidates, learned, strict=True)]
    texts = [" ".join(words(c.sentence)) for c in candidates]
    where = {t: j for j, t in enumerate(texts)}
    # a list's items, and clauses with a subject of their own ("Rui has an old dog")
    items = [[where[t] for t in (" ".join(words(p)) for p in all_parts(c.sentence))
              if t in where] for c in candidates]
    # "my job" in "What is my job now?" is the asked attribute, no person or thing to name:
    # "I quit the hotel job" must not be the only sentence that may answer
    terms = head_terms(question, candidates, embedder)
    allowed = [True] * len(candidates) if _head_is_asked(embedder, question, asked) \
        else eligible(terms, candidates)
    # "my mother-in-law" asks no word "mother": "my mother, Mama Adaeze" is not related
    asked_words = {stem(w) for w in content(question)} - {
        stem(part) for made in kinship.composed_in(question) for part in made.split("-")}
    # a sentence on a wider relation is related ("our three kids" to "my daughter")
    wider = {w for h in _head(question) for w in kinship.covering(h)}
    related = [any(met(w, {stem(x) for x in content(c.sentence)}) for w in asked_words)
               or (bool(terms) and names(terms | wider, c.sentence)) for c in candidates]
    times = [c.timestamp or 0.0 for c in candidates]
    return Setting(allowed, bool(terms), stating, agreed, kinds, times, texts, items, related,
                   updates([c.sentence for c in candidates],
                           [({stem(w) for w in content(c.sentence)} | units(c.sentence))
                            - asked_words - terms - named_in(c.sentence)
                            for c in candidates], times,
                           allowed, classed[1] if classed else None)
                   if fact_history.asks_about_now(question) else [[] for _ in candidates])


def best(chances: np.ndarray, allowed: Sequence[bool]) -> int | None:
    """The likeliest allowed candidate, or None when none is allowed."""
    ranked = [int(i) for i in np.argsort(-chances, kind="stable") if allowed[int(i)]]
    return ranked[0] if ranked else None


def _clear_leader(chances: np.ndarray, parts: Sequence[int], model: SlotModel) -> int | None:
    """The likeliest of a sentence's parts where it is clearly likelier than the next, else None."""
    ranked = sorted(parts, key=lambda j: -float(chances[j]))
    if ranked and (len(ranked) == 1 or chances[ranked[0]] >= model.part_ratio * chances[ranked[1]]):
        return ranked[0]
    return None


def continued(i: int | None, found: Setting, candidates: Sequence[Candidate]) -> int | None:
    """The candidate that says candidate i's sentence with the next one, which goes on of the
    same person or thing ("Brendan's partner Shayla's coming too. She's a nurse."), or one
    that goes on so with the sentence before it: said for it, where it may answer; i where
    none does."""
    if i is None:
        return None
    told = candidates[i].sentence.rstrip(" .!")
    opens_back = refers_back(candidates[i].sentence)
    for j, text in enumerate(c.sentence for c in candidates):
        at = text.find(told)
        if j == i or at < 0 or not found.allowed[j] or found.times[j] != found.times[i]:
            continue
        later = sentences(text[at:])
        if len(later) == 2 and told in later[0] and refers_back(later[1]):
            return j
        # and a sentence that says "he" is said with the one that tells who he is
        if opens_back and len(sentences(text)) == 2 and \
                text.rstrip(" .!").endswith(told):
            return j
    return i


def choose(chances: np.ndarray, found: Setting, model: SlotModel,
           past: bool = False) -> tuple[int | None, int | None, float]:
    """(the candidate said back or None, the one to offer as "not sure" or None, how sure
    the likeliest allowed candidate answers): said back at the floor, offered at the hedge;
    where it states a one-value attribute of the user, the newest statement of it stands in
    ("I moved to Berlin" over "I live in Paris"), or the one before it for the past."""
    i = best(chances, found.allowed)
    if i is None:
        return None, None, 0.0
    # a clause and the sentence it is part of say the same: their probabilities add up (a
    # sentence that also holds a rival clause, "a dog called Rex and a cat called Tom", in
    # proportion to the two); sure is that against its nearest rival and "none of them",
    # whatever the long tail of sentences far off (ten small-talk pages must not make a clear
    # answer unsure)
    held = [set(t.split()) for t in found.texts]
    same = [j for j in range(len(chances)) if held[j] <= held[i] or held[i] <= held[j]]
    own = float(sum(chances[j] for j in same if held[j] <= held[i]))
    top = own + sum(float(chances[j]) * own / (own + sum(
        float(chances[k]) for k in range(len(chances)) if k not in same and held[k] < held[j]))
                    for j in same if not held[j] <= held[i])
    rival = max((float(chances[j]) for j in range(len(chances)) if j not in same), default=0.0)
    sure = top / (top + rival + max(0.0, 1.0 - float(chances.sum())))
    # a list sentence said whole where one of its items is clearly likelier than the others
    # ("We have a tortoise called Shelly" for "What animal is Shelly?", not the dog beside it)
    part = _clear_leader(chances, [j for j in found.items[i] if found.allowed[j]], model)
    if part is not None:
        i = part
    by = {"both": found.agreed, "learned": found.kinds, "either": found.stating}
    # asked of the past, a sentence stating the asked attribute whose likeliest clause does
    # not ("I was born in Lagos but I've lived in Leeds" for "Where was I born?"): that
    # clause, not the newest statement
    clause = _clear_leader(chances, [j for j in same if held[j] < held[i] and found.allowed[j]
                                     and found.times[j] == found.times[i]], model) if past else None
    if found.stating[i] and clause is not None and not found.stating[clause]:
        i = clause
    elif found.stating[i]:
        newer = by[model.newest_by]
        stating = [j for j in range(len(chances)) if j == i or (
            newer[j] and found.allowed[j] and chances[j] >= model.same_share * chances[i])]
        # of one message, the later sentence is the newer ("I quit the hotel job. Now I run a
        # cooking school."): candidates come in the order they were said; a sentence is not
        # newer than its own clause ("My name is Dana and I work as a nurse")
        stating = [j for j in stating if not any(
            found.times[k] == found.times[j] and held[k] < held[j] for k in stating)]
        stating.sort(key=lambda j: (found.times[j], j))
        i = of_its_time(stating, found.texts, found.times, past)
    if model.follows_updates and not past and found.updated_by:
        i = latest(i, found.updated_by, found.times)
    if sure >= model.floor:
        return i, None, sure
    if sure < model.hedge and model.agreed_offers:
        # a one-value attribute of the user that the classifiers find stated ("I moved to
        # Cardiff last week" for "Where do I live now?"): offered, the newest (or the one
        # before it for the past), rather than "I don't remember"
        stated = by[model.offers_by]
        agreed = sorted((j for j in range(len(chances)) if stated[j] and found.allowed[j]),
                        key=lambda j: (found.times[j], j))
        if agreed:
            return None, of_its_time(agreed, found.texts, found.times, past), sure
    # far likelier than any other, though "none of them" weighs: what memory holds is offered
    # rather than "I don't remember" (the physiotherapist for "my physio")
    leads = top >= model.lead * (top + rival) and sure >= model.lead_floor
    # less sure, it is offered only where it is plainly about what was asked: "I don't
    # remember" where memory holds nothing related (issue 44)
    near = found.related[i] and sure >= model.related_hedge
    hedged = sure >= model.hedge and (found.related[i] or sure >= model.unrelated_hedge)
    return None, (i if hedged or near or leads else None), sure



def _before_now(embedder: Embedder, question: str, candidates: Sequence[Candidate],
                vecs: np.ndarray, classed: Classes, model: SlotModel,
                chosen: tuple[int | None, int | None, float]
                ) -> tuple[int | None, int | None, float, bool]:
    """(pick, offer, sure, whether found so) for a question on the past, in two steps: the sentence answering
    it for now ("What did I do?" for "What did I do before?"), then the value told before
    that one (`over_time.before_now`), said as surely as the present one was found; the
    one-step choice where either step finds nothing."""
    now_question = fact_history.without_past(question)
    if not now_question or now_question == question:
        return (*chosen, False)
    # asked as of now, so the newest statement of a changed value is the one found
    now_question = now_question.rstrip(" ?") + " now?"
    qvec = np.asarray(embedder.embed([now_question]), dtype=np.float32)[0]
    chances = model.choice(pair_features(embedder, now_question, qvec, candidates, vecs,
                                         classed))
    found = setting(embedder, now_question, qvec, vecs, candidates, classed)
    pick, offered, sure = choose(chances, found, model)
    now = pick if pick is not None else offered
    earlier = None if now is None else before_now(now, classed[1] or [], found.texts,
                                                   found.times, found.allowed)
    if earlier is None:
        return (*chosen, False)
    return (earlier, None, sure, True) if pick is not None else (None, earlier, sure, True)


def with_asked_kind(question: str, texts: Sequence[str], candidates: Sequence[Candidate],
                    i: int | None) -> int | None:
    """The chosen sentence, or the shortest candidate holding it and the kind of answer the
    question asks for where it holds none: "How old is my mum?" is answered by "My mother
    moved in with us in 2021. She is 72.", not by its first sentence alone."""
    kind = asked_kind(question)
    if i is None or kind is None or HOLDS[kind].search(candidates[i].sentence):
        return i
    held = [set(t.split()) for t in texts]
    wider = [j for j in range(len(candidates)) if held[i] < held[j]
             and candidates[j].page_id == candidates[i].page_id
             and HOLDS[kind].search(candidates[j].sentence)]
    return min(wider, key=lambda j: len(held[j])) if wider else i


def answer(embedder: Embedder, question: str, candidates: Sequence[Candidate],
           past: bool = False, model: SlotModel | None = None,
           vectors: np.ndarray | None = None) -> Found:
    """The candidate that answers the question's slot, by the shipped slot model
    (`vectors`: of the question and the candidates, where already embedded)."""
    if not candidates:
        return Found(None, 0.0, [], [])
    model = model or shipped(FEATURES)
    vecs = np.asarray(embedder.embed([question] + [c.sentence for c in candidates])
                      if vectors is None else vectors, dtype=np.float32)
    classed = classes(embedder, vecs[1:])
    x = pair_features(embedder, question, vecs[0], candidates, vecs[1:], classed)
    chances = model.choice(x)
    order = [int(i) for i in np.argsort(-chances, kind="stable")]
    found = setting(embedder, question, vecs[0], vecs[1:], candidates, classed)
    pick, offered, sure = choose(chances, found, model, past)
    two_steps = False  # found as the value told before the one that holds now
    if past and classed[1] is not None:
        pick, offered, sure, two_steps = _before_now(embedder, question, candidates, vecs[1:],
                                                     classed, model, (pick, offered, sure))
    earlier = {pick, offered} - {None} if two_steps else set()
    pick, offered = (continued(with_asked_kind(question, found.texts, candidates, k), found,
                                       candidates)
                     for k in (pick, offered))
    likeliest = best(chances, found.allowed)
    maybe = [] if offered is None else [candidates[offered]]

    def role(i: int) -> str:
        return "taken" if i == pick else "offered" if i == offered else \
            "likeliest" if i == likeliest and pick is None and offered is None else "other"

    def why(i: int) -> str:
        said = _why(float(chances[i]), sure, model, role(i))
        return f"{said}; told before the value that holds now" if i in earlier else said

    # the sentence said or offered first, so "Why this answer" shows it whatever its chance
    said_first = [i for i in (pick, offered) if i is not None]
    considered = [{"text": candidates[i].sentence, "page_id": candidates[i].page_id,
                   "fact_id": candidates[i].fact_id, "chance": round(float(chances[i]), 3),
                   "taken": i == pick, "why": why(i)}
                  for i in said_first + [i for i in order if i not in said_first]]
    return Found(None if pick is None else candidates[pick], sure if pick is not None else 0.0,
                 maybe, considered)
