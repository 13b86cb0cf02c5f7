"""The reference library's API on our engine: `from memoryos_core.hosts.compat import Memoryos`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..config import EngineConfig
from ..engine import MemoryEngine
from ..errors import InvalidInput
from ..llm import OpenAIChatModel
from ..llm.embedder import DEFAULT_MODEL, SentenceTransformerEmbedder
from ..timeframe import parse_ts
from .mcp_tools import KnowledgeEntry, MemoryRetrieved, ToolHost, knowledge, profile_text

DEFAULT_ASSISTANT_ID = "default_assistant_profile"


def _embedder(name: str | None) -> SentenceTransformerEmbedder:
    """The named embedding model if it is installed here, else MiniLM (with a warning)."""
    try:
        return SentenceTransformerEmbedder.from_name(name or DEFAULT_MODEL)
    except InvalidInput as exc:
        print(f"memoryos compat: {exc}; using {DEFAULT_MODEL} instead", file=sys.stderr)
        return SentenceTransformerEmbedder.from_name(DEFAULT_MODEL)


class Memoryos:
    """One user's memory with the reference constructor and methods (same return types)."""

    def __init__(
        self, user_id: str, openai_api_key: str, data_storage_path: str,
        openai_base_url: str | None = None, assistant_id: str = DEFAULT_ASSISTANT_ID,
        short_term_capacity: int = 10, mid_term_capacity: int = 2000,
        long_term_knowledge_capacity: int = 100, retrieval_queue_capacity: int = 7,
        mid_term_heat_threshold: float = 5.0, mid_term_similarity_threshold: float = 0.6,
        llm_model: str = "gpt-4o-mini", embedding_model_name: str = DEFAULT_MODEL,
        embedding_model_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(user_id, str) or not user_id.strip():
            raise InvalidInput("user_id must be a non-empty string")
        self.user_id = user_id
        self.assistant_id = assistant_id
        self.data_storage_path = str(Path(data_storage_path or ".").resolve())
        self.llm_model = llm_model
        self.embedding_model_name = embedding_model_name
        self.embedding_model_kwargs = embedding_model_kwargs or {}
        config = EngineConfig.from_env().replace(
            short_term_capacity=short_term_capacity, mid_term_capacity=mid_term_capacity,
            fact_capacity=long_term_knowledge_capacity, top_pages=retrieval_queue_capacity,
            heat_threshold=mid_term_heat_threshold,
            merge_threshold=mid_term_similarity_threshold)
        # An empty base URL means OpenAI itself (or $OPENAI_BASE_URL), as in the reference.
        model = OpenAIChatModel(llm_model, base_url=openai_base_url or None,
                                api_key=openai_api_key or None)
        embedder = _embedder(embedding_model_name)
        self.engine = MemoryEngine(self.data_storage_path, chat_model=model, embedder=embedder,
                                   config=config)
        self._tools = ToolHost(self.engine, lambda: self.user_id, assistant_id=assistant_id)

    def add_memory(self, user_input: str, agent_response: str, timestamp: str | None = None,
                   meta_data: dict[str, Any] | None = None) -> None:
        """Add one QA pair; consolidation and analysis run as needed."""
        self.engine.add_exchange(self.user_id, user_input, agent_response,
                                 parse_ts(timestamp))

    def get_response(self, query: str, relationship_with_user: str = "friend",
                     style_hint: str = "",
                     user_conversation_meta_data: dict[str, Any] | None = None) -> str:
        """Answer the query with memory, remember the exchange, return the answer text."""
        result = self.engine.chat(self.user_id, query, relationship=relationship_with_user,
                                  style_hint=style_hint or None)
        return str(result["answer"])

    def get_user_profile_summary(self) -> str:
        """The profile as text ('None' when nothing is known yet, as in the reference)."""
        return profile_text(self.engine, self.user_id) or "None"

    def get_assistant_knowledge_summary(self) -> list[KnowledgeEntry]:
        """Assistant knowledge entries {knowledge, timestamp}."""
        return knowledge(self.engine, self.user_id, "assistant")

    def force_mid_term_analysis(self) -> None:
        """Analyse every segment with unanalysed pages now, whatever its heat."""
        self.engine.force_analysis(self.user_id)

    def get_memory_stats(self) -> dict[str, Any]:
        """Counts of each tier, in the reference's keys."""
        state = self.engine.state(self.user_id)
        return {
            "user_id": self.user_id,
            "short_term_count": state["short_term"]["count"],
            "mid_term_sessions_count": state["mid_term"]["count"],
            "has_user_profile": bool(profile_text(self.engine, self.user_id)),
            "assistant_knowledge_count": len(state["long_term"]["assistant_facts"]),
        }

    def retrieve_memory(self, query: str, max_results: int = 10) -> MemoryRetrieved:
        """What the MCP tool `retrieve_memory` returns (for callers of the reference server)."""
        return self._tools.retrieve_memory(query, max_results=max_results)

    def __repr__(self) -> str:
        return (f"<Memoryos user_id='{self.user_id}' assistant_id='{self.assistant_id}'"
                f" data_path='{self.data_storage_path}'>")
