"""Is the word after "I'm" a name? "I'm Sam" gives a name, "I'm Chinese" does not.

Decided by meaning, not by a word list of the answer: the word's MiniLM vector against the mean
vectors of first names and of the other words people put after "I'm" (nationalities,
languages, religions, jobs, states), labelled in NAME_EXAMPLES / OTHER_EXAMPLES. The check on
words never used to fit it is in tests/core/test_names.py. With an embedder it was not measured
for (the tests' hashing one) no bare "I'm X" is taken for a name: only "my name is", "call me".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

MEASURED = frozenset({"all-MiniLM-L6-v2"})
NAME_EXAMPLES = ("Sam Dana Priya Tom Ana Chidi Kenji Maria Olga Diego Aisha Henrik Grace Mateus"
                 " Elena Ravi Noor Bao Chloe Liam Fatima Jonas Yuki Wei Sofia Lucas Amara"
                 " Oluwaseun Ingrid Pablo Hannah Mehmet Zara Arjun Leila Tomasz Camila Marcus"
                 " Siobhan Kwame").split()
OTHER_EXAMPLES = ("Chinese French German Spanish Italian Japanese Korean Brazilian Mexican"
                  " Nigerian Kenyan Polish Irish Scottish Welsh English British American Canadian"
                  " Australian Indian Pakistani Turkish Greek Swedish Dutch Vegan Vegetarian"
                  " Catholic Muslim Jewish Hindu Buddhist Christian Married Single Pregnant"
                  " Retired Unemployed Bilingual Tired Happy Fine Okay Good Sorry Back Here Ready"
                  " Allergic Diabetic Left-handed Engineer Teacher Nurse Student").split()


@functools.lru_cache(maxsize=4)
def _centroids(embedder: Any) -> tuple[np.ndarray, np.ndarray]:
    vecs = np.asarray(embedder.embed(list(NAME_EXAMPLES + OTHER_EXAMPLES)), dtype=np.float32)
    names, others = vecs[:len(NAME_EXAMPLES)].mean(0), vecs[len(NAME_EXAMPLES):].mean(0)
    return names / np.linalg.norm(names), others / np.linalg.norm(others)


def first_name_check(embedder: Any) -> Any:
    """A function telling whether a capitalised word after "I'm" is a first name."""
    if str(getattr(embedder, "name", "")) not in MEASURED:
        return lambda word: False

    def is_name(word: str) -> bool:
        names, others = _centroids(embedder)
        vec = np.asarray(embedder.embed([word])[0], dtype=np.float32)
        return float(vec @ names) > float(vec @ others)

    return is_name


def name_like(embedder: Any, vectors: np.ndarray) -> np.ndarray:
    """For word vectors, whether each is nearer the first names than the other words put after
    "I'm" (all False for an embedder the check was not measured for)."""
    if str(getattr(embedder, "name", "")) not in MEASURED or len(vectors) == 0:
        return np.zeros(len(vectors), dtype=bool)
    names, others = _centroids(embedder)
    vecs = np.asarray(vectors, dtype=np.float32)
    return np.asarray(vecs @ names > vecs @ others)


_WORDS: dict[tuple[str, str], np.ndarray] = {}  # (embedder, word) -> vector


def word_vectors(embedder: Any, items: Sequence[str]) -> dict[str, np.ndarray]:
    """Vectors of single words, embedded once per process (one batch for the new ones)."""
    name = str(getattr(embedder, "name", ""))
    new = [w for w in dict.fromkeys(items) if (name, w) not in _WORDS]
    if new:
        for w, v in zip(new, np.asarray(embedder.embed(new), dtype=np.float32), strict=True):
            _WORDS[(name, w)] = v
    return {w: _WORDS[(name, w)] for w in items}
