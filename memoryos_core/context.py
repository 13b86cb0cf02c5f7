"""What the engine's parts share: store, index, models, settings, and call accounting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .config import EngineConfig
from .llm.base import ChatModel, Completion, Embedder
from .storage import BaseStore, VectorIndex


@dataclass
class Context:
    """The engine's services, handed to each tier module."""

    store: BaseStore
    index: VectorIndex
    embedder: Embedder
    config: EngineConfig
    chat_model: Callable[[], ChatModel]
    embedded_model: Callable[[], bool] = lambda: False

    def mode(self, step: str) -> str:
        """'llm' or 'extractive' for a maintenance step ('consolidation' or 'analysis').

        'auto' (the default) is extractive with the small embedded model, whose summaries and
        facts measured worse than the extractive ones at no gain in recall, and llm with any
        configured endpoint.
        """
        value = str(getattr(self.config, step))
        if value != "auto":
            return value
        return "extractive" if self.embedded_model() else "llm"

    def recorder(self, user_id: str, purpose: str) -> Callable[[Completion], None]:
        """A callback that counts each model call of one purpose for the cost report."""

        def record(completion: Completion) -> None:
            self.store.add_usage(
                user_id, purpose, completion.prompt_tokens, completion.completion_tokens
            )

        return record
