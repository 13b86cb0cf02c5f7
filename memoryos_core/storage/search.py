"""Keyword search over one user's mid-term pages: FTS5 matches ranked by BM25 (SQLite), or
tsvector matches ranked by the user's own document frequencies (PostgreSQL: pg_search)."""

from __future__ import annotations

import math

import numpy as np

from . import pg_search
from .base import BaseStore
from .fts_terms import fts_query, indexed_terms
from .kept_scores import STATE_BLOCKS, keep_counts, kept_counts, ranked_by_kept_scores


# dialect: sqlite (FTS5 MATCH and bm25)
def keyword_search(store: BaseStore, user_id: str, words: list[str], limit: int,
                   user_pages: int | None = None,
                   counts: dict[str, int] | None = None) -> list[int]:
    """Ids of the user's mid-term pages matching any of `words`, best first.

    Best: the pages holding more of the rarer words (summed idf, as the PostgreSQL side
    ranks), then BM25 (the sum of each word's BM25 is the OR-query's), then id. A page with
    two of the question's rare words beats a short page that repeats one of them.
    `user_pages` (the user's mid-term page count): when the user holds at least half of the
    store's exchanges, the best matches of the whole index are ranked first without reading
    their rows (at 100k pages the join costs a third of the search); when fewer than `limit`
    of them are the user's mid-term pages, the joined query ranks again. Either way the
    answer is the same: the statistics are the whole index's in both. PostgreSQL ranks by
    the user's own counts: `counts` (each word's, from frequent_terms) spares counting again.
    """
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    if store.dialect == "postgresql":
        return pg_search.keyword_search(store, user_id, words, limit, user_pages, counts)
    weights = _idf_weights(store, words)
    if not weights:
        return []
    ranked = ranked_by_kept_scores(store, weights)
    if ranked is not None:
        return _users_mid_pages(store, user_id, ranked, limit)
    return _ranked_by_sql(store, user_id, weights, limit, user_pages)


def _ranked_by_sql(store: BaseStore, user_id: str, weights: dict[str, float], limit: int,
                   user_pages: int | None) -> list[int]:
    """`keyword_search` in one statement: BM25 computed by FTS5 for every matching row."""
    hits = " UNION ALL ".join("SELECT rowid AS id, ? AS w, bm25(exchanges_fts) AS b FROM"
                              " exchanges_fts WHERE exchanges_fts MATCH ?" for _ in weights)
    params: list[object] = [x for word, idf in weights.items() for x in (idf, fts_query([word]))]
    rank = "round(sum(h.w), 6) DESC, sum(h.b), h.id"
    order = f"ORDER BY {rank} LIMIT ?"
    if user_pages is not None and 2 * user_pages >= _rows_at_most(store):
        wide = 2 * limit
        # the best `wide` of the whole index, each looked up by primary key in the same statement
        best = store.query(
            f"WITH h AS MATERIALIZED ({hits}), best AS (SELECT h.id, row_number() OVER"
            f" (ORDER BY {rank}) AS n FROM h GROUP BY h.id {order})"
            " SELECT best.id, e.user_id, e.tier FROM best JOIN exchanges e"
            " ON e.id = best.id ORDER BY best.n", (*params, wide))
        found = [int(r["id"]) for r in best if r["user_id"] == user_id and r["tier"] == "mid"]
        if len(found) >= limit or len(best) < wide:  # a prefix of the same order, filtered
            return found[:limit]
    rows = store.query(
        f"WITH h AS MATERIALIZED ({hits}) SELECT h.id FROM h JOIN exchanges e ON e.id = h.id"
        f" WHERE e.user_id = ? AND e.tier = 'mid' GROUP BY h.id {order}",
        (*params, user_id, limit))
    return [int(r["id"]) for r in rows]



def _users_mid_pages(store: BaseStore, user_id: str, ranked: np.ndarray,
                     limit: int) -> list[int]:
    """The first `limit` of the ranked ids that are the user's mid-term pages, read by primary
    key in growing chunks (the first of `limit`: the user usually holds the best matches)."""
    conn = store.connect()
    found: list[int] = []
    start, step = 0, max(limit, 16)
    while start < len(ranked) and len(found) < limit:
        chunk = ranked[start:start + step].tolist()
        # +: by primary key, not by a walk of the (user, tier, id) index for each id
        mine = {r[0] for r in conn.execute(
            f"SELECT id FROM exchanges WHERE id IN ({','.join('?' * len(chunk))})"
            " AND +user_id = ? AND +tier = 'mid'", (*chunk, user_id))}
        found.extend(i for i in chunk if i in mine)
        start, step = start + step, min(2 * step, 20_000)
    return found[:limit]



# dialect: sqlite (fts5vocab)
def store_document_counts(store: BaseStore, words: list[str]) -> dict[str, int]:
    """Per plain word, the store's exchanges holding its indexed term (every user and tier);
    other words (apostrophes, accents) are left out for the caller to count."""
    stems = indexed_terms(words)
    if not stems:
        return {}
    wanted = sorted(set(stems.values()))
    docs = store.once(("term docs", *wanted), lambda: _term_docs_and_span(store, wanted))
    return {word: docs.get(stem, 0) for word, stem in stems.items()}


