"""The `events` table's rewrites (erasure); appending and reading the log are `BaseStore`'s
`log_event` and `events`."""

from __future__ import annotations

from ..db import Connection


def user_events(conn: Connection, user_id: str) -> list[tuple[int, str]]:
    """(id, detail JSON) of each event of the user."""
    return [(int(r[0]), str(r[1])) for r in conn.execute(
        "SELECT id, detail FROM events WHERE user_id = ? ORDER BY id", (user_id,))]


def delete_events(conn: Connection, user_id: str, ids: list[int]) -> None:
    """Delete some events of the user."""
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        conn.execute(f"DELETE FROM events WHERE user_id = ? AND id IN ({','.join('?' * len(chunk))})",
                     (user_id, *chunk))
