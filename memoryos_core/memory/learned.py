"""Small learned decisions over sentence embeddings: labelled sentences in, a softmax model out.

Decisions about language in memory/ (what kind of fact a statement is, whether a user sentence
states the user's own interest) are made by a multinomial logistic regression over the MiniLM
vectors we already compute, trained on labelled sentences kept in `memory/labelled/*.tsv`. A fixed
share of each file (chosen by a hash of the sentence, so it never moves) is held out: it is
never trained on and the benchmarks report precision and recall on it. No scikit-learn: a
full-batch gradient descent of a few hundred steps fits a few hundred sentences in well under a
second. Only for the embedding model the data was measured with (MEASURED); with another one
(the tests' hashing embedder) `model_for` gives None and callers keep their rule without it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from ..llm.classifier import SoftmaxModel

DATA = Path(__file__).with_name("labelled")
MEASURED = frozenset({"all-MiniLM-L6-v2"})
HELD_OUT = 4  # one sentence in this many is held out (hash of its text)
STEPS = 400  # gradient steps
RATE = 0.5  # step size
DECAY = 1e-3  # L2 weight penalty: the classes are few and the examples hundreds


def read(name: str) -> list[tuple[str, str]]:
    """(label, sentence) rows of a data file; '#' lines are comments."""
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, text = line.split("\t", 1)
            rows.append((label.strip(), text.strip()))
    return rows


def held_out(text: str) -> bool:
    """True for a sentence of the held-out split (the same on every machine and run)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "little") % HELD_OUT == 0


def split(rows: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(train, held-out) rows."""
    return [r for r in rows if not held_out(r[1])], [r for r in rows if held_out(r[1])]


class Softmax(SoftmaxModel):
    """A fitted multinomial logistic regression over sentence vectors (llm/classifier.py's
    model), read as the likeliest class of each row."""

    def predict(self, vecs: np.ndarray) -> list[tuple[str, float]]:
        """The most likely class of each row, with its probability."""
        probs = self.probabilities(vecs)
        return [(self.classes[int(i)], float(p[int(i)]))
                for i, p in zip(probs.argmax(axis=1), probs, strict=True)]


def fit(vecs: np.ndarray, labels: list[str]) -> Softmax:
    """Fit a softmax model to labelled vectors (classes weighted to count equally)."""
    classes = sorted(set(labels))
    x = np.asarray(vecs, dtype=np.float32)
    y = np.zeros((len(labels), len(classes)), dtype=np.float32)
    y[np.arange(len(labels)), [classes.index(lab) for lab in labels]] = 1.0
    weight = (1.0 / y.sum(axis=0))[None, :] * y  # a rare class counts as much as a common one
    weight = weight.sum(axis=1, keepdims=True) * len(labels) / len(classes)
    w = np.zeros((x.shape[1], len(classes)), dtype=np.float32)
    b = np.zeros(len(classes), dtype=np.float32)
    scale = np.float32(8.0)  # unit vectors: cosines are small, so the logits need room
    for _ in range(STEPS):
        model = Softmax(classes, w * scale, b)
        grad = (model.probabilities(x) - y) * weight / len(labels)
        w -= RATE * (scale * x.T @ grad + DECAY * w)
        b -= RATE * grad.sum(axis=0)
    return Softmax(classes, w * scale, b)


_MODELS: dict[tuple[str, str], Softmax] = {}
_OUT_OF_FOLD: dict[tuple[str, str], list[tuple[str, str, float]]] = {}
FOLDS = 5  # out-of-fold predictions: the training split in this many parts (hash of the text)


def fold(text: str) -> int:
    """The fold of a training sentence (a hash other than the held-out one's)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=4, person=b"fold").digest()
    return int.from_bytes(digest, "little") % FOLDS


def model_for(name: str, embedder: Any, train_only: bool = True) -> Softmax | None:
    """The model of one data file for this embedder, fitted once per process on its train
    split (`train_only` False: on every row); None when the embedder was not measured."""
    if str(getattr(embedder, "name", "")) not in MEASURED:
        return None
    key = (f"{name}:{train_only}", embedder.name)
    if key not in _MODELS:
        rows = read(name)
        rows = split(rows)[0] if train_only else rows
        vecs = np.asarray(embedder.embed([t for _, t in rows]), dtype=np.float32)
        _MODELS[key] = fit(vecs, [lab for lab, _ in rows])
    return _MODELS[key]


def out_of_fold(name: str, embedder: Any) -> list[tuple[str, str, float]] | None:
    """(label, predicted class, its probability) of every training-split sentence, each
    predicted by a model fitted on the other folds: what thresholds are chosen on (the
    held-out split stays unseen). None when the embedder was not measured."""
    if str(getattr(embedder, "name", "")) not in MEASURED:
        return None
    key = (name, embedder.name)
    if key not in _OUT_OF_FOLD:
        rows = split(read(name))[0]
        vecs = np.asarray(embedder.embed([t for _, t in rows]), dtype=np.float32)
        parts = np.array([fold(t) for _, t in rows])
        got: list[tuple[str, str, float]] = [("", "", 0.0)] * len(rows)
        for f in range(FOLDS):
            train = parts != f
            model = fit(vecs[train], [lab for (lab, _), t in zip(rows, train, strict=True) if t])
            for i, (cls, p) in zip(np.flatnonzero(~train), model.predict(vecs[~train]),
                                   strict=True):
                got[int(i)] = (rows[int(i)][0], cls, p)
        _OUT_OF_FOLD[key] = got
    return _OUT_OF_FOLD[key]


def scores(name: str, embedder: Any) -> dict[str, Any]:
    """Per-class precision and recall on the held-out split of a data file (trained on the
    rest), with the rows it got wrong."""
    model = model_for(name, embedder)
    if model is None:
        raise ValueError(f"{getattr(embedder, 'name', embedder)} is not a measured model")
    test = split(read(name))[1]
    got = model.predict(np.asarray(embedder.embed([t for _, t in test]), dtype=np.float32))
    out: dict[str, Any] = {"train": len(read(name)) - len(test), "held_out": len(test),
                           "classes": {}}
    for cls in model.classes:
        said = sum(1 for g, _ in got if g == cls)
        truth = sum(1 for lab, _ in test if lab == cls)
        right = sum(1 for (lab, _), (g, _) in zip(test, got, strict=True) if lab == g == cls)
        out["classes"][cls] = {"n": truth, "precision": round(right / said, 3) if said else None,
                               "recall": round(right / truth, 3) if truth else None}
    out["accuracy"] = round(sum(1 for (lab, _), (g, _) in zip(test, got, strict=True)
                                if lab == g) / len(test), 3)
    out["wrong"] = [{"text": t, "label": lab, "got": g, "p": round(p, 2)}
                    for (lab, t), (g, p) in zip(test, got, strict=True) if lab != g]
    return out
