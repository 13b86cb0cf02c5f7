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
    mid-term pages, n of them holding it; pages by summed weight, then ts_rank, then id.
    `total` (N) and `counts` (n of some words, as the common-word filter counted them) spare
    reading them again (term_counts, exchange_counts).
    """
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    known = counts or {}
    missing = [w for w in words if w not in known]
    found = {**known, **(document_counts(store, user_id, missing) if missing else {})}
    if total is None:
        total = int(store.scalar("SELECT coalesce(sum(n), 0) FROM exchange_counts"
                                 " WHERE user_id = ? AND tier = 'mid'", (user_id,)) or 0)
    # the same float8 arithmetic as ln() in SQL: the order, ties included, is as before
    weights = [math.log(1.0 + (total - found[w] + 0.5) / (found[w] + 0.5)) for w in words]
    rarest = _rarest_words(words, weights, [found[w] for w in words], limit)
    if rarest is not None:
        among, bound = rarest
        rows = _ranked(store, user_id, words, weights, among, limit)
        if len(rows) == limit and float(rows[-1][1]) > bound:
            return [int(r[0]) for r in rows]
    return [int(r[0]) for r in _ranked(store, user_id, words, weights, words, limit)]


def _ranked(store: BaseStore, user_id: str, words: list[str], weights: list[float],
            among: list[str], limit: int) -> list[Any]:
    """(id, summed weight) of the best `limit` of the user's pages matching any of `among`."""
    anyq = " || ".join(TSQ for _ in words)
    score = " + ".join(f"(CASE WHEN words @@ {TSQ} THEN ?::float8 ELSE 0 END)" for _ in words)
    params: list[Any] = []
    for word, weight in zip(words, weights, strict=True):
        params += [word, weight]
    params += [user_id, *among, *words, limit]
    return list(store.connect().execute(
        f"SELECT id, ({score}) AS score FROM exchanges WHERE user_id = ? AND tier = 'mid'"
        f" AND words @@ ({' || '.join(TSQ for _ in among)})"
        f" ORDER BY score DESC, ts_rank(words, ({anyq})) DESC, id LIMIT ?", params).fetchall())


def _rarest_words(words: list[str], weights: list[float], counts: list[int],
                  limit: int) -> tuple[list[str], float] | None:
    """The fewest heaviest words whose pages may hold the whole top `limit`, with the bound a
    page holding none of them cannot pass; None when every word is needed.

    A page without any of the chosen words scores at most the sum of the other words' weights
    (added in the statement's order, so the float is the same): when `limit` pages of the
    chosen words score above it, no other page can enter the top `limit`, and ranking only
    the chosen words' pages (fewer rows read) gives the same ids in the same order. Words are
    added heaviest first until the pages of the chosen words that beat the bound on their own
    may number `limit`; the caller checks the result and ranks every match when it falls short.
    """
    order = sorted(range(len(words)), key=lambda i: -weights[i])
    for j in range(1, len(words)):
        chosen = set(order[:j])
        bound = 0.0
        for i, weight in enumerate(weights):
            bound += 0.0 if i in chosen else weight
        if sum(counts[i] for i in chosen if weights[i] > bound) >= limit:
            return [words[i] for i in sorted(chosen)], bound
    return None


def document_counts(store: BaseStore, user_id: str, terms: list[str],
                    at_most: int | None = None) -> dict[str, int]:
    """Per term, how many of the user's mid-term pages contain it (counted up to `at_most`).

    A word that is one lexeme (nearly all: the query's keywords are single words) is read from
    term_counts, which the writes keep (pg migration 9), a stop word (no lexeme) matches no
    page; a word that parses into several (an
    apostrophe, a hyphen) matches pages holding all of them, so it is counted with the GIN
    index. One statement for the lookups, one more only for such words.
    """
    unique = list(dict.fromkeys(terms))
    if not unique:
        return {}
    conn = store.connect()
    kept = conn.execute(
        "SELECT q.i, cardinality(q.lexemes) <= 1 AS one, coalesce(c.n, 0) AS n FROM"
        " (SELECT i, tsvector_to_array(to_tsvector('english', w)) AS lexemes"
        "  FROM unnest(?::text[]) WITH ORDINALITY AS u(w, i)) AS q"
        " LEFT JOIN term_counts c ON cardinality(q.lexemes) = 1 AND c.user_id = ?"
        " AND c.term = q.lexemes[1]", (unique, user_id)).fetchall()
    found = {unique[int(r[0]) - 1]: int(r[2]) for r in kept if r[1]}
    if at_most is not None:
        found = {term: min(n, at_most) for term, n in found.items()}
    counted = [term for term in unique if term not in found]
    if counted:
        found.update(_gin_counts(conn, user_id, counted, at_most))
    return {term: found[term] for term in unique}


def _gin_counts(conn: Any, user_id: str, terms: list[str],
                at_most: int | None) -> dict[str, int]:
    """Per term, the user's mid-term pages matching it, counted with the GIN index."""
    cap = "" if at_most is None else " LIMIT ?"
    params: list[Any] = []
    for term in terms:
        params += [user_id, term] + ([] if at_most is None else [at_most])
    row = conn.execute(
        "SELECT " + ", ".join(f"(SELECT count(*) FROM (SELECT 1 {MID} AND words @@ {TSQ}{cap})"
                              f" AS h{i})" for i in range(len(terms))), params).fetchone()
    return {term: int(row[i] or 0) for i, term in enumerate(terms)}
