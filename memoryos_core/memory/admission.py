"""Admission: an exchange enters short-term memory; overflow becomes pending pages, atomically."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import EngineConfig
from ..errors import InvalidInput
from ..storage import BaseStore
from ..storage.db import Connection
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import traces as traces_db
from ..text import content_hash


@dataclass(frozen=True)
class NewExchange:
    """An exchange about to be admitted, checked and with its content key."""

    user_text: str
    assistant_text: str
    ts: float
    source: str = "chat"
    identity: str = ""  # replaces the time in the key when the source had no timestamp
    conversation: int | str = "current"  # its id, "new" or "current" (insert_exchange)
    answered_by: str = ""  # who wrote the answer (memory/provenance.py); '' imported or given

    @property
    def key(self) -> str:
        """Identity of the exchange for de-duplicating re-imports."""
        return content_hash(self.user_text, self.assistant_text,
                            self.identity or f"{self.ts:.0f}")

    @property
    def page_text(self) -> str:
        """The text that is embedded for retrieval."""
        return f"User: {self.user_text}\nAssistant: {self.assistant_text}"


def check_exchange(
    config: EngineConfig, user_text: Any, assistant_text: Any, timestamp: Any = None,
    source: str = "chat", where: str = "exchange", identity: str = "",
) -> NewExchange:
    """Validate one exchange; InvalidInput names the field that is wrong."""
    for field, value in (("user", user_text), ("assistant", assistant_text)):
        if not isinstance(value, str):
            raise InvalidInput(f"{where}: {field} text must be a string")
        if len(value) > config.max_text_chars:
            raise InvalidInput(
                f"{where}: {field} text is {len(value)} characters, over the limit of "
                f"{config.max_text_chars}"
            )
    if not user_text.strip() and not assistant_text.strip():
        raise InvalidInput(f"{where}: both texts are empty")
    if timestamp is None:
        ts = time.time()
    elif (isinstance(timestamp, int | float) and not isinstance(timestamp, bool)
          and -62135596800 <= timestamp <= 253402300799):  # years 1-9999; never NaN/inf
        ts = float(timestamp)
    else:
        raise InvalidInput(f"{where}: timestamp must be a number of seconds in years 1-9999")
    return NewExchange(user_text.strip(), assistant_text.strip(), ts, source, identity)


def admit(
    conn: Connection, store: BaseStore, config: EngineConfig, user_id: str,
    exchange: NewExchange, vector: np.ndarray, trace: str | None = None,
) -> tuple[int, list[int]]:
    """Insert one exchange (with its answer's trace, JSON text, when given) and move overflow
    to pending pages, inside the caller's transaction.

    Returns the new exchange id and the ids that became pending pages.
    """
    now = time.time()
    new_id = exchanges_db.insert_exchange(
        conn, user_id, exchange.user_text, exchange.assistant_text, exchange.ts, now,
        exchange.source, exchange.key, exchange.conversation, exchange.answered_by)
    store.put_vector(conn, user_id, "page", new_id, vector, new=True)
    if trace is not None:
        traces_db.insert_trace(conn, user_id, new_id, time.time(), trace)
    # Oldest first by dialogue time, then by admission order: imports may arrive out of order.
    overflow = exchanges_db.overflow_to_mid_term(conn, user_id, config.short_term_capacity, now)
    return new_id, overflow
