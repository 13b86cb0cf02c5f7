"""Capacity eviction: the coldest segments leave mid-term memory, recorded in the event log."""

from __future__ import annotations

from ..context import Context
from ..storage.db import Connection
from ..storage.tables import facts as facts_db
from ..storage.tables import pages as pages_db
from ..storage.tables import profile as profile_db
from ..storage.tables import segments as segments_db
from .heat import heat_terms
from .reports import Evicted


def evict_overflow(
    ctx: Context, conn: Connection, user_id: str, now: float
) -> list[Evicted]:
    """Evict the coldest segments beyond capacity inside the caller's transaction."""
    rows = segments_db.user_segments(conn, user_id)
    excess = len(rows) - ctx.config.mid_term_capacity
    if excess <= 0:
        return []
    rows.sort(key=lambda s: (heat_terms(s, ctx.config, now)["heat"], s.id))
    evicted: list[Evicted] = []
    for seg in rows[:excess]:
        pages = pages_db.segment_pages(conn, user_id, seg.id)
        segment = {"id": seg.id, "summary": seg.summary, "keywords": list(seg.keywords),
                   **heat_terms(seg, ctx.config, now)}
        segments_db.delete_segment(conn, user_id, seg.id)  # pages cascade
        dropped = _drop_evidence(conn, user_id, {p["id"] for p in pages})
        ctx.store.log_event(conn, user_id, "eviction",
                            {"segment": segment, "pages": pages, "evidence_dropped": dropped})
        evicted.append({"segment_id": seg.id, "pages": len(pages)})
    return evicted


def _drop_evidence(conn: Connection, user_id: str, gone: set[int]) -> int:
    """Remove evicted page ids from facts' sources and profile evidence (no dead links).

    Facts and profile rows stay: long-term memory outlives the dialogue it came from, and the
    event log keeps the evicted pages' text. Returns how many rows lost evidence.
    """
    if not gone:
        return 0
    changed = 0
    for fact_id, ids in facts_db.fact_sources(conn, user_id):
        kept = [i for i in ids if i not in gone]
        if len(kept) != len(ids):
            facts_db.set_fact_sources(conn, user_id, fact_id, kept)
            changed += 1
    for dimension, ids, said in profile_db.profile_evidence(conn, user_id):
        kept = [i for i in ids if i not in gone]
        if len(kept) != len(ids):  # a signal keeps its sentence and loses its link
            unlinked = [dict(s, page=None) if s.get("page") in gone else s for s in said]
            profile_db.set_profile_evidence(conn, user_id, dimension, kept, unlinked)
            changed += 1
    return changed
