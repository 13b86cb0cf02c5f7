"""FAISS indexes per (user, kind), built from stored vectors on first use, then kept up to date."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import faiss
import numpy as np

from .base import BaseStore

# Above this many vectors a namespace switches from exact flat search to HNSW.
HNSW_THRESHOLD = 50_000


class VectorIndex(Protocol):
    """Nearest-neighbour search over one user's vectors of one kind."""

    def search(
        self, user_id: str, kind: str, query: np.ndarray, k: int,
        among: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(item id, inner product) pairs, best first, optionally among some ids only."""
        ...

    def size(self, user_id: str, kind: str) -> int:
        """Vectors in the namespace."""
        ...

    def vectors_of(self, user_id: str, kind: str, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Stored vectors of some items."""
        ...

    def forget(self, user_id: str) -> None:
        """Drop what is cached for a user."""
        ...


@dataclass
class _Namespace:
    epoch: int
    seq: int
    index: Any
    vectors: dict[int, np.ndarray] = field(default_factory=dict)
    approximate: bool = False


class FaissVectorIndex:
    """FAISS indexes synchronised with the SQLite vectors table (also across processes)."""

    def __init__(self, store: BaseStore) -> None:
        self.store = store
        self._spaces: dict[tuple[str, str], _Namespace] = {}
        self._lock = threading.Lock()
        faiss.omp_set_num_threads(1)  # single queries are faster without thread start-up

    def _sync(self, user_id: str, kind: str) -> _Namespace:
        """Bring the namespace up to date: add new vectors, rebuild after deletions."""
        key = (user_id, kind)
        epoch = self.store.vector_epoch(user_id, kind)
        space = self._spaces.get(key)
        if space is None or space.epoch != epoch:
            space = _Namespace(epoch=epoch, seq=0, index=None)
            self._spaces[key] = space
        elif self.store.max_vector_seq(user_id, kind) == space.seq:
            return space
        ids, vecs, seq = self.store.vectors_since(user_id, kind, space.seq)
        if len(ids):
            replaced = any(int(i) in space.vectors for i in ids)
            for item, vec in zip(ids.tolist(), vecs, strict=True):
                space.vectors[int(item)] = vec
            if space.index is not None:
                crossed = not space.approximate and len(space.vectors) > HNSW_THRESHOLD
                if replaced or crossed:
                    space.index = None  # rebuilt by the next full search
                else:
                    space.index.add_with_ids(np.ascontiguousarray(vecs), ids)
        space.seq = seq
        return space

    @staticmethod
    def _rebuild(space: _Namespace) -> None:
        if not space.vectors:
            space.index = None
            return
        ids = np.fromiter(space.vectors.keys(), dtype=np.int64, count=len(space.vectors))
        mat = np.ascontiguousarray(np.vstack(list(space.vectors.values())), dtype=np.float32)
        dim = mat.shape[1]
        base: Any
        if len(ids) > HNSW_THRESHOLD:
            base = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
            base.hnsw.efSearch = 128
            space.approximate = True
        else:
            base = faiss.IndexFlatIP(dim)
            space.approximate = False
        index = faiss.IndexIDMap2(base)
        index.add_with_ids(mat, ids)
        space.index = index

    def search(
        self, user_id: str, kind: str, query: np.ndarray, k: int,
        among: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(item id, inner product) pairs, best first, optionally among some ids only."""
        with self._lock:
            space = self._sync(user_id, kind)
            if not space.vectors or k <= 0:
                return []
            q = np.asarray(query, dtype=np.float32).reshape(1, -1)
            if among is not None:
                # A small candidate set is scored exactly from the cached vectors.
                wanted = [i for i in among if i in space.vectors]
                if not wanted:
                    return []
                mat = np.vstack([space.vectors[i] for i in wanted])
                scores = mat @ q[0]
                order = np.argsort(-scores)[:k]
                return [(wanted[j], float(scores[j])) for j in order]
            if space.index is None:  # built on the first full search, not on open
                self._rebuild(space)
            k = min(k, space.index.ntotal)
            scores, ids = space.index.search(q, k)
            return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def vectors_of(self, user_id: str, kind: str, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Cached vectors of some items (synchronised first)."""
        with self._lock:
            space = self._sync(user_id, kind)
            return {i: space.vectors[i] for i in item_ids if i in space.vectors}

    def size(self, user_id: str, kind: str) -> int:
        """Vectors in the namespace."""
        with self._lock:
            return len(self._sync(user_id, kind).vectors)

    def forget(self, user_id: str) -> None:
        """Drop the cached indexes of a user (they are rebuilt on next use)."""
        with self._lock:
            for key in [k for k in self._spaces if k[0] == user_id]:
                del self._spaces[key]
