"""Conversations: a new one starts with the short-term queue moved to mid-term; Regenerate and
Edit replace a short-term exchange in place, its earlier answer kept in the trace."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from ..context import Context
from ..errors import InvalidInput
from ..storage import BaseStore
from ..storage.db import Connection
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import traces as traces_db
from .admission import NewExchange

NO_LONGER_SHORT = ("exchange {id} has left short-term memory (it is a mid-term page now), so it"
                   " can no longer be edited or regenerated; forget or correct the page instead")


def new_conversation(ctx: Context, user_id: str) -> list[int]:
    """End the current conversation: its short-term exchanges become pending mid-term pages
    (the overflow path, as if the queue had filled); the next exchange starts a new one."""
    with ctx.store.transaction(user_id) as conn:
        moved = exchanges_db.overflow_to_mid_term(conn, user_id, 0, time.time())
        ctx.store.log_event(conn, user_id, "new conversation", {"moved_to_mid_term": moved})
    return moved


def rows_before(short_rows: list[dict[str, Any]], replaces: int) -> list[dict[str, Any]]:
    """The short-term rows a replacing answer's prompt shows: those before the exchange it
    replaces (its old answer and anything after it are not the conversation being redone)."""
    for n, row in enumerate(short_rows):
        if int(row["id"]) == replaces:
            return short_rows[:n]
    raise InvalidInput(NO_LONGER_SHORT.format(id=replaces))


def replace(conn: Connection, store: BaseStore, user_id: str, exchange_id: int,
            new: NewExchange, vector: np.ndarray, trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Give a short-term exchange new texts, vector, keyword entry and trace, inside the
    caller's transaction; the answers it had stay in trace["previous_answers"], returned."""
    old = exchanges_db.short_term_texts(conn, user_id, exchange_id)
    if old is None:  # it moved on since the prompt was read (an import, a New chat)
        raise InvalidInput(NO_LONGER_SHORT.format(id=exchange_id))
    before = json.loads(old["trace"]) if old["trace"] else {}
    kept = list(before.get("previous_answers") or [])
    how = "regenerated" if old["user_text"] == new.user_text else "edited"
    kept.append({"user": old["user_text"], "answer": old["assistant_text"],
                 "model": before.get("model"), "how": how, "replaced_at": time.time()})
    exchanges_db.replace_texts(conn, user_id, exchange_id, new.user_text, new.assistant_text,
                               new.key, new.answered_by)
    store.put_vector(conn, user_id, "page", exchange_id, vector)  # not new: the old one goes
    traces_db.put_trace(conn, user_id, exchange_id, time.time(),
                      json.dumps({**trace, "previous_answers": kept}, ensure_ascii=False))
    return kept
