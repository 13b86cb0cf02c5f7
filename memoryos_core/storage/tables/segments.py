"""The `segments` table: mid-term segments and their heat counters, always per user."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import BaseStore, row_dict
from ..db import Connection
from . import insert_row, marks
from .pages import HOLDS_UNANALYSED, PENDING_COUNT


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment row: its topic (summary, keywords) and its heat counters."""

    id: int
    user_id: str
    summary: str
    keywords: tuple[str, ...]
    n_visit: int
    l_interaction: int
    last_visit: float
    created_at: float
    updated_at: float
    analysed_at: float | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Segment:
        """The segment of a `SELECT *` row (keywords decoded; other columns left out)."""
        return cls(id=int(row["id"]), user_id=str(row["user_id"]), summary=str(row["summary"]),
                   keywords=tuple(json.loads(row["keywords"] or "[]")),
                   n_visit=int(row["n_visit"]), l_interaction=int(row["l_interaction"]),
                   last_visit=float(row["last_visit"]), created_at=float(row["created_at"]),
                   updated_at=float(row["updated_at"]),
                   analysed_at=None if row["analysed_at"] is None else float(row["analysed_at"]))


def segment(store: BaseStore, user_id: str, segment_id: int) -> Segment | None:
    """One segment of the user, or None."""
    row = store.query_one(
        "SELECT * FROM segments WHERE id = ? AND user_id = ?", (segment_id, user_id))
    return None if row is None else Segment.from_row(row)


def user_segments(conn: Connection, user_id: str) -> list[Segment]:
    """Every segment of the user, by id."""
    return [Segment.from_row(row_dict(r)) for r in conn.execute(
        "SELECT * FROM segments WHERE user_id = ? ORDER BY id", (user_id,))]


def segments_with_counts(store: BaseStore, user_id: str,
                         segment_id: int | None = None) -> list[tuple[Segment, int, int]]:
    """The user's segments (or one), each with its page count and unanalysed page count."""
    only = "" if segment_id is None else " AND s.id = ?"
    extra: tuple[int, ...] = () if segment_id is None else (segment_id,)
    rows = store.query(
        "SELECT s.*, (SELECT count(*) FROM exchanges e WHERE e.segment_id = s.id) AS"
        " page_count, (SELECT count(*) FROM exchanges e WHERE e.segment_id = s.id AND"
        " e.analysed = 0) AS unanalysed FROM segments s WHERE s.user_id = ?" + only,
        (user_id, *extra))
    # counts are plain ints on every backend
    return [(Segment.from_row(r), int(r["page_count"]), int(r["unanalysed"])) for r in rows]


def segments_by_id(store: BaseStore, user_id: str, ids: list[int],
                   columns: str = "*") -> dict[int, dict[str, Any]]:
    """Some segments of the user by id (ids of other users are left out); `columns`: the ones
    wanted, id among them (a retrieval ranks 50 by their keywords: 0.24 -> 0.14 ms with six)."""
    if not ids:
        return {}
    return {r["id"]: r for r in store.query(
        f"SELECT {columns} FROM segments WHERE id IN ({marks(ids)}) AND user_id = ?",
        (*ids, user_id))}


def maintenance_state(store: BaseStore, user_id: str) -> tuple[int, list[Segment]]:
    """The pending page count and the segments holding unanalysed pages (by id), in one
    statement: what a turn's maintenance reads to decide whether there is anything to do."""
    rows = store.query(
        f"SELECT p.pending AS pending_pages, s.* FROM ({PENDING_COUNT}) AS p"
        f" LEFT JOIN segments s ON {HOLDS_UNANALYSED} ORDER BY s.id", (user_id, user_id))
    pending = int(rows[0]["pending_pages"]) if rows else 0
    return pending, [Segment.from_row(r) for r in rows if r["id"] is not None]


