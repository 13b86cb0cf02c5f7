"""The embedded store: one SQLite file (WAL, foreign keys, numbered migrations) per data folder."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .migrations import MIGRATIONS

DB_NAME = "memory.sqlite3"


def _row_dict(row: sqlite3.Row) -> dict[str, Any]:
    return {k: row[k] for k in row.keys()}


class SQLiteStore:
    """Records of every user in one SQLite file; one connection per thread."""

    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / DB_NAME
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
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=60000")
            self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (BEGIN IMMEDIATE): committed on success, rolled back on error."""
        conn = self.connect()
        if conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _migrate(self) -> None:
        with self.transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            done = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
            for number, script in enumerate(MIGRATIONS, start=1):
                if number in done:
                    continue
                for statement in _split_sql(script):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))

    def schema_version(self) -> int:
        """Highest applied migration number."""
        row = self.connect().execute("SELECT max(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    # -- generic reads ----------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows of a read query as dicts."""
        return [_row_dict(r) for r in self.connect().execute(sql, params)]

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """First row of a read query as a dict, or None."""
        row = self.connect().execute(sql, params).fetchone()
        return _row_dict(row) if row is not None else None

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """First column of the first row."""
        row = self.connect().execute(sql, params).fetchone()
        return None if row is None else row[0]

    # -- vectors ----------------------------------------------------------------------------

    @staticmethod
    def put_vector(
        conn: sqlite3.Connection, user_id: str, kind: str, item_id: int, vec: np.ndarray
    ) -> None:
        """Store (or replace) one float32 vector inside the caller's transaction."""
        blob = np.asarray(vec, dtype=np.float32).tobytes()
        conn.execute("DELETE FROM vectors WHERE kind = ? AND item_id = ?", (kind, item_id))
        conn.execute(
            "INSERT INTO vectors (user_id, kind, item_id, vec) VALUES (?, ?, ?, ?)",
            (user_id, kind, item_id, blob),
        )

    def vector_epoch(self, user_id: str, kind: str) -> int:
        """How many deletions this (user, kind) index has seen."""
        value = self.scalar(
            "SELECT epoch FROM vector_epochs WHERE user_id = ? AND kind = ?", (user_id, kind)
        )
        return int(value or 0)

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
        vecs = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
        return ids, vecs, int(rows[-1][0])

    def max_vector_seq(self, user_id: str, kind: str) -> int:
        """Highest vector seq of a namespace (0 when empty)."""
        value = self.scalar(
            "SELECT max(seq) FROM vectors WHERE user_id = ? AND kind = ?", (user_id, kind)
        )
        return int(value or 0)

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

    # -- events, usage ------------------------------------------------------------------------

    @staticmethod
    def log_event(
        conn: sqlite3.Connection, user_id: str, kind: str, detail: dict[str, Any]
    ) -> None:
        """Append to the user's event log inside the caller's transaction."""
        conn.execute(
            "INSERT INTO events (user_id, ts, kind, detail) VALUES (?, ?, ?, ?)",
            (user_id, time.time(), kind, json.dumps(detail, ensure_ascii=False)),
        )

    def events(self, user_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The user's newest events first."""
        rows = self.query(
            "SELECT id, ts, kind, detail FROM events WHERE user_id = ? ORDER BY id DESC LIMIT ?",
            (user_id, limit),
        )
        for row in rows:
            row["detail"] = json.loads(row["detail"])
        return rows

    def add_usage(
        self, user_id: str, purpose: str, prompt_tokens: int, completion_tokens: int,
        fallback: bool = False,
    ) -> None:
        """Count one chat-model call for the cost report."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO usage (user_id, purpose, calls, prompt_tokens, completion_tokens,"
                " fallbacks) VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT(user_id, purpose) DO UPDATE SET"
                " calls = calls + 1, prompt_tokens = prompt_tokens + excluded.prompt_tokens,"
                " completion_tokens = completion_tokens + excluded.completion_tokens,"
                " fallbacks = fallbacks + excluded.fallbacks",
                (user_id, purpose, prompt_tokens, completion_tokens, int(fallback)),
            )

    def usage(self, user_id: str) -> dict[str, dict[str, int]]:
        """Calls and tokens per purpose for one user."""
        return {
            r["purpose"]: {k: r[k] for k in ("calls", "prompt_tokens", "completion_tokens",
                                             "fallbacks")}
            for r in self.query("SELECT * FROM usage WHERE user_id = ?", (user_id,))
        }


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
