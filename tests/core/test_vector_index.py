"""The FAISS index over SQLite: exact below the HNSW threshold, and above it exact answers
while the HNSW index builds in the background, then the built index (with what came meanwhile)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from memoryos_core.storage import SQLiteStore
from memoryos_core.storage import vectors as vectors_mod
from memoryos_core.storage.tables import exchanges as exchanges_db
from memoryos_core.storage.tables import pages as pages_db
from memoryos_core.storage.vectors import FaissVectorIndex

DIM = 16


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    mat = rng.normal(size=(n, DIM)).astype(np.float32)
    return mat / np.linalg.norm(mat, axis=1, keepdims=True)


def _put(store: SQLiteStore, user: str, first_id: int, mat: np.ndarray) -> list[int]:
    ids = list(range(first_id, first_id + len(mat)))
    with store.transaction(user) as conn:
        for item, vec in zip(ids, mat, strict=True):
            store.put_vector(conn, user, "page", item, vec)
    return ids


def _exact(ids: list[int], mat: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = mat @ query
    return [ids[j] for j in np.argsort(-scores, kind="stable")[:k]]


@pytest.fixture
def store(tmp_path):
    store = SQLiteStore(tmp_path / "data")
    yield store
    store.close()


def test_vectors_since_loads_one_matrix(store):
    mat = _unit(np.random.default_rng(1), 50)
    ids = _put(store, "u1", 100, mat)
    got_ids, got, seq = store.vectors_since("u1", "page", 0)
    assert got_ids.tolist() == ids and got.shape == (50, DIM) and np.array_equal(got, mat)
    more_ids, more, last = store.vectors_since("u1", "page", seq - 10)
    assert more_ids.tolist() == ids[-10:] and np.array_equal(more, mat[-10:]) and last == seq


def test_flat_search_is_exact_and_follows_changes(store):
    rng = np.random.default_rng(2)
    mat = _unit(rng, 300)
    ids = _put(store, "u1", 1, mat)
    _put(store, "u2", 1000, _unit(rng, 20))  # another user's vectors never answer
    index = FaissVectorIndex(store)
    query = mat[7] + 0.1 * mat[8]
    hits = index.search("u1", "page", query, 10)
    assert [i for i, _ in hits] == _exact(ids, mat, query, 10)
    assert hits[0][1] == pytest.approx(float(mat[7] @ query), abs=1e-5)
    assert index.size("u1", "page") == 300 and index.size("u2", "page") == 20
    among = index.search("u1", "page", query, 3, among=[5, 8, 9, 1005])
    assert [i for i, _ in among] == _exact([5, 8, 9], mat[[4, 7, 8]], query, 3)
    assert np.array_equal(index.vectors_of("u1", "page", [3, 1005])[3], mat[2])
    new = _unit(rng, 5)
    ids += _put(store, "u1", 301, new)  # added rows are found without a reload
    mat = np.vstack([mat, new])
    assert [i for i, _ in index.search("u1", "page", new[2], 3)] == _exact(ids, mat, new[2], 3)
    with store.transaction("u1") as conn:  # a deletion reloads the namespace
        conn.execute("DELETE FROM vectors WHERE kind = 'page' AND item_id = ?", (303,))
    assert index.size("u1", "page") == 304
    assert 303 not in [i for i, _ in index.search("u1", "page", new[2], 5)]


class _GatedHnsw:
    """An HNSW index whose first add waits for the test (the build stays in progress)."""

    def __init__(self, real, gate: threading.Event) -> None:
        self.real, self.gate = real, gate

    def add_with_ids(self, mat, ids) -> None:
        assert self.gate.wait(30)
        self.real.add_with_ids(mat, ids)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.fixture
def gated(monkeypatch):
    """Small HNSW threshold and chunks; every build waits for the returned event."""
    gate = threading.Event()
    real = vectors_mod._new_hnsw
    monkeypatch.setattr(vectors_mod, "HNSW_THRESHOLD", 200)
    monkeypatch.setattr(vectors_mod, "BUILD_CHUNK", 64)
    monkeypatch.setattr(vectors_mod, "_new_hnsw", lambda dim: _GatedHnsw(real(dim), gate))
    yield gate
    gate.set()


def test_background_build_answers_exactly_then_uses_the_built_index(store, gated):
    rng = np.random.default_rng(3)
    mat = _unit(rng, 400)
    ids = _put(store, "u1", 1, mat)
    index = FaissVectorIndex(store)
    queries = _unit(rng, 20)
    for q in queries:  # the build is held: every answer is the exact one
        assert [i for i, _ in index.search("u1", "page", q, 10)] == _exact(ids, mat, q, 10)
    space = index._spaces[("u1", "page")]
    assert space.approximate and space.index is None and space.building is not None
    assert index.search("u1", "segment", queries[0], 5) == []  # other namespaces answer
    new = _unit(rng, 30)  # stored while the index builds: in the answers, then in the index
    ids += _put(store, "u1", 401, new)
    mat = np.vstack([mat, new])
    assert [i for i, _ in index.search("u1", "page", new[0], 10)] == _exact(ids, mat, new[0], 10)
    gated.set()
    assert index.join_builds(30)
    assert space.index is not None and space.index.ntotal == 430 and space.building is None
    for item, vec in zip(ids[::10], mat[::10], strict=True):  # HNSW now: each finds itself
        assert index.search("u1", "page", vec, 1)[0][0] == item
    more = _unit(rng, 3)  # later rows go straight into the built index
    _put(store, "u1", 431, more)
    assert index.search("u1", "page", more[1], 1)[0][0] == 432 and space.index.ntotal == 433


def test_a_build_of_a_reloaded_namespace_is_dropped(store, gated):
    rng = np.random.default_rng(4)
    mat = _unit(rng, 300)
    _put(store, "u1", 1, mat)
    index = FaissVectorIndex(store)
    index.search("u1", "page", mat[0], 5)  # starts a build (held)
    old = index._spaces[("u1", "page")]
    old_build = old.building
    with store.transaction("u1") as conn:  # a deletion: new epoch, new namespace
        conn.execute("DELETE FROM vectors WHERE kind = 'page' AND item_id = ?", (1,))
    hits = index.search("u1", "page", mat[0], 5)
    assert 1 not in [i for i, _ in hits]
    space = index._spaces[("u1", "page")]
    assert space is not old and space.building is not old_build
    gated.set()
    assert index.join_builds(30)
    old_build.join(30)
    assert old.index is None  # the old namespace's build ended without being installed
    assert space.index is not None and space.index.ntotal == 299


def test_a_failed_build_leaves_exact_search(store, monkeypatch):
    def broken(dim):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(vectors_mod, "HNSW_THRESHOLD", 100)
    monkeypatch.setattr(vectors_mod, "_new_hnsw", broken)
    rng = np.random.default_rng(5)
    mat = _unit(rng, 150)
    ids = _put(store, "u1", 1, mat)
    index = FaissVectorIndex(store)
    for q in _unit(rng, 3):
        index.join_builds(30)
        assert [i for i, _ in index.search("u1", "page", q, 5)] == _exact(ids, mat, q, 5)
    space = index._spaces[("u1", "page")]
    assert space.build_failed and space.index is None and space.building is None


def test_rows_by_id_leave_other_users_out(store):
    with store.transaction("u1") as conn:
        mine = exchanges_db.insert_exchange(conn, "u1", "hi", "hello", 1.0, 1.0, "chat", "k1")
        theirs = exchanges_db.insert_exchange(conn, "u2", "hey", "hi", 2.0, 2.0, "chat", "k2")
    assert list(exchanges_db.exchanges_by_id(store, "u1", [mine, theirs])) == [mine]
    assert pages_db.page_overviews(store, "u2", [mine, theirs]) == {theirs: ""}
