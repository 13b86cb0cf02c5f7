"""Keyword search over one user's mid-term pages: FTS5 matches ranked by BM25 (SQLite), or
tsvector matches ranked by the user's own document frequencies (PostgreSQL: pg_search)."""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import pg_search
from .base import BaseStore

_PLAIN = re.compile(r"[a-z0-9]+")  # a word FTS5's unicode61 tokenizer keeps as one token
_TOKENIZER = "porter unicode61"  # exchanges_fts's tokenizer (migration 6)
_local = threading.local()


def indexed_terms(words: list[str]) -> dict[str, str]:
    """The term each plain word becomes in exchanges_fts (its Porter stem), as SQLite says.

    SQLite's own tokenizer decides, so the term-count lookups in exchanges_vocab use exactly the
    index's terms: a private in-memory FTS5 table with the same tokenizer takes the words as
    one row and its instance vocabulary reads each word's term back by position.
    """
    plain = [w for w in dict.fromkeys(words) if _PLAIN.fullmatch(w)]
    # a word's term never changes: each is asked of SQLite once (twice per retrieval before);
    # read into a local copy first, so another thread's clear() takes nothing from this call
    known = {w: _TERMS.get(w, "") for w in plain}  # "": not asked yet (no term is empty)
    fresh = [w for w, term in known.items() if term == ""]
    if fresh:
        known.update(_tokenized(fresh))
        if len(_TERMS) > 50_000:
            _TERMS.clear()
        _TERMS.update({w: known[w] for w in fresh})
    return {w: term for w in plain if (term := known[w]) is not None}


_TERMS: dict[str, str | None] = {}  # plain word -> its term in exchanges_fts


def _tokenized(plain: list[str]) -> dict[str, str | None]:
    """`indexed_terms` of some plain words, from SQLite's tokenizer (None: no term)."""
    db = getattr(_local, "tokenizer", None)
    if db is None:
        db = sqlite3.connect(":memory:")
        db.executescript(f"""
            CREATE VIRTUAL TABLE words USING fts5(text, tokenize='{_TOKENIZER}');
            CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'instance');""")
        _local.tokenizer = db
    with db:
        db.execute("INSERT INTO words(rowid, text) VALUES (1, ?)", (" ".join(plain),))
        terms = {int(offset): term for term, offset in
                 db.execute("SELECT term, offset FROM terms WHERE doc = 1")}
        db.execute("DELETE FROM words WHERE rowid = 1")
    return {w: terms.get(i) for i, w in enumerate(plain)}


def fts_query(words: list[str]) -> str:
    """An FTS5 OR-query of quoted keywords (quotes keep user text from being FTS syntax)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


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
    ranked = _ranked_by_kept_scores(store, weights)
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


# Each word's BM25 over the whole index (rowid -> FTS5's bm25() of the one-word query) is kept
# per store while the index is unchanged: computing bm25() is 2-3 us a matching row, most of a
# keyword search (10k pages: 2.2 ms of a retrieval's 7), and it depends on the index alone
# (row count, average length, the word's document count, its frequency in and the length of
# each row), never on the user or the other words. Any write to the index (an exchange added,
# deleted or edited, a rebuild, a merge) rewrites its structure record; the averages record
# holds the row and token counts: the two blobs are the key, read in the same statement as the
# term counts and as the scores of words not kept yet, so values of two states never mix. The
# first keyword search in a state runs the one statement as before (a chat turn writes every
# turn: it never searches twice in one state and pays no statement more); the later ones use
# and keep word scores. Inside a write transaction nothing is kept or used (FTS5's pending rows
# are in no blob yet).
KEPT_SCORE_ROWS = 2_000_000  # matching rows kept per store at most (16 bytes each)


@dataclass
class _KeptScores:
    """One store's kept word scores, for one state of its FTS index."""

    state: tuple[bytes, ...]
    words: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    rows: int = 0
    docs: dict[str, int] = field(default_factory=dict)  # term -> exchanges holding it
    span: int | None = None  # max(id) - min(id) + 1 of the exchanges
    searched: bool = False  # a keyword search ran in this state (by the one statement)


