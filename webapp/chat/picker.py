"""The chat's model picker: the models a user may pick, the pick kept per conversation, and
the ChatModel a pick stands for (checked again at every turn, never trusted from the form)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from flask import Flask, current_app, flash, redirect, request, url_for
from flask_login import current_user, login_required

from memoryos_core import InvalidInput, ModelError
from memoryos_core.llm import ChatModel, OpenAIChatModel
from memoryos_core.llm.guard import is_public

from .. import local_models
from ..extensions import ENGINE, engine, uid, users
from ..models import EMBEDDED_NAME, user_chat_model
from ..rendering import wants_json

EMBEDDED, INSTANCE = "embedded", "instance"  # other picks: "server|<url>|<model>", "own|<model>"
PICKED = "memplay_picked_models"
FRESH_SECONDS = 3.0  # the picker opening probes again when the last probe is older


@dataclass(frozen=True)
class Option:
    """One model in the picker: the value stored, the model's name, where it runs, its group."""

    value: str
    name: str
    where: str
    group: str


def _guard(app: Flask) -> Any:
    """The address check of a user's own endpoint (None where private addresses are allowed)."""
    return None if local_models.private_allowed(app.config) else is_public


def options(app: Flask, user: Any, fresh: bool = False) -> list[Option]:
    """What this user may pick; `fresh` (the picker opened): probe and list again, else
    only what is known (a page never waits on an endpoint it has not listed yet)."""
    out = [Option(EMBEDDED, EMBEDDED_NAME, "built in, small, works offline", "Built in")]
    instance = app.extensions[ENGINE].configured_chat_model
    configured = local_models.configured_endpoints(app.config)
    if instance is not None and not getattr(instance, "embedded", False):
        out.append(Option(INSTANCE, instance.name, "this instance's default", "This instance"))
    for ep in configured:
        listed = ep.models or ()
        if fresh or not listed:
            listed = tuple(dict.fromkeys((*listed, *_listed(app, ep.base_url, ep.api_key,
                                                              fresh, None))))
        out += [Option(f"server|{ep.base_url}|{m}", m, ep.name, "This instance")
                for m in listed if not (instance is not None and m == instance.name
                                        and ep.base_url == app.config.get("CHAT_BASE_URL"))]
    found = local_models.discovery(app)
    if found is not None:
        known = {ep.base_url.rstrip("/") for ep in configured}
        servers = found.servers(FRESH_SECONDS) if fresh else (found.cached() or found.servers())
        out += [Option(f"server|{s.base_url}|{m}", m, f"{s.label} on this machine",
                       "On this machine")
                for s in servers if s.base_url.rstrip("/") not in known for m in s.models]
    own = users(app).endpoint(user.id)
    if own.configured:
        listed = _listed(app, own.base_url, own.api_key, fresh, _guard(app))
        out += [Option(f"own|{m}", m, "your endpoint", "Your endpoint")
                for m in dict.fromkeys((own.model, *listed))]
    return out


def _listed(app: Flask, base_url: str, api_key: str | None, fresh: bool,
            guard: Any) -> tuple[str, ...]:
    """An endpoint's models: listed when `fresh`, else the kept list (or none yet)."""
    cache, lock = app.extensions[local_models.LISTS]
    if not fresh:
        with lock:
            kept = cache.get((base_url, api_key or ""))
        return kept[1] if kept else ()  # type: ignore[no-any-return]
    return local_models.models_of(app, base_url, api_key, fresh=True, address_check=guard)


def default_choice(app: Flask, user: Any) -> str:
    """What answers when nothing was picked: the user's endpoint, else the instance's model."""
    own = users(app).endpoint(user.id)
    if own.configured:
        return f"own|{own.model}"
    instance = app.extensions[ENGINE].configured_chat_model
    return INSTANCE if instance is not None and not getattr(instance, "embedded", False) \
        else EMBEDDED


def current(app: Flask, user: Any, mode: str) -> str:
    """The pick of the conversation the next message goes to (else the latest, else default)."""
    conversation = engine().current_conversation(uid()) if mode == "normal" else None
    return users(app).model_choice(user.id, conversation) or default_choice(app, user)


def _cached(app: Flask, base_url: str, model: str, api_key: str | None, guard: Any) -> ChatModel:
    """One ChatModel per endpoint, model and key (its HTTP client is reused across turns)."""
    cache, lock = app.extensions.setdefault(PICKED, ({}, threading.Lock()))
    key = hashlib.sha256("\0".join((base_url, model, api_key or "", str(guard))).encode()
                         ).hexdigest()
    with lock:
        if key not in cache:
            cache[key] = OpenAIChatModel(
                model, base_url=base_url, api_key=api_key,
                context_window=int(app.config.get("CHAT_CONTEXT_WINDOW") or 8192),
                address_check=guard)
        return cache[key]  # type: ignore[no-any-return]


