"""Which way a message goes, learned: a question on memory, a request for the model, something
told, or small talk.

The embedded model's answer layer used to decide this with regular expressions (first person,
advice openings, greetings) tuned on a 15-message check; on other people's chats they misfired
("I'm starting a new job, any tips?" answered "I don't remember you telling me that."). Now a
multinomial logistic regression over the MiniLM vector the message gets anyway, beside its
hashed words and word pairs, decides, trained on the labelled messages of answer/data/
(written for many invented people and wordings, and real requests and questions of the
LongMemEval and LUFY dev corpora). Measured on a held-out set nobody tunes on:
`python -m benchmarks.routing` (docs/benchmarks.md, "Routing"). A route other than the model's
is taken only when its probability reaches that route's floor, chosen on out-of-fold
predictions of the training data (precision weighted twice recall): when unsure, the model
answers, since a weak answer beats a confident "I don't remember".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from . import courtesy, names, social_acts
from .saying import reflect

ROUTES = ("memory", "model", "told", "social")
IN_KIND = ("told", "social")  # the routes answered in kind (a set reply where one fits)
NEVER = 2.0  # a floor no probability reaches
DATA = Path(__file__).resolve().parent / "data"
EXAMPLE_FILES = ("routes_written.jsonl", "routes_written2.jsonl", "routes_written3.jsonl",
                 "routes_written4.jsonl", "routes_written5.jsonl", "routes_real.jsonl",
                 "routes_written6.jsonl", "routes_newcomer_dev.jsonl")
SHIPPED = DATA / "router_weights.npz"  # fitted for SHIPPED_MODEL, checked against the data
SHIPPED_MODEL = "all-MiniLM-L6-v2"
# the modules deciding which messages get a set reply (and the act model's data, which
# decides the small talk met by its act): the floors are chosen with them
REPLY_SOURCES = (DATA.parent / "courtesy.py", DATA.parent / "saying.py",
                 DATA.parent.parent / "asides.py")
FOLDS = 5
FLOOR_GRID = tuple(round(0.30 + 0.05 * i, 2) for i in range(13))  # 0.30 .. 0.90
PRECISION_BETA = 0.5  # F-beta with beta 0.5: precision counts twice recall
STEPS, L2 = 300, 1e-3
# each example is also learned as typed in a hurry ("wheres my wifes work"): the words and
# pairs the router reads are the typed ones, and phone typing dropped "?" and apostrophes
# (benchmarks.routing --casual)
CASUAL_COPIES = True


@dataclass(frozen=True)
class Routed:
    """A message's route, the probability of each route, and why."""

    route: str
    probabilities: dict[str, float]
    floor: float = 0.0
    unsure: bool = False  # the best route was not the model's but under its floor

    def view(self) -> dict[str, Any]:
        """The decision as the trace shows it."""
        return {"route": self.route, "unsure": self.unsure, "floor": self.floor,
                "probabilities": {k: round(v, 3) for k, v in self.probabilities.items()}}


@dataclass
class Router:
    """A fitted route model and the probability floor of each route other than the model's."""

    model: SoftmaxModel
    floors: dict[str, float] = field(default_factory=dict)

    def decide(self, probs: np.ndarray) -> Routed:
        """The route for one row of probabilities: the best, or the model's below its floor."""
        named = {c: float(p) for c, p in zip(self.model.classes, probs, strict=True)}
        best = max(named, key=lambda c: named[c])
        floor = self.floors.get(best, 0.0)
        if best != "model" and named[best] < floor:
            # "Hello! I'm Inès." at 0.59 small talk and 0.35 told: unsure which, sure it is
            # one of the two answered in kind
            in_kind = named.get("told", 0.0) + named.get("social", 0.0)
            if best in IN_KIND and in_kind >= self.floors.get("in_kind", NEVER):
                return Routed(best, named, self.floors["in_kind"])
            return Routed("model", named, floor, unsure=True)
        return Routed(best, named, floor)


def examples(files: tuple[str, ...] = EXAMPLE_FILES) -> list[dict[str, str]]:
    """The labelled messages the router learns from."""
    rows: list[dict[str, str]] = []
    for name in files:
        path = DATA / name
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    return rows


