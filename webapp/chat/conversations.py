"""Conversations (chat blueprint routes): New chat, the list, one read-only, "Load earlier"."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, request, url_for
from flask_login import login_required

from ..extensions import engine, maintainer, uid
from ..rendering import page, wants_json
from . import items as chat_items

PAGE = 30


@login_required
def new_chat() -> Any:
    """End the conversation (its short-term exchanges become mid-term pages) and start a new
    one; an unstored chat (temporary, memory off) just starts afresh in its mode."""
    mode = request.form.get("mode") or "normal"
    if mode in ("temporary", "off"):
        return redirect(url_for("chat.index", mode=mode))
    moved = engine().new_conversation(uid())
    if moved:
        maintainer().request(uid())  # file the new pages as a turn would
    if wants_json():
        return {"ok": True, "moved_to_mid_term": moved}
    return redirect(url_for("chat.index"))


@login_required
def listing() -> Any:
    """Every conversation, newest first (chats and imports)."""
    return page("conversations.html", conversations=engine().conversations(uid(), 500))


@login_required
def one(conversation_id: int) -> Any:
    """One conversation, read-only: its newest exchanges, or those before `before`."""
    before = request.args.get("before", type=int)
    shown = engine().conversation(uid(), conversation_id, PAGE, before)
    if wants_json():
        return page("conversation.html", conversation=shown)
    items = [chat_items.from_view(dict(v)) for v in shown["exchanges"]]
    if request.args.get("fragment") == "1":  # "Load earlier" in the chat: just the exchanges
        return render_template("_earlier.html", conversation=shown, history=items)
    return render_template("conversation.html", conversation=shown, history=items)
