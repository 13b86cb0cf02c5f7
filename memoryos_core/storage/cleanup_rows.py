"""The SQL of memory/cleanup.py: once per store, the app's own text taken out of stored memory.

Store-wide when a store made by an earlier version is opened (once, recorded in store_meta),
like re-embedding; one user's rows after a version of theirs is restored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .base import row_dict
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


def _mine(user_id: str | None) -> tuple[str, tuple[str, ...]]:
    """The SQL condition and parameter for one user's rows (every user's: None)."""
    return ("", ()) if user_id is None else (" AND user_id = ?", (user_id,))


def pages_with_evidence(conn: Connection, user_id: str | None = None) -> list[dict[str, Any]]:
    """id, user_id, user_text, assistant_text of each exchange (of one user, or of every user)
    whose answer holds an appended evidence line."""
    where, mine = _mine(user_id)
    return [row_dict(r) for r in conn.execute(
        "SELECT id, user_id, user_text, assistant_text FROM exchanges WHERE assistant_text LIKE"
        f" ?{where} ORDER BY id", (EVIDENCE_MARK, *mine)).fetchall()]


def all_facts(conn: Connection, user_id: str | None = None) -> list[dict[str, Any]]:
    """Each fact (of one user, or of every user) with its links and owner, by user then id."""
    where, mine = _mine(user_id)
    return [row_dict(r) for r in conn.execute(
        "SELECT id, user_id, kind, text, sources, valid_until, superseded_by, by_user FROM"
        f" facts WHERE 1 = 1{where} ORDER BY user_id, id", mine).fetchall()]


def user_texts(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    """The user side of some exchanges (the callers pass a user's own ids)."""
    out: dict[int, str] = {}
    wanted = sorted({int(i) for i in ids})
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for r in conn.execute(f"SELECT id, user_text FROM exchanges WHERE id IN ({marks})",
                              chunk).fetchall():
            out[int(r[0])] = str(r[1])
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
