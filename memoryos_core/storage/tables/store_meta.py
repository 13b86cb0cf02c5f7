"""The `store_meta` table: store-wide entries (the embedding model, the app-text cleanup ran,
the text page vectors are made from)."""

from __future__ import annotations

from ..base import BaseStore
from ..db import Connection

DONE_KEY = "app_text_cleaned"  # store_meta: the cleanup of the app's text ran (its version)


def value(conn: Connection, key: str) -> str | None:
    """One store-wide entry, or None."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_value(conn: Connection, key: str, entry: str) -> None:
    """Record (or replace) one store-wide entry."""
    conn.execute("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE"
                 " SET value = excluded.value", (key, entry))


def cleanup_done(conn: Connection) -> str | None:
    """The version of the cleanup that ran on this store, or None."""
    return value(conn, DONE_KEY)


def mark_cleanup_done(conn: Connection, version: str) -> None:
    """Record that the cleanup ran."""
    set_value(conn, DONE_KEY, version)


MODEL_KEYS = ("embedding_model", "embedding_dim")


def embedding_meta(store: BaseStore) -> dict[str, str]:
    """The store's recorded embedding model entries ('embedding_model', 'embedding_dim')."""
    return {r["key"]: r["value"] for r in store.query(
        "SELECT key, value FROM store_meta WHERE key IN (?, ?)", MODEL_KEYS)}


def record_embedding_model(conn: Connection, name: str, dim: int) -> None:
    """Record (or replace) the store's embedding model and its dimension."""
    for key, entry in zip(MODEL_KEYS, (name, str(dim)), strict=True):
        set_value(conn, key, entry)


def has_vectors(conn: Connection) -> bool:
    """Whether the store holds any vector at all (of any user)."""
    return conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None


PAGE_TEXT_KEY = "page_vector_text"  # the version of the text page vectors are made from


def page_vector_text(conn: Connection) -> str | None:
    """The version of the text the store's page vectors were made from (None: the page's)."""
    return value(conn, PAGE_TEXT_KEY)


def mark_page_vector_text(conn: Connection, version: str) -> None:
    """Record the version of the text the store's page vectors are made from."""
    set_value(conn, PAGE_TEXT_KEY, version)
