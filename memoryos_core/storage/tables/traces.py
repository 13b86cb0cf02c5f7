"""The `traces` table: the retrieval trace of each answer, by exchange."""

from __future__ import annotations

from ..base import BaseStore
from ..db import Connection


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


def traces_of(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, str]:
    """The stored traces (JSON text) of some of the user's exchanges, by exchange id."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(r["exchange_id"]): str(r["trace"]) for r in store.query(
        f"SELECT exchange_id, trace FROM traces WHERE exchange_id IN ({marks}) AND user_id = ?",
        (*ids, user_id))}


def put_trace(conn: Connection, user_id: str, exchange_id: int, created_at: float,
              trace_json: str) -> None:
    """Store or replace the trace of one exchange."""
    conn.execute("INSERT INTO traces (exchange_id, user_id, created_at, trace) VALUES"
                 " (?, ?, ?, ?) ON CONFLICT (exchange_id) DO UPDATE SET"
                 " created_at = excluded.created_at, trace = excluded.trace",
                 (exchange_id, user_id, created_at, trace_json))
