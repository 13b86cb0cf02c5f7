"""What a fact is about: an attribute of a person (where they live, their job, their car...).

A statement is given the attribute whose short descriptions its embedding is nearest to, when
that cosine reaches ATTRIBUTE_MIN (others within ATTRIBUTE_MARGIN of it are kept too); whose
attribute it is (the holder) is read from its words: "my sister lives in Rome" is the sister's
home, not the user's. A newer statement of the same attribute and holder that names another
value replaces the older one by meaning, whatever words the two share ("I live in Paris" ->
"I moved to Berlin"). Measured with `python -m benchmarks.supersession` (docs/benchmarks.md,
"Facts over time"); the cosines are all-MiniLM-L6-v2's.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..text import without_possessive, words
from . import kinship

# (single-valued, descriptions): a single-valued attribute holds one value at a time, so a new
# value replaces the old; a person has many pets, so a pet is replaced only when told so
ATTRIBUTES: dict[str, tuple[bool, tuple[str, ...]]] = {
    "home": (True, ("I live in a city.", "I moved to another city.",
                    "We moved into a new flat.", "My home is in this town.",
                    "She lives in a town.", "They moved to a new house.", "Where do I live?")),
    "job": (True, ("I work as an engineer.", "My job is at a company.", "I got a new job.",
                   "I quit my job and started a new one.", "He works as a teacher.",
                   "I run my own business, a shop or a stall.",
                   "What do I do for a living?")),
    "partner": (True, ("My partner and I are together.", "I am dating someone.",
                       "My girlfriend or boyfriend.", "I married my wife or husband.",
                       "I broke up with my partner.", "Who am I seeing?")),
    # how one gets around, as the learned fact kind "commute" (memory/fact_kinds.py)
    "car": (True, ("I drive a car.", "I bought a new car.", "My car is a sedan.",
                   "He drives a car.", "What car do I drive?",
                   "I commute to work by bus or bike.", "How do I get to work?")),
    "phone": (True, ("My phone is a smartphone.", "I got a new phone.",
                     "What phone do I have?")),
    "school": (True, ("I study at a university.", "I am a student at a college.",
                      "I go to school.", "My child goes to a school.",
                      "I am studying for a degree.", "Where do I study?")),
    "pet": (False, ("I have a pet dog.", "We adopted a cat.", "My pet is a rabbit.",
                    "What pet do I have?")),
    # what one must not or does not eat: an allergy, an intolerance, a diet (many hold)
    "diet": (False, ("I am allergic to a food.", "I can't eat gluten or dairy.",
                     "I am vegetarian and don't eat meat.")),
    "age": (True, ("I am thirty years old.", "I turned forty on my birthday.",
                   "My child is five years old.", "How old am I?")),
}
ATTRIBUTE_MIN = 0.40  # cosine to an attribute's nearest description (0.35-0.55 measured)
ATTRIBUTE_MARGIN = 0.05  # ... ahead of every other attribute's

# whose attribute a statement names: "my sister", "our son" (a partner word is a holder
# unless the attribute is the partner itself: "my wife works as a teacher")
# (family words are kinship.py's; these are the other people one names as one's own)
RELATIONS = frozenset(
    """friend friends cousin aunt uncle niece nephew neighbour neighbor boss colleague coworker
    roommate flatmate team""".split())
PARTNERS = frozenset(kinship.kin_words("partner")) - {"half"}  # "half" only after "other"
_SELF = frozenset({"i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "me", "user"})
_OWNER = frozenset({"my", "our", "user's"})
# a pet, a child: replaced only when the statement says the old one is gone
_GONE = re.compile(r"\b(no longer|anymore|any more|died|passed away|gave away|given away|"
                   r"rehomed|lost|instead)\b", re.IGNORECASE)


# the embedding models the cosines above were measured with; with another one (the tests'
# hashing embedder, a configured model) no statement has an attribute: the extractive rule holds
MEASURED = frozenset({"all-MiniLM-L6-v2"})


def measured(embedder: Any) -> bool:
    """True when the attribute cosines were measured for this embedding model."""
    return str(getattr(embedder, "name", "")) in MEASURED


_VECTORS: dict[str, tuple[list[str], np.ndarray, np.ndarray]] = {}


def description_vectors(embedder: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(attribute of each description, description vectors, one centroid per attribute in
    ATTRIBUTES' order), embedded once per embedding model."""
    found = _VECTORS.get(embedder.name)
    if found is None:
        names = [n for n, (_, texts) in ATTRIBUTES.items() for _ in texts]
        vecs = np.asarray(embedder.embed([t for _, texts in ATTRIBUTES.values() for t in texts]),
                          dtype=np.float32)
        centroids = np.vstack([vecs[[i for i, n in enumerate(names) if n == name]].mean(axis=0)
                               for name in ATTRIBUTES])
        centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
        found = _VECTORS[embedder.name] = (names, vecs, centroids)
    return found


