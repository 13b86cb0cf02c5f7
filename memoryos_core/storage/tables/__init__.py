"""Storage by table: each module owns every SQL statement on one table, for both dialects.

A module is named for its table (`exchanges`, `segments`, `facts`, `profile`, `jobs`, ...);
the `exchanges` table's mid-term tier, the pages, has its own module (`pages`). Reads take the
store (`BaseStore`) and writes a `Connection` inside the caller's `store.transaction(user_id)`:
a table module never opens, commits or rolls back a transaction. Rows the main tables hand
out are typed (`Exchange`, `Segment`, `Fact` with `from_row`) where the callers are the
memory layers. Statements over every table at once (a user's memory document, the wipe, the
erasure) are in `storage/every_table.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..db import Connection

Rows = list[dict[str, Any]]


def marks(values: Sequence[Any]) -> str:
    """One `?` per value, comma-separated (an IN list)."""
    return ",".join("?" * len(values))


def insert_row(conn: Connection, table: str, user_id: str, columns: tuple[str, ...],
               row: dict[str, Any]) -> int:
    """Insert one of the user's rows with these columns of `row`; its id."""
    more = ", ?" * len(columns)
    sql = (f"INSERT INTO {table} (user_id, {', '.join(columns)}) VALUES (?{more})"
           " RETURNING id")
    return int(conn.execute(sql, (user_id, *[row[c] for c in columns])).fetchone()[0])