def segments_with_unanalysed_pages(store: BaseStore, user_id: str) -> list[Segment]:
    """Segments of the user holding at least one page not analysed yet, by id."""
    return [Segment.from_row(r) for r in store.query(
        f"SELECT s.* FROM segments s WHERE {HOLDS_UNANALYSED} ORDER BY s.id", (user_id,))]


def all_segment_rows(store: BaseStore) -> list[dict[str, Any]]:
    """id, user_id, summary, keywords of every segment of every user."""
    return store.query("SELECT id, user_id, summary, keywords FROM segments")


# -- writes (inside the caller's transaction) -------------------------------------------------


def create_segment(
    conn: Connection, user_id: str, summary: str, keywords: list[str], pages: int, now: float
) -> int:
    """A new segment holding `pages` pages; returns its id."""
    row = conn.execute(
        "INSERT INTO segments (user_id, summary, keywords, l_interaction, last_visit,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, summary, json.dumps(keywords), pages, now, now, now)).fetchone()
    return int(row[0])


def grow_segment(
    conn: Connection, user_id: str, segment_id: int, summary: str, keywords: list[str],
    pages: int, now: float,
) -> None:
    """A segment takes `pages` more pages with its new summary and keywords."""
    conn.execute(
        "UPDATE segments SET summary = ?, keywords = ?, l_interaction = l_interaction + ?,"
        " last_visit = ?, updated_at = ? WHERE id = ? AND user_id = ?",
        (summary, json.dumps(keywords), pages, now, now, segment_id, user_id))


def delete_segment(conn: Connection, user_id: str, segment_id: int) -> None:
    """Delete a segment; its pages go with it (ON DELETE CASCADE)."""
    conn.execute("DELETE FROM segments WHERE id = ? AND user_id = ?", (segment_id, user_id))


def count_visits(conn: Connection, user_id: str, segment_ids: Sequence[int], now: float) -> None:
    """N_visit + 1 and recency reset for these segments."""
    if segment_ids:
        conn.execute(
            f"UPDATE segments SET n_visit = n_visit + 1, last_visit = ? WHERE id IN"
            f" ({marks(segment_ids)}) AND user_id = ?", (now, *segment_ids, user_id))


def reset_analysed_segments(
    conn: Connection, user_id: str, segment_ids: Sequence[int], now: float
) -> None:
    """Zero the heat counters of those segments whose pages are all analysed now."""
    if segment_ids:
        conn.execute(
            f"UPDATE segments SET n_visit = 0, l_interaction = 0, analysed_at = ? WHERE id IN"
            f" ({marks(segment_ids)}) AND user_id = ? AND NOT EXISTS (SELECT 1 FROM exchanges e"
            " WHERE e.segment_id = segments.id AND e.analysed = 0)", (now, *segment_ids, user_id))


def insert_imported_segment(
    conn: Connection, user_id: str, summary: str, keywords: list[str], n_visit: int,
    l_interaction: int, last_visit: float, created_at: float, updated_at: float,
    analysed_at: float | None,
) -> int:
    """A segment with the reference session's counters and times; returns its id."""
    row = conn.execute(
        "INSERT INTO segments (user_id, summary, keywords, n_visit, l_interaction, last_visit,"
        " created_at, updated_at, analysed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, summary, json.dumps(keywords), n_visit, l_interaction, last_visit, created_at,
         updated_at, analysed_at)).fetchone()
    return int(row[0])


SEGMENT_COLUMNS = ("id", "summary", "keywords", "n_visit", "l_interaction", "last_visit",
                   "created_at", "updated_at", "analysed_at")


# keep_id: a restore writes a version of this store back with the ids this store issued, so
# an identity sequence (PostgreSQL) is already past them.
def restore_segment(conn: Connection, user_id: str, row: dict[str, Any], keep_id: bool) -> int:
    """Write one segment row of a document for the user; its new id (the same when kept)."""
    return insert_row(conn, "segments", user_id,
                   SEGMENT_COLUMNS if keep_id else SEGMENT_COLUMNS[1:], row)
