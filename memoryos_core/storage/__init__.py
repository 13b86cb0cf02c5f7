"""Storage: every SQL statement of the engine, over SQLite + FAISS or PostgreSQL + pgvector.

Module names: each table's SQL, for both dialects, is one module of `tables/` named for it
(`tables/exchanges.py`, `tables/segments.py`, `tables/facts.py`, ...; the exchanges table's
mid-term tier is `tables/pages.py`); statements over every table at once are
`every_table.py`; the indexes are `search.py` (keywords) and `vectors.py`; PostgreSQL-only
modules start with `pg_` (`postgres` is its store). Only the memory layers (memory, answer,
transfer, control, runtime) import a table module; hosts open a store here and call the engine.
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
