"""Model Protocols: the chat model and the embedder the engine talks to."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

Message = dict[str, str]


@dataclass(frozen=True)
class Completion:
    """One chat-model reply with its token counts."""

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@runtime_checkable
class ChatModel(Protocol):
    """An OpenAI-style chat model. Implementations raise `ModelError` on any failure."""

    name: str
    context_window: int

    def complete(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        """Reply to the messages; with `json_schema` the reply should be JSON of that shape."""
        ...

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3
    ) -> Iterator[str]:
        """Yield the reply in pieces as they are generated."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """An array of shape (len(texts), dim)."""
        ...
