"""Re-embedding's SQL: the recorded embedding model, and the texts behind every stored vector.

Store-wide on purpose: the embedding model is one per store, and re-embedding moves every user's
vectors at once. Stored versions are read and rewritten with `snapshots.all_snapshot_documents`
and `snapshots.replace_snapshot_document`.
"""

from __future__ import annotations

from typing import Any

from .base import BaseStore
from .db import Connection

MODEL_KEYS = ("embedding_model", "embedding_dim")


def embedding_meta(store: BaseStore) -> dict[str, str]:
    """The store's recorded embedding model entries ('embedding_model', 'embedding_dim')."""
    return {r["key"]: r["value"] for r in store.query(
        "SELECT key, value FROM store_meta WHERE key IN (?, ?)", MODEL_KEYS)}


def record_embedding_model(conn: Connection, name: str, dim: int) -> None:
    """Record (or replace) the store's embedding model and its dimension."""
    for key, value in zip(MODEL_KEYS, (name, str(dim)), strict=True):
        conn.execute("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                     " DO UPDATE SET value = excluded.value", (key, value))


def has_vectors(conn: Connection) -> bool:
    """Whether the store holds any vector at all (of any user)."""
    return conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None


def all_page_rows(store: BaseStore) -> list[dict[str, Any]]:
    """id, user_id, user_text, assistant_text of every exchange of every user."""
    return store.query("SELECT id, user_id, user_text, assistant_text FROM exchanges")


def all_segment_rows(store: BaseStore) -> list[dict[str, Any]]:
    """id, user_id, summary, keywords of every segment of every user."""
    return store.query("SELECT id, user_id, summary, keywords FROM segments")


def all_fact_rows(store: BaseStore) -> list[dict[str, Any]]:
    """id, user_id, text of every fact of every user."""
    return store.query("SELECT id, user_id, text FROM facts")
