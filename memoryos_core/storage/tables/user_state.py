"""The `user_state` table: the running overview and the last filed page of each user."""

from __future__ import annotations

from typing import Any

from ..base import BaseStore
from ..db import Connection


def user_state(store: BaseStore, user_id: str) -> dict[str, Any] | None:
    """The user's state row (overview, last_page_id, updated_at), or None."""
    return store.query_one(
        "SELECT * FROM user_state WHERE user_id = ?", (user_id,))


def save_overview(
    conn: Connection, user_id: str, overview: str, last_page_id: int, now: float
) -> None:
    """Store the overview and the last filed page (insert or update the state row)."""
    conn.execute(
        "INSERT INTO user_state (user_id, overview, last_page_id, updated_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET overview ="
        " excluded.overview, last_page_id = excluded.last_page_id,"
        " updated_at = excluded.updated_at",
        (user_id, overview, last_page_id, now))


def restore_user_state(conn: Connection, user_id: str, overview: str, last_page_id: int | None,
                      updated_at: float) -> None:
    """Write the user's chain state (overview and last page)."""
    conn.execute("INSERT INTO user_state (user_id, overview, last_page_id, updated_at)"
                 " VALUES (?, ?, ?, ?)", (user_id, overview, last_page_id, updated_at))