def centroid(embedder: Any, name: str) -> np.ndarray:
    """One attribute's mean description vector (to search the facts of that attribute)."""
    found: np.ndarray = description_vectors(embedder)[2][list(ATTRIBUTES).index(name)]
    return found


def holder(text: str, attribute: str) -> str:
    """Whose attribute the statement names: 'self', or the relation it names first."""
    said = words(text)
    for i, word in enumerate(said):
        if word in _SELF:
            return "self"
        if word in _OWNER:
            for k, nxt in enumerate(said[i + 1: i + 4]):
                nxt = without_possessive(nxt)  # "my sister's name": the sister's
                if nxt == "half":  # "my other half", not "my half brother"
                    if said[i + k: i + k + 1] != ["other"]:
                        continue
                    nxt = "partner"
                # one name per relation: "my mum" and "my mother" are one holder
                relation = kinship.relation(nxt)
                if nxt in PARTNERS:
                    if attribute != "partner":
                        return relation or nxt
                    continue
                if relation is not None:
                    return relation
                if nxt in RELATIONS:
                    return nxt[:-1] if nxt.endswith("s") and not nxt.endswith("ss") else nxt
            return "self"
    return "self"


def classify(vec: np.ndarray, embedder: Any) -> dict[str, float]:
    """The attributes a statement may be about, with their cosines: the best one when it
    reaches ATTRIBUTE_MIN, and each other one within ATTRIBUTE_MARGIN of it ("I live in Paris
    with my partner" is about the home and the partner); empty for none."""
    return classify_many(np.asarray(vec, dtype=np.float32)[None, :], embedder)[0]


# "What does my sister do?" asks her job by its syntax, in words too few for the meaning to
# reach a job's descriptions (49 of the dev chats' 71 such questions had no attribute)
_ASKS_JOB = re.compile(
    r"\bwhat (?:does|do) (?:[\w'’-]+ ){1,4}do\b(?!\s+(?:with|to|about|on|at|in|if|when|after|"
    r"for fun|first|next|today|tonight|tomorrow|this|that|it|there)\b)"
    r"|\bwhat (?:does|do|did) (?:[\w'’-]+ ){1,4}do for (?:a )?(?:work|living)\b"
    r"|\b(?:job|occupation|profession)\b", re.IGNORECASE)


def asked_in(question: str, vec: np.ndarray, embedder: Any) -> dict[str, float]:
    """The attributes a question asks about: `classify` of its vector, and the job where its
    syntax asks one ("What does Fiona do?")."""
    found = classify(vec, embedder)
    if measured(embedder) and "job" not in found and _ASKS_JOB.search(question):
        found["job"] = ATTRIBUTE_MIN
    return found


def classify_many(vecs: np.ndarray, embedder: Any) -> list[dict[str, float]]:
    """`classify` of each row of a matrix of statement vectors."""
    if not measured(embedder):
        return [{} for _ in range(len(vecs))]
    names, desc, _ = description_vectors(embedder)
    if len(vecs) == 0:
        return []
    scores = np.asarray(vecs, dtype=np.float32) @ desc.T
    order = list(ATTRIBUTES)
    # an attribute's descriptions are consecutive (description_vectors): the best of each run
    starts = [names.index(name) for name in order]
    best = np.maximum.reduceat(scores, starts, axis=1)
    out: list[dict[str, float]] = []
    for row in best:
        top = float(row.max())
        out.append({} if top < ATTRIBUTE_MIN else {
            name: float(s) for name, s in zip(order, row, strict=True)
            if s >= ATTRIBUTE_MIN and top - s < ATTRIBUTE_MARGIN})
    return out


def clear(found: dict[str, float]) -> str | None:
    """The one attribute of a classification, or None (none, or more than one near)."""
    return next(iter(found)) if len(found) == 1 else None


def single_valued(name: str) -> bool:
    """True when the attribute holds one value at a time (a home, a job; not a pet)."""
    return ATTRIBUTES[name][0]


def says_gone(text: str) -> bool:
    """True when a statement says an earlier value is gone ("no longer", "died", "instead")."""
    return _GONE.search(text) is not None
