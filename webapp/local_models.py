"""The models this instance offers besides the embedded one: the operator's endpoints and, on a
personal instance, the model servers found on this machine."""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask

from memoryos_core.errors import ModelError
from memoryos_core.llm.discovery import LOCAL_PORTS, Discovery, list_models

log = logging.getLogger(__name__)
KEY = "memplay_discovery"
LISTS = "memplay_endpoint_lists"
LIST_TTL = 60.0  # seconds an endpoint's model list is kept (operator and user endpoints)


def _bind_host_port(config: Mapping[str, Any]) -> tuple[str, int | None]:
    """Host and port of MEMPLAY_BIND ("127.0.0.1:8000", set by scripts/start), if known."""
    bind = str(config.get("BIND") or "")
    host, _, port = bind.rpartition(":") if ":" in bind else (bind, "", "")
    host = host.strip("[]")
    return host, int(port) if port.isdigit() else None


def personal(config: Mapping[str, Any]) -> bool:
    """Whether one person runs this instance for themselves: MEMPLAY_PERSONAL, or ("auto") the
    server is bound to loopback only (scripts/start's default), so nobody else can reach it."""
    setting = config.get("PERSONAL", "auto")
    if isinstance(setting, bool):
        return setting
    if str(setting).lower() in ("true", "1", "yes", "on"):
        return True
    if str(setting).lower() != "auto":
        return False
    host, _ = _bind_host_port(config)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # unknown or all interfaces: a shared instance, the safe default
        return False


def private_allowed(config: Mapping[str, Any]) -> bool:
    """Whether a user-typed endpoint may be on loopback or a private network: on a personal
    instance (the user owns both ends) or when the operator says so."""
    return bool(config.get("ALLOW_PRIVATE_ENDPOINTS")) or personal(config)


@dataclass(frozen=True)
class Configured:
    """One operator endpoint: where, its key, and its models (None: listed from it)."""

    base_url: str
    api_key: str | None
    models: tuple[str, ...] | None
    name: str


def configured_endpoints(config: Mapping[str, Any]) -> list[Configured]:
    """MEMPLAY_CHAT_BASE_URL (the default) and MEMPLAY_CHAT_ENDPOINTS (a JSON list of
    {"base_url", "api_key", "models", "name"}): the operator's, trusted on any address."""
    out: list[Configured] = []
    model = config.get("CHAT_MODEL")
    if config.get("CHAT_BASE_URL"):
        out.append(Configured(str(config["CHAT_BASE_URL"]), config.get("CHAT_API_KEY") or None,
                              (model,) if isinstance(model, str) and model else None,
                              "this instance"))
    for item in config.get("CHAT_ENDPOINTS") or []:
        if not isinstance(item, Mapping) or not item.get("base_url"):
            raise RuntimeError("MEMPLAY_CHAT_ENDPOINTS must be a JSON list of objects with a"
                               " base_url (and optionally api_key, models, name)")
        models = item.get("models")
        out.append(Configured(str(item["base_url"]), item.get("api_key") or None,
                              tuple(str(m) for m in models) if models else None,
                              str(item.get("name") or "this instance")))
    return out


def init_app(app: Flask) -> None:
    """On a personal instance, probe the machine's usual model ports once in the background
    now (the picker then opens at once); our own port is never probed."""
    configured_endpoints(app.config)  # a malformed list fails at start, not at the first chat
    app.extensions[LISTS] = ({}, threading.Lock())
    if not personal(app.config):
        return
    _, own_port = _bind_host_port(app.config)
    ports = app.config.get("DISCOVER_PORTS") or list(LOCAL_PORTS)
    found = app.extensions[KEY] = Discovery([int(p) for p in ports],
                                            skip={own_port} if own_port else set())
    if app.config.get("DISCOVER_AT_START", True):
        found.start()


def discovery(app: Flask) -> Discovery | None:
    """The machine's model servers (None on a shared instance: it never probes)."""
    return app.extensions.get(KEY)  # type: ignore[no-any-return]


def models_of(app: Flask, base_url: str, api_key: str | None, fresh: bool = False,
              address_check: Any = None) -> tuple[str, ...]:
    """An endpoint's model list, kept LIST_TTL seconds; () when it cannot be listed."""
    cache, lock = app.extensions[LISTS]
    key = (base_url, api_key or "")
    with lock:
        kept = cache.get(key)
    if kept is not None and not fresh and time.monotonic() - kept[0] < LIST_TTL:
        return kept[1]  # type: ignore[no-any-return]
    try:
        models = tuple(list_models(base_url, api_key, timeout=3.0,
                                   address_check=address_check)[0])
    except ModelError as exc:
        log.info("listing the models of %s failed: %s", base_url, exc)
        models = ()
    with lock:
        cache[key] = (time.monotonic(), models)
    return models
