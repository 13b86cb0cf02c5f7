"""The embedded store: one SQLite file (WAL, foreign keys, numbered migrations) per data folder."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from . import erasure
from .base import BaseStore
from .migrations import MIGRATIONS

DB_NAME = "memory.sqlite3"


class SQLiteStore(BaseStore):
    """Records of every user in one SQLite file; one connection per thread."""

    dialect = "sqlite"

    def __init__(self, data_dir: str | Path, name: str = DB_NAME,
                 migrations: tuple[str, ...] = MIGRATIONS) -> None:
        self.data_dir = Path(data_dir)
        private_dir(self.data_dir)
        self.path = self.data_dir / name
        private_file(self.path)
        self.migrations = migrations
        self._local = threading.local()
        self._migrate()

    # -- connections and transactions -------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None,
                                   check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA secure_delete=ON")  # deleted rows are zeroed, not left in free pages
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=60000")
            self._local.conn = conn
        return conn

    def _begin(self, conn: sqlite3.Connection, user_id: str | None, lock: str | None) -> None:
        """BEGIN IMMEDIATE (one writer across processes: every user and lock is serialised)."""
        conn.execute("BEGIN IMMEDIATE")

    def _migrate(self) -> None:
        with self.transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            done = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
            for number, script in enumerate(self.migrations, start=1):
                if number in done:
                    continue
                for statement in _split_sql(script):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))

    def size_bytes(self) -> int:
        """Bytes of the database file with its write-ahead log (-wal) and shared memory (-shm)."""
        files = (self.path, self.path.with_name(self.path.name + "-wal"),
                 self.path.with_name(self.path.name + "-shm"))
        return sum(f.stat().st_size for f in files if f.exists())

    def scrub(self, fts: bool = True) -> bool:
        """VACUUM, the FTS index rebuilt (`fts`) and the log emptied (erasure.scrub); False while
        a reader holds the log after a few seconds: the job workers finish it."""
        return bool(erasure.scrub(self, fts=fts)["scrubbed"])

    # -- vectors ----------------------------------------------------------------------------

    @staticmethod
    def put_vector(
        conn: sqlite3.Connection, user_id: str, kind: str, item_id: int, vec: np.ndarray,
        new: bool = False,
    ) -> None:
        """Store (or replace) one float32 vector inside the caller's transaction; `new`: the
        item was created in this transaction, so there is no old vector to delete (the
        UNIQUE (kind, item_id) constraint would refuse one)."""
        blob = np.asarray(vec, dtype=np.float32).tobytes()
        if not new:  # the delete bumps the epoch: other processes reload the replaced vector
            conn.execute("DELETE FROM vectors WHERE kind = ? AND item_id = ?", (kind, item_id))
        conn.execute(
            "INSERT INTO vectors (user_id, kind, item_id, vec) VALUES (?, ?, ?, ?)",
            (user_id, kind, item_id, blob),
        )

    def vectors_since(
        self, user_id: str, kind: str, after_seq: int
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """(item ids, vectors, highest seq) stored after `after_seq` for one namespace."""
        rows = self.connect().execute(
            "SELECT seq, item_id, vec FROM vectors WHERE user_id = ? AND kind = ? AND seq > ?"
            " ORDER BY seq",
            (user_id, kind, after_seq),
        ).fetchall()
        if not rows:
            return np.empty(0, dtype=np.int64), np.empty((0, 0), dtype=np.float32), after_seq
        ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        # the blobs joined once and read as one matrix (not 100k small arrays stacked)
        vecs = np.frombuffer(b"".join([r[2] for r in rows]), dtype=np.float32)
        return ids, vecs.reshape(len(rows), -1), int(rows[-1][0])

    def get_vectors(self, kind: str, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Stored vectors of some items."""
        out: dict[int, np.ndarray] = {}
        ids = list(item_ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.connect().execute(
                f"SELECT item_id, vec FROM vectors WHERE kind = ? AND item_id IN ({marks})",
                (kind, *chunk),
            ):
                out[int(row[0])] = np.frombuffer(row[1], dtype=np.float32)
        return out

def private_dir(path: Path) -> None:
    """Make a data folder (0700), or tighten one made open by an older version."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o700)
    except PermissionError:  # not ours (a mounted volume): its owner decides
        pass


def private_file(path: Path) -> None:
    """Make the database file readable by its owner only (0600) before SQLite opens it.

    SQLite creates the -wal and -shm files with the database file's mode, so they follow.
    Files made by older versions (0644) are tightened; a file owned by someone else is left.
    """
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for existing in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if existing.exists() and existing.stat().st_mode & 0o077:
                existing.chmod(0o600)
        except PermissionError:
            pass


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements, current = [], []
    for line in script.splitlines():
        current.append(line)
        joined = "\n".join(current).strip()
        if joined.endswith(";") and sqlite3.complete_statement(joined):
            statements.append(joined)
            current = []
    rest = "\n".join(current).strip()
    if rest:
        statements.append(rest)
    return [s for s in statements if s.strip(" ;\n")]
