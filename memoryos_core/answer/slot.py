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

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..llm import Embedder
from ..memory import attributes
from ..text import QUESTION_FRAME_WORDS, STOP_WORDS, stem, words

WEIGHTS = Path(__file__).resolve().parent / "data" / "slot_weights.json"
FEATURES = ("cos", "cos_gap", "shared_words", "any_shared", "subject_said", "subject_near",
            "other_subject", "same_attribute", "is_fact")
# words that ask, not name: never the subject of a question
_ASKING = frozenset("kind type sort name names named called call much many long old often"
                    " again still now currently ever before previously used".split())
_OWNERS = frozenset({"my", "our", "mine", "ours"})
_POSSESSIVE = re.compile(r"^(.+?)(?:'s|’s|s')$")


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
            and w not in _ASKING and len(w) > 1]


def owned(text: str) -> list[str]:
    """The nouns a text names as someone's own ("my dog's name" -> dog; "our trip" -> trip;
    "Maya's birthday" -> maya, birthday): the person or thing a question asks about."""
    said = words(text)
    out: list[str] = []
    for i, word in enumerate(said):
        found = _POSSESSIVE.match(word)
        if found and found.group(1) not in ("it", "that", "what", "who", "there", "here",
                                            "let", "he", "she"):
            out.append(found.group(1))
        if word in _OWNERS:
            for nxt in said[i + 1: i + 4]:
                base = _POSSESSIVE.match(nxt)
                noun = base.group(1) if base else nxt
                if noun in STOP_WORDS or noun in _ASKING or noun in QUESTION_FRAME_WORDS:
                    break
                out.append(noun)
                if not base:
                    break
    return list(dict.fromkeys(w for w in out if w not in STOP_WORDS))


_KNOWN: dict[tuple[str, str], np.ndarray] = {}  # (embedder, word) -> vector


def _word_vectors(embedder: Embedder, items: Sequence[str]) -> dict[str, np.ndarray]:
    """Vectors of single words, embedded once per process (one batch for the new ones)."""
    name = str(getattr(embedder, "name", ""))
    new = [w for w in dict.fromkeys(items) if (name, w) not in _KNOWN]
    if new:
        for w, v in zip(new, np.asarray(embedder.embed(new), dtype=np.float32), strict=True):
            _KNOWN[(name, w)] = v
    return {w: _KNOWN[(name, w)] for w in items}


def pair_features(embedder: Embedder, question: str, qvec: np.ndarray,
                  candidates: Sequence[Candidate], vecs: np.ndarray) -> np.ndarray:
    """One row of FEATURES per candidate."""
    if not candidates:
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    cos = np.asarray(vecs @ qvec, dtype=np.float32)
    asked = {stem(w) for w in content(question)}
    subject = owned(question) or content(question)[:3]
    cand_words = [content(c.sentence) for c in candidates]
    cand_owned = [owned(c.sentence) for c in candidates]
    every = list(subject) + [w for ws in cand_words for w in ws] + \
        [w for ws in cand_owned for w in ws]
    wv = _word_vectors(embedder, every) if every else {}
    q_attr = set(attributes.classify(qvec, embedder))
    c_attr = attributes.classify_many(vecs, embedder)
    rows = []
    for i, c in enumerate(candidates):
        held = {stem(w) for w in cand_words[i]}
        shared = len(asked & held) / len(asked) if asked else 0.0
        said_subject = float(any(stem(s) in held for s in subject)) if subject else 0.0
        near = max((float(wv[s] @ wv[w]) for s in subject for w in cand_words[i]),
                   default=0.0)
        # it names someone's own thing, and none of them is near what was asked: "my brother"
        # in answer to "my partner"
        other = 0.0
        if cand_owned[i] and subject:
            other = 1.0 - max(float(wv[s] @ wv[o]) for s in subject for o in cand_owned[i])
        rows.append([float(cos[i]), float(cos[i] - cos.max()), shared, float(shared > 0),
                     said_subject, near, other, float(bool(q_attr & set(c_attr[i]))),
                     float(c.fact_id is not None)])
    return np.asarray(rows, dtype=np.float32)


@dataclass(frozen=True)
class SlotModel:
    """A fitted binary logistic regression over FEATURES, the chance a candidate needs to be
    said back (`floor`), and the chance it needs to be named in "I'm not sure" (`hedge`)."""

    weights: np.ndarray
    bias: float
    floor: float
    measured_with: str
    hedge: float = 1.0

    def chances(self, x: np.ndarray) -> np.ndarray:
        """The chance each row's candidate answers the question."""
        z = np.asarray(x, dtype=np.float32) @ self.weights + self.bias
        out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return out