_KEPT: weakref.WeakKeyDictionary[BaseStore, _KeptScores] = weakref.WeakKeyDictionary()
_KEPT_LOCK = threading.Lock()


_STATE_ROWS = "SELECT id, block FROM exchanges_fts_data WHERE id IN (1, 10)"


def _index_state(conn: sqlite3.Connection) -> tuple[bytes, ...]:
    """The FTS index's averages (id 1) and structure (id 10) records: changed by every write."""
    return _state_of(conn.execute(_STATE_ROWS).fetchall())


def _state_of(rows: list[Any]) -> tuple[bytes, ...]:
    """The state from its (id, block) rows, in id order."""
    return tuple(bytes(block) for _, block in sorted((int(r[0]), r[1]) for r in rows))


def _kept_in(store: BaseStore, state: tuple[bytes, ...]) -> _KeptScores:
    """What is kept for the store's index in `state` (a new, empty one for a new state)."""
    with _KEPT_LOCK:
        kept = _KEPT.get(store)
        if kept is None or kept.state != state:
            kept = _KEPT[store] = _KeptScores(state)
        return kept


def word_scores(store: BaseStore, words: list[str],
                ) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
    """Per word, the ids of the rows matching it and their bm25() (the one-word query's), kept
    while the index is unchanged; None inside a write transaction, at the first search in an
    index state, or when the index changed since the state was read."""
    conn = store.connect()
    if conn.in_transaction:
        return None
    kept = _kept_in(store, store.once(("index state",), lambda: _index_state(conn)))
    with _KEPT_LOCK:
        first, kept.searched = not kept.searched, True
    if first or not _sum_is_sequential(conn):  # the first search in this state: one statement
        return None
    with _KEPT_LOCK:
        out = {w: kept.words[w] for w in words if w in kept.words}
    missing = [w for w in dict.fromkeys(words) if w not in out]
    if not missing:
        return out
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: a few hundred rows a word
    rows = cursor.execute(" UNION ALL ".join([
        *(f"SELECT {i} AS k, rowid, bm25(exchanges_fts) FROM exchanges_fts"
          " WHERE exchanges_fts MATCH ?" for i in range(len(missing))),
        "SELECT -1, id, block FROM exchanges_fts_data WHERE id IN (1, 10)"]),
        [fts_query([w]) for w in missing]).fetchall()
    if _state_of([r[1:] for r in rows if r[0] == -1]) != kept.state:  # written since
        return None
    rows = [r for r in rows if r[0] != -1]
    keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    fresh = {w: (ids[keys == i], scores[keys == i]) for i, w in enumerate(missing)}
    out.update(fresh)
    with _KEPT_LOCK:
        if _KEPT.get(store) is kept:
            if kept.rows + len(rows) > KEPT_SCORE_ROWS:
                kept.words.clear()
                kept.rows = 0
            kept.words.update(fresh)
            kept.rows += len(rows)
    return out


def _ranked_by_kept_scores(store: BaseStore, weights: dict[str, float]) -> np.ndarray | None:
    """Every row matching a word, in `_ranked_by_sql`'s order (summed idf rounded to 6 places
    descending, summed BM25, id), from the kept word scores; None when none can be used.

    The sums are SQLite's: each row's values added in the words' order (the order its
    GROUP BY reads the UNION ALL's rows), the idf sums rounded by SQLite's round().
    """
    scores = word_scores(store, list(weights))
    if scores is None:
        return None
    words = list(weights)
    all_ids = np.concatenate([scores[w][0] for w in words])
    if not len(all_ids):
        return all_ids
    ids, where = np.unique(all_ids, return_inverse=True)
    idf_sum, bm25_sum = np.zeros(len(ids)), np.zeros(len(ids))
    start = 0
    for w in words:  # a row matches a word once: one addition per row and word, in order
        rows = where[start:start + len(scores[w][0])]
        start += len(rows)
        idf_sum[rows] += weights[w]
        bm25_sum[rows] += scores[w][1]
    sums = np.unique(idf_sum)
    by_sum = np.array(_rounded(store, sums.tolist()))[np.searchsorted(sums, idf_sum)]
    return ids[np.lexsort((ids, bm25_sum, -by_sum))]


