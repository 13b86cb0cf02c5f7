"""FAISS search per (user, kind), over stored vectors loaded on first use, then kept up to date.

A namespace keeps its vectors in one float32 matrix (rows in the order they were stored). Up to
HNSW_THRESHOLD vectors it is searched exactly (FAISS's flat inner product over the matrix, no
copy). Above it an HNSW index is built in a background thread on the first full search; until
it is ready every search is the same exact scan, so opening a large store costs one load of its
vectors, never a wait for the index, and no other user waits on the build. A namespace of
vector_cache.MIN_VECTORS or more is also kept as files next to the database (written by the
build thread): a later open maps them and reads only newer rows from the table, and loads the
HNSW index from its file instead of building it.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import faiss
import numpy as np

from . import vector_cache
from .base import BaseStore

log = logging.getLogger(__name__)

# Above this many vectors a namespace switches from exact flat search to HNSW.
HNSW_THRESHOLD = 50_000
HNSW_M = 32  # graph links per vector
HNSW_EF_SEARCH = 128
BUILD_CHUNK = 4096  # vectors a background build adds between checks for a stop
BUILD_NICE = 10  # a background build's thread priority (Linux nice): requests go first
# Rows a namespace gains over its cache files before a build writes them again.
CACHE_REFRESH = 10_000


class VectorIndex(Protocol):
    """Nearest-neighbour search over one user's vectors of one kind."""

    def search(
        self, user_id: str, kind: str, query: np.ndarray, k: int,
        among: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(item id, inner product) pairs, best first, optionally among some ids only."""
        ...

    def search_each(self, user_id: str, query: np.ndarray, wanted: Mapping[str, int],
                    ) -> dict[str, list[tuple[int, float]]]:
        """`search` of several kinds with one query: kind -> its `wanted[kind]` best."""
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
    """One (user, kind): its vectors as matrix rows, and the HNSW index once built."""

    epoch: int
    seq: int = 0
    n: int = 0  # rows in use
    ids: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    mat: np.ndarray = field(default_factory=lambda: np.empty((0, 0), dtype=np.float32))
    # capacity x dim: rows [0, n) are the vectors
    row_of: dict[int, int] = field(default_factory=dict)  # item id -> row
    index: Any = None  # HNSW over every row (approximate namespaces, once built)
    approximate: bool = False  # above HNSW_THRESHOLD: HNSW built or being built
    generation: int = 0  # bumped when the rows change in place: a running build is dropped
    building: threading.Thread | None = None
    build_failed: bool = False
    cached: vector_cache.Cached | None = None  # the files the rows [0, cached n) came from

    def append(self, ids: np.ndarray, vecs: np.ndarray) -> bool:
        """Add rows (a known item replaces its row); True when an existing row changed."""
        vecs = np.ascontiguousarray(vecs, dtype=np.float32)
        if self.n == 0:  # the first load: its arrays become the namespace's (no copy)
            self.mat, self.ids, self.n = vecs, np.asarray(ids, dtype=np.int64), len(ids)
            self.row_of = dict(zip(ids.tolist(), range(len(ids)), strict=True))
            return False
        fresh = [j for j, i in enumerate(ids.tolist()) if i not in self.row_of]
        replaced = len(fresh) < len(ids)
        if replaced:  # a copy: a running build or a caller may hold the old rows
            self.mat = self.mat.copy()
            for j, item in enumerate(ids.tolist()):
                if item in self.row_of:
                    self.mat[self.row_of[item]] = vecs[j]
            ids, vecs = ids[fresh], vecs[fresh]
        if len(ids):
            self._reserve(self.n + len(ids), vecs.shape[1])
            self.mat[self.n:self.n + len(ids)] = vecs
            self.ids[self.n:self.n + len(ids)] = ids
            for j, item in enumerate(ids.tolist(), start=self.n):
                self.row_of[item] = j
            self.n += len(ids)
        return replaced

    def _reserve(self, rows: int, dim: int) -> None:
        """Room for `rows` rows (new arrays: the loaded ones may be read-only and shared)."""
        if rows <= len(self.mat) and self.mat.flags.writeable:
            return
        mat = np.empty((max(rows, 2 * self.n), dim), dtype=np.float32)  # appends: O(1) amortised
        ids = np.empty(len(mat), dtype=np.int64)
        mat[:self.n] = self.mat[:self.n]
        ids[:self.n] = self.ids[:self.n]
        self.mat, self.ids = mat, ids

    def rows(self) -> np.ndarray:
        """The vectors in use (a view)."""
        return self.mat[:self.n]


class FaissVectorIndex:
    """FAISS search synchronised with the SQLite vectors table (also across processes).

    `background=False` builds HNSW indexes in the searching thread (tests; the old behaviour).
    """

    def __init__(self, store: BaseStore, background: bool = True) -> None:
        self.store = store
        self.background = background
        self._spaces: dict[tuple[str, str], _Namespace] = {}
        self._lock = threading.Lock()
        data_dir = getattr(store, "data_dir", None)  # SQLite only: its data folder
        self.cache_dir = vector_cache.folder_of(data_dir) if data_dir is not None else None
        faiss.omp_set_num_threads(1)  # single queries are faster without thread start-up

    def _sync(self, user_id: str, kind: str) -> _Namespace:
        """Bring the namespace up to date: add new vectors, reload after deletions."""
        key = (user_id, kind)
        # epoch and highest seq of every namespace of the user in one statement, read once
        # inside a store.reads_once (a whole retrieval), not twice per search
        epoch, newest = self.store.once(("vector freshness", user_id),
                                        lambda: self.store.vector_freshness(user_id))[kind]
        space = self._spaces.get(key)
        if space is None or space.epoch != epoch:
            space = _Namespace(epoch=epoch)  # a build of the old one is dropped when it ends
            self._spaces[key] = space
            self._load_cached(user_id, kind, space)
        elif newest == space.seq:
            return space
        ids, vecs, seq = self.store.vectors_since(user_id, kind, space.seq)
        if len(ids):
            old_n = space.n
            if space.append(ids, vecs):
                space.index, space.building = None, None  # rows changed: build again
                space.generation += 1
                space.cached = None  # its index no longer matches the rows
            elif space.index is not None:
                space.index.add_with_ids(space.mat[old_n:space.n], space.ids[old_n:space.n])
        space.seq = seq
        return space

    def _load_cached(self, user_id: str, kind: str, space: _Namespace) -> None:
        """Start a new namespace from its cache files when they match the table (under lock)."""
        if self.cache_dir is None:
            return
        cached = vector_cache.load(self.cache_dir, user_id, kind, space.epoch)
        if cached is None:
            return
        if not self._cache_matches(user_id, kind, cached.seq, cached.ids, cached.mat):
            vector_cache.drop(self.cache_dir, user_id, kind)
            return
        space.append(cached.ids, cached.mat)  # memory-mapped: copied on the first append
        space.seq, space.cached = cached.seq, cached

    def _cache_matches(self, user_id: str, kind: str, seq: int, ids: np.ndarray,
                       mat: np.ndarray, epoch: int | None = None) -> bool:
        """Whether the table still holds exactly these rows up to `seq` (same count, same
        vectors at a few places): an erased and re-created namespace restarts at epoch 0."""
        if epoch is not None and self.store.vector_epoch(user_id, kind) != epoch:
            return False
        count = self.store.scalar("SELECT count(*) FROM vectors WHERE user_id = ? AND kind = ?"
                                  " AND seq <= ?", (user_id, kind, seq))
        if int(count or 0) != len(ids):
            return False
        rows = sorted({0, len(ids) // 3, 2 * len(ids) // 3, len(ids) - 1}) if len(ids) else []
        stored = self.store.get_vectors(kind, [int(ids[r]) for r in rows])
        return all(int(ids[r]) in stored and np.array_equal(stored[int(ids[r])], mat[r])
                   for r in rows)

    def _start_build(self, key: tuple[str, str], space: _Namespace) -> None:
        """Build the HNSW index of a large namespace (in the background when configured)."""
        space.approximate = True
        ids, mat, generation = space.ids[:space.n].copy(), space.rows(), space.generation
        seq, epoch, cached = space.seq, space.epoch, space.cached

        def stale() -> bool:
            return _STOP.is_set() or self._spaces.get(key) is not space \
                or space.generation != generation

        def make() -> Any:
            """The index of rows [0, len(ids)): loaded from its file, or built, in chunks."""
            index = vector_cache.read_index(cached) if cached is not None else None
            done = 0
            if index is not None and cached is not None:
                hnsw: Any = faiss.downcast_index(index.index)  # this version's setting, not the file's
                hnsw.hnsw.efSearch = HNSW_EF_SEARCH
                done = len(cached.ids)
            else:
                index = _new_hnsw(mat.shape[1])
            # in chunks: between them a dropped namespace or the process's exit stops it
            for start in range(done, len(ids), BUILD_CHUNK):
                if stale():
                    return None
                index.add_with_ids(np.ascontiguousarray(mat[start:start + BUILD_CHUNK]),
                                   ids[start:start + BUILD_CHUNK])
            if (done == 0 or len(ids) - done >= CACHE_REFRESH) \
                    and len(ids) >= vector_cache.MIN_VECTORS and not stale():
                self._save_cache(key, space, generation, epoch, seq, ids, mat, index,
                                 locked=not self.background)
            return index

        if not self.background:
            self._install(key, space, generation, make())
            return

        def build() -> None:
            try:
                faiss.omp_set_num_threads(1)  # this thread's setting: one core, no thread pool
                _lower_priority()
                index = make()
                if index is None:
                    return
            except Exception:  # noqa: BLE001 - searches stay exact; logged, not retried
                log.exception("building the HNSW index of %s vectors failed", key[1])
                with self._lock:
                    if space.generation == generation:
                        space.building, space.build_failed = None, True
                return
            finally:
                _BUILDERS.discard(threading.current_thread())
            with self._lock:
                self._install(key, space, generation, index)

        space.building = threading.Thread(target=build, name=f"hnsw-{key[1]}", daemon=True)
        _BUILDERS.add(space.building)
        space.building.start()

    def _save_cache(self, key: tuple[str, str], space: _Namespace, generation: int, epoch: int,
                    seq: int, ids: np.ndarray, mat: np.ndarray, index: Any,
                    locked: bool = False) -> None:
        """Write the namespace's cache files; delete them again when, meanwhile, the namespace
        was forgotten or the table changed (another process's erasure: it deletes the files
        after its commit, this checks after its rename, so one of the two removes them)."""
        if self.cache_dir is None:
            return
        user_id, kind = key
        try:
            vector_cache.save(self.cache_dir, user_id, kind, epoch, seq, ids, mat, index)
        except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower opens
            log.exception("writing the vector cache of %s vectors failed", kind)
            vector_cache.drop(self.cache_dir, user_id, kind)
            return
        if locked:  # a build in the searching thread (background=False) holds the lock
            current = True
        else:
            with self._lock:
                current = self._spaces.get(key) is space and space.generation == generation
        if not current or not self._cache_matches(user_id, kind, seq, ids, mat, epoch):
            vector_cache.drop(self.cache_dir, user_id, kind)

    def _install(self, key: tuple[str, str], space: _Namespace, generation: int,
                 index: Any) -> None:
        """Put a built index in use, with the rows stored since its build began (under lock)."""
        if index is None or self._spaces.get(key) is not space or space.generation != generation:
            return  # forgotten, reloaded or rows changed meanwhile: a newer build follows
        built = index.ntotal
        if space.n > built:
            index.add_with_ids(space.mat[built:space.n], space.ids[built:space.n])
        space.index, space.building = index, None

    def join_builds(self, timeout: float | None = None) -> bool:
        """Wait for running index builds; True when none is left (tests, benchmarks)."""
        with self._lock:
            threads = [s.building for s in self._spaces.values() if s.building is not None]
        for thread in threads:
            thread.join(timeout)
        return not any(t.is_alive() for t in threads)

    def search(
        self, user_id: str, kind: str, query: np.ndarray, k: int,
        among: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(item id, inner product) pairs, best first, optionally among some ids only."""
        with self._lock:
            space = self._sync(user_id, kind)
            if not space.n or k <= 0:
                return []
            q = np.asarray(query, dtype=np.float32).reshape(1, -1)
            if among is not None:
                # A small candidate set is scored exactly from the cached vectors.
                wanted = [i for i in among if i in space.row_of]
                if not wanted:
                    return []
                mat = space.mat[[space.row_of[i] for i in wanted]]
                scores = mat @ q[0]
                order = np.argsort(-scores)[:k]
                return [(wanted[j], float(scores[j])) for j in order]
            k = min(k, space.n)
            if space.index is not None:
                scores, found = space.index.search(q, k)
            else:
                # (a build thread that is gone without a result: the process was forked)
                if space.n > HNSW_THRESHOLD and not space.build_failed \
                        and (space.building is None or not space.building.is_alive()):
                    self._start_build((user_id, kind), space)
                if space.index is not None:  # built just now (background=False)
                    scores, found = space.index.search(q, k)
                else:  # exact: what IndexFlatIP computes, over the matrix itself
                    scores, rows = faiss.knn(q, space.rows(), k,
                                             metric=faiss.METRIC_INNER_PRODUCT)
                    found = np.where(rows >= 0, space.ids[np.maximum(rows, 0)], -1)
            return [(int(i), float(s)) for i, s in zip(found[0], scores[0], strict=True)
                    if i >= 0]

    def search_each(self, user_id: str, query: np.ndarray, wanted: Mapping[str, int],
                    ) -> dict[str, list[tuple[int, float]]]:
        """`search` of several kinds with one query, one after the other (all in memory)."""
        return {kind: self.search(user_id, kind, query, k) for kind, k in wanted.items()}

    def vectors_of(self, user_id: str, kind: str, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Cached vectors of some items (synchronised first; read-only views)."""
        with self._lock:
            space = self._sync(user_id, kind)
            out: dict[int, np.ndarray] = {}
            for i in item_ids:
                row = space.row_of.get(i)
                if row is not None:
                    vec = space.mat[row]
                    vec.flags.writeable = False
                    out[i] = vec
            return out

    def size(self, user_id: str, kind: str) -> int:
        """Vectors in the namespace."""
        with self._lock:
            return self._sync(user_id, kind).n

    def forget(self, user_id: str) -> None:
        """Drop the cached indexes of a user and their cache files (rebuilt on next use)."""
        with self._lock:
            for key in [k for k in self._spaces if k[0] == user_id]:
                del self._spaces[key]
            if self.cache_dir is not None:
                vector_cache.drop(self.cache_dir, user_id)


def _new_hnsw(dim: int) -> Any:
    """An empty HNSW inner-product index whose vectors are labelled with item ids."""
    base = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
    base.hnsw.efSearch = HNSW_EF_SEARCH
    return faiss.IndexIDMap2(base)


def _lower_priority() -> None:
    """Let searches and requests go first on a busy machine (Linux: a thread's own nice)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BUILD_NICE)
    except (AttributeError, OSError):  # not Linux, or not allowed: the build runs as it is
        pass


def _stop_builds() -> None:
    """At exit: let running builds stop after their chunk (a thread inside FAISS when the
    interpreter goes away would abort the process)."""
    _STOP.set()
    for thread in list(_BUILDERS):
        thread.join()


_STOP = threading.Event()
_BUILDERS: set[threading.Thread] = set()
atexit.register(_stop_builds)
