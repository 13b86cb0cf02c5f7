"""Questions an import stored without an answer, completed when a newer export has it."""

from __future__ import annotations

from typing import Any

from ..base import BaseStore


def by_keys(store: BaseStore, user_id: str, keys: list[str]) -> dict[str, int]:
    """{content key: exchange id} of the user's exchanges with one of `keys` and no answer."""
    out: dict[str, int] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for row in store.query(
                f"SELECT id, content_key FROM exchanges WHERE user_id = ? AND content_key IN"
                f" ({marks}) AND assistant_text = ''", (user_id, *chunk)):
            out[str(row["content_key"])] = int(row["id"])
    return out


def complete(conn: Any, user_id: str, exchange_id: int, assistant_text: str,
             content_key: str) -> bool:
    """Give an unanswered exchange its answer and the key of the whole exchange (the keyword
    index follows: SQLite's update trigger, PostgreSQL's generated tsvector)."""
    return bool(conn.execute(
        "UPDATE exchanges SET assistant_text = ?, content_key = ? WHERE id = ? AND user_id = ?"
        " AND assistant_text = ''", (assistant_text, content_key, exchange_id, user_id)).rowcount)
