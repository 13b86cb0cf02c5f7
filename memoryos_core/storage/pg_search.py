"""Keyword search in PostgreSQL: the generated `words` tsvector of each exchange, a GIN index.

PostgreSQL's ts_rank knows no document frequencies, so matches are ranked by the summed
inverse document frequency of the query words they contain (counted over this user's pages
only, like the SQLite side's BM25), then by ts_rank.
"""

from __future__ import annotations

import math
from typing import Any

from .base import BaseStore

TSQ = "plainto_tsquery('simple', ?)"


def keyword_search(store: BaseStore, user_id: str, words: list[str], limit: int) -> list[int]:
    """Ids of the user's mid-term pages matching any of `words`, rarest matches first."""
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    total = int(store.scalar("SELECT count(*) FROM exchanges WHERE user_id = ? AND tier = 'mid'",
                             (user_id,)) or 0)
    counts = document_counts(store, user_id, words)
    weights = [math.log(1 + (total - counts[w] + 0.5) / (counts[w] + 0.5)) for w in words]
    score = " + ".join(f"(CASE WHEN words @@ {TSQ} THEN ? ELSE 0 END)" for _ in words)
    anyq = " || ".join(TSQ for _ in words)
    params: list[Any] = []
    for word, weight in zip(words, weights, strict=True):
        params += [word, weight]
    rows = store.query(
        f"SELECT id FROM exchanges WHERE user_id = ? AND tier = 'mid' AND words @@ ({anyq})"
        f" ORDER BY ({score}) DESC, ts_rank(words, ({anyq})) DESC, id LIMIT ?",
        (user_id, *words, *params, *words, limit))
    return [int(r["id"]) for r in rows]


def document_counts(store: BaseStore, user_id: str, terms: list[str],
                    at_most: int | None = None) -> dict[str, int]:
    """Per term, how many of the user's mid-term pages contain it (counted up to `at_most`)."""
    cap = "" if at_most is None else " LIMIT ?"
    out: dict[str, int] = {}
    for term in dict.fromkeys(terms):
        params: tuple[Any, ...] = (user_id, term) + (() if at_most is None else (at_most,))
        out[term] = int(store.scalar(
            f"SELECT count(*) FROM (SELECT 1 FROM exchanges WHERE user_id = ? AND tier = 'mid'"
            f" AND words @@ {TSQ}{cap}) AS hits", params) or 0)
    return out