def _rounded(store: BaseStore, values: list[float]) -> list[float]:
    """round(v, 6) as ordered by SQLite's round(): Python's (correctly rounded) gives the same
    six decimals, so the same order, unless v is next to a half-way point, where SQLite's
    printf-based rounding may differ: those few are asked of SQLite."""
    out = [round(v, 6) for v in values]
    near = [i for i, v in enumerate(values)
            if not math.isfinite(v) or abs(v) >= 1e4
            or abs(v * 1e6 - math.floor(v * 1e6) - 0.5) < 1e-4]
    for i in near:
        out[i] = float(store.scalar("SELECT round(?, 6)", (values[i],)))
    return out


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


_SEQUENTIAL: dict[str, bool] = {}


def _sum_is_sequential(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite's sum() over a GROUP BY adds the values one by one in the order of
    the UNION ALL (3.40; 3.43 and later sum with an error term), as `_ranked_by_kept_scores`
    repeats it: 1e16 - 1e16 + 1 is 1 only so, 0 in any other order, 1 with an error term
    also in others (asked once per SQLite version)."""
    version = sqlite3.sqlite_version
    if version not in _SEQUENTIAL:
        probe = conn.execute(
            "WITH h AS MATERIALIZED (SELECT 1 AS id, 1e16 AS b UNION ALL SELECT 1, -1e16"
            " UNION ALL SELECT 1, 1.0 UNION ALL SELECT 2, 1.0 UNION ALL SELECT 2, 1e16"
            " UNION ALL SELECT 2, -1e16) SELECT id, sum(b) FROM h GROUP BY id ORDER BY id"
        ).fetchall()
        _SEQUENTIAL[version] = [tuple(r) for r in probe] == [(1, 1.0), (2, 0.0)]
    return _SEQUENTIAL[version]


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
    conn = store.connect()
    kept = _KEPT.get(store)
    if not conn.in_transaction and kept is not None and kept.span is not None \
            and all(t in kept.docs for t in terms) \
            and store.once(("index state",), lambda: _index_state(conn)) == kept.state:
        span_kept = kept.span
        store.once(("id span",), lambda: span_kept)
        return {t: kept.docs[t] for t in terms if kept.docs[t]}
    rows = store.query(
        f"SELECT 0 AS part, term, doc FROM exchanges_vocab"
        f" WHERE term IN ({','.join('?' * len(terms))}) UNION ALL SELECT 1, NULL,"
        " (SELECT max(id) FROM exchanges) - (SELECT min(id) FROM exchanges) + 1"
        " UNION ALL SELECT 2, id, block FROM exchanges_fts_data WHERE id IN (1, 10)", terms)
    span = [r["doc"] for r in rows if r["part"] == 1]
    store.once(("id span",), lambda: int(span[0] or 0) if span else 0)
    docs = {r["term"]: int(r["doc"]) for r in rows if r["part"] == 0}
    state = _state_of([(r["term"], r["doc"]) for r in rows if r["part"] == 2])
    if store.once(("index state",), lambda: state) == state and not conn.in_transaction:
        kept = _kept_in(store, state)
        with _KEPT_LOCK:
            if len(kept.docs) > 50_000:
                kept.docs.clear()
            kept.docs.update({t: docs.get(t, 0) for t in terms})
            kept.span = int(span[0] or 0) if span else 0
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
