"""The vector cache files of large namespaces: a reopened store uses them and answers the same;
files of an older epoch, of an erased and re-created namespace, or damaged, are ignored; every
forgetting path deletes them; file names never hold a user id."""

from __future__ import annotations

import numpy as np
import pytest

from memoryos_core.storage import SQLiteStore, vector_cache
from memoryos_core.storage import vectors as vectors_mod
from memoryos_core.storage.vectors import FaissVectorIndex

from .test_control import _fill
from .test_vector_index import _exact, _put, _unit

N = 300


@pytest.fixture
def small_cache(monkeypatch):
    """Namespaces of 100+ vectors are approximate and get cache files."""
    monkeypatch.setattr(vectors_mod, "HNSW_THRESHOLD", 100)
    monkeypatch.setattr(vectors_mod, "BUILD_CHUNK", 64)
    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 100)


@pytest.fixture
def store(tmp_path):
    store = SQLiteStore(tmp_path / "data")
    yield store
    store.close()


def _files(store: SQLiteStore) -> list[str]:
    folder = vector_cache.folder_of(store.data_dir)
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def _built(store: SQLiteStore, user: str = "u1", seed: int = 1) -> tuple[list[int], np.ndarray]:
    """N vectors of a user, searched once and built: the cache files are written."""
    mat = _unit(np.random.default_rng(seed), N)
    ids = _put(store, user, 1 + 10_000 * (seed - 1), mat)
    index = FaissVectorIndex(store)
    index.search(user, "page", mat[0], 5)
    assert index.join_builds(30)
    return ids, mat


def _loads(store: SQLiteStore, monkeypatch) -> list[int]:
    """Record the `after_seq` of every table load."""
    calls: list[int] = []
    real = store.vectors_since

    def spy(user_id, kind, after_seq):
        calls.append(after_seq)
        return real(user_id, kind, after_seq)

    monkeypatch.setattr(store, "vectors_since", spy)
    return calls


def test_a_reopened_store_uses_the_cache_and_answers_the_same(store, small_cache, monkeypatch):
    ids, mat = _built(store)
    files = _files(store)
    assert len(files) == 4 and all(name.split(".")[0] == vector_cache.stem("u1", "page")
                                   for name in files)
    assert not any("u1" in name for name in files)  # a user id never becomes a path
    rng = np.random.default_rng(9)
    new = _unit(rng, 5)
    ids += _put(store, "u1", N + 1, new)  # stored after the cache: read from the table
    mat = np.vstack([mat, new])
    calls = _loads(store, monkeypatch)

    def no_build(dim):
        raise AssertionError("the cached index is loaded, not built")

    monkeypatch.setattr(vectors_mod, "_new_hnsw", no_build)
    index = FaissVectorIndex(store)
    assert [i for i, _ in index.search("u1", "page", new[1], 3)] == _exact(ids, mat, new[1], 3)
    space = index._spaces[("u1", "page")]
    assert calls and calls[0] > 0  # only the rows newer than the cache came from the table
    assert space.cached is not None and space.n == N + 5
    assert index.join_builds(30) and space.index is not None and space.index.ntotal == N + 5
    for q in _unit(rng, 10):  # the loaded HNSW index (with the 5 new rows) answers exactly
        assert [i for i, _ in index.search("u1", "page", q, 5)] == _exact(ids, mat, q, 5)
    assert np.array_equal(index.vectors_of("u1", "page", [7])[7], mat[6])


def test_the_same_answers_with_and_without_the_cache(store, small_cache):
    ids, mat = _built(store)
    queries = _unit(np.random.default_rng(11), 10)
    cached = FaissVectorIndex(store, background=False)
    hits = [cached.search("u1", "page", q, 10) for q in queries]
    assert cached._spaces[("u1", "page")].cached is not None
    vector_cache.drop_all(vector_cache.folder_of(store.data_dir))
    table = FaissVectorIndex(store, background=False)
    again = [table.search("u1", "page", q, 10) for q in queries]
    assert table._spaces[("u1", "page")].cached is None
    assert [[i for i, _ in h] for h in hits] == [[i for i, _ in h] for h in again]
    for q, h in zip(queries, hits, strict=True):  # and they are the exact answers
        assert [i for i, _ in h][:5] == _exact(ids, mat, q, 5)


def test_a_cache_of_an_older_epoch_is_ignored_and_deleted(store, small_cache, monkeypatch):
    ids, mat = _built(store)
    with store.transaction("u1") as conn:  # a deletion (another process): a new epoch
        conn.execute("DELETE FROM vectors WHERE kind = 'page' AND item_id = ?", (ids[0],))
    calls = _loads(store, monkeypatch)
    index = FaissVectorIndex(store)
    hits = index.search("u1", "page", mat[0], 5)
    assert calls == [0] and ids[0] not in [i for i, _ in hits]
    assert [i for i, _ in hits] == _exact(ids[1:], mat[1:], mat[0], 5)
    assert index._spaces[("u1", "page")].cached is None
    assert index.join_builds(30)
    meta = (vector_cache.folder_of(store.data_dir) / f"{vector_cache.stem('u1', 'page')}.json")
    assert '"epoch": 1' in meta.read_text()  # the build wrote the new epoch's files


