"""The shared store: PostgreSQL + pgvector, one database for every user, host and worker."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import BaseStore
from .db import lock_key, to_pyformat
from .pg_schema import PG_MIGRATIONS

try:  # the PostgreSQL backend is an optional extra
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg.pq import TransactionStatus
except ImportError:  # pragma: no cover - reported when a URL is used without the extra
    psycopg = None  # type: ignore[assignment]


_EXTENSION_LOCK = threading.Lock()


class PgRow(tuple):  # type: ignore[type-arg]
    """A row readable by position and by column name, like sqlite3.Row."""

    names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        """Column names in order."""
        return list(self.names)


def _row_factory(cursor: Any) -> Any:
    names = {d.name: i for i, d in enumerate(cursor.description or [])}

    def make(values: Sequence[Any]) -> PgRow:
        row = PgRow(values)
        row.names = names
        return row

    return make


class PgConnection:
    """A psycopg connection that speaks sqlite3's `execute(sql, params)` with `?` marks."""

    dialect = "postgresql"

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement; returns its cursor (rows readable by index and name)."""
        cur = self.raw.cursor(row_factory=_row_factory)
        cur.execute(to_pyformat(sql), tuple(params), prepare=False)
        return cur

    @property
    def closed(self) -> bool:
        """True once the link to the server is gone."""
        return bool(self.raw.closed)

    @property
    def in_transaction(self) -> bool:
        """True inside BEGIN ... COMMIT."""
        return bool(self.raw.info.transaction_status != TransactionStatus.IDLE)

    def close(self) -> None:
        """Close the underlying connection."""
        self.raw.close()


class PostgresStore(BaseStore):
    """Records of every user in one PostgreSQL database; one connection per thread."""

    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        if psycopg is None:
            raise RuntimeError("a PostgreSQL URL needs the 'postgres' extra:"
                               " pip install 'memoryos-playground[postgres]'")
        self.url = url
        self._local = threading.local()
        self._migrate()

    def connect(self) -> PgConnection:
        """This thread's connection (opened on first use, reopened after a broken one)."""
        conn: PgConnection | None = getattr(self._local, "conn", None)
        if conn is None or conn.raw.closed or conn.raw.broken:
            raw = psycopg.connect(self.url, autocommit=True)
            conn = PgConnection(raw)
            if not _has_vector(conn):  # the first process on a new database enables pgvector
                with _EXTENSION_LOCK:
                    try:
                        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                    except psycopg.errors.UniqueViolation:
                        pass  # another process created it at the same moment
            register_vector(raw)
            self._local.conn = conn
        return conn

    def query_each(self, statements: Sequence[tuple[str, Sequence[Any]]],
                   ) -> list[list[dict[str, Any]]]:
        """`query` of several statements that do not depend on each other, pipelined: sent
        together, their results read after one round trip, not one each."""
        conn = self.connect()
        with conn.raw.pipeline():
            cursors = [conn.execute(sql, params) for sql, params in statements]
            results = [cur.fetchall() for cur in cursors]
        return [[dict(zip(rows[0].keys(), r, strict=True)) for r in rows] if rows else []
                for rows in results]

    def _begin(self, conn: PgConnection, user_id: str | None, lock: str | None) -> None:
        """BEGIN, then the advisory lock of the user, of `lock` (e.g. the job queue) or the store."""
        conn.execute("BEGIN")
        self.lock_user(conn, user_id, lock)

    @staticmethod
    def lock_user(conn: Any, user_id: str | None, lock: str | None = None) -> None:
        """Serialise writers of one user across processes and hosts, until the commit.

        A store-wide writer (no user) takes the store key exclusively; user writers share it.
        """
        store_key = lock_key("memoryos-store")
        if user_id is None and lock is None:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (store_key,))
            return
        key = lock_key("memoryos", lock) if lock is not None else lock_key("memoryos-user",
                                                                           str(user_id))
        conn.execute("SELECT pg_advisory_xact_lock_shared(?)", (store_key,))
        conn.execute("SELECT pg_advisory_xact_lock(?)", (key,))

    def _migrate(self) -> None:
        with self.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (lock_key("memoryos-migrate"),))
            conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations"
                         " (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
            done = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
            for number, script in enumerate(PG_MIGRATIONS, start=1):
                if number in done:
                    continue
                conn.raw.execute(script)
                conn.execute("INSERT INTO schema_migrations VALUES (?, extract(epoch from now()))",
                             (number,))

    def size_bytes(self) -> int:
        """Bytes the database takes on the server's disk (tables, indexes, TOAST)."""
        return int(self.scalar("SELECT pg_database_size(current_database())") or 0)

    # -- vectors ----------------------------------------------------------------------------

    @staticmethod
    def put_vector(conn: Any, user_id: str, kind: str, item_id: int, vec: np.ndarray,
                   new: bool = False) -> None:
        """Store (or replace) one vector inside the caller's transaction (one statement either
        way: `new` changes nothing here)."""
        conn.execute(
            "INSERT INTO vectors (user_id, kind, item_id, vec) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (kind, item_id) DO UPDATE SET user_id = excluded.user_id,"
            " vec = excluded.vec, seq = nextval('vectors_seq_seq')",
            (user_id, kind, item_id, np.asarray(vec, dtype=np.float32)),
        )

    def vectors_since(
        self, user_id: str, kind: str, after_seq: int
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """(item ids, vectors, highest seq) stored after `after_seq` for one namespace."""
        rows = self.connect().execute(
            "SELECT seq, item_id, vec FROM vectors WHERE user_id = ? AND kind = ? AND seq > ?"
            " ORDER BY seq", (user_id, kind, after_seq)).fetchall()
        if not rows:
            return np.empty(0, dtype=np.int64), np.empty((0, 0), dtype=np.float32), after_seq
        ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        vecs = np.vstack([self.decode_vector(r[2]) for r in rows])
        return ids, vecs, int(rows[-1][0])

    def get_vectors(self, kind: str, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Stored vectors of some items."""
        rows = self.connect().execute(
            "SELECT item_id, vec FROM vectors WHERE kind = ? AND item_id = ANY(?)",
            (kind, [int(i) for i in item_ids])).fetchall()
        return {int(r[0]): self.decode_vector(r[1]) for r in rows}


def _has_vector(conn: PgConnection) -> bool:
    return conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is not None
