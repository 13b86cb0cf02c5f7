"""Bulk loading: a user's mid-term memory (segments, chained pages, their vectors) at once.

Used by the retrieval benchmark to build stores of 10k-100k pages in seconds. Ids are reserved
from the database first (PostgreSQL: the identity sequences; SQLite: past the AUTOINCREMENT
counter, under the write lock), so later inserts of the engine never collide with them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import BaseStore
from .db import Connection, dialect

SEGMENT_COLUMNS = ("id", "user_id", "summary", "keywords", "n_visit", "l_interaction",
                   "last_visit", "created_at", "updated_at", "analysed_at")
PAGE_COLUMNS = ("id", "user_id", "user_text", "assistant_text", "ts", "admitted_at", "tier",
                "segment_id", "prev_id", "next_id", "overview", "keywords", "analysed", "source",
                "content_key", "moved_at")
VECTOR_COLUMNS = ("user_id", "kind", "item_id", "vec")
# PostgreSQL copies vectors in binary: pgvector's text form cost Python ~0.9 ms a vector
# (384 floats formatted one by one), most of a 1M-page build; binary packs the float32 array
VECTOR_TYPES = ("text", "text", "int8", "vector")


def load_pages(
    store: BaseStore, user_id: str, segments: Sequence[dict[str, Any]],
    pages: Sequence[dict[str, Any]], page_vectors: np.ndarray, segment_vectors: np.ndarray,
    now: float, source: str = "benchmark",
) -> tuple[list[int], list[int]]:
    """Store analysed mid-term pages in their segments with vectors; returns (segment, page) ids.

    `segments`: dicts with summary, keywords (list). `pages`: dicts with user_text,
    assistant_text, ts, segment (index into `segments`), overview, keywords (list),
    content_key. The pages of one segment are chained (prev/next) in list order.
    """
    with store.transaction(user_id) as conn:
        seg_ids = reserve_ids(conn, "segments", len(segments))
        page_ids = reserve_ids(conn, "exchanges", len(pages))
        seg_rows = [(seg_ids[s], user_id, seg["summary"], json.dumps(seg["keywords"]), 0, 0,
                     now, now, now, now) for s, seg in enumerate(segments)]
        prev_of: dict[int, int] = {}
        next_of: dict[int, int] = {}
        last_in: dict[int, int] = {}
        for i, page in enumerate(pages):
            j = last_in.get(page["segment"])
            if j is not None:
                prev_of[i], next_of[j] = page_ids[j], page_ids[i]
            last_in[page["segment"]] = i
        page_rows = [(page_ids[i], user_id, p["user_text"], p["assistant_text"], p["ts"], now,
                      "mid", seg_ids[p["segment"]], prev_of.get(i), next_of.get(i),
                      p["overview"], json.dumps(p["keywords"]), 1, source, p["content_key"], now)
                     for i, p in enumerate(pages)]
        vector_rows = [(user_id, "page", page_ids[i], store.encode_vector(page_vectors[i]))
                       for i in range(len(pages))]
        vector_rows += [(user_id, "segment", seg_ids[s], store.encode_vector(segment_vectors[s]))
                        for s in range(len(segments))]
        _insert_rows(conn, "segments", SEGMENT_COLUMNS, seg_rows)
        _insert_rows(conn, "exchanges", PAGE_COLUMNS, page_rows)
        _insert_rows(conn, "vectors", VECTOR_COLUMNS, vector_rows, VECTOR_TYPES)
    analyze(store)
    return seg_ids, page_ids


def reserve_ids(conn: Connection, table: str, n: int) -> list[int]:
    """n new ids of `table` that no later insert will take (inside the caller's transaction)."""
    if n <= 0:
        return []
    if dialect(conn) == "postgresql":
        rows = conn.execute(f"SELECT nextval(pg_get_serial_sequence('{table}', 'id'))"
                            f" FROM generate_series(1, ?)", (n,)).fetchall()
        return sorted(int(r[0]) for r in rows)
    # dialect: sqlite (sqlite_sequence: explicit ids above it move the AUTOINCREMENT counter)
    high = conn.execute(f"SELECT max(coalesce((SELECT max(id) FROM {table}), 0), coalesce("
                        f"(SELECT seq FROM sqlite_sequence WHERE name = '{table}'), 0))"
                        ).fetchone()[0]
    return list(range(int(high) + 1, int(high) + 1 + n))


def _insert_rows(conn: Any, table: str, columns: Sequence[str],
                 rows: Sequence[tuple[Any, ...]], types: Sequence[str] | None = None) -> None:
    """Insert many rows: COPY on PostgreSQL (binary when the column `types` are given), one
    prepared INSERT on SQLite."""
    if not rows:
        return
    names = ", ".join(columns)
    if dialect(conn) == "postgresql":
        binary = " (FORMAT BINARY)" if types else ""
        with conn.raw.cursor().copy(f"COPY {table} ({names}) FROM STDIN{binary}") as copy:
            if types:
                copy.set_types(list(types))
            for row in rows:
                copy.write_row(row)
        return
    marks = ", ".join("?" * len(columns))
    conn.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)


def analyze(store: BaseStore) -> None:
    """After a bulk load on PostgreSQL: planner statistics, and the visibility map (VACUUM) that
    lets counts of a user's rows read the index alone. SQLite keeps its plans."""
    if store.dialect != "postgresql":
        return
    conn = store.connect()
    for table in ("segments", "exchanges", "vectors"):
        conn.execute(f"VACUUM (ANALYZE) {table}")
