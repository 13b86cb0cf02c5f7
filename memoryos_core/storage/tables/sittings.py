"""Reads of the `exchanges` table for the text a page is found by (memory/retrieval_text.py)."""

from __future__ import annotations

from typing import Any

from ..base import BaseStore, row_dict
from ..db import Connection

COLUMNS = "id, user_id, user_text, assistant_text, ts, conversation_id"


def _of(conversation: int | None) -> tuple[str, tuple[Any, ...]]:
    """The condition for one conversation's exchanges (None: those of no conversation)."""
    if conversation is None:
        return "conversation_id IS NULL", ()
    return "conversation_id = ?", (conversation,)


def exchange_before(store: BaseStore, user_id: str, conversation: int | None, ts: float,
                    before_id: int | None = None) -> dict[str, Any] | None:
    """The user's newest exchange of a conversation before (ts, before_id) in dialogue order
    (no id: at or before `ts`): its assistant_text and ts, or None."""
    where, params = _of(conversation)
    order, args = ("ts <= ?", (ts,)) if before_id is None else \
        ("(ts < ? OR (ts = ? AND id < ?))", (ts, ts, before_id))
    return store.query_one(
        f"SELECT assistant_text, ts FROM exchanges WHERE user_id = ? AND {where} AND {order}"
        " ORDER BY ts DESC, id DESC LIMIT 1", (user_id, *params, *args))


def exchange_before_current(store: BaseStore, user_id: str, source: str,
                            ts: float) -> dict[str, Any] | None:
    """In one statement, the newest exchange at or before `ts` of the conversation a new
    exchange of `source` continues (that of the user's newest short-term exchange of that
    source, as insert_exchange applies it): its assistant_text and ts, or None."""
    return store.query_one(
        "SELECT assistant_text, ts FROM exchanges WHERE user_id = ? AND conversation_id ="
        " (SELECT c.conversation_id FROM exchanges c WHERE c.user_id = ? AND c.tier = 'short'"
        " AND c.source = ? ORDER BY c.ts DESC, c.id DESC LIMIT 1) AND ts <= ?"
        " ORDER BY ts DESC, id DESC LIMIT 1", (user_id, user_id, source, ts))


def exchange_before_stored(store: BaseStore, user_id: str,
                           exchange_id: int) -> dict[str, Any] | None:
    """In one statement, the exchange before a stored one in its conversation (dialogue order):
    its assistant_text and ts, and `at`, the stored one's ts; or None."""
    return store.query_one(
        "SELECT p.assistant_text, p.ts, e.ts AS at FROM exchanges e JOIN exchanges p"
        " ON p.user_id = e.user_id AND p.conversation_id = e.conversation_id"
        " AND (p.ts < e.ts OR (p.ts = e.ts AND p.id < e.id))"
        " WHERE e.id = ? AND e.user_id = ? ORDER BY p.ts DESC, p.id DESC LIMIT 1",
        (exchange_id, user_id))


def exchange_after_stored(store: BaseStore, user_id: str,
                          exchange_id: int) -> dict[str, Any] | None:
    """In one statement, the exchange after a stored one in its conversation (dialogue order):
    its id, user_text, assistant_text and ts, and `at`, the stored one's ts; or None."""
    return store.query_one(
        "SELECT n.id, n.user_text, n.assistant_text, n.ts, e.ts AS at FROM exchanges e"
        " JOIN exchanges n ON n.user_id = e.user_id AND n.conversation_id = e.conversation_id"
        " AND (n.ts > e.ts OR (n.ts = e.ts AND n.id > e.id))"
        " WHERE e.id = ? AND e.user_id = ? ORDER BY n.ts, n.id LIMIT 1", (exchange_id, user_id))


def rows(conn: Connection, user_id: str | None = None) -> list[dict[str, Any]]:
    """Every exchange (of one user, or of every user) with its texts, time and conversation,
    by id."""
    where, params = ("", ()) if user_id is None else (" WHERE user_id = ?", (user_id,))
    return [row_dict(r) for r in conn.execute(
        f"SELECT {COLUMNS} FROM exchanges{where} ORDER BY id", params).fetchall()]


def all_rows(store: BaseStore) -> list[dict[str, Any]]:
    """Every exchange of every user with its texts, time and conversation, by id."""
    return store.query(f"SELECT {COLUMNS} FROM exchanges ORDER BY id")
