"""Erasure's last step: the scrub that leaves no deleted text in the database files (the rows
themselves: `every_table.delete_user_rows`, and each table's rewrites in `tables/`)."""

from __future__ import annotations

import time
from typing import Any

from .base import BaseStore


# dialect: sqlite (FTS5 rebuild, VACUUM, WAL checkpoint); PostgreSQL: nothing (left to its VACUUM)
def scrub(store: BaseStore, fts: bool = True) -> dict[str, Any]:
    """Leave no deleted text in the store's files.

    Every connection deletes with PRAGMA secure_delete=ON (freed space is zeroed). The FTS5
    index still holds a deleted row's terms (and 'delete' markers repeating them) until its
    segments merge; SQLite 3.40 has no 'secure-delete' option, so the index is rebuilt from
    the table. VACUUM then rewrites the file and the WAL checkpoint empties the -wal file.
    PostgreSQL keeps dead tuples until VACUUM, which is the database's own (autovacuum or an
    operator's VACUUM); nothing is done here.
    """
    if store.dialect != "sqlite":
        return {"scrubbed": False}
    if fts:
        with store.transaction() as conn:
            conn.execute("INSERT INTO exchanges_fts(exchanges_fts) VALUES ('rebuild')")
    store.connect().execute("VACUUM")
    return {"scrubbed": empty_log(store)}


def empty_log(store: BaseStore) -> bool:
    """Write the SQLite log into the database and truncate it: what a row held before it was
    overwritten or deleted (zeroed by secure_delete in the file) leaves the -wal file too.
    True when the log is empty (PostgreSQL: nothing to do)."""
    if store.dialect != "sqlite":
        return True
    conn = store.connect()
    busy = 1
    for _ in range(50):  # a reader in another thread may hold the log for a moment
        busy = int(conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0])
        if not busy:
            break
        time.sleep(0.1)
    return not busy
