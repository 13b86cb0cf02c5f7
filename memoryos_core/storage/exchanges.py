"""Exchange rows of one user: admission, short-term and mid-term reads, pages, traces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .base import BaseStore
from .db import Connection

Rows = list[dict[str, Any]]


def _marks(ids: list[int]) -> str:
    return ",".join("?" * len(ids))


# -- admission (inside the caller's transaction) -------------------------------------------


def insert_exchange(
    conn: Connection, user_id: str, user_text: str, assistant_text: str, ts: float,
    admitted_at: float, source: str, content_key: str, conversation: int | str = "current",
) -> int:
    """Insert one short-term exchange; returns its id. `conversation`: its id, "new", or
    "current" (that of the user's newest short-term exchange of the same source, else new);
    an exchange that starts a conversation gives it its own id."""
    given = conversation if isinstance(conversation, int) else None
    # one statement either way; the conversation's first exchange takes one more
    row = conn.execute(
        "INSERT INTO exchanges (user_id, user_text, assistant_text, ts, admitted_at, tier,"
        " source, content_key, conversation_id) VALUES (?, ?, ?, ?, ?, 'short', ?, ?,"
        " coalesce(?, (SELECT c.conversation_id FROM exchanges c WHERE c.user_id = ?"
        " AND c.tier = 'short' AND c.source = ? ORDER BY c.ts DESC, c.id DESC LIMIT 1)))"
        " RETURNING id, conversation_id",
        (user_id, user_text, assistant_text, ts, admitted_at, source, content_key, given,
         user_id, source if conversation == "current" else None),
    ).fetchone()
    if row[1] is None:
        conn.execute("UPDATE exchanges SET conversation_id = id WHERE id = ?", (row[0],))
    return int(row[0])


def overflow_to_mid_term(conn: Connection, user_id: str, capacity: int, now: float) -> list[int]:
    """Move the user's short-term exchanges beyond the newest `capacity` to pending mid-term
    pages (one statement); returns their ids, oldest first (dialogue time, then id)."""
    rows = conn.execute(
        "UPDATE exchanges SET tier = 'mid', moved_at = ? WHERE user_id = ? AND id IN"
        " (SELECT ranked.id FROM (SELECT id, row_number() OVER (ORDER BY ts DESC, id DESC) AS n"
        " FROM exchanges WHERE user_id = ? AND tier = 'short') AS ranked WHERE ranked.n > ?)"
        " RETURNING id, ts", (now, user_id, user_id, capacity)).fetchall()
    return [int(r[0]) for r in sorted(rows, key=lambda r: (float(r[1]), int(r[0])))]


# -- reads ----------------------------------------------------------------------------------


def short_term_rows(store: BaseStore, user_id: str) -> Rows:
    """The user's short-term exchanges, oldest first."""
    rows: Rows = store.query(
        "SELECT * FROM exchanges WHERE user_id = ? AND tier = 'short' ORDER BY ts, id",
        (user_id,))
    return rows


def short_term_count(store: BaseStore, user_id: str) -> int:
    """How many exchanges the user has in short-term memory."""
    return int(store.scalar("SELECT count(*) FROM exchanges WHERE user_id = ? AND tier ="
                            " 'short'", (user_id,)) or 0)


def kept_mid_term_count(store: BaseStore, user_id: str) -> int | None:
    """The user's mid-term pages as the writes keep them (PostgreSQL's exchange_counts, pg
    migration 8); None on SQLite, where the FAISS index counts them at no cost."""
    if store.dialect != "postgresql":
        return None
    return int(store.scalar("SELECT coalesce(sum(n), 0) FROM exchange_counts WHERE user_id = ?"
                            " AND tier = 'mid'", (user_id,)) or 0)


def exchange_row(store: BaseStore, user_id: str, exchange_id: int) -> dict[str, Any] | None:
    """One exchange of the user, or None."""
    row: dict[str, Any] | None = store.query_one(
        "SELECT * FROM exchanges WHERE id = ? AND user_id = ?", (exchange_id, user_id))
    return row


def exchanges_by_id(store: BaseStore, user_id: str, ids: list[int],
                    columns: str = "*") -> dict[int, dict[str, Any]]:
    """Some exchanges of the user by id (ids of other users are left out); `columns`: the
    ones wanted, id and user_id among them (a retrieval reads ~100 rows, a third less so)."""
    if not ids:
        return {}
    # By primary key, the user checked per row: with `user_id = ?` in the SQL, SQLite (no
    # statistics) walks all the user's rows through the (user_id, content_key) index instead,
    # 45 ms for 120 ids at 100k pages rather than 1 ms.
    return {r["id"]: r for r in store.query(
        f"SELECT {columns} FROM exchanges WHERE id IN ({_marks(ids)})", ids)
        if r["user_id"] == user_id}


def filed_page_rows(store: BaseStore, user_id: str, segment_id: int | None = None) -> Rows:
    """Pages filed in segments (or in one segment), in dialogue order."""
    only = "" if segment_id is None else " AND segment_id = ?"
    extra: tuple[int, ...] = () if segment_id is None else (segment_id,)
    rows: Rows = store.query(
        "SELECT * FROM exchanges WHERE user_id = ? AND segment_id IS NOT NULL" + only +
        " ORDER BY ts, id", (user_id, *extra))
    return rows


def recent_exchange_rows(store: BaseStore, user_id: str, limit: int) -> Rows:
    """The user's newest exchanges of any tier, newest first."""
    rows: Rows = store.query(
        "SELECT * FROM exchanges WHERE user_id = ? ORDER BY ts DESC, id DESC LIMIT ?",
        (user_id, limit))
    return rows


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


def content_keys(store: BaseStore, user_id: str) -> set[str]:
    """Content keys of every exchange of the user (to skip re-imports)."""
    return {r["content_key"] for r in store.query(
        "SELECT content_key FROM exchanges WHERE user_id = ?", (user_id,))}


def page_overviews(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, str]:
    """The chain overview of some pages of the user, by id."""
    if not ids:
        return {}
    # by primary key, the user checked per row (see exchanges_by_id)
    return {r["id"]: r["overview"] for r in store.query(
        f"SELECT id, user_id, overview FROM exchanges WHERE id IN ({_marks(ids)})", ids)
        if r["user_id"] == user_id}


# -- answer traces --------------------------------------------------------------------------


def insert_trace(conn: Connection, user_id: str, exchange_id: int, created_at: float,
                 trace_json: str) -> None:
    """Store the retrieval trace of one answer, inside the caller's transaction."""
    conn.execute("INSERT INTO traces (exchange_id, user_id, created_at, trace)"
                 " VALUES (?, ?, ?, ?)", (exchange_id, user_id, created_at, trace_json))


def trace_json(store: BaseStore, user_id: str, exchange_id: int) -> str | None:
    """The stored trace (JSON text) of one answer of the user, or None."""
    row = store.query_one("SELECT trace FROM traces WHERE exchange_id = ? AND user_id = ?",
                          (exchange_id, user_id))
    return None if row is None else str(row["trace"])
