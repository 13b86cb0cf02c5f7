"""Erasure's last step: the scrub that leaves no deleted text in the database files (the rows
themselves: `every_table.delete_user_rows`, and each table's rewrites in `tables/`)."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
import weakref
from typing import Any

from .base import BaseStore

log = logging.getLogger(__name__)

# How long a scrub waits for readers to leave the log before it answers "not yet" (the request
# that forgets waits this long at most; the job workers finish the scrub later).
CHECKPOINT_WAIT_SECONDS = 5.0
# One checkpoint attempt's busy wait: the connection's own (60 s) would make one reader that
# stays hold the request for a minute per attempt.
ATTEMPT_BUSY_MS = 100

# a scrub that could not finish, per store: "vacuum" (never ran) or "log" (the checkpoint)
_PENDING: weakref.WeakKeyDictionary[BaseStore, str] = weakref.WeakKeyDictionary()
_PENDING_LOCK = threading.Lock()


# dialect: sqlite (FTS5 rebuild, VACUUM, WAL checkpoint); PostgreSQL: nothing (left to its VACUUM)
def scrub(store: BaseStore, fts: bool = True, wait: float = CHECKPOINT_WAIT_SECONDS,
          ) -> dict[str, Any]:
    """Leave no deleted text in the store's files; {"scrubbed": False} when it could not yet.

    Every connection deletes with PRAGMA secure_delete=ON (freed space is zeroed). The FTS5
    index still holds a deleted row's terms (and 'delete' markers repeating them) until its
    segments merge; SQLite 3.40 has no 'secure-delete' option, so the index is rebuilt from
    the table. VACUUM then writes a clean copy of every page into the -wal file, and only the
    WAL checkpoint puts them into memory.sqlite3: until it completes, the file keeps the old
    pages (the deleted rows' bytes). A checkpoint cannot complete while any connection (a
    thread, another process) reads an older snapshot, so a scrub that waited `wait` seconds
    in vain is left pending: `finish_pending` (the job workers call it) completes it, and the
    caller tells the user it is not done. PostgreSQL keeps dead tuples until VACUUM, which is
    the database's own (autovacuum or an operator's VACUUM); nothing is done here.
    """
    if store.dialect != "sqlite":
        return {"scrubbed": False}
    try:
        if fts:
            with store.transaction() as conn:
                conn.execute("INSERT INTO exchanges_fts(exchanges_fts) VALUES ('rebuild')")
        store.connect().execute("VACUUM")
    except sqlite3.OperationalError:  # the rows are deleted already: the files are retried
        log.warning("scrub: VACUUM failed; retried by the job workers", exc_info=True)
        _mark(store, "vacuum")
        return {"scrubbed": False}
    return {"scrubbed": empty_log(store, wait)}


def empty_log(store: BaseStore, wait: float = CHECKPOINT_WAIT_SECONDS) -> bool:
    """Write the SQLite log into the database and truncate it: what a row held before it was
    overwritten or deleted (zeroed by secure_delete in the file) leaves the -wal file too.
    True when the log is empty (PostgreSQL: nothing to do); False after `wait` seconds of
    readers holding it (the checkpoint is then left pending, see `scrub`)."""
    if store.dialect != "sqlite":
        return True
    conn = store.connect()
    before = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    deadline = time.monotonic() + wait
    conn.execute(f"PRAGMA busy_timeout={ATTEMPT_BUSY_MS}")
    try:
        while True:
            if not int(conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]):
                with _PENDING_LOCK:
                    if _PENDING.get(store) == "log":
                        del _PENDING[store]
                return True
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
    finally:
        conn.execute(f"PRAGMA busy_timeout={before}")
    log.warning("scrub: a reader holds the SQLite log; the checkpoint is retried")
    _mark(store, "log")
    return False


def _mark(store: BaseStore, step: str) -> None:
    with _PENDING_LOCK:  # a pending VACUUM includes the checkpoint after it
        if _PENDING.get(store) != "vacuum":
            _PENDING[store] = step


def pending() -> list[BaseStore]:
    """The stores whose scrub is unfinished (their files may still hold deleted text)."""
    with _PENDING_LOCK:
        return list(_PENDING)


def finish_pending() -> bool:
    """Complete every unfinished scrub of this process (VACUUM again where it never ran, then
    the checkpoint); True when none is left. Waits briefly: the caller retries later."""
    done = True
    for store in pending():
        with _PENDING_LOCK:
            step = _PENDING.pop(store, None) if _PENDING.get(store) == "vacuum" else "log"
        if step == "vacuum":
            done = bool(scrub(store, fts=store.dialect == "sqlite" and _has_fts(store),
                              wait=0.5)["scrubbed"]) and done
        else:
            done = empty_log(store, wait=0.5) and done
    return done


def _has_fts(store: BaseStore) -> bool:
    """Whether the store has the exchanges' keyword index (the accounts store has none)."""
    return int(store.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'exchanges_fts'")) > 0
