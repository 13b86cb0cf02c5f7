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
from ..memory import attributes, fact_history, fact_kinds, kinship
from ..text import ASKING_WORDS, QUESTION_FRAME_WORDS, STOP_WORDS, owned, stem, words
from .aliases import given_names
from .answer_kinds import ASKS_NAME, HOLDS, asked_kind, cased, holds_name
from .lists import list_parts, other_subject_parts
from .names import name_like, word_vectors
from .over_time import latest, named_in, of_its_time, units, updates
from .slot_model import SlotModel, shipped

FEATURES = ("cos", "cos_gap", "shared_words", "any_shared", "subject_said", "subject_near",
            "head_said", "head_near", "other_subject", "other_literal", "least_covered",
            "mean_covered", "covered_cos", "asks_kind", "kind_met", "same_attribute", "recency",
            "same_kind", "asks_name", "name_met", "past_recency", "past_former")


@dataclass(frozen=True)
class Candidate:
    """A memory sentence that may answer, where it came from and when it was said."""

    sentence: str
    page_id: int | None
    fact_id: int | None
    timestamp: float | None


def content(text: str) -> list[str]:
    """A text's words that carry meaning (no stop words, no words that ask for a name)."""
    return [w for w in words(text) if w not in STOP_WORDS and w not in QUESTION_FRAME_WORDS
            and w not in ASKING_WORDS and len(w) > 1]


def _head(question: str) -> list[str]:
    """The person or thing a question asks about first: the first noun it names as someone's
    own ("my sister's job" -> sister, "my dog's name" -> dog); none for "Where do I live?"."""
    return owned(question)[:1]


def head_terms(question: str, candidates: Sequence[Candidate],
               embedder: Embedder | None = None) -> set[str]:
    """The asked head's stem (with the words of a relation it covers) and the names the
    candidates give it in apposition ("my husband Chidi", "our dog, Bruno", "my sister is
    called Ana"; typed in lower case, "my gf kayla", where `embedder` reads it as a first
    name), so "Chidi is a pilot" answers "What does my husband do?"."""
    head = _head(question)
    if not head:
        return set()
    told = [c.sentence for c in candidates]
    # a relation is named by any word of it or of a narrower one ("my sibling" by "my
    # brother Kenta", kinship.py)
    return {stem(head[0])} | kinship.covered(head[0]) | {
        stem(n) for n in given_names((head[0], *kinship.kin_words(head[0])), told, None if
                                     embedder is None else lambda w: bool(name_like(
                                         embedder, word_vectors(embedder, [w])[w][None])[0]))}


def met(term: str, said: set[str]) -> bool:
    """Whether a set of stems holds a term: itself, or a longer or shorter form of it
    ("physio" and "physiotherapist"; four letters at least, so "bro" is not "brown")."""
    t = stem(term)
    return t in said or (len(t) >= 4 and any(len(w) >= 4 and (w.startswith(t) or
                                                               t.startswith(w)) for w in said))


def names(terms: set[str], sentence: str) -> bool:
    """Whether a sentence names one of the terms (`met`)."""
    said = {stem(w) for w in words(sentence)}
    return any(met(t, said) for t in terms)


def eligible(terms: set[str], candidates: Sequence[Candidate]) -> list[bool]:
    """Which candidates may be said back with confidence: where the question asks about
    someone's own person or thing (`terms`: its `head_terms`) and some candidate names it or
    its name, only those (the dog's sentence, not the cat's, for "my dog")."""
    if not terms:
        return [True] * len(candidates)
    holds = [names(terms, c.sentence) for c in candidates]
    # none names it ("my cat" where a kitten was told of): every one may be weighed, and the
    # sureness model knows the head was not said
    return holds if any(holds) else [True] * len(candidates)


Classes = tuple[list[dict[str, float]], list[str] | None]  # attributes, fact kinds per row


def classes(embedder: Embedder, vecs: np.ndarray) -> Classes:
    """The attributes and learned fact kinds of each candidate, classed once per question."""
    return attributes.classify_many(vecs, embedder), fact_kinds.classify_many(vecs, embedder)


