"""The embedding model a store was made with: recorded, checked on open, and changed by
re-embedding every vector (live rows and stored versions) in one transaction; pages from the
text they are found by (memory/retrieval_text.py), which also moves an older store to it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..llm.base import Embedder
from ..llm.embedder import DEFAULT_MODEL
from ..memory import retrieval_text
from ..storage import vector_cache
from ..storage.base import BaseStore
from ..storage.tables import facts as facts_db
from ..storage.tables import segments as segments_db
from ..storage.tables import sittings as sittings_db
from ..storage.tables import snapshots as snapshots_db
from ..storage.tables import store_meta as store_meta_db
from .versions import _b64

Progress = Callable[[int, int, str], None]
BATCH = 64


class EmbeddingModelMismatch(InvalidInput):
    """The store's vectors were made with another embedding model."""


def recorded_model(store: BaseStore) -> dict[str, Any] | None:
    """{'name', 'dim'} recorded in the store, or None for a store that never recorded one."""
    rows = store_meta_db.embedding_meta(store)
    if "embedding_model" not in rows:
        return None
    return {"name": rows["embedding_model"], "dim": int(rows.get("embedding_dim") or 0)}


def check_model(store: BaseStore, embedder: Embedder) -> None:
    """Record the model in a new store; refuse one whose vectors come from another model."""
    found = recorded_model(store)
    if found is None:
        with store.transaction() as conn:
            has_vectors = store_meta_db.has_vectors(conn)
            # Stores older than the record were all made with the default MiniLM.
            name, dim = (DEFAULT_MODEL, 384) if has_vectors else (embedder.name, embedder.dim)
            store_meta_db.record_embedding_model(conn, name, dim)
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
    pages = sorted(doc["exchanges"], key=lambda e: int(e["id"]))  # dialogue ties: by id
    items = [("page", e, t) for e, t in zip(pages, retrieval_text.sitting_texts(
        [dict(e, conversation_id=e.get("conversation_id")) for e in pages]), strict=True)]
    items += [("segment", s, f"{s['summary']} {' '.join(_kws(s['keywords']))}")
              for s in doc["segments"]]
    items += [("fact", f, f["text"]) for f in doc["facts"]]
    return items


def _kws(value: Any) -> list[str]:
    return json.loads(value) if isinstance(value, str) else list(value or [])


def reembed(store: BaseStore, embedder: Embedder,
            progress: Progress | None = None) -> dict[str, Any]:
    """Re-embed every page, segment and fact of every user, and every stored version."""
    live: list[tuple[str, str, int, str]] = []
    rows = sittings_db.all_rows(store)  # each page found by its retrieval text
    for r, text in zip(rows, retrieval_text.stored_texts(rows).values(), strict=True):
        live.append(("page", r["user_id"], r["id"], text))
    for r in segments_db.all_segment_rows(store):
        live.append(("segment", r["user_id"], r["id"],
                     f"{r['summary']} {' '.join(_kws(r['keywords']))}"))
    for r in facts_db.all_fact_rows(store):
        live.append(("fact", r["user_id"], r["id"], r["text"]))
    docs = snapshots_db.all_snapshot_documents(store)
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
            snapshots_db.replace_snapshot_document(conn, sid, doc)
        store_meta_db.record_embedding_model(conn, embedder.name, embedder.dim)
        store_meta_db.mark_page_vector_text(conn, retrieval_text.VERSION)
    data_dir = getattr(store, "data_dir", None)
    if data_dir is not None:  # SQLite: the vector cache files hold the old model's vectors
        vector_cache.drop_all(vector_cache.folder_of(data_dir))
    if progress:
        progress(total, total, "done")
    return {"model": embedder.name, "dim": embedder.dim, "vectors": len(live),
            "versions": len(docs), "version_vectors": len(doc_items)}
