"""What the engine and the hosts read of a user's memory, through the memory layer: the short-term
rows a turn reads once, the work maintenance finds waiting, a stored trace, notes, facts, page
overviews and every exchange in order. Nothing outside the memory layers calls a table module."""

from __future__ import annotations

from ..context import Context
from ..storage.tables import Rows
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import notes as notes_db
from ..storage.tables import pages as pages_db
from ..storage.tables import segments as segments_db
from ..storage.tables import traces as traces_db
from ..storage.tables.facts import Fact
from ..storage.tables.segments import Segment


def short_term_rows(ctx: Context, user_id: str) -> Rows:
    """The user's short-term exchanges, oldest first (a chat turn reads them once)."""
    return exchanges_db.short_term_rows(ctx.store, user_id)


def short_term_count(ctx: Context, user_id: str) -> int:
    """How many exchanges the user has in short-term memory."""
    return exchanges_db.short_term_count(ctx.store, user_id)


def maintenance_state(ctx: Context, user_id: str) -> tuple[int, list[Segment]]:
    """The pending page count and the segments holding unanalysed pages, in one statement."""
    return segments_db.maintenance_state(ctx.store, user_id)


def stored_trace(ctx: Context, user_id: str, exchange_id: int) -> str | None:
    """The stored trace (JSON text) of one answer of the user, or None."""
    return traces_db.trace_json(ctx.store, user_id, exchange_id)


def note_rows(ctx: Context, user_id: str) -> Rows:
    """The user's imported notes (kind, text, source, created_at), oldest first."""
    return notes_db.note_rows(ctx.store, user_id)


def fact_rows(ctx: Context, user_id: str, kind: str) -> list[Fact]:
    """One fact list of the user ('user' or 'assistant'), current and replaced, oldest first."""
    return facts_db.fact_rows(ctx.store, user_id, kind)


def page_overviews(ctx: Context, user_id: str, ids: list[int]) -> dict[int, str]:
    """The chain overview of some pages of the user, by id."""
    return pages_db.page_overviews(ctx.store, user_id, ids)


def all_exchanges(ctx: Context, user_id: str) -> Rows:
    """Every exchange of the user, of every tier, oldest first (dialogue time, then id)."""
    return list(reversed(exchanges_db.recent_exchange_rows(ctx.store, user_id, 10**9)))
