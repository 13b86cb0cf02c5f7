"""The SQL of memory/cleanup.py: once per store, the app's own text taken out of stored memory.

Store-wide on purpose, like re-embedding: it runs once when a store made by an earlier version
is opened, for every user, and records that it ran in store_meta.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .base import BaseStore
from .db import Connection

DONE_KEY = "app_text_cleaned"  # store_meta: the cleanup of the app's text ran (its version)
EVIDENCE_MARK = "%(What I remember:%"


def done(conn: Connection) -> str | None:
    """The version of the cleanup that ran on this store, or None."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (DONE_KEY,)).fetchone()
    return None if row is None else str(row[0])


def mark_done(conn: Connection, version: str) -> None:
    """Record that the cleanup ran."""
    conn.execute("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE"
                 " SET value = excluded.value", (DONE_KEY, version))


def is_new_store(conn: Connection) -> bool:
    """True when the store holds no exchange and no fact (nothing to clean)."""
    return conn.execute("SELECT 1 FROM exchanges LIMIT 1").fetchone() is None \
        and conn.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is None


def pages_with_evidence(store: BaseStore) -> list[dict[str, Any]]:
    """id, user_id, user_text, assistant_text of every exchange whose answer holds an
    appended evidence line."""
    return store.query("SELECT id, user_id, user_text, assistant_text FROM exchanges WHERE"
                       " assistant_text LIKE ?", (EVIDENCE_MARK,))


def all_facts(store: BaseStore) -> list[dict[str, Any]]:
    """Every fact of every user with its time, links and owner, by user then id."""
    return store.query("SELECT id, user_id, kind, text, sources, valid_until, superseded_by,"
                       " by_user FROM facts ORDER BY user_id, id")


def user_texts(store: BaseStore, ids: Sequence[int]) -> dict[int, str]:
    """The user side of some exchanges (of any user: the callers pass a user's own ids)."""
    out: dict[int, str] = {}
    wanted = sorted({int(i) for i in ids})
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for r in store.query(f"SELECT id, user_text FROM exchanges WHERE id IN ({marks})",
                             chunk):
            out[int(r["id"])] = str(r["user_text"])
    return out


def set_answer(conn: Connection, user_id: str, page_id: int, old: str, new: str) -> bool:
    """Give one exchange a new answer text, when it still holds `old` (the keyword index
    follows: SQLite's update trigger of migration 10, PostgreSQL's generated tsvector)."""
    return bool(conn.execute("UPDATE exchanges SET assistant_text = ? WHERE id = ? AND"
                             " user_id = ? AND assistant_text = ?",
                             (new, page_id, user_id, old)).rowcount)


def relink_fact(conn: Connection, user_id: str, fact_id: int, valid_until: float | None,
                superseded_by: int | None) -> None:
    """Set until when a fact held and the fact that replaced it (None, None: current)."""
    conn.execute("UPDATE facts SET valid_until = ?, superseded_by = ? WHERE id = ? AND"
                 " user_id = ?", (valid_until, superseded_by, fact_id, user_id))
