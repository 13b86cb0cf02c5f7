"""Storage: every SQL statement of the engine, over SQLite + FAISS or PostgreSQL + pgvector.

Module names: a module is named for the records it holds (`exchanges`, `segments`,
`snapshots`); where an engine module already bears that name, its SQL takes `_rows`
(`persona_rows` for memory/persona, `state_rows` for memory/state, `correction_rows` for
control/corrections, `jobs_rows` for runtime/jobs, `reference_rows` for
transfer/reference_import, `vector_rows` beside the `vectors` index), so both import side by
side; PostgreSQL-only modules start with `pg_` (`postgres` is its store).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .base import BaseStore
from .db import Connection, dialect, is_database_url
from .sqlite import SQLiteStore
from .vectors import FaissVectorIndex, VectorIndex

DATABASE_URL_ENV = "MEMORYOS_DATABASE_URL"


def database_url(value: str | None = None) -> str | None:
    """The PostgreSQL URL to use: the given one, else MEMORYOS_DATABASE_URL, else None."""
    url = value if value is not None else os.environ.get(DATABASE_URL_ENV) or None
    if url and not is_database_url(url):
        raise InvalidInput("the database URL must start with postgresql:// (got"
                           f" {url.split('@')[-1][:60]!r})")
    return url or None


_SHARED: dict[str, BaseStore] = {}
_SHARED_LOCK = threading.Lock()


def open_store(data_dir: str | Path, url: str | None = None) -> BaseStore:
    """The PostgreSQL store for a URL, else the embedded SQLite file in `data_dir`.

    One PostgresStore per URL and process: the engine and the accounts share its connections
    (one per thread), so a host holds as few database connections as it has threads.
    """
    url = database_url(url)
    if url:
        from .postgres import PostgresStore

        with _SHARED_LOCK:
            if url not in _SHARED:
                _SHARED[url] = PostgresStore(url)
            return _SHARED[url]
    return SQLiteStore(data_dir)


def open_index(store: BaseStore) -> Any:
    """The vector index that fits the store (FAISS over SQLite, pgvector in PostgreSQL)."""
    if store.dialect == "postgresql":
        from .pg_vectors import PgVectorIndex

        return PgVectorIndex(store)  # type: ignore[arg-type]
    return FaissVectorIndex(store)


__all__ = ["BaseStore", "Connection", "FaissVectorIndex", "SQLiteStore", "VectorIndex",
           "database_url", "dialect", "open_index", "open_store"]