def _term_docs_and_span(store: BaseStore, terms: list[str]) -> dict[str, int]:
    """Each term's document count; the id span comes in the same statement (every caller of
    the counts needs it next) and is kept for `_rows_at_most` inside the same `reads_once`.
    Both are the index's (every exchange is in it): kept with the word scores while it is
    unchanged; the index's state comes in the same statement too (read once a retrieval)."""
    kept = kept_counts(store, terms)
    if kept is not None:
        docs, span_kept = kept
        store.once(("id span",), lambda: span_kept)
        return docs
    rows = store.query(
        f"SELECT 0 AS part, term, doc FROM exchanges_vocab"
        f" WHERE term IN ({','.join('?' * len(terms))}) UNION ALL SELECT 1, NULL,"
        " (SELECT max(id) FROM exchanges) - (SELECT min(id) FROM exchanges) + 1"
        f" UNION ALL SELECT 2, id, block {STATE_BLOCKS}", terms)
    span_rows = [r["doc"] for r in rows if r["part"] == 1]
    span = int(span_rows[0] or 0) if span_rows else 0
    store.once(("id span",), lambda: span)
    docs = {r["term"]: int(r["doc"]) for r in rows if r["part"] == 0}
    keep_counts(store, [(r["term"], r["doc"]) for r in rows if r["part"] == 2], terms, docs,
                span)
    return docs


def _idf_weights(store: BaseStore, words: list[str]) -> dict[str, float]:
    """Each word found in the index with its idf, log(1 + (N - n + 0.5) / (n + 0.5)).

    n from the index's term counts (exchanges_vocab) for plain words, counted for the rest;
    N is the store's rows (an upper bound from the id span: only the words' order matters).
    """
    docs = store_document_counts(store, words)
    total = _rows_at_most(store)
    out: dict[str, float] = {}
    for word in words:
        n = docs[word] if word in docs else int(store.scalar(
            "SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH ?",
            (fts_query([word]),)) or 0)
        if n:
            out[word] = math.log(1.0 + (max(total, n) - n + 0.5) / (n + 0.5))
    return out


def _rows_at_most(store: BaseStore) -> int:
    """An upper bound of the store's exchanges, from the id span (two O(1) lookups)."""
    return int(store.once(("id span",), lambda: store.scalar(
        "SELECT (SELECT max(id) FROM exchanges) - (SELECT min(id) FROM exchanges) + 1") or 0))


# dialect: sqlite (FTS5 MATCH; CROSS JOIN makes SQLite walk the term's matches and probe the
# narrow (user, tier, id) index for each, instead of probing the FTS index once per row of the
# user: 0.3 ms, not 1 s, at 10k pages)
def keyword_document_count(store: BaseStore, user_id: str, term: str, at_most: int) -> int:
    """How many of the user's mid-term pages contain `term`, counted up to `at_most`."""
    if store.dialect == "postgresql":
        return pg_search.document_counts(store, user_id, [term], at_most)[term]
    return int(store.scalar(
        "SELECT count(*) FROM (SELECT 1 FROM exchanges_fts f CROSS JOIN exchanges e"
        " INDEXED BY ix_exchanges_user_tier ON e.id = f.rowid WHERE exchanges_fts MATCH ?"
        " AND e.user_id = ? AND e.tier = 'mid' LIMIT ?) AS hits",
        (fts_query([term]), user_id, at_most)) or 0)


# dialect: sqlite (fts5vocab)
def frequent_terms(store: BaseStore, user_id: str, terms: list[str], more_than: int,
                   user_pages: int, counts: dict[str, int] | None = None) -> set[str]:
    """The terms found in more than `more_than` of the user's `user_pages` mid-term pages.

    Only this user's pages count: other users' data never changes this user's ranking. The
    store-wide document frequency (fts5vocab: every user, every tier) decides most terms
    without reading rows: it is an upper bound of the user's count and, less the rows that
    are not the user's pages, a lower bound. A term it leaves open is counted (up to the limit).
    PostgreSQL counts every term: `counts` receives the exact counts of the terms kept.
    """
    unique = list(dict.fromkeys(terms))
    if store.dialect == "postgresql":  # counted per user with the GIN index
        found = pg_search.document_counts(store, user_id, unique, at_most=more_than + 1)
        if counts is not None:
            counts.update({t: n for t, n in found.items() if n <= more_than})
        return {t for t, n in found.items() if n > more_than}
    store_docs = store_document_counts(store, unique)
    others = max(0, _rows_at_most(store) - user_pages)  # rows that may not be the user's pages
    frequent: set[str] = set()
    for term in unique:
        if term in store_docs:
            docs = store_docs[term]
            if docs <= more_than:
                continue
            if docs - others > more_than:
                frequent.add(term)
                continue
        if keyword_document_count(store, user_id, term, more_than + 1) > more_than:
            frequent.add(term)
    return frequent
