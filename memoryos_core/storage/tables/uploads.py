"""The `uploads` table: uploads kept between a preview and its run."""

from __future__ import annotations

import time

from ..base import BaseStore
from ..db import Connection, dialect


def put_upload(store: BaseStore, token: str, user_id: str, kind: str, data: bytes,
               keep: int) -> None:
    """Keep an upload under a token; only the user's newest `keep` of a kind stay."""
    with store.transaction(user_id) as conn:
        conn.execute("INSERT INTO uploads (token, user_id, kind, created_at, data)"
                     " VALUES (?, ?, ?, ?, ?)", (token, user_id, kind, time.time(), data))
        old = [r[0] for r in conn.execute(
            "SELECT token FROM uploads WHERE user_id = ? AND kind = ?"
            " ORDER BY created_at DESC, token LIMIT -1 OFFSET ?"
            if dialect(conn) == "sqlite" else
            "SELECT token FROM uploads WHERE user_id = ? AND kind = ?"
            " ORDER BY created_at DESC, token OFFSET ?", (user_id, kind, keep)).fetchall()]
        for token_old in old:
            conn.execute("DELETE FROM uploads WHERE token = ?", (token_old,))


def take_upload(store: BaseStore, token: str, user_id: str, kind: str) -> bytes | None:
    """Claim a kept upload exactly once (a second claim gets None)."""
    with store.transaction(user_id) as conn:
        row = conn.execute("DELETE FROM uploads WHERE token = ? AND user_id = ? AND kind = ?"
                           " RETURNING data", (token, user_id, kind)).fetchone()
    return None if row is None else bytes(row[0])


def sweep_uploads(store: BaseStore, before: float) -> None:
    """Forget uploads kept since before `before` (previews nobody ran)."""
    with store.transaction(lock="uploads") as conn:
        conn.execute("DELETE FROM uploads WHERE created_at < ?", (before,))


def get_upload(store: BaseStore, token: str, user_id: str, kind: str) -> bytes | None:
    """The kept upload of this user under the token, or None."""
    value = store.scalar("SELECT data FROM uploads WHERE token = ? AND user_id = ? AND kind = ?",
                         (token, user_id, kind))
    return None if value is None else bytes(value)


def drop_upload(store: BaseStore, token: str, user_id: str) -> None:
    """Forget a kept upload."""
    with store.transaction(user_id) as conn:
        conn.execute("DELETE FROM uploads WHERE token = ? AND user_id = ?", (token, user_id))


def user_uploads(conn: Connection, user_id: str) -> list[tuple[str, bytes]]:
    """(token, data) of the user's uploads kept for a preview."""
    return [(str(r[0]), bytes(r[1])) for r in conn.execute(
        "SELECT token, data FROM uploads WHERE user_id = ?", (user_id,))]


def delete_upload(conn: Connection, user_id: str, token: str) -> None:
    """Delete one of the user's kept uploads."""
    conn.execute("DELETE FROM uploads WHERE token = ? AND user_id = ?", (token, user_id))
