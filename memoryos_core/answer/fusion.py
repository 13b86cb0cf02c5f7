"""Learned page fusion: each candidate page's ranks, cosine, word share and length, scored."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..text import count_tokens, stem, words
from .memory_block import page_tokens
from .types import PageHit

WEIGHTS = Path(__file__).resolve().parent / "data" / "fusion_weights.json"
RANK_SCALE = 10.0  # a rank r counts as 10 / (10 + r): the first ranks apart, the tail flat
FEATURES = (
    "fused",  # today's weighted RRF score (x RRF_K): the fit starts from the fixed fusion
    "fused_rr",  # the page's place in that fusion
    "vec_rr", "vec_none", "cos_gap",  # dense rank, absent, cosine below the best page's
    "kw_rr", "kw_none",  # keyword rank, absent
    "share", "share_kw", "kw_rr_words",  # searched words held; with a keyword rank; x words
    "period_rr",  # rank among the pages of a period the question names
    "log_tokens", "log_user_tokens", "short_user",  # the page's size and its user side's
    # which list to trust differs by kind of chat and question (LoCoMo dev: a keyword-only
    # page in the keyword top 5 is evidence 3x as often as a vector-only one in the vector
    # top 5; LUFY, a person with a talkative assistant, the reverse): each list's rank times
    # what the question's candidates show, the best cosine, how many pages the words find,
    # and how much longer the replies are than the user's turns
    "vec_rr_top_cos", "kw_rr_top_cos", "vec_rr_kw_found", "kw_rr_kw_found",
    "vec_rr_reply_ratio", "kw_rr_reply_ratio",
    "reply_ratio",  # the same for every page of a question: for the gate
)
CONTEXT_PAGES = 200  # the candidates whose sides' lengths tell the kind of chat (all)


def page_features(pages: Sequence[PageHit], page_rows: dict[int, dict[str, Any]],
                  searched: Sequence[str], rrf_k: float,
                  context: tuple[float, float] | None = None) -> np.ndarray:
    """One row of FEATURES per page of `pages` (ranked by the fixed fusion), searched by the
    words `searched`."""
    stems = {stem(w) for w in searched}
    # a page only the keyword list found has no cosine: it is below the dense list's last
    cosines = [float(p["vector_score"]) for p in pages if "vector_score" in p]
    top = max(cosines, default=0.0)
    floor = min(cosines, default=0.0)
    n_words = min(len(stems), 6) / 6
    out = np.zeros((len(pages), len(FEATURES)))
    context = _context(pages, page_rows) if context is None else context
    for i, p in enumerate(pages):
        row = page_rows[p["id"]]
        vr, kr, pr = p.get("vector_rank"), p.get("keyword_rank"), p.get("period_rank")
        own = _stems(f"{row['user_text']} {row['assistant_text']}") if stems else set()
        share = len(stems & own) / len(stems) if stems else 0.0
        kw = RANK_SCALE / (RANK_SCALE + kr) if kr else 0.0
        user = count_tokens(str(row["user_text"] or ""))
        out[i] = (
            p["fused"] * rrf_k, RANK_SCALE / (RANK_SCALE + i + 1),
            RANK_SCALE / (RANK_SCALE + vr) if vr else 0.0, 0.0 if vr else 1.0,
            top - float(p.get("vector_score", floor)),
            kw, 0.0 if kr else 1.0,
            share, share if kr else 0.0, kw * n_words,
            RANK_SCALE / (RANK_SCALE + pr) if pr else 0.0,
            math.log1p(_line_tokens(str(row["user_text"]), str(row["assistant_text"]))),
            math.log1p(user), 1.0 if user <= 10 else 0.0,
            *(r * q for q in (top, *context) for r in (out_vec(vr), kw)), context[1])
    return out


def reply_ratio(x: np.ndarray) -> float:
    """The question's reply-to-user log ratio, as page_features found it."""
    return float(x[0, FEATURES.index("reply_ratio")]) if len(x) else 0.0


def out_vec(rank: int | None) -> float:
    """A dense rank as a feature (0: not in the dense list)."""
    return RANK_SCALE / (RANK_SCALE + rank) if rank else 0.0


