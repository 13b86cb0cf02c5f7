"""Each word's BM25 over the keyword index, and the index's term counts and id span, kept per
store while the index is unchanged (SQLite; the key is the index's state)."""

from __future__ import annotations

import math
import sqlite3
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import BaseStore
from .fts_terms import fts_query

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


# the FTS index's averages (id 1) and structure (id 10) records: changed by every write; a
# statement that reads something of the index reads them too, as "SELECT ..., id, block" + this
STATE_BLOCKS = "FROM exchanges_fts_data WHERE id IN (1, 10)"


def _index_state(store: BaseStore) -> tuple[bytes, ...]:
    """The index's state, read once inside a `reads_once`."""
    conn = store.connect()
    state: tuple[bytes, ...] = store.once(("index state",), lambda: _state_of(
        conn.execute(f"SELECT id, block {STATE_BLOCKS}").fetchall()))
    return state


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


def _word_scores(store: BaseStore, words: list[str],
                ) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
    """Per word, the ids of the rows matching it and their bm25() (the one-word query's), kept
    while the index is unchanged; None inside a write transaction, at the first search in an
    index state, or when the index changed since the state was read."""
    conn = store.connect()
    if conn.in_transaction:
        return None
    kept = _kept_in(store, _index_state(store))
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
        f"SELECT -1, id, block {STATE_BLOCKS}"]),
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


def ranked_by_kept_scores(store: BaseStore, weights: dict[str, float]) -> np.ndarray | None:
    """Every row matching a word, in `search._ranked_by_sql`'s order (summed idf rounded to 6
    places descending, summed BM25, id), from the kept word scores; None when none can be used.

    The sums are SQLite's: each row's values added in the words' order (the order its
    GROUP BY reads the UNION ALL's rows), the idf sums rounded by SQLite's round().
    """
    scores = _word_scores(store, list(weights))
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


def kept_counts(store: BaseStore, terms: list[str]) -> tuple[dict[str, int], int] | None:
    """The terms' document counts (those found) and the index's id span, when kept for the
    index's present state; None outside a kept state, inside a write transaction or for a
    term not kept."""
    kept = _KEPT.get(store)
    if store.connect().in_transaction or kept is None or kept.span is None \
            or not all(t in kept.docs for t in terms) or _index_state(store) != kept.state:
        return None
    return {t: kept.docs[t] for t in terms if kept.docs[t]}, kept.span


def keep_counts(store: BaseStore, state_rows: list[Any], terms: list[str],
                docs: dict[str, int], span: int) -> None:
    """Keep the terms' counts (`docs`: those found) and the id span read with the index's
    state (its (id, block) rows), unless inside a write transaction or the state differs from
    the one this `reads_once` read first."""
    state = _state_of(state_rows)
    if store.once(("index state",), lambda: state) != state or store.connect().in_transaction:
        return
    kept = _kept_in(store, state)
    with _KEPT_LOCK:
        if len(kept.docs) > 50_000:
            kept.docs.clear()
        kept.docs.update({t: docs.get(t, 0) for t in terms})
        kept.span = span


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