def data_hash(rows: list[dict[str, str]]) -> str:
    """A digest of the examples, the fit's settings and the set replies the floors were
    chosen with (courtesy.py): shipped weights must match it."""
    replies = b"".join(p.read_bytes() for p in REPLY_SOURCES)
    blob = json.dumps([rows, STEPS, L2, FOLDS, FLOOR_GRID, CASUAL_COPIES, IN_KIND,
                       hashlib.sha256(replies).hexdigest(),
                       social_acts.data_hash(social_acts.examples())], sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def choose_floors(probs: np.ndarray, labels: list[str], classes: list[str],
                  answered: dict[str, np.ndarray] | None = None) -> dict[str, float]:
    """Each non-model route's floor: the one of FLOOR_GRID with the best F0.5 for the route
    on out-of-fold probabilities (a row under its floor counts as the model's). Where
    `answered` marks the rows a route answers itself (a set reply built for a message read
    as told or small talk), only those count as said: a told message with no set reply goes
    to the model as a request does, so only what reaches the user is weighed."""
    gold = np.array(labels)
    floors = {}
    for k, route in enumerate(classes):
        if route == "model":
            continue
        top = probs.argmax(axis=1) == k
        if answered is not None and route in answered:
            top = top & answered[route]
        right = gold == route
        floors[route] = _best_floor(probs[:, k], top, right, int(right.sum()), FLOOR_GRID[0])
    floors["in_kind"] = _in_kind_floor(probs, gold, classes, floors, answered)
    return floors


def _best_floor(score: np.ndarray, candidates: np.ndarray, right: np.ndarray, relevant: int,
                default: float) -> float:
    """Of FLOOR_GRID, the floor with the best F0.5 of its candidates (classifier.best_floor)."""
    return best_floor(score, candidates, right, relevant, FLOOR_GRID, PRECISION_BETA, default)


def _in_kind_floor(probs: np.ndarray, gold: np.ndarray, classes: list[str],
                   floors: dict[str, float], answered: dict[str, np.ndarray] | None) -> float:
    """The floor of told and small talk together, for a row whose likeliest route is one of
    them but under its own floor: of FLOOR_GRID, the best F0.5 of "answered in kind, and told
    or small talk" over such rows (NEVER where no row is)."""
    kind = [classes.index(r) for r in IN_KIND]
    top = probs.argmax(axis=1)
    under = np.isin(top, kind) & (probs[np.arange(len(top)), top] <
                                  np.array([floors.get(classes[t], 0.0) for t in top]))
    if answered is not None:
        under &= np.array([bool(answered[classes[t]][i]) if classes[t] in answered else True
                           for i, t in enumerate(top)])
    right = np.isin(gold, IN_KIND)
    return _best_floor(probs[:, kind].sum(axis=1), under, right, int(np.sum(under & right)), NEVER)


def train(embedder: Embedder, rows: list[dict[str, str]]) -> Router:
    """Fit on every example and its casually typed copy; floors from grouped (by person)
    out-of-fold predictions."""
    if CASUAL_COPIES:
        rows = with_casual_copies(rows)
    texts = [r["text"] for r in rows]
    labels = [r["route"] for r in rows]
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    x = features(vectors, texts)
    classes = list(ROUTES)
    oof = out_of_fold(x, labels, [r["person"] for r in rows], classes, FOLDS, L2, STEPS)
    return Router(fit(x, labels, classes, l2=L2, steps=STEPS),
                  choose_floors(oof, labels, classes, set_replies(embedder, texts, vectors)))


def set_replies(embedder: Embedder, texts: list[str],
                vectors: np.ndarray) -> dict[str, np.ndarray]:
    """For the told and the small-talk routes, whether each text read so gets a set reply
    (courtesy.py, and for small talk its act's: social_acts.py) rather than the model's."""
    is_name = names.first_name_check(embedder)
    replied = {route: np.array([courtesy.reply(t, [], reflect, is_name, told=route == "told")
                                is not None for t in texts]) for route in ("told", "social")}
    # small talk no set reply matches is met in kind where its act is sure (social_acts.py)
    acts = social_acts.acts(embedder, list(texts), vectors)
    replied["social"] |= np.array([a is not None for a in acts], dtype=bool)
    return replied


def save(router: Router, path: Path, digest: str) -> None:
    """Write a router's weights and floors, stamped with the data digest."""
    classifier.save(path, router.model, digest,
                    floors=np.array([router.floors.get(c, 0.0) for c in router.model.classes]),
                    in_kind=np.array(router.floors.get("in_kind", NEVER)))


def load(path: Path, digest: str) -> Router | None:
    """The router saved at `path`, or None when it was fitted on other data."""
    found = classifier.load(path, digest)
    if found is None:
        return None
    model, extra = found
    floors = {c: float(f) for c, f in zip(model.classes, extra["floors"], strict=True)
              if c != "model"}
    floors["in_kind"] = float(extra["in_kind"])
    return Router(model, floors)


def _shipped() -> Router | None:
    return load(SHIPPED, data_hash(examples()))


_ROUTERS = FittedOnce(SHIPPED_MODEL, _shipped, lambda embedder: train(embedder, examples()))


def router_for(embedder: Embedder) -> Router:
    """The router for this embedding model: the shipped weights for MiniLM, else fitted once
    per process (another model, the tests' hashing embedder)."""
    return _ROUTERS.get(embedder)


def route(embedder: Embedder, text: str, vector: np.ndarray | None = None) -> Routed:
    """The route of one message (its embedding given where it was computed already)."""
    vec = embedder.embed([text]) if vector is None else vector[None, :]
    return routes(embedder, [text], vec)[0]


def routes(embedder: Embedder, texts: Sequence[str], vectors: np.ndarray) -> list[Routed]:
    """The route of each of several texts, their embeddings given."""
    if not len(texts):
        return []
    router = router_for(embedder)
    probs = router.model.probabilities(features(np.asarray(vectors, dtype=np.float32),
                                                list(texts)))
    return [router.decide(row) for row in probs]