def _context(pages: Sequence[PageHit], page_rows: dict[int, dict[str, Any]],
             ) -> tuple[float, float]:
    """What a question's candidates say of the chat: the share of the keyword list's depth
    found, and the median log ratio of reply to user tokens of the best pages."""
    found = sum(1 for p in pages if p.get("keyword_rank")) / 60
    ratios = sorted(math.log1p(count_tokens(str(page_rows[p["id"]]["assistant_text"] or "")))
                    - math.log1p(count_tokens(str(page_rows[p["id"]]["user_text"] or "")))
                    for p in pages[:CONTEXT_PAGES])
    return min(found, 1.0), ratios[len(ratios) // 2] if ratios else 0.0


# a chat's pages come back question after question: their stems and line lengths are kept
# (measured: 120 candidates with 180-token replies took 76 ms a question uncached)
@functools.lru_cache(maxsize=1024)
def _stems(text: str) -> frozenset[str]:
    """The stems of a text's words."""
    return frozenset(_stem(w) for w in set(words(text)))


_stem = functools.lru_cache(maxsize=65536)(stem)


@functools.lru_cache(maxsize=4096)
def _line_tokens(user_text: str, assistant_text: str) -> int:
    """`page_tokens` of a page with these sides."""
    return page_tokens({"user_text": user_text, "assistant_text": assistant_text})


@dataclass(frozen=True)
class FusionModel:
    """A logistic model of "this page is an evidence turn" over standardised FEATURES."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    # the model ranks only where the replies run this much longer than the user's turns
    # (median log ratio of the best pages): a person with a talkative assistant; between
    # people the fixed fusion, tuned on such chats, stays
    gate: float = float("-inf")

    def scores(self, x: np.ndarray) -> np.ndarray:
        """The log-odds of each row."""
        out: np.ndarray = ((x - self.mean) / self.scale) @ self.weights + self.bias
        return out


def learned_order(pages: list[PageHit], page_rows: dict[int, dict[str, Any]],
                  searched: Sequence[str], rrf_k: float,
                  model: FusionModel | None = None) -> list[PageHit]:
    """The fixed fusion's `pages` ranked by the shipped model where its gate lets it (a chat
    with a talkative assistant); else as they are, no feature computed."""
    model = shipped() if model is None else model
    context = _context(pages, page_rows) if pages else (0.0, 0.0)
    if not pages or context[1] < model.gate:
        return pages
    return reordered(pages, page_features(pages, page_rows, searched, rrf_k, context), model)


def reordered(pages: list[PageHit], x: np.ndarray, model: FusionModel) -> list[PageHit]:
    """`pages` by the model's score, best first (ties keep the fixed fusion's order), where
    the gate lets the model rank (`x`: their features)."""
    if not pages or reply_ratio(x) < model.gate:
        return pages
    scores = model.scores(x)
    return [pages[i] for i in sorted(range(len(pages)), key=lambda i: -scores[i])]


def load(path: Path = WEIGHTS) -> FusionModel:
    """A fusion model from its JSON; refused when fitted on other features."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path} was fitted on other features: run benchmarks.fusion_fit"
                         " --write-weights")
    mean, scale, weights = (np.asarray(data[k], dtype=np.float64)
                            for k in ("mean", "scale", "weights"))
    return FusionModel(FEATURES, mean, scale, weights, float(data["bias"]), float(data["gate"]))


@functools.lru_cache(maxsize=1)
def shipped() -> FusionModel:
    """The fusion model the product ranks with, read once."""
    return load()


def save(model: FusionModel, path: Path = WEIGHTS, **about: Any) -> None:
    """Write a fusion model as JSON (a few dozen numbers: readable in a diff)."""
    path.write_text(json.dumps({
        "features": list(model.features),
        **{k: [round(float(v), 6) for v in getattr(model, k)]
           for k in ("mean", "scale", "weights")},
        "bias": round(model.bias, 6), "gate": model.gate, **about}, indent=1) + "\n",
        encoding="utf-8")