def resolve(app: Flask, user: Any, choice: str) -> ChatModel:
    """The ChatModel a pick stands for; ModelError when it is gone (a server stopped)."""
    models = app.extensions[ENGINE].models
    if choice == EMBEDDED:
        return models.embedded()  # type: ignore[no-any-return]
    if choice == INSTANCE:
        return models.instance()  # type: ignore[no-any-return]
    kind, _, rest = choice.partition("|")
    if kind == "own":
        own = users(app).endpoint(user.id)
        if not own.configured:
            raise ModelError("Your own endpoint is no longer set: pick another model above"
                             " the chat, or set it again in Settings.")
        if rest == own.model:
            return user_chat_model(user) or models.instance()  # checks the address too
        return _cached(app, own.base_url, rest, own.api_key or None, _guard(app))
    base_url, _, model = rest.partition("|")
    if kind == "server" and model:
        for ep in local_models.configured_endpoints(app.config):
            if ep.base_url == base_url:  # the operator's: trusted on any address
                return _cached(app, base_url, model, ep.api_key, None)
        found = local_models.discovery(app)
        servers = found.servers(FRESH_SECONDS) if found is not None else []
        if any(s.base_url == base_url and model in s.models for s in servers):
            return _cached(app, base_url, model, None, None)  # on loopback, found by us
        raise ModelError(f"The model {model} at {base_url} is not found on this machine any"
                         " more: start its server again, or pick another model above the chat.")
    raise InvalidInput("unknown model choice")


def turn_model(user: Any, turn: dict[str, Any]) -> ChatModel | None:
    """The model that answers this turn: its conversation's pick (None: the resolver's
    default); notes the conversation, so that a new one keeps the pick it started with."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    conversation = engine().current_conversation(uid()) if turn["mode"] == "normal" else None
    choice = users(app).model_choice(user.id, conversation)
    turn["picked"] = (choice, conversation)
    if choice is None:
        user_chat_model(user)  # a disallowed endpoint fails here, before the model call
        return None
    return resolve(app, user, choice)


def remember(app: Flask, user: Any, turn: dict[str, Any], result: Any) -> None:
    """A stored first answer started a conversation: it keeps the pick that answered it
    (called from the answering thread too: no request context needed)."""
    choice, conversation = turn.get("picked") or (None, None)
    if choice is None or conversation is not None or result.get("exchange_id") is None:
        return
    started = app.extensions[ENGINE].current_conversation(user.engine_id)
    if started is not None:
        users(app).choose_model(user.id, started, choice)


def grouped(found: list[Option]) -> Iterator[tuple[str, list[Option]]]:
    """The options in their groups, for <optgroup>s (options come grouped already)."""
    for group, items in groupby(found, key=lambda o: o.group):
        yield group, list(items)


def view(app: Flask, user: Any, mode: str, fresh: bool = False) -> dict[str, Any]:
    """What the chat page and /chat/models.json show: the options and the current pick."""
    found = options(app, user, fresh)
    chosen = current(app, user, mode)
    if chosen not in {o.value for o in found}:  # picked earlier, not found now: still shown
        kind, _, rest = chosen.partition("|")
        found.append(Option(chosen, rest.rpartition("|")[2] or chosen,
                            "not found now", "Picked earlier"))
    pick = next(o for o in found if o.value == chosen)
    return {"options": found, "current": pick,
            "personal": local_models.discovery(app) is not None}


@login_required
def models_json() -> Any:
    """The picker's options, probed and listed again (the picker opened)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    data = view(app, current_user, request.args.get("mode", "normal"),
                fresh=request.args.get("fresh") == "1")
    return {"ok": True, "current": data["current"].value,
            "options": [o.__dict__ for o in data["options"]], "personal": data["personal"]}


@login_required
def pick() -> Any:
    """Keep the pick for the current conversation (and as the latest); the form's value is
    checked against what may be picked now."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    choice = (request.form.get("choice") or "").strip()
    mode = request.form.get("mode") or "normal"
    allowed = {o.value: o for o in options(app, current_user)}
    if choice not in allowed:
        allowed = {o.value: o for o in options(app, current_user, fresh=True)}
    if choice not in allowed:
        raise InvalidInput("That model is not available here now: open the list again and"
                           " pick another.")
    conversation = engine().current_conversation(uid()) if mode == "normal" else None
    users(app).choose_model(current_user.id, conversation, choice)
    option = allowed[choice]
    if wants_json() or request.headers.get("Accept", "").startswith("application/json"):
        return {"ok": True, "current": choice, "name": option.name, "where": option.where}
    flash(f"This conversation now uses {option.name} ({option.where}).", "info")
    return redirect(url_for("chat.index", mode=mode if mode != "normal" else None))
