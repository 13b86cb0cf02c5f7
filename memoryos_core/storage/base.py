"""Store methods written once for both backends (portable SQL with `?` marks)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypedDict

import numpy as np


def row_dict(row: Any) -> dict[str, Any]:
    """A result row as a plain dict."""
    return dict(zip(row.keys(), row, strict=True))


class PurposeUsage(TypedDict):
    """Chat-model calls and tokens spent for one purpose (answer, consolidation, analysis)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    fallbacks: int


class BaseStore:
    """Reads, the event log and usage counters; backends add connections and vectors."""

    dialect = "sqlite"
    _local: threading.local  # this thread's connection, as `conn`

    def connect(self) -> Any:
        """This thread's connection."""
        raise NotImplementedError

    def _begin(self, conn: Any, user_id: str | None, lock: str | None) -> None:
        """Start a write transaction serialising writers of the user (or of `lock`)."""
        raise NotImplementedError

    @contextmanager
    def reads_once(self) -> Iterator[None]:
        """Inside it, `once` reads each key once in this thread (one retrieval's statistics)."""
        if getattr(self._local, "memo", None) is not None:  # nested: the outer one's reads
            yield
            return
        self._local.memo = {}
        try:
            yield
        finally:
            self._local.memo = None

    def once(self, key: tuple[Any, ...], read: Any) -> Any:
        """`read()`, or what it returned for `key` earlier inside the same `reads_once`."""
        memo = getattr(self._local, "memo", None)
        if memo is None:
            return read()
        if key not in memo:
            memo[key] = read()
        return memo[key]

    @contextmanager
    def transaction(self, user_id: str | None = None, lock: str | None = None,
                    ) -> Iterator[Any]:
        """A write transaction for one user: committed on success, rolled back on error.

        A nested use joins the outer transaction.
        """
        conn = self.connect()
        if conn.in_transaction:
            yield conn
            return
        try:
            self._begin(conn, user_id, lock)  # a lock wait that fails is rolled back too
            yield conn
        except BaseException:
            # a broken PostgreSQL link, or a BEGIN that never started, has nothing to undo
            if not getattr(conn, "closed", False) and conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection (reopened on next use)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def size_bytes(self) -> int:
        """Bytes the store takes on disk."""
        raise NotImplementedError

    def scrub(self, fts: bool = True) -> bool:
        """Leave no deleted text in the store's files; True when done (SQLiteStore: the scrub
        of `erasure`). PostgreSQL keeps dead tuples until its own VACUUM: False."""
        return False

    def schema_version(self) -> int:
        """Highest applied migration number."""
        row = self.connect().execute("SELECT max(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    # -- generic reads ----------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows of a read query as dicts."""
        rows = self.connect().execute(sql, params).fetchall()
        if not rows:
            return []
        names = rows[0].keys()  # one statement's rows share their columns: named once
        return [dict(zip(names, r, strict=True)) for r in rows]

    def query_each(self, statements: Sequence[tuple[str, Sequence[Any]]],
                   ) -> list[list[dict[str, Any]]]:
        """`query` of several statements that do not depend on each other, in order."""
        return [self.query(sql, params) for sql, params in statements]

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """First row of a read query as a dict, or None."""
        row = self.connect().execute(sql, params).fetchone()
        return row_dict(row) if row is not None else None

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """First column of the first row."""
        row = self.connect().execute(sql, params).fetchone()
        return None if row is None else row[0]

    # -- vectors ----------------------------------------------------------------------------

    @staticmethod
    def put_vector(conn: Any, user_id: str, kind: str, item_id: int, vec: Any,
                   new: bool = False) -> None:
        """Store (or replace) one vector inside the caller's transaction."""
        raise NotImplementedError

    def vectors_since(self, user_id: str, kind: str, after_seq: int) -> tuple[Any, Any, int]:
        """(item ids, vectors, highest seq) stored after `after_seq` for one namespace."""
        raise NotImplementedError

    def get_vectors(self, kind: str, item_ids: Sequence[int]) -> dict[int, Any]:
        """Stored vectors of some items."""
        raise NotImplementedError

    @staticmethod
    def decode_vector(value: Any) -> np.ndarray:
        """A `vec` column value as float32 numpy (SQLite keeps raw float32 bytes)."""
        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(bytes(value), dtype=np.float32)
        if hasattr(value, "to_numpy"):  # pgvector's Vector
            value = value.to_numpy()
        return np.asarray(value, dtype=np.float32)

    def encode_vector(self, vec: Any) -> Any:
        """A vector as this backend stores it in the `vec` column."""
        arr = np.asarray(vec, dtype=np.float32)
        return arr if self.dialect == "postgresql" else arr.tobytes()

    def vector_epoch(self, user_id: str, kind: str) -> int:
        """How many deletions this (user, kind) index has seen."""
        value = self.scalar(
            "SELECT epoch FROM vector_epochs WHERE user_id = ? AND kind = ?", (user_id, kind)
        )
        return int(value or 0)

    def vector_freshness(self, user_id: str) -> dict[str, tuple[int, int]]:
        """(epoch, highest seq) of each of the user's vector namespaces, in one statement (the
        kinds the vectors table allows)."""
        rows = self.query(
            "WITH k(kind) AS (VALUES ('page'), ('segment'), ('fact'))"
            " SELECT k.kind AS kind,"
            " (SELECT epoch FROM vector_epochs e WHERE e.user_id = ? AND e.kind = k.kind) AS epoch,"
            " (SELECT max(seq) FROM vectors v WHERE v.user_id = ? AND v.kind = k.kind) AS seq"
            " FROM k", (user_id, user_id))
        return {r["kind"]: (int(r["epoch"] or 0), int(r["seq"] or 0)) for r in rows}
    # -- events, usage ------------------------------------------------------------------------

    @staticmethod
    def log_event(conn: Any, user_id: str, kind: str, detail: dict[str, Any]) -> None:
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
        with self.transaction(user_id) as conn:
            self.count_usage(conn, user_id, purpose, prompt_tokens, completion_tokens, fallback)

    @staticmethod
    def count_usage(
        conn: Any, user_id: str, purpose: str, prompt_tokens: int,
        completion_tokens: int, fallback: bool = False,
    ) -> None:
        """Count one chat-model call inside the caller's transaction."""
        conn.execute(
            "INSERT INTO usage (user_id, purpose, calls, prompt_tokens, completion_tokens,"
            " fallbacks) VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT(user_id, purpose) DO UPDATE SET"
            " calls = usage.calls + 1,"
            " prompt_tokens = usage.prompt_tokens + excluded.prompt_tokens,"
            " completion_tokens = usage.completion_tokens + excluded.completion_tokens,"
            " fallbacks = usage.fallbacks + excluded.fallbacks",
            (user_id, purpose, prompt_tokens, completion_tokens, int(fallback)),
        )

    def usage(self, user_id: str) -> dict[str, PurposeUsage]:
        """Calls and tokens per purpose for one user."""
        return {
            r["purpose"]: PurposeUsage(calls=int(r["calls"]), prompt_tokens=int(r["prompt_tokens"]),
                                       completion_tokens=int(r["completion_tokens"]),
                                       fallbacks=int(r["fallbacks"]))
            for r in self.query("SELECT * FROM usage WHERE user_id = ?", (user_id,))
        }
