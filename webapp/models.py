"""Which chat model answers: the user's endpoint, else the default (operator or embedded)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from flask import current_app

from memoryos_core.llm import ChatModel, OpenAIChatModel
from memoryos_core.llm.guard import is_public

from .extensions import ENGINE, model_cache, users
from .local_models import private_allowed
from .security import check_endpoint_url

EMBEDDED_NAME = "embedded local model (SmolLM2-135M-Instruct)"


def operator_chat_model(config: Mapping[str, Any]) -> ChatModel | None:
    """The instance's model: an injected ChatModel object, else the operator endpoint, else
    None (the embedded model). The engine's ModelResolver chooses between it and a user's."""
    injected = config.get("CHAT_MODEL")
    if injected is not None and not isinstance(injected, str):
        return injected  # type: ignore[no-any-return]
    if config.get("CHAT_BASE_URL"):
        return OpenAIChatModel(
            injected or "default", base_url=config["CHAT_BASE_URL"],
            api_key=config.get("CHAT_API_KEY") or None,
            context_window=int(config.get("CHAT_CONTEXT_WINDOW") or 8192))
    return None


def default_model_info() -> dict[str, Any]:
    """What the default model is, without loading it."""
    engine = current_app.extensions[ENGINE]
    model = engine.configured_chat_model  # reading it never loads the embedded model
    cfg = current_app.config
    if model is None:
        return {"name": EMBEDDED_NAME, "kind": "embedded", "base_url": None}
    if isinstance(model, OpenAIChatModel):
        return {"name": model.name, "kind": "operator endpoint", "base_url": model.base_url}
    if cfg.get("CHAT_MODEL") is model:
        return {"name": model.name, "kind": "configured object", "base_url": None}
    if getattr(model, "embedded", False):  # the embedded model, once loaded: the same label
        return {"name": EMBEDDED_NAME, "kind": "embedded", "base_url": None}
    return {"name": getattr(model, "name", "?"), "kind": "embedded", "base_url": None}


def user_chat_model(user: Any) -> ChatModel | None:
    """The user's endpoint as a ChatModel (cached), or None for the app default."""
    return account_chat_model(current_app._get_current_object(), user.id)  # type: ignore[attr-defined]


def engine_user_model(app: Any, engine_user: str) -> ChatModel | None:
    """The chat model of the account behind an engine user id ('u<n>'), for background jobs."""
    if not (engine_user.startswith("u") and engine_user[1:].isdigit()):
        return None
    return account_chat_model(app, int(engine_user[1:]))


def account_chat_model(app: Any, account_id: int) -> ChatModel | None:
    """An account's endpoint as a ChatModel (cached per endpoint), or None for the default."""
    endpoint = users(app).endpoint(account_id)
    if not endpoint.configured:
        return None
    allow_private = private_allowed(app.config)
    check_endpoint_url(endpoint.base_url, allow_private)
    digest = hashlib.sha256("\0".join(
        (endpoint.base_url, endpoint.model, endpoint.api_key)).encode()).hexdigest()
    cache = model_cache(app)
    key = (account_id, digest)
    if key not in cache:
        for old in [k for k in cache if k[0] == account_id]:
            del cache[old]
        cache[key] = OpenAIChatModel(
            endpoint.model, base_url=endpoint.base_url, api_key=endpoint.api_key or None,
            context_window=int(app.config.get("CHAT_CONTEXT_WINDOW") or 8192),
            # each request resolves, checks and connects to the checked address only
            address_check=None if allow_private else is_public)
    return cache[key]


def model_label(user: Any) -> dict[str, Any]:
    """Name and origin of the model that answers this user."""
    endpoint = users().endpoint(user.id)
    if endpoint.configured:
        return {"name": endpoint.model, "kind": "your endpoint", "base_url": endpoint.base_url}
    return default_model_info()
