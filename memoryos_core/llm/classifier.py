"""A small learned classifier: multinomial logistic regression over text features, in numpy.

Decisions about language (which route a message takes, whether a sentence answers a question)
are made by a model trained on labelled examples kept in the repository and measured on a split
nobody tunes on, not by hand-written rules. Features are the sentence embedding we already
compute and a hashed bag of the message's words and word pairs (so "my dog's name" and "a name
for my dog" differ where their embeddings barely do). No scikit-learn: the fit is a few hundred
full-batch Adam steps, well under a second for a few thousand examples.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from ..text import casually_typed

HASHED_FEATURES = 2048  # buckets for words and word pairs
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[?!]")


def tokens(text: str) -> list[str]:
    """Lower-cased words, with '?' and '!' kept as tokens (they mark questions and exclamations)."""
    return _TOKEN.findall(text.lower().replace("’", "'"))


def _bucket(feature: str) -> int:
    # blake2b, not hash(): Python salts str hashes per process, features must not change
    return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=4).digest(),
                          "little") % HASHED_FEATURES


def hashed_ngrams(texts: Sequence[str]) -> np.ndarray:
    """Each text's words and word pairs (with a start mark), hashed and L2-normalised."""
    out = np.zeros((len(texts), HASHED_FEATURES), dtype=np.float32)
    for i, text in enumerate(texts):
        said = ["<s>", *tokens(text)]
        for a, b in zip(said, said[1:], strict=False):
            out[i, _bucket(b)] += 1.0
            out[i, _bucket(a + " " + b)] += 1.0
        norm = float(np.linalg.norm(out[i]))
        if norm:
            out[i] /= norm
    return out


def features(vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """The classifier's input: the sentence embeddings beside the hashed words of the texts."""
    return np.hstack([np.asarray(vectors, dtype=np.float32), hashed_ngrams(texts)])


@dataclass
class SoftmaxModel:
    """Weights of a fitted multinomial logistic regression and its class names."""

    classes: list[str]
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Each row's class probabilities, in `classes` order."""
        logits = np.asarray(x, dtype=np.float32) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        out: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return out


def fit(x: np.ndarray, labels: Sequence[str], classes: Sequence[str], l2: float = 1e-3,
        steps: int = 400, rate: float = 0.05, seed: int = 0) -> SoftmaxModel:
    """Multinomial logistic regression with L2, classes weighted to equal total weight."""
    x = np.asarray(x, dtype=np.float32)
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[lab] for lab in labels])
    onehot = np.eye(len(classes), dtype=np.float32)[y]
    counts = np.bincount(y, minlength=len(classes)).astype(np.float32)
    sample_w = (len(y) / (len(classes) * np.maximum(counts, 1.0)))[y][:, None]
    rng = np.random.default_rng(seed)
    w = rng.normal(0, 0.01, (x.shape[1], len(classes))).astype(np.float32)
    b = np.zeros(len(classes), dtype=np.float32)
    m_w, v_w = np.zeros_like(w), np.zeros_like(w)
    m_b, v_b = np.zeros_like(b), np.zeros_like(b)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for step in range(1, steps + 1):
        p = SoftmaxModel(list(classes), w, b).probabilities(x)
        grad = (p - onehot) * sample_w / len(y)
        g_w = x.T @ grad + l2 * w
        g_b = grad.sum(axis=0)
        for g, m, v, param in ((g_w, m_w, v_w, w), (g_b, m_b, v_b, b)):
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            param -= rate * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps)
    return SoftmaxModel(list(classes), w, b)


def grouped_folds(groups: Sequence[str], folds: int) -> list[np.ndarray]:
    """Index arrays of `folds` folds that keep each group (a person, a source) in one fold."""
    names = sorted(set(groups), key=lambda g: hashlib.blake2b(g.encode(), digest_size=4)
                   .hexdigest())
    fold_of = {g: i % folds for i, g in enumerate(names)}
    return [np.array([i for i, g in enumerate(groups) if fold_of[g] == f]) for f in range(folds)]


def best_floor(score: np.ndarray, candidates: np.ndarray, right: np.ndarray, relevant: int,
               grid: Sequence[float], beta: float, default: float) -> float:
    """Of `grid`, the floor whose candidates at or above it have the best F-beta (precision
    among them, recall of `relevant`); `default` where none says anything right."""
    best, best_f = default, 0.0
    for floor in grid:
        said = candidates & (score >= floor)
        tp = float(np.sum(said & right))
        precision = tp / max(1.0, float(said.sum()))
        recall = tp / max(1.0, float(relevant))
        f = (1 + beta ** 2) * precision * recall / max(1e-9, beta ** 2 * precision + recall)
        if f > best_f + 1e-9:
            best, best_f = floor, f
    return best


def save(path: Path, model: SoftmaxModel, digest: str, **extra: np.ndarray) -> None:
    """Write a fitted model and arrays beside it, stamped with its training data's digest."""
    arrays: dict[str, Any] = {"weights": model.weights, "bias": model.bias,
                              "classes": np.array(model.classes), "digest": np.array(digest),
                              **extra}
    np.savez_compressed(path, **arrays)


def load(path: Path, digest: str) -> tuple[SoftmaxModel, dict[str, np.ndarray]] | None:
    """The model saved at `path` and the arrays beside it, or None when it was fitted on
    other data."""
    if not path.exists():
        return None
    with np.load(path) as saved:
        if str(saved["digest"]) != digest:
            return None
        model = SoftmaxModel([str(c) for c in saved["classes"]], saved["weights"],
                             saved["bias"])
        return model, {k: saved[k] for k in saved.files
                       if k not in ("weights", "bias", "classes", "digest")}


def with_casual_copies(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows and, for each whose text typed in a hurry differs ("wheres my wifes work"),
    that copy: what a model reads must hold for phone typing too."""
    return rows + [{**r, "text": typed} for r in rows
                   if (typed := casually_typed(r["text"])) and typed != r["text"]]


def out_of_fold(x: np.ndarray, labels: Sequence[str], groups: Sequence[str],
                classes: Sequence[str], folds: int, l2: float, steps: int) -> np.ndarray:
    """Each row's class probabilities from a model fitted without its group (a person, a
    writer): what floors are chosen on."""
    oof = np.zeros((len(labels), len(classes)), dtype=np.float32)
    for held in grouped_folds(groups, folds):
        keep = np.setdiff1d(np.arange(len(labels)), held)
        part = fit(x[keep], [labels[i] for i in keep], classes, l2=l2, steps=steps)
        oof[held] = part.probabilities(x[held])
    return oof


Fitted = TypeVar("Fitted")


class FittedOnce(Generic[Fitted]):
    """A model per embedding model: the shipped one where it was fitted for that model and
    its data, else fitted once per process (another model, the tests' hashing embedder)."""

    def __init__(self, shipped_model: str, load_shipped: Callable[[], Fitted | None],
                 train: Callable[[Any], Fitted]) -> None:
        self._shipped_model, self._load, self._train = shipped_model, load_shipped, train
        self._models: dict[str, Fitted] = {}
        self._lock = threading.Lock()

    def get(self, embedder: Any) -> Fitted:
        """The model for this embedder."""
        name = str(getattr(embedder, "name", ""))
        with self._lock:
            found = self._models.get(name)
            if found is None:
                found = self._load() if name == self._shipped_model else None
                if found is None:
                    found = self._train(embedder)
                self._models[name] = found
        return found
