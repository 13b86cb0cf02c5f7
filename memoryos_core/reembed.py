"""The embedding model a store was made with: recorded, checked on open, and changed by
re-embedding every vector (live rows and stored versions) in one transaction."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import InvalidInput
from .llm.base import Embedder
from .llm.embedder import DEFAULT_MODEL
from .storage import SQLiteStore
from .versions import _b64

Progress = Callable[[int, int, str], None]
BATCH = 64


class EmbeddingModelMismatch(InvalidInput):
    """The store's vectors were made with another embedding model."""


def recorded_model(store: SQLiteStore) -> dict[str, Any] | None:
    """{'name', 'dim'} recorded in the store, or None for a store that never recorded one."""
    rows = {r["key"]: r["value"] for r in store.query(
        "SELECT key, value FROM store_meta WHERE key IN ('embedding_model', 'embedding_dim')")}
    if "embedding_model" not in rows:
        return None
    return {"name": rows["embedding_model"], "dim": int(rows.get("embedding_dim") or 0)}


def _record(conn: Any, name: str, dim: int) -> None:
    for key, value in (("embedding_model", name), ("embedding_dim", str(dim))):
        conn.execute("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                     " DO UPDATE SET value = excluded.value", (key, value))


def check_model(store: SQLiteStore, embedder: Embedder) -> None:
    """Record the model in a new store; refuse one whose vectors come from another model."""
    found = recorded_model(store)
    if found is None:
        with store.transaction() as conn:
            has_vectors = conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None
            # Stores older than the record were all made with the default MiniLM.
            name, dim = (DEFAULT_MODEL, 384) if has_vectors else (embedder.name, embedder.dim)
            _record(conn, name, dim)
        found = {"name": name, "dim": dim}
    if found["name"] != embedder.name or found["dim"] != embedder.dim:
        raise EmbeddingModelMismatch(
            f"this data folder was embedded with {found['name']} ({found['dim']}-d), not"
            f" {embedder.name} ({embedder.dim}-d); use embedding_model={found['name']}, or move"
            f" the store with `memoryos reembed {embedder.name}`")


def _embed_all(embedder: Embedder, texts: list[str], progress: Progress | None, done: list[int],
               total: int) -> np.ndarray:
    out = []
    for start in range(0, len(texts), BATCH):
        out.append(embedder.embed(texts[start:start + BATCH]))
        done[0] += len(texts[start:start + BATCH])
        if progress:
            progress(done[0], total, "embedding")
    return np.vstack(out) if out else np.empty((0, embedder.dim), dtype=np.float32)


def _doc_texts(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(kind, row, text) for every vector-bearing row of a version document."""
    items = [("page", e, f"User: {e['user_text']}\nAssistant: {e['assistant_text']}")
             for e in doc["exchanges"]]
    items += [("segment", s, f"{s['summary']} {' '.join(_kws(s['keywords']))}")
              for s in doc["segments"]]
    items += [("fact", f, f["text"]) for f in doc["facts"]]
    return items


def _kws(value: Any) -> list[str]:
    return json.loads(value) if isinstance(value, str) else list(value or [])


def reembed(store: SQLiteStore, embedder: Embedder,
            progress: Progress | None = None) -> dict[str, Any]:
    """Re-embed every page, segment and fact of every user, and every stored version."""
    live: list[tuple[str, str, int, str]] = []
    for r in store.query("SELECT id, user_id, user_text, assistant_text FROM exchanges"):
        live.append(("page", r["user_id"], r["id"],
                     f"User: {r['user_text']}\nAssistant: {r['assistant_text']}"))
    for r in store.query("SELECT id, user_id, summary, keywords FROM segments"):
        live.append(("segment", r["user_id"], r["id"],
                     f"{r['summary']} {' '.join(_kws(r['keywords']))}"))
    for r in store.query("SELECT id, user_id, text FROM facts"):
        live.append(("fact", r["user_id"], r["id"], r["text"]))
    snaps = store.query("SELECT id, doc FROM snapshots")
    docs = [(s["id"], json.loads(zlib.decompress(s["doc"]))) for s in snaps]
    doc_items = [(sid, item) for sid, doc in docs for item in _doc_texts(doc)]
    total = len(live) + len(doc_items)
    done = [0]
    vecs = _embed_all(embedder, [t for *_, t in live], progress, done, total)
    doc_vecs = _embed_all(embedder, [item[2] for _, item in doc_items], progress, done, total)
    for (_, item), vec in zip(doc_items, doc_vecs, strict=True):
        item[1]["vector"] = _b64(vec)
    with store.transaction() as conn:
        for (kind, user_id, item_id, _), vec in zip(live, vecs, strict=True):
            store.put_vector(conn, user_id, kind, item_id, vec)
        for sid, doc in docs:
            doc["embedder"] = embedder.name
            conn.execute("UPDATE snapshots SET doc = ? WHERE id = ?",
                         (zlib.compress(json.dumps(doc, ensure_ascii=False).encode(), 6), sid))
        _record(conn, embedder.name, embedder.dim)
    if progress:
        progress(total, total, "done")
    return {"model": embedder.name, "dim": embedder.dim, "vectors": len(live),
            "versions": len(docs), "version_vectors": len(doc_items)}
