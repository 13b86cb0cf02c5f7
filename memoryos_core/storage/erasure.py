"""Erasure's SQL: a user's events, job results, uploads and versions to rewrite, every row of a
user, and the scrub that leaves no deleted text in the database files."""

from __future__ import annotations

import json
import time
from typing import Any

from .base import BaseStore
from .db import Connection
from .snapshots import decode_document, encode_document

# Every table keyed by the engine's user id (accounts are the web app's, in storage.accounts).
USER_TABLES = ("traces", "exchanges", "segments", "facts", "profile", "user_state", "notes",
               "snapshots", "events", "jobs", "uploads", "usage", "vectors", "vector_epochs")


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


def finished_job_results(conn: Connection, user_id: str) -> list[tuple[str, str]]:
    """(id, result JSON) of the user's finished jobs that kept a result."""
    return [(str(r[0]), str(r[1])) for r in conn.execute(
        "SELECT id, result FROM jobs WHERE user_id = ? AND status IN ('done', 'failed')"
        " AND result IS NOT NULL ORDER BY created_at", (user_id,))]


def replace_job_result(conn: Connection, user_id: str, job_id: str, result: Any) -> None:
    """Overwrite the stored result of one of the user's jobs."""
    conn.execute("UPDATE jobs SET result = ? WHERE id = ? AND user_id = ?",
                 (json.dumps(result, ensure_ascii=False), job_id, user_id))


def user_uploads(conn: Connection, user_id: str) -> list[tuple[str, bytes]]:
    """(token, data) of the user's uploads kept for a preview."""
    return [(str(r[0]), bytes(r[1])) for r in conn.execute(
        "SELECT token, data FROM uploads WHERE user_id = ?", (user_id,))]


def delete_upload(conn: Connection, user_id: str, token: str) -> None:
    """Delete one of the user's kept uploads."""
    conn.execute("DELETE FROM uploads WHERE token = ? AND user_id = ?", (token, user_id))


def user_snapshot_documents(conn: Connection, user_id: str) -> list[tuple[int, dict[str, Any]]]:
    """(version, document) of every stored version of the user, oldest first."""
    return [(int(r[0]), decode_document(r[1])) for r in conn.execute(
        "SELECT version, doc FROM snapshots WHERE user_id = ? ORDER BY version", (user_id,))]


def rewrite_snapshot(conn: Connection, user_id: str, version: int, counts: dict[str, int],
                     doc: dict[str, Any]) -> None:
    """Replace the document and counts of one of the user's versions."""
    conn.execute("UPDATE snapshots SET doc = ?, counts = ? WHERE user_id = ? AND version = ?",
                 (encode_document(doc), json.dumps(counts), user_id, version))


def delete_user_rows(conn: Connection, user_id: str) -> dict[str, int]:
    """Delete every row of the user in every table of the memory store; rows deleted per table."""
    return {table: int(conn.execute(f"DELETE FROM {table} WHERE user_id = ?",
                                    (user_id,)).rowcount or 0) for table in USER_TABLES}


def user_row_count(store: BaseStore, user_id: str) -> int:
    """How many rows the user has in the memory store's tables (0 once erased)."""
    return sum(int(store.scalar(f"SELECT count(*) FROM {table} WHERE user_id = ?",
                                (user_id,)) or 0) for table in USER_TABLES)


# dialect: sqlite (FTS5 rebuild, VACUUM, WAL checkpoint); PostgreSQL: nothing (see README)
def scrub(store: BaseStore, fts: bool = True) -> dict[str, Any]:
    """Leave no deleted text in the store's files.

    Every connection deletes with PRAGMA secure_delete=ON (freed space is zeroed). The FTS5
    index still holds a deleted row's terms (and 'delete' markers repeating them) until its
    segments merge; SQLite 3.40 has no 'secure-delete' option, so the index is rebuilt from
    the table. VACUUM then rewrites the file and the WAL checkpoint empties the -wal file.
    PostgreSQL keeps dead tuples until VACUUM: the README says how to run it.
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


def scrub_accounts(store: BaseStore) -> dict[str, Any]:
    """The accounts file's scrub (no FTS index): VACUUM and an emptied WAL."""
    return scrub(store, fts=False)
