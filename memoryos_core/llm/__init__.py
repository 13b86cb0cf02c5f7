"""Models behind Protocols: chat models (OpenAI-compatible, embedded local) and the embedder."""

from __future__ import annotations

from .base import ChatModel, Completion, Embedder, Message
from .openai_chat import OpenAIChatModel


def default_chat_model() -> ChatModel:
    """The embedded local model (SmolLM2 via llama.cpp), used when no endpoint is configured."""
    from .local import LocalChatModel

    return LocalChatModel()


__all__ = ["ChatModel", "Completion", "Embedder", "Message", "OpenAIChatModel",
           "default_chat_model"]
