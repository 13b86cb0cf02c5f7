"""Capacity eviction: the coldest segments leave mid-term memory, recorded in the event log."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .context import Context
from .heat import heat_terms


def evict_overflow(
    ctx: Context, conn: sqlite3.Connection, user_id: str, now: float
) -> list[dict[str, Any]]:
    """Evict the coldest segments beyond capacity inside the caller's transaction."""
    rows = [dict(r) for r in conn.execute(
        "SELECT * FROM segments WHERE user_id = ?", (user_id,))]
    excess = len(rows) - ctx.config.mid_term_capacity
    if excess <= 0:
        return []
    rows.sort(key=lambda s: (heat_terms(s, ctx.config, now)["heat"], s["id"]))
    evicted = []
    for seg in rows[:excess]:
        pages = [dict(r) for r in conn.execute(
            "SELECT id, user_text, assistant_text, ts FROM exchanges WHERE segment_id = ?",
            (seg["id"],))]
        record = {
            "segment": {"id": seg["id"], "summary": seg["summary"],
                        "keywords": json.loads(seg["keywords"]),
                        **heat_terms(seg, ctx.config, now)},
            "pages": pages,
        }
        conn.execute("DELETE FROM segments WHERE id = ?", (seg["id"],))  # pages cascade
        ctx.store.log_event(conn, user_id, "eviction", record)
        evicted.append({"segment_id": seg["id"], "pages": len(pages)})
    return evicted
