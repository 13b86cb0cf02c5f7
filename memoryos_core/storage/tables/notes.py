"""The `notes` table: notes imported with a user's memory (a reference profile)."""

from __future__ import annotations

from ..base import BaseStore
from ..db import Connection
from . import Rows


def note_rows(store: BaseStore, user_id: str) -> Rows:
    """The user's imported notes (kind, text, source, created_at), oldest first."""
    rows: Rows = store.query("SELECT kind, text, source, created_at FROM notes WHERE user_id = ?"
                             " ORDER BY id", (user_id,))
    return rows


def has_note(conn: Connection, user_id: str, text: str) -> bool:
    """Whether the user already holds a note with exactly this text."""
    return conn.execute("SELECT 1 FROM notes WHERE user_id = ? AND text = ?",
                        (user_id, text)).fetchone() is not None


def insert_note(conn: Connection, user_id: str, kind: str, text: str, source: str,
                created_at: float) -> None:
    """Write one note for the user."""
    conn.execute("INSERT INTO notes (user_id, kind, text, source, created_at) VALUES"
                 " (?, ?, ?, ?, ?)", (user_id, kind, text, source, created_at))
