"""The user's own search of their memory: keyword matches in every tier (FTS5 or tsvector)."""

from __future__ import annotations

from .base import BaseStore
from .search import fts_query


def keyword_pages(store: BaseStore, user_id: str, words: list[str], limit: int) -> list[int]:
    """Ids of the user's exchanges of any tier holding any of `words`, best match first."""
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    if store.dialect == "postgresql":
        anyq = " || ".join("plainto_tsquery('english', ?)" for _ in words)
        return [int(r["id"]) for r in store.query(
            f"SELECT id FROM exchanges WHERE user_id = ? AND words @@ ({anyq})"
            f" ORDER BY ts_rank(words, ({anyq})) DESC, id LIMIT ?",
            (user_id, *words, *words, limit))]
    # dialect: sqlite (FTS5 MATCH and bm25; the words quoted, so no user text is FTS syntax)
    return [int(r["id"]) for r in store.query(
        "SELECT e.id FROM exchanges_fts f JOIN exchanges e ON e.id = f.rowid"
        " WHERE exchanges_fts MATCH ? AND e.user_id = ? ORDER BY bm25(exchanges_fts), e.id"
        " LIMIT ?", (fts_query(words), user_id, limit))]


def holds_memory(store: BaseStore, user_id: str) -> bool:
    """True when the user has any exchange, segment, fact, profile row or note."""
    return any(store.scalar(f"SELECT 1 FROM {table} WHERE user_id = ? LIMIT 1", (user_id,))
               for table in ("exchanges", "segments", "facts", "profile", "notes"))
