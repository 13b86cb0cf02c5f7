"""Small talk met in kind, learned: which act a message is (a greeting, thanks, a goodbye,
praise, a complaint, an acknowledgement, a question on the assistant, a return) and its reply.

Read as new users with SmolLM2-135M: small talk that no set reply of courtesy.py matched went
to the model, which invented ("hi! is this the memory chatbot my friend told me about?" ->
"…as a memory chatbot designed to assist users with their digital life… find me on social
media platforms like Facebook Messenger"; "mahalo, see you tomorrow" -> "Today is a wonderful
day to meet you tomorrow!"), and its invention stayed in the short-term history for the next
answers. A multinomial logistic regression over the message's MiniLM vector and hashed words
(llm/classifier.py), trained on written messages of many people (answer/data/), names the act;
a set reply is given only where that act's probability reaches the floor chosen out of fold
(precision counting twice recall), and never for "other" (opinions, remarks: the model's).
Measured on a held-out set nobody tunes on: `python -m benchmarks.social_acts`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..llm import Embedder, classifier
from ..llm.classifier import (
    FittedOnce,
    SoftmaxModel,
    best_floor,
    features,
    fit,
    out_of_fold,
    with_casual_copies,
)

ACTS = ("greeting", "how_are_you", "thanks", "goodbye", "praise", "complaint", "ack",
        "about_assistant", "back", "other")
# acts met in kind even where the router is unsure the message is small talk ("Hello... is this
# thing on?", "that's wrong lol"); praise often comes with a request ("perfect, now one formal
# sentence", "Very nice but too long"): on the dev chats, 8 of 8 such messages read as one of
# these acts were small talk, 2 of the 4 read as praise requests
PLAIN_ACTS = frozenset({"greeting", "how_are_you", "thanks", "goodbye", "back",
                        "about_assistant", "complaint"})
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = DATA / "social_acts_written.jsonl"
SHIPPED = DATA / "social_acts_weights.npz"
SHIPPED_MODEL = "all-MiniLM-L6-v2"
FOLDS, STEPS, L2 = 5, 300, 1e-3
FLOOR_GRID = tuple(round(0.30 + 0.05 * i, 2) for i in range(13))  # 0.30 .. 0.90
PRECISION_BETA = 0.5

# each reply true of this app whatever was said before it: no memory claimed, no advice
_REPLIES = {
    "greeting": "Hello{name}! What would you like to talk about?",
    "how_are_you": "I'm well, thank you{name}. What's on your mind?",
    "thanks": "You're welcome{name}!",
    "goodbye": "Bye{name}! Talk soon.",
    "praise": "Thank you{name}, glad it helps!",
    "complaint": "Sorry about that{name}. Tell me what's right and I'll remember it.",
    "ack": "Okay! What else is on your mind?",
    "about_assistant": "I'm a small chat model running on this computer, with a memory of what "
                       "you tell me: tell me about yourself, and ask me about it later. A "
                       "bigger model (Settings) answers harder questions better.",
    "back": "Welcome back{name}! What's on your mind?",
}


@dataclass
class ActModel:
    """A fitted act classifier and each act's probability floor."""

    model: SoftmaxModel
    floors: dict[str, float]

    def act(self, probs: np.ndarray) -> str | None:
        """The act one row of probabilities names surely enough for a set reply, or None."""
        best = int(np.argmax(probs))
        name = self.model.classes[best]
        if name == "other" or float(probs[best]) < self.floors.get(name, 2.0):
            return None
        return name


def examples(path: Path = EXAMPLES) -> list[dict[str, str]]:
    """The labelled small-talk messages the act model learns from."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def data_hash(rows: list[dict[str, str]]) -> str:
    """A digest of the examples and the fit's settings: shipped weights must match it."""
    blob = json.dumps([rows, ACTS, FOLDS, STEPS, L2, FLOOR_GRID, PRECISION_BETA],
                      sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def choose_floors(probs: np.ndarray, labels: list[str]) -> dict[str, float]:
    """Each act's floor: of FLOOR_GRID, the best F0.5 of the rows whose best act it is."""
    gold, top = np.array(labels), probs.argmax(axis=1)
    return {act: best_floor(probs[:, k], top == k, gold == act, int(np.sum(gold == act)),
                            FLOOR_GRID, PRECISION_BETA, 2.0)
            for k, act in enumerate(ACTS) if act != "other"}


def train(embedder: Embedder, rows: list[dict[str, str]]) -> ActModel:
    """Fit on every example (and its casually typed copy); floors from out-of-fold
    predictions grouped by writer."""
    rows = with_casual_copies(rows)  # small talk is typed in a hurry more than anything
    texts, labels = [r["text"] for r in rows], [r["act"] for r in rows]
    x = features(np.asarray(embedder.embed(texts), dtype=np.float32), texts)
    oof = out_of_fold(x, labels, [r.get("person", "") for r in rows], ACTS, FOLDS, L2, STEPS)
    return ActModel(fit(x, labels, ACTS, l2=L2, steps=STEPS), choose_floors(oof, labels))


def save(acts: ActModel, path: Path, digest: str) -> None:
    """Write a fitted act model, stamped with the data digest."""
    classifier.save(path, acts.model, digest, floors=np.array(
        [acts.floors.get(c, 2.0) for c in acts.model.classes]))


def load(path: Path, digest: str) -> ActModel | None:
    """The act model saved at `path`, or None when it was fitted on other data."""
    found = classifier.load(path, digest)
    if found is None:
        return None
    model, extra = found
    return ActModel(model, {c: float(f) for c, f in zip(model.classes, extra["floors"],
                                                        strict=True)})


def _shipped() -> ActModel | None:
    return load(SHIPPED, data_hash(examples()))


_MODELS = FittedOnce(SHIPPED_MODEL, _shipped, lambda embedder: train(embedder, examples()))


def model_for(embedder: Embedder) -> ActModel:
    """The act model for this embedder: the shipped weights for MiniLM, else fitted once per
    process (another model, the tests' hashing embedder)."""
    return _MODELS.get(embedder)


def acts(embedder: Embedder, texts: list[str], vectors: np.ndarray) -> list[str | None]:
    """The act of each message where one is sure enough for a set reply, else None."""
    if not texts:
        return []
    fitted = model_for(embedder)
    probs = fitted.model.probabilities(features(np.asarray(vectors, dtype=np.float32), texts))
    return [fitted.act(row) for row in probs]


def reply(embedder: Embedder, text: str, vector: np.ndarray | None = None,
          name: str | None = None, only: frozenset[str] | None = None) -> str | None:
    """The set reply to a small-talk message (addressed to `name` where the user gave one),
    or None where it is no act we answer in kind (of `only`, where given) or the model is
    unsure."""
    vec = embedder.embed([text]) if vector is None else vector[None, :]
    act = acts(embedder, [text], vec)[0]
    if act is None or (only is not None and act not in only):
        return None
    return _REPLIES[act].format(name=f", {name}" if name else "")
