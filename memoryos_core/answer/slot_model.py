"""The slot model: which of a question's candidate sentences answers it, or none, as one choice.

A conditional logit (a softmax over the candidates' scores and a "none of them" score, as in
answer-sentence selection) over each question/sentence pair's features (slot.FEATURES): the
probability of the likeliest candidate is how sure it is to answer. It is said back at `floor`
or more and offered as "not sure" at `hedge` or more; both floors are chosen on out-of-fold
predictions by `python -m benchmarks.slot_answers --write-weights`, which fits the weights on
written newcomer chats (questions whose answer was never told teach "none").
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

WEIGHTS = Path(__file__).resolve().parent / "data" / "slot_weights.json"


@dataclass(frozen=True)
class SlotModel:
    """Weights of the pair features, the score of "none of them", and the floors."""

    features: tuple[str, ...]
    weights: np.ndarray
    none_score: float
    floor: float
    hedge: float
    measured_with: str
    same_share: float = 0.0  # a newer statement of a one-value attribute counts from this
    # share of the answer's probability (0: every statement of it the classifier finds)
    agreed_offers: bool = False  # a statement of the asked one-value attribute both
    # classifiers find is offered as "not sure" where nothing else is
    part_ratio: float = float("inf")  # a list's item said instead of the whole list where
    # its chance is this many times the next item's
    lead: float = float("inf")  # offered under the hedge where the likeliest holds this share
    lead_floor: float = 1.0  # of it and its rival's chance, and is at least this sure
    offers_by: str = "both"  # which classifiers find the statement offered (agreed_offers)
    newest_by: str = "either"  # which classifiers must find a newer statement of the asked
    # one-value attribute for it to stand in: either, both, or the learned fact kinds alone
    # ("I left the restaurant" is a home to the attributes' descriptions, a job to the kinds)
    related_hedge: float = float("inf")  # offered as "not sure" from this, under the hedge,
    # where it shares a word with the question or names the person or thing asked about
    unrelated_hedge: float = 0.0  # offered as "not sure" only from this where it shares no
    # word with the question nor names what it asks about ("What's my blood type?" is not
    # answered with the dog)
    follows_updates: bool = False  # a later sentence that names the answer's value with a
    # change ("I'm on Jardiance now instead of the metformin") is said in its place

    def choice(self, x: np.ndarray) -> np.ndarray:
        """The probability that each candidate is the answer (the rest: none of them)."""
        scores = np.append(np.asarray(x, dtype=np.float64) @ self.weights, self.none_score)
        scores -= scores.max()
        e = np.exp(scores)
        out: np.ndarray = (e / e.sum())[:-1]
        return out


# L2 0.001 and 3000 steps over 0.1/500 and 0.01/2000: the lowest out-of-fold cost on the dev
# chats' 234 questions (98.25 against 108.0 and 107.75, 2026-12-04; at 0.1 every weight sat
# near 0.5, the fit had barely moved)
def fit_choice(xs: Sequence[np.ndarray], answers: Sequence[Sequence[int]], l2: float = 1e-3,
               steps: int = 3000, rate: float = 0.05) -> tuple[np.ndarray, float]:
    """Weights and the none-score maximising the probability of each question's answers
    (any of them; none for a question with no answer), with L2, by full-batch Adam."""
    dim = xs[0].shape[1]
    # every question's candidates in one matrix, so a step is a few array operations (a
    # question with no candidate has nothing to learn: "none" is its only choice)
    kept = [i for i, x in enumerate(xs) if len(x)]
    x_all = np.concatenate([np.asarray(xs[i], dtype=np.float64) for i in kept])
    sizes = np.array([len(xs[i]) for i in kept])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    group = np.repeat(np.arange(len(kept)), sizes)
    good = np.zeros(len(x_all), dtype=bool)
    for k, i in enumerate(kept):
        good[starts[k] + np.asarray(list(answers[i]), dtype=int)] = True
    answered = np.add.reduceat(good.astype(float), starts) > 0
    theta = np.zeros(dim + 1)  # the weights, then the none-score
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for step in range(1, steps + 1):
        scores = x_all @ theta[:-1]
        top = np.maximum(np.maximum.reduceat(scores, starts), theta[-1])
        e = np.exp(scores - top[group])
        e_none = np.exp(theta[-1] - top)
        total = np.add.reduceat(e, starts) + e_none
        p, p_none = e / total[group], e_none / total
        # the target spreads each question's mass over its answers as the model does
        p_good = np.add.reduceat(np.where(good, p, 0.0), starts)
        target = np.where(good, p / np.where(answered, p_good, 1.0)[group], 0.0)
        d, d_none = p - target, p_none - (~answered)
        grad = np.append(x_all.T @ d, d_none.sum()) / len(xs)
        grad[:-1] += l2 * theta[:-1]
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        theta -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return theta[:-1], float(theta[-1])


def load(features: Sequence[str], path: Path = WEIGHTS) -> SlotModel:
    """The shipped slot model; refused when fitted on other features."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != tuple(features):
        raise ValueError(f"{path} was fitted on other features: run benchmarks.slot_answers"
                         " --write-weights")
    return SlotModel(tuple(features), np.asarray(data["weights"], dtype=np.float64),
                     float(data["none_score"]), float(data["floor"]), float(data["hedge"]),
                     str(data["embedder"]), float(data["same_share"]),
                     bool(data.get("agreed_offers", False)),
                     float(data.get("part_ratio", "inf")), float(data.get("lead", "inf")),
                     float(data.get("lead_floor", 1.0)), str(data.get("offers_by", "both")),
                     str(data.get("newest_by", "either")),
                     float(data.get("related_hedge", "inf")),
                     float(data.get("unrelated_hedge", 0.0)),
                     bool(data.get("follows_updates", False)))


@functools.lru_cache(maxsize=1)
def shipped(features: tuple[str, ...]) -> SlotModel:
    """The slot model the product answers with, read once."""
    return load(features)


def save(model: SlotModel, path: Path = WEIGHTS, **about: Any) -> None:
    """Write a slot model as JSON (a few dozen numbers: readable in a diff)."""
    path.write_text(json.dumps({
        "features": list(model.features),
        "weights": [round(float(w), 5) for w in model.weights],
        "none_score": round(model.none_score, 5), "floor": model.floor, "hedge": model.hedge,
        "same_share": model.same_share, "agreed_offers": model.agreed_offers,
        "lead": str(model.lead), "lead_floor": model.lead_floor, "offers_by": model.offers_by,
        "newest_by": model.newest_by, "part_ratio": str(model.part_ratio),
        "related_hedge": str(model.related_hedge), "follows_updates": model.follows_updates,
        "unrelated_hedge": model.unrelated_hedge,
        "embedder": model.measured_with, **about}, indent=1) + "\n", encoding="utf-8")
