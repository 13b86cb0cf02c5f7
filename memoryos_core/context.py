"""What the engine's parts share: store, index, models, settings, and call accounting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .config import EngineConfig
from .llm.base import ChatModel, Completion, Embedder
from .storage import FaissVectorIndex, SQLiteStore


@dataclass
class Context:
    """The engine's services, handed to each tier module."""

    store: SQLiteStore
    index: FaissVectorIndex
    embedder: Embedder
    config: EngineConfig
    chat_model: Callable[[], ChatModel]

    def recorder(self, user_id: str, purpose: str) -> Callable[[Completion], None]:
        """A callback that counts each model call of one purpose for the cost report."""

        def record(completion: Completion) -> None:
            self.store.add_usage(
                user_id, purpose, completion.prompt_tokens, completion.completion_tokens
            )

        return record