def load(path: Path = WEIGHTS) -> SlotModel:
    """The shipped slot model."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path} was fitted on other features: run benchmarks.slot_answers"
                         " --write-weights")
    return SlotModel(np.asarray(data["weights"], dtype=np.float32), float(data["bias"]),
                     float(data["floor"]), str(data["embedder"]), float(data["hedge"]))


@functools.lru_cache(maxsize=1)
def shipped() -> SlotModel:
    """The slot model the product answers with, read once."""
    return load()


def save(model: SlotModel, path: Path = WEIGHTS, **about: Any) -> None:
    """Write a slot model as JSON (nine weights, a bias and a floor: readable in a diff)."""
    path.write_text(json.dumps({"features": list(FEATURES),
                                "weights": [round(float(w), 5) for w in model.weights],
                                "bias": round(model.bias, 5), "floor": model.floor,
                                "hedge": model.hedge,
                                "embedder": model.measured_with, **about}, indent=1) + "\n",
                    encoding="utf-8")


@dataclass(frozen=True)
class Found:
    """The candidate said back (or None), its chance, the ones only near enough to be named
    as "not sure", and every candidate weighed with why it was taken or refused."""

    pick: Candidate | None
    chance: float
    maybe: list[Candidate]
    considered: list[dict[str, Any]]


def _why(chance: float, model: SlotModel, picked: bool, replaced: bool) -> str:
    """Why a candidate was taken or refused, in a reader's words."""
    if picked:
        return f"answers the question (chance {chance:.2f}, at least {model.floor:.2f})"
    if replaced:
        return "states the same one-value attribute earlier: the newer statement holds"
    if chance >= model.floor:
        return "a likelier candidate answered"
    if chance >= model.hedge:
        return f"near the question but not sure to answer it (chance {chance:.2f})"
    return f"does not answer what was asked (chance {chance:.2f}, under {model.hedge:.2f})"


def _one_value(embedder: Embedder, question: str, qvec: np.ndarray, vecs: np.ndarray,
               candidates: Sequence[Candidate], chances: np.ndarray, least: float,
               past: bool) -> int | None:
    """For a question on a one-value attribute of the user (where they live, their job), the
    newest candidate near enough that states it ("I moved to Berlin" over "I live in
    Paris"), or the one before it for a question on the past."""
    asked = {n for n in attributes.classify(qvec, embedder)
             if attributes.single_valued(n) and attributes.holder(question, n) == "self"}
    if not asked:
        return None
    kinds = attributes.classify_many(vecs, embedder)
    same = [i for i, c in enumerate(candidates) if chances[i] >= least and asked & set(kinds[i])
            and all(attributes.holder(c.sentence, n) == "self" for n in asked & set(kinds[i]))]
    if not same:
        return None
    same.sort(key=lambda i: (candidates[i].timestamp or 0.0, float(chances[i])))
    return same[-2] if past and len(same) > 1 else same[-1]


def answer(embedder: Embedder, question: str, candidates: Sequence[Candidate],
           past: bool = False, model: SlotModel | None = None) -> Found:
    """The candidate that answers the question's slot, by the shipped slot model."""
    if not candidates:
        return Found(None, 0.0, [], [])
    model = model or shipped()
    vecs = np.asarray(embedder.embed([question] + [c.sentence for c in candidates]),
                      dtype=np.float32)
    chances = model.chances(pair_features(embedder, question, vecs[0], candidates, vecs[1:]))
    order = [int(i) for i in np.argsort(-chances, kind="stable")]
    pick = order[0] if chances[order[0]] >= model.floor else None
    if pick is not None:
        newer = _one_value(embedder, question, vecs[0], vecs[1:], candidates, chances,
                           model.hedge, past)
        pick = pick if newer is None else newer
    maybe = [] if pick is not None else \
        [candidates[i] for i in order if chances[i] >= model.hedge]
    considered = [{"text": candidates[i].sentence, "page_id": candidates[i].page_id,
                   "fact_id": candidates[i].fact_id, "chance": round(float(chances[i]), 3),
                   "taken": i == pick,
                   "why": _why(float(chances[i]), model, i == pick,
                               pick is not None and i != pick and chances[i] >= model.floor
                               and float(chances[i]) > float(chances[pick]))}
                  for i in order]
    return Found(None if pick is None else candidates[pick],
                 0.0 if pick is None else float(chances[pick]), maybe, considered)
