"""The features of a question and a memory sentence that the slot model weighs (slot.py).

Each candidate sentence is described by what it shares with the question: meaning, words,
whether it names the person or thing asked about or another one, whether it states the asked
attribute, how new it is where the question is on the present or the past.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..llm import Embedder
from ..memory import animal_kinds, attributes, fact_history, fact_kinds, first_names, kinship
from ..text import ASKING_WORDS, QUESTION_FRAME_WORDS, STOP_WORDS, owned, stem, without_possessive, words
from .aliases import given_names, the_own
from .answer_kinds import ASKS_NAME, HOLDS, asked_kind, cased, holds_name
from .names import name_like, word_vectors

_KIND_OF = {"commute": "car"}  # a fact kind by the attribute name a question is classed with
FEATURES = ("cos", "cos_gap", "shared_words", "any_shared", "subject_said", "subject_near",
            "head_said", "head_near", "other_subject", "other_literal", "least_covered",
            "mean_covered", "covered_cos", "asks_kind", "kind_met", "same_attribute", "recency",
            "same_kind", "asks_name", "name_met", "past_recency", "past_former",
            "past_named", "now_recency")


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
    own ("my sister's job" -> sister, "my dog's name" -> dog; "the wife", "the dog", as
    people say of their own); none for "Where do I live?"."""
    own = owned(question)[:1]
    if own:
        return own
    return the_own(question)[:1]


def head_terms(question: str, candidates: Sequence[Candidate],
               embedder: Embedder | None = None) -> set[str]:
    """The asked head's stem (with the words of a relation it covers) and the names the
    candidates give it in apposition ("my husband Chidi", "our dog, Bruno", "my sister is
    called Ana"; typed in lower case, "my gf kayla", where `embedder` reads it as a first
    name), so "Chidi is a pilot" answers "What does my husband do?"."""
    # "my husband's mother" asks of the mother-in-law, not of the husband (kinship.py), where
    # a candidate names one; else as before, by its words ("Harriet's mum" may be she)
    composed = kinship.composed_in(question)
    told = [c.sentence for c in candidates]
    if composed and any(composed[0] in kinship.composed_in(c.sentence) for c in candidates):
        return {composed[0]}
    is_name = None if embedder is None else lambda w: bool(name_like(
        embedder, word_vectors(embedder, [w])[w][None])[0])
    # told by the name of the first relation: "Folake's brother Segun" with "my wife Folake"
    by_name = _named_by_way(composed[0], candidates, is_name) if composed else set()
    if by_name:
        return by_name
    head = _head(question)
    if not head:
        return set()
    # a relation is named by any word of it or of a narrower one ("my sibling" by "my
    # brother Kenta", kinship.py), a pet by its breed ("my dog" by "a collie", animal_kinds.py)
    nouns = (head[0], *kinship.kin_words(head[0]), *animal_kinds.kind_words(head[0]))
    # "my daughter-in-law" is no daughter: a composed relation is not told among the children
    given = given_names(nouns, told, is_name) or ([] if composed else
                                                  _told_by_sex(head[0], candidates))
    return {stem(head[0])} | kinship.covered(head[0]) | animal_kinds.covered(head[0]) | {
        stem(n) for n in given}


# a name that opens a clause: "Richard is 55…", "Kids: Ola 15, Thea 11", "Chidera is 7 and
# Somto is 4", "the kids are Kai… and Jade…"
_CLAUSE_NAME = re.compile(r"(?:^|[.!?;:,]\s+|\b(?:and|are|n|&)\s+)([A-Z][a-z'’-]+)\b")


def _told_by_sex(relation: str, candidates: Sequence[Candidate]) -> list[str]:
    """The names a message on a wider relation gives where the asked relation is of one sex:
    "my daughter" is Helen where "I have two children. Richard is 55… Helen is 52…" was told
    (the names that open a clause in the messages naming the children, whose usual sex is the
    daughter's: first_names.py)."""
    wanted, wider = kinship.sex(relation), kinship.covering(relation)
    if wanted is None or not wider:
        return []
    pages = {c.page_id for c in candidates if c.page_id is not None
             and any(stem(w) in wider for w in words(c.sentence))}
    found = [m.group(1) for c in candidates if c.page_id in pages
             for m in _CLAUSE_NAME.finditer(c.sentence)]
    return [n.lower() for n in dict.fromkeys(found)
            if n.lower() not in STOP_WORDS and first_names.usual_sex(n) == wanted]


def _named_by_way(made: str, candidates: Sequence[Candidate],
                  is_name: Callable[[str], bool] | None = None) -> set[str]:
    """The stems of the names of a composed relative told by way of a named relative ("my
    brother-in-law": "Folake's brother Segun" where "my wife Folake" was told)."""
    out: set[str] = set()
    told = [c.sentence for c in candidates]
    for first, second in kinship.ways(made):
        seconds = "|".join(kinship.kin_words(second))
        for name in given_names((first, *kinship.kin_words(first)), told, is_name) or \
                _told_by_sex(first, candidates):
            way = re.compile(rf"\b(?i:{re.escape(name)})(?:['’]s)?\s+(?i:{seconds}),?\s+"
                             r"(?P<name>[A-Z][\w'-]*)")
            out |= {stem(m.group("name").lower()) for t in told for m in way.finditer(t)}
    return out


def met(term: str, said: set[str]) -> bool:
    """Whether a set of stems holds a term: itself, or a longer or shorter form of it
    ("physio" and "physiotherapist"; four letters at least, so "bro" is not "brown")."""
    t = stem(term)
    if t in kinship.COMPOSED or t in animal_kinds.EXACT:  # "mother-in-law" is no "mother"
        return t in said
    return t in said or (len(t) >= 4 and any(len(w) >= 4 and (w.startswith(t) or
                                                               t.startswith(w)) for w in said))


def names(terms: set[str], sentence: str) -> bool:
    """Whether a sentence names one of the terms (`met`)."""
    # "Dad's been approved" names Dad: a possessive or "'s" ending is no part of the word
    said = {stem(without_possessive(w)) for w in words(sentence)} | set(
        kinship.composed_in(sentence))
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
    # whose ("Dermot's vet"): the name of the owner asked about is no answer to it
    owners = {without_possessive(w) for w in said_q} - said_q
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
    # what came after the asked past ("before the Ranger"): a sentence naming it tells the new
    # value; and a question on what holds now ("do we still live in Pune?") wants the newer
    after = [stem(w) for w in content(fact_history.past_reference(question))] if past else []
    now = float(fact_history.asks_about_now(question))
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
                     float(asks_name and (holds_name(candidates[i].sentence, owners) or any(
                         named.get(w, False) for w in cand_words[i]))),
                     past * float(recency[i]),
                     past * float(fact_history.names_former(candidates[i].sentence)),
                     float(any(met(w, held) for w in after)), now * float(recency[i])])
    return np.asarray(rows, dtype=np.float32)
