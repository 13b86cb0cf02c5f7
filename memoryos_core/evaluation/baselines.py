"""Flat baselines at equal tokens: dense only, dense + keywords (RRF) over all mid-term pages.

They are what a memory with no hierarchy would do: no segments, chains, facts, profile or
overview. Each fills the same page-line format as the product under the same token counter until
the token count the product used for that question (memory block + short-term memory) is reached,
so recall is compared at equal tokens, question by question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..answer import memory_block, retrieval
from ..storage import search
from ..text import count_tokens, keywords

RRF_K = 60
DEPTH = 60  # candidates taken from each ranked list


@dataclass
class FlatContext:
    """A flat baseline's context: what it holds and where each candidate ranked."""

    ids: set[int]
    tokens: int
    lines: list[str]
    taken: list[int]  # page ids in the context, rank order
    dense: list[int]
    keyword: list[int]
    words: list[str]  # the question's words searched
    dropped_words: list[str] = field(default_factory=list)  # too common (filtered variant)


def dense_ranking(engine: Any, user: str, qvec: Any, short: set[int]) -> list[int]:
    """Mid-term pages by cosine to the query (short-term rows are in the index too)."""
    hits = engine.index.search(user, "page", qvec, DEPTH + len(short))
    return [pid for pid, _ in hits if pid not in short][:DEPTH]


def bm25_ranking(engine: Any, user: str, words: list[str]) -> list[int]:
    """Mid-term pages by the store's stemmed keyword search (more of the words first, BM25)."""
    ranked: list[int] = search.keyword_search(engine.store, user, words, DEPTH)
    return ranked


def rrf(*rankings: list[int]) -> list[int]:
    """Reciprocal-rank fusion of ranked id lists, best first."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking, start=1):
            score[pid] = score.get(pid, 0.0) + 1 / (RRF_K + rank)
    return sorted(score, key=lambda pid: -score[pid])


def context(strategy: str, engine: Any, user: str, question: str, qvec: Any,
            rows: dict[int, dict[str, Any]], short: list[int], short_tokens: int,
            target: int) -> FlatContext:
    """A flat baseline's context at `target` tokens (the question's vector given)."""
    # pages are written exactly as the product writes them (memory_block.fill_pages: day
    # headers, one line per page), so only the ranking differs; flat-hybrid-filtered drops the
    # words found in many exchanges first, as the product's keyword search does
    dense = dense_ranking(engine, user, qvec, set(short))
    words: list[str] = []
    dropped: list[str] = []
    keyword: list[int] = []
    if strategy == "flat":
        ranked = dense
    else:
        words = keywords(question, 16)
        if strategy == "flat-hybrid-filtered":
            kept = retrieval.distinctive_words(engine.ctx, user, words)
            dropped, words = [w for w in words if w not in kept], kept
        keyword = bm25_ranking(engine, user, words)
        ranked = rrf(dense, keyword)
    ranked_rows = [rows[p] for p in ranked if p in rows]
    taken, lines = memory_block.fill_pages(ranked_rows, max(0, target - short_tokens),
                                           len(ranked_rows))
    tokens = short_tokens + (count_tokens("\n".join(lines)) if lines else 0)
    ids = [ranked_rows[i]["id"] for i in taken]
    return FlatContext(set(ids) | set(short), tokens, lines, ids, dense, keyword, words, dropped)
