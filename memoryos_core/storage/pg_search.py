"""Keyword search in PostgreSQL: the generated `words` tsvector of each exchange, a GIN index.

PostgreSQL's ts_rank knows no document frequencies, so matches are ranked by the summed
inverse document frequency of the query words they contain (counted over this user's pages
only, like the SQLite side's BM25), then by ts_rank.
"""

from __future__ import annotations

import math
from typing import Any

from .base import BaseStore

TSQ = "plainto_tsquery('english', ?)"  # the words column's configuration (stems words)


MID = "FROM exchanges WHERE user_id = ? AND tier = 'mid'"


def keyword_search(store: BaseStore, user_id: str, words: list[str], limit: int,
                   total: int | None = None, counts: dict[str, int] | None = None) -> list[int]:
    """Ids of the user's mid-term pages matching any of `words`, rarest matches first.

    Each matching word weighs its idf log(1 + (N - n + 0.5) / (n + 0.5)) over the user's N
    mid-term pages, n of them holding it. Given `total` (N) and `counts` (n of every word, as
    the common-word filter counted them), the weights are constants and the statement only
    ranks the matches; else one statement counts them too (a GIN count per word, N counted).
    """
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    anyq = " || ".join(TSQ for _ in words)
    if total is not None and counts is not None and all(w in counts for w in words):
        # the same float8 arithmetic as the SQL below: the order, ties included, is the same
        weights = [math.log(1.0 + (total - counts[w] + 0.5) / (counts[w] + 0.5)) for w in words]
        score = " + ".join(f"(CASE WHEN words @@ {TSQ} THEN ?::float8 ELSE 0 END)"
                           for _ in words)
        params: list[Any] = [user_id, *words]
        for word, weight in zip(words, weights, strict=True):
            params += [word, weight]
        params += [*words, limit]
        rows = store.query(
            f"SELECT id FROM exchanges WHERE user_id = ? AND tier = 'mid' AND words @@ ({anyq})"
            f" ORDER BY ({score}) DESC, ts_rank(words, ({anyq})) DESC, id LIMIT ?", params)
        return [int(r["id"]) for r in rows]
    counted = ", ".join(f"(SELECT count(*) {MID} AND words @@ {TSQ}) AS c{i}"
                        for i in range(len(words)))
    score = " + ".join(f"(CASE WHEN e.words @@ {TSQ} THEN ln(1.0 + (s.total - s.c{i} + 0.5)"
                       f"::float8 / (s.c{i} + 0.5)) ELSE 0 END)" for i in range(len(words)))
    params = [user_id] if total is None else [total]  # the user's pages: counted, or given
    for word in words:
        params += [user_id, word]
    params += [user_id, *words, *words, *words, limit]
    pages = "?::bigint" if total is not None else f"(SELECT count(*) {MID})"
    rows = store.query(
        f"WITH s AS MATERIALIZED (SELECT {pages} AS total, {counted})"
        f" SELECT e.id FROM exchanges e, s WHERE e.user_id = ? AND e.tier = 'mid'"
        f" AND e.words @@ ({anyq})"
        f" ORDER BY ({score}) DESC, ts_rank(e.words, ({anyq})) DESC, e.id LIMIT ?", params)
    return [int(r["id"]) for r in rows]


def document_counts(store: BaseStore, user_id: str, terms: list[str],
                    at_most: int | None = None) -> dict[str, int]:
    """Per term, how many of the user's mid-term pages contain it (counted up to `at_most`).

    One statement, one GIN-index count per term.
    """
    unique = list(dict.fromkeys(terms))
    if not unique:
        return {}
    cap = "" if at_most is None else " LIMIT ?"
    params: list[Any] = []
    for term in unique:
        params += [user_id, term] + ([] if at_most is None else [at_most])
    row = store.connect().execute(
        "SELECT " + ", ".join(f"(SELECT count(*) FROM (SELECT 1 {MID} AND words @@ {TSQ}{cap})"
                              f" AS h{i})" for i in range(len(unique))), params).fetchone()
    return {term: int(row[i] or 0) for i, term in enumerate(unique)}
