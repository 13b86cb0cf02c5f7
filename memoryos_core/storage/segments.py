"""Mid-term rows: pending pages, segments, page links and heat counters, always per user."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .base import BaseStore
from .db import Connection


def _as_dict(row: Any) -> dict[str, Any]:
    return {k: row[k] for k in row.keys()}


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


# -- pages ------------------------------------------------------------------------------------

def pending_pages(
    store: BaseStore, user_id: str, limit: int | None = None
) -> list[dict[str, Any]]:
    """Mid-term pages no segment holds yet, oldest first (at most `limit`)."""
    sql = ("SELECT * FROM exchanges WHERE user_id = ? AND tier = 'mid' AND segment_id IS NULL"
           " ORDER BY ts, id")
    if limit is None:
        return store.query(sql, (user_id,))
    return store.query(sql + " LIMIT ?", (user_id, limit))


# the two reads a turn's maintenance makes (maintenance_state makes both in one statement)
_PENDING_COUNT = ("SELECT count(*) AS pending FROM exchanges WHERE user_id = ? AND tier = 'mid'"
                  " AND segment_id IS NULL")
_HOLDS_UNANALYSED = ("s.user_id = ? AND EXISTS (SELECT 1 FROM exchanges e"
                     " WHERE e.segment_id = s.id AND e.analysed = 0)")


def pending_count(store: BaseStore, user_id: str) -> int:
    """How many mid-term pages wait for a segment."""
    return int(store.scalar(_PENDING_COUNT, (user_id,)) or 0)


def still_pending(conn: Connection, user_id: str, page_ids: Sequence[int]) -> set[int]:
    """Those of `page_ids` that are still mid-term pages without a segment."""
    if not page_ids:
        return set()
    return {int(r[0]) for r in conn.execute(
        f"SELECT id FROM exchanges WHERE user_id = ? AND id IN ({_marks(page_ids)})"
        " AND segment_id IS NULL AND tier = 'mid'", (user_id, *page_ids))}


def set_next_page(conn: Connection, user_id: str, page_id: int, next_id: int) -> None:
    """Chain a page to the page that follows it."""
    conn.execute("UPDATE exchanges SET next_id = ? WHERE id = ? AND user_id = ?",
                 (next_id, page_id, user_id))


def link_page(
    conn: Connection, user_id: str, page_id: int, prev_id: int | None, next_id: int | None,
    overview: str, keywords: list[str],
) -> None:
    """Set a page's dialogue chain links, the overview it was filed under and its keywords."""
    conn.execute(
        "UPDATE exchanges SET prev_id = ?, next_id = ?, overview = ?, keywords = ?"
        " WHERE id = ? AND user_id = ?",
        (prev_id, next_id, overview, json.dumps(keywords), page_id, user_id))


def assign_pages(conn: Connection, user_id: str, segment_id: int, page_ids: Sequence[int]) -> None:
    """Put pages into a segment."""
    if page_ids:
        conn.execute(
            f"UPDATE exchanges SET segment_id = ? WHERE user_id = ? AND id IN ({_marks(page_ids)})",
            (segment_id, user_id, *page_ids))


def segment_pages(conn: Connection, user_id: str, segment_id: int) -> list[dict[str, Any]]:
    """Id, both texts and time of each page of a segment, by id."""
    return [_as_dict(r) for r in conn.execute(
        "SELECT id, user_text, assistant_text, ts FROM exchanges WHERE segment_id = ?"
        " AND user_id = ? ORDER BY id", (segment_id, user_id))]


def unanalysed_pages(
    store: BaseStore, user_id: str, segment_ids: Sequence[int]
) -> list[dict[str, Any]]:
    """Pages of these segments not analysed yet, oldest first."""
    if not segment_ids:
        return []
    return store.query(
        f"SELECT * FROM exchanges WHERE user_id = ? AND segment_id IN ({_marks(segment_ids)})"
        " AND analysed = 0 ORDER BY ts, id", (user_id, *segment_ids))


def mark_analysed(conn: Connection, user_id: str, page_ids: Sequence[int]) -> None:
    """Mark pages as analysed into long-term memory."""
    if page_ids:
        conn.execute(
            f"UPDATE exchanges SET analysed = 1 WHERE user_id = ? AND id IN ({_marks(page_ids)})",
            (user_id, *page_ids))


# -- segments ---------------------------------------------------------------------------------

def segment(store: BaseStore, user_id: str, segment_id: int) -> dict[str, Any] | None:
    """One segment row of the user, or None."""
    return store.query_one(
        "SELECT * FROM segments WHERE id = ? AND user_id = ?", (segment_id, user_id))


def segment_size(store: BaseStore, user_id: str, segment_id: int) -> int:
    """How many pages a segment holds."""
    return int(store.scalar(
        "SELECT count(*) FROM exchanges WHERE segment_id = ? AND user_id = ?",
        (segment_id, user_id)) or 0)


def user_segments(conn: Connection, user_id: str) -> list[dict[str, Any]]:
    """Every segment row of the user, by id."""
    return [_as_dict(r) for r in conn.execute(
        "SELECT * FROM segments WHERE user_id = ? ORDER BY id", (user_id,))]


def maintenance_state(store: BaseStore, user_id: str) -> tuple[int, list[dict[str, Any]]]:
    """The pending page count and the segments holding unanalysed pages (by id), in one
    statement: what a turn's maintenance reads to decide whether there is anything to do."""
    rows = store.query(
        f"SELECT p.pending AS pending_pages, s.* FROM ({_PENDING_COUNT}) AS p"
        f" LEFT JOIN segments s ON {_HOLDS_UNANALYSED} ORDER BY s.id", (user_id, user_id))
    pending = int(rows[0]["pending_pages"]) if rows else 0
    found = [{k: v for k, v in r.items() if k != "pending_pages"} for r in rows
             if r["id"] is not None]
    return pending, found


def segments_with_unanalysed_pages(
    store: BaseStore, user_id: str
) -> list[dict[str, Any]]:
    """Segments of the user holding at least one page not analysed yet, by id."""
    return store.query(f"SELECT s.* FROM segments s WHERE {_HOLDS_UNANALYSED} ORDER BY s.id",
                       (user_id,))


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
            f" ({_marks(segment_ids)}) AND user_id = ?", (now, *segment_ids, user_id))


def reset_analysed_segments(
    conn: Connection, user_id: str, segment_ids: Sequence[int], now: float
) -> None:
    """Zero the heat counters of those segments whose pages are all analysed now."""
    if segment_ids:
        conn.execute(
            f"UPDATE segments SET n_visit = 0, l_interaction = 0, analysed_at = ? WHERE id IN"
            f" ({_marks(segment_ids)}) AND user_id = ? AND NOT EXISTS (SELECT 1 FROM exchanges e"
            " WHERE e.segment_id = segments.id AND e.analysed = 0)", (now, *segment_ids, user_id))
