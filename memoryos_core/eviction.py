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
        record: dict[str, Any] = {
            "segment": {"id": seg["id"], "summary": seg["summary"],
                        "keywords": json.loads(seg["keywords"]),
                        **heat_terms(seg, ctx.config, now)},
            "pages": pages,
        }
        conn.execute("DELETE FROM segments WHERE id = ?", (seg["id"],))  # pages cascade
        record["evidence_dropped"] = _drop_evidence(conn, user_id, {p["id"] for p in pages})
        ctx.store.log_event(conn, user_id, "eviction", record)
        evicted.append({"segment_id": seg["id"], "pages": len(pages)})
    return evicted


def _drop_evidence(conn: sqlite3.Connection, user_id: str, gone: set[int]) -> int:
    """Remove evicted page ids from facts' sources and profile evidence (no dead links).

    Facts and profile rows stay: long-term memory outlives the dialogue it came from, and the
    event log keeps the evicted pages' text. Returns how many rows lost evidence.
    """
    if not gone:
        return 0
    changed = 0
    for table, key, column in (("facts", "id", "sources"), ("profile", "dimension", "evidence")):
        for row in conn.execute(f"SELECT {key}, {column} FROM {table} WHERE user_id = ?",
                                (user_id,)).fetchall():
            ids = json.loads(row[1])
            kept = [i for i in ids if i not in gone]
            if len(kept) != len(ids):
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE user_id = ? AND {key} = ?",
                             (json.dumps(kept), user_id, row[0]))
                changed += 1
    return changed
