"""The one place that decides which chat model serves a user.

A model given for one call wins; else the user's own model (a host's `per_user` lookup, such
as the web app's per-account endpoint); else the instance's model (an operator endpoint, the
command line's --model); else the embedded local model, loaded once on first use. Every engine
call that needs a model asks this object, so hosts never choose one themselves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..errors import ModelError
from .base import ChatModel


def is_embedded(model: ChatModel | None) -> bool:
    """True for the embedded local model (None: it will be loaded on first use)."""
    return model is None or bool(getattr(model, "embedded", False))


class ModelResolver:
    """Chat models per user: the user's, else the instance's, else the embedded one."""

    def __init__(self, instance: ChatModel | None = None,
                 per_user: Callable[[str], ChatModel | None] | None = None) -> None:
        self._instance = instance
        self._per_user = per_user
        self._lock = threading.Lock()
        self._embedded: ChatModel | None = None  # loaded when picked beside an endpoint

    @property
    def configured(self) -> ChatModel | None:
        """The instance's model as given (None: the embedded model, not loaded by asking)."""
        return self._instance

    def instance(self) -> ChatModel:
        """The instance's model, loading the embedded one on first use."""
        with self._lock:
            if self._instance is None:
                from . import default_chat_model

                try:
                    self._instance = default_chat_model()
                except ImportError as exc:
                    raise ModelError(f"no chat model configured and the embedded model is"
                                     f" unavailable: {exc}") from exc
            return self._instance

    def embedded(self) -> ChatModel:
        """The embedded model itself, even when the instance has an endpoint (a user picked
        it in the chat): the instance's when that is the embedded one, else loaded once."""
        configured = self._instance
        if configured is not None and is_embedded(configured):
            return configured
        if configured is None:
            return self.instance()
        with self._lock:
            if self._embedded is None:
                from . import default_chat_model

                try:
                    self._embedded = default_chat_model()
                except ImportError as exc:
                    raise ModelError(f"the embedded model is unavailable: {exc}") from exc
            return self._embedded

    def own(self, user_id: str) -> ChatModel | None:
        """The user's own model, or None when the user has none (the instance's applies)."""
        return self._per_user(user_id) if self._per_user is not None else None

    def for_user(self, user_id: str, given: ChatModel | None = None) -> ChatModel:
        """The model that serves `user_id` now (`given`: one chosen for this call)."""
        return given or self.own(user_id) or self.instance()

    def chosen(self, user_id: str, given: ChatModel | None = None) -> ChatModel | None:
        """Like for_user, but None instead of loading the embedded model (for maintenance,
        which runs extractively with it and needs no loaded model to know that)."""
        return given or self.own(user_id) or self._instance
