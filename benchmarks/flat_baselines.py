"""Flat baselines at equal tokens: dense only, dense + keywords (RRF) over all mid-term pages.

They are what a memory with no hierarchy would do: no segments, chains, facts, profile or
overview. Each fills the same page-line format as the product under the same token counter until
the token count the product used for that question (memory block + short-term memory) is reached,
so recall is compared at equal tokens, question by question.
"""

from __future__ import annotations

from typing import Any

from memoryos_core.answer import memory_block, retrieval
from memoryos_core.storage import search
from memoryos_core.text import count_tokens, keywords

RRF_K = 60
DEPTH = 60  # candidates taken from each ranked list


def dense_ranking(engine: Any, user: str, qvec: Any, short: set[int]) -> list[int]:
    """Mid-term pages by cosine to the query (short-term rows are in the index too)."""
    hits = engine.index.search(user, "page", qvec, DEPTH + len(short))
    return [pid for pid, _ in hits if pid not in short][:DEPTH]


def bm25_ranking(engine: Any, user: str, question: str, filtered: bool = False) -> list[int]:
    """Mid-term pages by the store's keyword search over the question's content words
    (stemmed; pages holding more of the words first, then BM25).

    `filtered` drops the words found in many exchanges first, as the product's keyword search
    does (its own pre-filter, so the flat baseline gets it too where asked).
    """
    words = keywords(question, 16)
    if filtered:
        words = retrieval.distinctive_words(engine.ctx, user, words)
    return search.keyword_search(engine.store, user, words, DEPTH)


def rrf(*rankings: list[int]) -> list[int]:
    """Reciprocal-rank fusion of ranked id lists, best first."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking, start=1):
            score[pid] = score.get(pid, 0.0) + 1 / (RRF_K + rank)
    return sorted(score, key=lambda pid: -score[pid])


def context(strategy: str, engine: Any, user: str, question: str, rows: dict[int, dict[str, Any]],
            short: list[int], short_tokens: int, target: int) -> tuple[set[int], int, str]:
    """(exchange ids in context, tokens, memory text) of a flat baseline at `target` tokens.

    Pages are written exactly as the product writes them (memory_block.fill_pages: day headers,
    one line per page), so only the ranking differs.
    """
    qvec = engine.ctx.embedder.embed([question])[0]
    dense = dense_ranking(engine, user, qvec, set(short))
    if strategy == "flat":
        ranked = dense
    else:
        ranked = rrf(dense, bm25_ranking(engine, user, question,
                                         filtered=strategy == "flat-hybrid-filtered"))
    ranked_rows = [rows[p] for p in ranked if p in rows]
    taken, lines = memory_block.fill_pages(ranked_rows, max(0, target - short_tokens),
                                        len(ranked_rows))
    tokens = short_tokens + (count_tokens("\n".join(lines)) if lines else 0)
    return {ranked_rows[i]["id"] for i in taken} | set(short), tokens, "\n".join(lines)
