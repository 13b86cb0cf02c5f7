"""Statements over every table of a user at once: the memory document a version stores, the
wipe before a restore, the erasure of every row, and whether a user or the store holds memory.

The columns of each table's document rows belong to its table module (`tables/`).
"""

from __future__ import annotations

from typing import Any

from .base import BaseStore
from .db import Connection
from .tables.exchanges import EXCHANGE_COLUMNS, EXCHANGE_LATER
from .tables.facts import FACT_COLUMNS, FACT_LATER, FACT_TIME_COLUMNS
from .tables.profile import PROFILE_COLUMNS, PROFILE_LATER
from .tables.segments import SEGMENT_COLUMNS

WIPED_TABLES = ("traces", "exchanges", "segments", "facts", "profile", "user_state", "notes")
# Every table keyed by the engine's user id (the web app's accounts are its own, in webapp/).
USER_TABLES = ("traces", "exchanges", "segments", "facts", "profile", "user_state", "notes",
               "snapshots", "events", "jobs", "uploads", "usage", "vectors", "vector_epochs")
MEMORY_TABLES = ("exchanges", "segments", "facts", "profile", "notes")


# -- the user's current memory, read as a document ------------------------------------------

def memory_rows(store: BaseStore, user_id: str) -> dict[str, Any]:
    """Every memory row of a user by part (exchanges, segments, facts, profile, traces, notes),
    ordered by id, and the user_state row (or None)."""
    return {
        "exchanges": store.query(f"SELECT {', '.join((*EXCHANGE_COLUMNS, *EXCHANGE_LATER))}"
                                 " FROM exchanges"
                                 " WHERE user_id = ? ORDER BY id", (user_id,)),
        "segments": store.query(f"SELECT {', '.join(SEGMENT_COLUMNS)} FROM segments"
                                " WHERE user_id = ? ORDER BY id", (user_id,)),
        "facts": store.query(f"SELECT {', '.join((*FACT_COLUMNS, *FACT_TIME_COLUMNS, *FACT_LATER))}"
                             " FROM facts"
                             " WHERE user_id = ? ORDER BY id", (user_id,)),
        "profile": store.query(f"SELECT {', '.join((*PROFILE_COLUMNS, *PROFILE_LATER))}"
                               " FROM profile"
                               " WHERE user_id = ? ORDER BY dimension", (user_id,)),
        "user_state": store.query_one("SELECT overview, last_page_id FROM user_state"
                                      " WHERE user_id = ?", (user_id,)),
        "traces": store.query("SELECT exchange_id, created_at, trace FROM traces"
                              " WHERE user_id = ? ORDER BY exchange_id", (user_id,)),
        "notes": store.query("SELECT kind, text, source, created_at FROM notes"
                             " WHERE user_id = ? ORDER BY id", (user_id,)),
    }


def wipe_memory(conn: Connection, user_id: str) -> None:
    """Delete every memory row of a user (triggers remove vectors and FTS entries)."""
    for table in WIPED_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))


# -- erasure ------------------------------------------------------------------------------------

def delete_user_rows(conn: Connection, user_id: str) -> dict[str, int]:
    """Delete every row of the user in every table of the memory store; rows deleted per table."""
    return {table: int(conn.execute(f"DELETE FROM {table} WHERE user_id = ?",
                                    (user_id,)).rowcount or 0) for table in USER_TABLES}


def user_row_count(store: BaseStore, user_id: str) -> int:
    """How many rows the user has in the memory store's tables (0 once erased)."""
    return sum(int(store.scalar(f"SELECT count(*) FROM {table} WHERE user_id = ?",
                                (user_id,)) or 0) for table in USER_TABLES)


# -- whether there is memory ----------------------------------------------------------------

def holds_memory(store: BaseStore, user_id: str) -> bool:
    """True when the user has any exchange, segment, fact, profile row or note."""
    return any(store.scalar(f"SELECT 1 FROM {table} WHERE user_id = ? LIMIT 1", (user_id,))
               for table in MEMORY_TABLES)


def is_new_store(conn: Connection) -> bool:
    """True when the store holds no exchange and no fact (nothing to clean)."""
    return conn.execute("SELECT 1 FROM exchanges LIMIT 1").fetchone() is None \
        and conn.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is None