def test_an_erased_and_recreated_namespace_ignores_old_files(store, small_cache, monkeypatch):
    _built(store)
    with store.transaction("u1") as conn:  # erased elsewhere: epoch row gone, back to 0
        conn.execute("DELETE FROM vectors WHERE user_id = 'u1'")
        conn.execute("DELETE FROM vector_epochs WHERE user_id = 'u1'")
    mat = _unit(np.random.default_rng(2), 150)
    ids = _put(store, "u1", 50_000, mat)
    index = FaissVectorIndex(store)
    assert [i for i, _ in index.search("u1", "page", mat[3], 5)] == _exact(ids, mat, mat[3], 5)
    assert index._spaces[("u1", "page")].cached is None


@pytest.mark.parametrize("damage", ["vecs", "ids", "json", "truncate"])
def test_a_corrupt_cache_file_is_ignored(store, small_cache, monkeypatch, damage):
    ids, mat = _built(store)
    folder = vector_cache.folder_of(store.data_dir)
    target = {"vecs": "*.vecs.npy", "ids": "*.ids.npy", "json": "*.json",
              "truncate": "*.vecs.npy"}[damage]
    path = next(folder.glob(target))
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[:len(data) // 2]
    else:
        data[len(data) - 40] ^= 0xFF  # one byte of the data (the JSON: its last field)
    path.write_bytes(bytes(data))
    calls = _loads(store, monkeypatch)
    index = FaissVectorIndex(store)
    q = mat[5] + 0.1 * mat[6]
    assert [i for i, _ in index.search("u1", "page", q, 5)] == _exact(ids, mat, q, 5)
    assert calls == [0] and index._spaces[("u1", "page")].cached is None


def test_a_corrupt_cached_index_is_built_again(store, small_cache):
    ids, mat = _built(store)
    path = next(vector_cache.folder_of(store.data_dir).glob("*.hnsw"))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    index = FaissVectorIndex(store)
    index.search("u1", "page", mat[0], 5)
    space = index._spaces[("u1", "page")]
    assert space.cached is not None  # the vectors are whole: used
    assert index.join_builds(30) and space.index is not None and space.index.ntotal == N
    for item, vec in zip(ids[::25], mat[::25], strict=True):
        assert index.search("u1", "page", vec, 1)[0][0] == item


def test_forgetting_a_user_deletes_only_their_cache_files(store, small_cache):
    _built(store, "u1", seed=1)
    _built(store, "u2", seed=2)
    assert len(_files(store)) == 8
    index = FaissVectorIndex(store)
    index.forget("u1")
    assert _files(store) and all(n.startswith(vector_cache.stem("u2", "page"))
                                 for n in _files(store))


def test_small_namespaces_write_no_files(store, monkeypatch):
    monkeypatch.setattr(vectors_mod, "HNSW_THRESHOLD", 100)
    _built(store)  # above the HNSW threshold, under MIN_VECTORS
    assert _files(store) == []


@pytest.mark.sqlite_only
@pytest.mark.parametrize("path", ["erase", "forget", "clear", "restore"])
def test_every_erasing_path_deletes_the_cache_files(make_engine, backend, monkeypatch, path):
    monkeypatch.setattr(vectors_mod, "HNSW_THRESHOLD", 5)
    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 5)
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=3, consolidation_batch=2)
    _fill(engine, "u1")
    version = engine.snapshot("u1", "kept")["version"]
    engine.retrieve("u1", "What is my dog called?", record=False)
    assert engine.index.join_builds(30)
    folder = vector_cache.folder_of(engine.store.data_dir)
    mine = vector_cache.stem("u1", "page")
    assert any(p.name.startswith(mine) for p in folder.iterdir())
    if path == "erase":
        engine.erase_user("u1")
    elif path == "forget":
        page = engine.state("u1")["mid_term"]["segments"][0]["pages"][0]["id"]
        engine.forget("u1", page, everywhere=True)
    elif path == "clear":
        engine.clear("u1")
    else:
        engine.restore("u1", version)
    assert not any(p.name.startswith(mine) for p in folder.iterdir())
    engine.store.close()


def test_files_written_while_another_process_erases_are_deleted(store, small_cache, monkeypatch):
    mat = _unit(np.random.default_rng(3), N)
    _put(store, "u1", 1, mat)
    real = vector_cache.save

    def erased_meanwhile(*args, **kwargs):
        real(*args, **kwargs)
        other = SQLiteStore(store.data_dir)  # another process: erases after the files exist
        with other.transaction("u1") as conn:
            conn.execute("DELETE FROM vectors WHERE user_id = 'u1'")
            conn.execute("DELETE FROM vector_epochs WHERE user_id = 'u1'")
        other.close()

    monkeypatch.setattr(vector_cache, "save", erased_meanwhile)
    index = FaissVectorIndex(store)
    index.search("u1", "page", mat[0], 5)
    assert index.join_builds(30)
    assert _files(store) == []  # the writer's check after its rename removed them
