"""Shared fixtures: the real embedder (loaded once), engines over temporary data folders."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from memoryos_core import EngineConfig, MemoryEngine  # noqa: E402
from memoryos_core.llm.embedder import SentenceTransformerEmbedder  # noqa: E402
from memoryos_core.testing import ScriptedChatModel, schema_filler  # noqa: E402


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """The real all-MiniLM-L6-v2 embedder, shared by the whole session."""
    return SentenceTransformerEmbedder()


@pytest.fixture
def chat_model() -> ScriptedChatModel:
    """A scripted chat model; its default reply is valid JSON for structured calls."""
    return ScriptedChatModel(default=schema_filler)


@pytest.fixture
def make_engine(tmp_path, embedder, chat_model):
    """Build engines over one temporary data folder with chosen settings."""

    def make(model=None, **settings):
        config = EngineConfig().replace(**settings)
        return MemoryEngine(tmp_path / "data", chat_model=model or chat_model,
                            embedder=embedder, config=config)

    return make


@pytest.fixture
def engine(make_engine):
    """An engine with extractive consolidation and analysis (no model calls in maintenance)."""
    return make_engine(consolidation="extractive", analysis="extractive")
