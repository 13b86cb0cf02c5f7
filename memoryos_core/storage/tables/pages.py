"""The `exchanges` table's mid-term tier: pages pending a segment, their dialogue chain, the
pages of each segment, whether they are analysed, and the reads retrieval makes of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..base import BaseStore, row_dict
from ..db import Connection
from . import marks
from .exchanges import Exchange

# -- pending pages ----------------------------------------------------------------------------


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
PENDING_COUNT = ("SELECT count(*) AS pending FROM exchanges WHERE user_id = ? AND tier = 'mid'"
                 " AND segment_id IS NULL")
HOLDS_UNANALYSED = ("s.user_id = ? AND EXISTS (SELECT 1 FROM exchanges e"
                    " WHERE e.segment_id = s.id AND e.analysed = 0)")


def pending_count(store: BaseStore, user_id: str) -> int:
    """How many mid-term pages wait for a segment."""
    return int(store.scalar(PENDING_COUNT, (user_id,)) or 0)


def still_pending(conn: Connection, user_id: str, page_ids: Sequence[int]) -> set[int]:
    """Those of `page_ids` that are still mid-term pages without a segment."""
    if not page_ids:
        return set()
    return {int(r[0]) for r in conn.execute(
        f"SELECT id FROM exchanges WHERE user_id = ? AND id IN ({marks(page_ids)})"
        " AND segment_id IS NULL AND tier = 'mid'", (user_id, *page_ids))}


# -- the dialogue chain ------------------------------------------------------------------------


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


def set_chain_links(conn: Connection, user_id: str, exchange_id: int, prev_id: int | None,
                    next_id: int | None) -> None:
    """Point one of the user's exchanges at its previous and next page."""
    conn.execute("UPDATE exchanges SET prev_id = ?, next_id = ? WHERE id = ? AND user_id = ?",
                 (prev_id, next_id, exchange_id, user_id))


# -- the pages of segments -------------------------------------------------------------------


def assign_pages(conn: Connection, user_id: str, segment_id: int, page_ids: Sequence[int]) -> None:
    """Put pages into a segment."""
    if page_ids:
        conn.execute(
            f"UPDATE exchanges SET segment_id = ? WHERE user_id = ? AND id IN ({marks(page_ids)})",
            (segment_id, user_id, *page_ids))


def segment_pages(conn: Connection, user_id: str, segment_id: int) -> list[dict[str, Any]]:
    """Id, both texts and time of each page of a segment, by id."""
    return [row_dict(r) for r in conn.execute(
        "SELECT id, user_text, assistant_text, ts FROM exchanges WHERE segment_id = ?"
        " AND user_id = ? ORDER BY id", (segment_id, user_id))]


def segment_size(store: BaseStore, user_id: str, segment_id: int) -> int:
    """How many pages a segment holds."""
    return int(store.scalar(
        "SELECT count(*) FROM exchanges WHERE segment_id = ? AND user_id = ?",
        (segment_id, user_id)) or 0)


def filed_page_rows(store: BaseStore, user_id: str,
                    segment_id: int | None = None) -> list[Exchange]:
    """Pages filed in segments (or in one segment), in dialogue order."""
    only = "" if segment_id is None else " AND segment_id = ?"
    extra: tuple[int, ...] = () if segment_id is None else (segment_id,)
    return [Exchange.from_row(r) for r in store.query(
        "SELECT * FROM exchanges WHERE user_id = ? AND segment_id IS NOT NULL" + only +
        " ORDER BY ts, id", (user_id, *extra))]


def unanalysed_pages(
    store: BaseStore, user_id: str, segment_ids: Sequence[int]
) -> list[dict[str, Any]]:
    """Pages of these segments not analysed yet, oldest first."""
    if not segment_ids:
        return []
    return store.query(
        f"SELECT * FROM exchanges WHERE user_id = ? AND segment_id IN ({marks(segment_ids)})"
        " AND analysed = 0 ORDER BY ts, id", (user_id, *segment_ids))


def mark_analysed(conn: Connection, user_id: str, page_ids: Sequence[int]) -> None:
    """Mark pages as analysed into long-term memory."""
    if page_ids:
        conn.execute(
            f"UPDATE exchanges SET analysed = 1 WHERE user_id = ? AND id IN ({marks(page_ids)})",
            (user_id, *page_ids))


def insert_imported_page(
    conn: Connection, user_id: str, user_text: str, assistant_text: str, ts: float,
    segment_id: int, overview: str, keywords: list[str], analysed: bool, source: str,
    content_key: str, now: float,
) -> int:
    """A mid-term page filed in a segment (admitted and moved now); returns its id."""
    row = conn.execute(
        "INSERT INTO exchanges (user_id, user_text, assistant_text, ts, admitted_at, tier,"
        " segment_id, overview, keywords, analysed, source, content_key, moved_at) VALUES"
        " (?, ?, ?, ?, ?, 'mid', ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, user_text, assistant_text, ts, now, segment_id, overview, json.dumps(keywords),
         int(analysed), source, content_key, now)).fetchone()
    return int(row[0])


# -- reads of retrieval and the state ---------------------------------------------------------


def next_mid_term_pages(store: BaseStore, user_id: str,
                        starts: Sequence[tuple[float, int, float]]) -> dict[int, int]:
    """For each (ts, after_id, until_ts), the first mid-term page after (ts, after_id) and at
    most at `until_ts`, in one statement: {after_id: that page's id} where there is one."""
    if not starts:
        return {}
    lookup = ("SELECT CAST(? AS BIGINT) AS after_id, (SELECT id FROM exchanges WHERE user_id = ?"
              " AND tier = 'mid' AND (ts > ? OR (ts = ? AND id > ?)) AND ts <= ?"
              " ORDER BY ts, id LIMIT 1) AS next_id")
    rows = store.query(" UNION ALL ".join(lookup for _ in starts), [
        x for ts, after, until in starts for x in (after, user_id, ts, ts, after, until)])
    return {int(r["after_id"]): int(r["next_id"]) for r in rows if r["next_id"] is not None}


def mid_term_ids_between(store: BaseStore, user_id: str, start: float, end: float,
                         limit: int) -> list[int]:
    """Ids of the user's mid-term pages with start <= ts < end, oldest first, at most `limit`."""
    return [int(r["id"]) for r in store.query(
        "SELECT id FROM exchanges WHERE user_id = ? AND tier = 'mid' AND ts >= ? AND ts < ?"
        " ORDER BY ts, id LIMIT ?", (user_id, start, end, limit))]


def page_overviews(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, str]:
    """The chain overview of some pages of the user, by id."""
    if not ids:
        return {}
    # by primary key, the user checked per row (see exchanges_by_id)
    return {r["id"]: r["overview"] for r in store.query(
        f"SELECT id, user_id, overview FROM exchanges WHERE id IN ({marks(ids)})", ids)
        if r["user_id"] == user_id}


# dialect: postgresql (exchange_counts)
KEPT_MID_TERM_COUNT = ("SELECT coalesce(sum(n), 0) AS n FROM exchange_counts WHERE user_id = ?"
                       " AND tier = 'mid'")


def kept_mid_term_count(store: BaseStore, user_id: str) -> int | None:
    """The user's mid-term pages as the writes keep them (PostgreSQL's exchange_counts, pg
    migration 8); None on SQLite, where the FAISS index counts them at no cost."""
    if store.dialect != "postgresql":
        return None
    return int(store.scalar(KEPT_MID_TERM_COUNT, (user_id,)) or 0)
