"""Conversations' SQL: exchanges grouped by the conversation they belong to; texts replaced in
place (Regenerate, Edit) with their trace."""

from __future__ import annotations

from typing import Any

from .base import BaseStore
from .db import Connection

Rows = list[dict[str, Any]]
# the exchanges stored before conversations existed and not grouped by the migration (a
# restored old version): listed together as conversation 0
UNGROUPED = 0


def _in(conversation: int) -> tuple[str, tuple[Any, ...]]:
    """The condition (and its parameters) for the exchanges of one conversation."""
    if conversation == UNGROUPED:
        return "conversation_id IS NULL", ()
    return "conversation_id = ?", (conversation,)


def current(store: BaseStore, user_id: str, source: str = "chat") -> int | None:
    """The conversation a new exchange of `source` continues: that of the user's newest
    short-term exchange of that source (the rule insert_exchange applies), else None."""
    value = store.scalar("SELECT conversation_id FROM exchanges WHERE user_id = ? AND tier ="
                         " 'short' AND source = ? ORDER BY ts DESC, id DESC LIMIT 1",
                         (user_id, source))
    return None if value is None else int(value)


def by_source(store: BaseStore, user_id: str, source: str) -> int | None:
    """The conversation an earlier import of the same source conversation started, or None."""
    value = store.scalar("SELECT conversation_id FROM exchanges WHERE user_id = ? AND source = ?"
                         " AND conversation_id IS NOT NULL ORDER BY id LIMIT 1",
                         (user_id, source))
    return None if value is None else int(value)


def listing(store: BaseStore, user_id: str, limit: int) -> Rows:
    """The user's conversations, newest first: id, first exchange (title, source), first and
    last time, exchange count."""
    rows: Rows = store.query(
        "WITH g AS (SELECT coalesce(conversation_id, 0) AS conversation, min(id) AS first_id,"
        " min(ts) AS started_at, max(ts) AS last_at, count(*) AS n FROM exchanges"
        " WHERE user_id = ? GROUP BY coalesce(conversation_id, 0))"
        " SELECT g.conversation, g.started_at, g.last_at, g.n, f.user_text AS first_user,"
        " f.assistant_text AS first_assistant, f.source FROM g JOIN exchanges f"
        " ON f.id = g.first_id ORDER BY g.last_at DESC, g.conversation DESC LIMIT ?",
        (user_id, limit))
    return rows


def exchanges_before(store: BaseStore, user_id: str, conversation: int,
                     before: tuple[float, int] | None, limit: int) -> Rows:
    """Up to `limit` exchanges of one conversation, newest first, older than `before`
    ((ts, id), exclusive; None: from the newest)."""
    where, params = _in(conversation)
    older = ""
    more: tuple[Any, ...] = ()
    if before is not None:
        older, more = " AND (ts < ? OR (ts = ? AND id < ?))", (before[0], before[0], before[1])
    rows: Rows = store.query(
        f"SELECT * FROM exchanges WHERE user_id = ? AND {where}{older}"
        " ORDER BY ts DESC, id DESC LIMIT ?", (user_id, *params, *more, limit))
    return rows


def exchange_in(store: BaseStore, user_id: str, conversation: int,
                exchange_id: int) -> dict[str, Any] | None:
    """One exchange of the user if it is in that conversation, else None."""
    where, params = _in(conversation)
    row: dict[str, Any] | None = store.query_one(
        f"SELECT id, ts FROM exchanges WHERE id = ? AND user_id = ? AND {where}",
        (exchange_id, user_id, *params))
    return row


def first_exchange(store: BaseStore, user_id: str, conversation: int) -> dict[str, Any] | None:
    """The oldest exchange of one conversation (its title and source), or None."""
    where, params = _in(conversation)
    row: dict[str, Any] | None = store.query_one(
        f"SELECT user_text, assistant_text, source FROM exchanges WHERE user_id = ? AND {where}"
        " ORDER BY id LIMIT 1", (user_id, *params))
    return row


def traces_of(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, str]:
    """The stored traces (JSON text) of some of the user's exchanges, by exchange id."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(r["exchange_id"]): str(r["trace"]) for r in store.query(
        f"SELECT exchange_id, trace FROM traces WHERE exchange_id IN ({marks}) AND user_id = ?",
        (*ids, user_id))}


def count(store: BaseStore, user_id: str, conversation: int) -> int:
    """How many exchanges one conversation holds."""
    where, params = _in(conversation)
    return int(store.scalar(f"SELECT count(*) FROM exchanges WHERE user_id = ? AND {where}",
                            (user_id, *params)) or 0)


# -- Regenerate and Edit (inside the caller's transaction) ------------------------------------


def short_term_texts(conn: Connection, user_id: str, exchange_id: int) -> dict[str, Any] | None:
    """The texts of one of the user's short-term exchanges and its trace, or None when it is
    not (or no longer) in short-term memory."""
    row = conn.execute(
        "SELECT e.user_text, e.assistant_text, t.trace FROM exchanges e LEFT JOIN traces t"
        " ON t.exchange_id = e.id WHERE e.id = ? AND e.user_id = ? AND e.tier = 'short'",
        (exchange_id, user_id)).fetchone()
    if row is None:
        return None
    return {"user_text": row[0], "assistant_text": row[1], "trace": row[2]}


def replace_texts(conn: Connection, user_id: str, exchange_id: int, user_text: str,
                  assistant_text: str, content_key: str) -> None:
    """New texts for a short-term exchange (its keyword index entry follows: a trigger on
    SQLite, the generated column on PostgreSQL)."""
    conn.execute("UPDATE exchanges SET user_text = ?, assistant_text = ?, content_key = ?"
                 " WHERE id = ? AND user_id = ? AND tier = 'short'",
                 (user_text, assistant_text, content_key, exchange_id, user_id))


def put_trace(conn: Connection, user_id: str, exchange_id: int, created_at: float,
              trace_json: str) -> None:
    """Store or replace the trace of one exchange."""
    conn.execute("INSERT INTO traces (exchange_id, user_id, created_at, trace) VALUES"
                 " (?, ?, ?, ?) ON CONFLICT (exchange_id) DO UPDATE SET"
                 " created_at = excluded.created_at, trace = excluded.trace",
                 (exchange_id, user_id, created_at, trace_json))