def pair_features(embedder: Embedder, question: str, qvec: np.ndarray,
                  candidates: Sequence[Candidate], vecs: np.ndarray,
                  classed: Classes | None = None) -> np.ndarray:
    """One row of FEATURES per candidate (`classed`: `classes` of vecs, when known)."""
    if not candidates:
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    cos = np.asarray(vecs @ qvec, dtype=np.float32)
    subject = owned(question) or content(question)[:3]
    head = _head(question)  # "my sister's husband": the husband
    terms = head_terms(question, candidates, embedder)
    # every word of meaning the question asks with ("name" itself where it is the only one:
    # "What's my name?")
    wanted = content(question) or [w for w in words(question) if w not in STOP_WORDS]
    # a sentence's words of meaning; a word that asks for a name ("name", "called") counts
    # only where the question has no other ("What's my name?" by "My name is Priya")
    frame_only = not content(question)
    cand_words = [[w for w in words(c.sentence) if w not in STOP_WORDS and len(w) > 1]
                  if frame_only else content(c.sentence) for c in candidates]
    cand_owned = [owned(c.sentence) for c in candidates]
    every = list(subject) + wanted + [w for ws in cand_words for w in ws] + \
        [w for ws in cand_owned for w in ws]
    wv = word_vectors(embedder, every) if every else {}
    asked = {stem(w) for w in wanted}

    def near(ours: Sequence[str], theirs: Sequence[str]) -> float:
        return max((float(wv[a] @ wv[b]) for a in ours for b in theirs), default=0.0)

    kind = asked_kind(question)
    asks_name = ASKS_NAME.search(question) is not None
    # a name typed in lower case ("a dachshund, lumpi") is read by meaning: a word of the
    # sentence, not of the question, nearer the first names than other words
    said_q = set(words(question))
    lower = [w for w in dict.fromkeys(w for c, ws in zip(candidates, cand_words, strict=True)
                                      if asks_name and not cased(c.sentence) for w in ws)
             if w not in said_q]
    named = dict(zip(lower, name_like(embedder, np.asarray([wv[w] for w in lower])).tolist(),
                     strict=True)) if lower else {}
    q_attr = set(attributes.asked_in(question, qvec, embedder))
    c_attr, kinds = classed or classes(embedder, vecs)
    # the learned fact kind (memory/fact_kinds.py) of each: "Chidi is a pilot" is a job,
    # which "What's my husband's job?" asks, though no word of the two meets
    c_kind = [_KIND_OF.get(k, k) for k in kinds or []] if q_attr else []
    # how new each is among them, 0 (oldest) to 1 (newest): of two near-equal sentences the
    # newer one holds ("I moved to Galway" after "I live in Cork")
    times = np.array([c.timestamp or 0.0 for c in candidates])
    recency = np.array([float(np.mean(times < t)) for t in times]) * len(times) / \
        max(1, len(times) - 1)
    # a question on the past ("and before?") wants an older sentence, or one naming a value
    # gone ("I quit the hotel job"), which the weights of these two learn
    past = float(fact_history.asks_about_past(question))
    rows = []
    for i in range(len(candidates)):
        held = {stem(w) for w in cand_words[i]}
        shared = sum(met(w, held) for w in asked) / len(asked) if asked else 0.0
        said_subject = float(any(met(s, held) for s in subject)) if subject else 0.0
        said_head = float(names(terms, candidates[i].sentence)) if head else said_subject
        # it names someone's own thing, and none of them is near what was asked: "my brother"
        # in answer to "my partner"
        mine = {stem(o) for o in cand_owned[i]}
        other = 0.0 if not cand_owned[i] or not subject or any(met(s, mine) for s in subject) \
            else 1.0 - near(subject, cand_owned[i])
        other_literal = float(bool(cand_owned[i]) and bool(head) and not said_head)
        # how well each asked word is met: said (1) or by its nearest word ("job" by "work");
        # the least met one tells a sentence on another slot ("Sarah's birthday" by her job)
        covered = [1.0 if met(w, held) else near([w], cand_words[i]) for w in wanted] \
            or [0.0]
        rows.append([float(cos[i]), float(cos[i] - cos.max()), shared, float(shared > 0),
                     said_subject, near(subject, cand_words[i]), said_head,
                     near(head, cand_words[i]) if head else near(subject, cand_words[i]),
                     other, other_literal, min(covered), float(np.mean(covered)),
                     float(cos[i]) * min(covered), float(kind is not None),
                     float(kind is not None and HOLDS[kind].search(candidates[i].sentence)
                           is not None),
                     float(bool(q_attr & set(c_attr[i]))), float(recency[i]),
                     float(bool(c_kind) and c_kind[i] in q_attr), float(asks_name),
                     float(asks_name and (holds_name(candidates[i].sentence) or any(
                         named.get(w, False) for w in cand_words[i]))),
                     past * float(recency[i]),
                     past * float(fact_history.names_former(candidates[i].sentence))])
    return np.asarray(rows, dtype=np.float32)


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


_KIND_OF = {"commute": "car"}  # a fact kind by the attribute name a question is classed with


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
    items = [[where[t] for t in (" ".join(words(p)) for p in
                                 list_parts(c.sentence) + other_subject_parts(c.sentence))
              if t in where] for c in candidates]
    # "my job" in "What is my job now?" is the asked attribute, no person or thing to name:
    # "I quit the hotel job" must not be the only sentence that may answer
    terms = head_terms(question, candidates, embedder)
    allowed = [True] * len(candidates) if _head_is_asked(embedder, question, asked) \
        else eligible(terms, candidates)
    asked_words = {stem(w) for w in content(question)}
    related = [any(met(w, {stem(x) for x in content(c.sentence)}) for w in asked_words)
               or (bool(terms) and names(terms, c.sentence)) for c in candidates]
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
    parts = sorted((j for j in found.items[i] if found.allowed[j]),
                   key=lambda j: -float(chances[j]))
    if parts and (len(parts) == 1 or chances[parts[0]] >= model.part_ratio * chances[parts[1]]):
        i = parts[0]
    by = {"both": found.agreed, "learned": found.kinds, "either": found.stating}
    if found.stating[i]:
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
    likeliest = best(chances, found.allowed)
    maybe = [] if offered is None else [candidates[offered]]

    def role(i: int) -> str:
        return "taken" if i == pick else "offered" if i == offered else \
            "likeliest" if i == likeliest and pick is None and offered is None else "other"

    considered = [{"text": candidates[i].sentence, "page_id": candidates[i].page_id,
                   "fact_id": candidates[i].fact_id, "chance": round(float(chances[i]), 3),
                   "taken": i == pick, "why": _why(float(chances[i]), sure, model, role(i))}
                  for i in order]
    return Found(None if pick is None else candidates[pick], sure if pick is not None else 0.0,
                 maybe, considered)
