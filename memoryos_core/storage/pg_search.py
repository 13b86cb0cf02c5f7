"""Keyword search in PostgreSQL: the generated `words` tsvector of each exchange, a GIN index.

PostgreSQL's ts_rank knows no document frequencies, so matches are ranked by the summed
inverse document frequency of the query words they contain (counted over this user's pages
only, like the SQLite side's BM25), then by ts_rank.
"""

from __future__ import annotations

from typing import Any

from .base import BaseStore

TSQ = "plainto_tsquery('english', ?)"  # the words column's configuration (stems words)


MID = "FROM exchanges WHERE user_id = ? AND tier = 'mid'"


def keyword_search(store: BaseStore, user_id: str, words: list[str], limit: int) -> list[int]:
    """Ids of the user's mid-term pages matching any of `words`, rarest matches first.

    One statement: the user's page count and each word's document count (GIN index) feed
    the idf weight log(1 + (N - n + 0.5) / (n + 0.5)) of each matching word.
    """
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    counts = ", ".join(f"(SELECT count(*) {MID} AND words @@ {TSQ}) AS c{i}"
                       for i in range(len(words)))
    score = " + ".join(f"(CASE WHEN e.words @@ {TSQ} THEN ln(1.0 + (s.total - s.c{i} + 0.5)"
                       f"::float8 / (s.c{i} + 0.5)) ELSE 0 END)" for i in range(len(words)))
    anyq = " || ".join(TSQ for _ in words)
    params: list[Any] = [user_id]
    for word in words:
        params += [user_id, word]
    params += [user_id, *words, *words, *words, limit]
    rows = store.query(
        f"WITH s AS MATERIALIZED (SELECT (SELECT count(*) {MID}) AS total, {counts})"
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
