"""Read models for inspection: the whole memory state and the structured profile."""

from __future__ import annotations

import json
import time
from typing import Any

from ..context import Context
from ..errors import NotFound
from ..storage import exchanges as rows_db
from ..storage import persona_rows, state_rows
from . import fact_history, signals
from .consolidation import pending_pages
from .heat import heat_terms
from .persona import FAMILIES


def page_view(row: dict[str, Any]) -> dict[str, Any]:
    """A page or exchange as inspection shows it."""
    return {
        "id": row["id"], "user": row["user_text"], "assistant": row["assistant_text"],
        "timestamp": row["ts"], "tier": row["tier"], "segment_id": row["segment_id"],
        "prev_id": row["prev_id"], "next_id": row["next_id"], "overview": row["overview"],
        "keywords": json.loads(row["keywords"]), "analysed": bool(row["analysed"]),
        "source": row["source"],
    }


def segment_views(ctx: Context, user_id: str, with_pages: bool = True,
                  segment_id: int | None = None) -> list[dict[str, Any]]:
    """Segments, hottest first, with heat terms and (optionally) their pages in order."""
    now = time.time()
    exact: list[tuple[float, dict[str, Any]]] = []
    pages_by_segment: dict[int, list[dict[str, Any]]] = {}
    if with_pages:
        for row in rows_db.filed_page_rows(ctx.store, user_id, segment_id):
            pages_by_segment.setdefault(row["segment_id"], []).append(page_view(row))
    for seg in state_rows.segment_rows_with_counts(ctx.store, user_id, segment_id):
        terms = heat_terms(seg, ctx.config, now)
        view = {
            "id": seg["id"], "summary": seg["summary"], "keywords": json.loads(seg["keywords"]),
            "heat": round(terms["heat"], 4), "n_visit": terms["n_visit"],
            "l_interaction": terms["l_interaction"], "recency": round(terms["recency"], 4),
            "last_visit": seg["last_visit"], "created_at": seg["created_at"],
            "analysed_at": seg["analysed_at"], "page_count": seg["page_count"],
            "unanalysed_pages": seg["unanalysed"],
        }
        if with_pages:
            view["pages"] = pages_by_segment.get(seg["id"], [])
        exact.append((terms["heat"], view))
    # order by the exact heat: rounded values tie and their order would drift with the clock
    exact.sort(key=lambda hv: (-hv[0], hv[1]["id"]))
    return [view for _, view in exact]


def fact_view(row: dict[str, Any]) -> dict[str, Any]:
    """A fact as inspection shows it: sources, and since when / until when it held."""
    return {"id": row["id"], "text": row["text"], "sources": json.loads(row["sources"]),
            "created_at": row["created_at"], "updated_at": row["updated_at"],
            "valid_from": row["valid_from"], "valid_until": row["valid_until"],
            "superseded_by": row["superseded_by"], "by_user": bool(row.get("by_user"))}


def fact_views(ctx: Context, user_id: str, kind: str) -> list[dict[str, Any]]:
    """One fact list with sources, replaced facts included."""
    return [fact_view(r) for r in state_rows.fact_rows(ctx.store, user_id, kind)]


def fact_timelines(ctx: Context, user_id: str, kind: str) -> list[dict[str, Any]]:
    """One fact list as it holds now, each fact with `history`: the values it replaced,
    newest first, each with its dates."""
    return [dict(fact_view(t["fact"]), history=[fact_view(h) for h in t["history"]])
            for t in fact_history.timeline(state_rows.fact_rows(ctx.store, user_id, kind))]


def profile_rows(ctx: Context, user_id: str) -> list[dict[str, Any]]:
    """Stored profile dimensions: a model's level and reason, or (level None) the signals
    without a model, the user's sentences with their pages; `summary` says which, with counts."""
    out = []
    for r in state_rows.profile_rows(ctx.store, user_id):
        evidence, found = json.loads(r["evidence"]), json.loads(r["signals"])
        out.append({"dimension": r["dimension"], "family": r["family"], "level": r["level"],
                    "reason": r["reason"], "evidence": evidence, "signals": found,
                    "kind": "level" if r["level"] else "signals",
                    "summary": f"{r['level']}: {r['reason']}" if r["level"]
                    else signals.summary(found, evidence),
                    "updated_at": r["updated_at"], "by_user": bool(r.get("by_user"))})
    return out


def build_profile(ctx: Context, user_id: str) -> dict[str, Any]:
    """The profile grouped by the three families, in the families' declared order."""
    rows = profile_rows(ctx, user_id)
    families = []
    for family, dims in FAMILIES.items():
        order = {d: i for i, d in enumerate(dims)}
        items = sorted((r for r in rows if r["family"] == family),
                       key=lambda r: order.get(r["dimension"], 999))
        families.append({"family": family, "dimensions": items})
    notes = state_rows.note_rows(ctx.store, user_id)
    return {"families": families, "count": len(rows), "notes": notes,
            "levels": sum(1 for r in rows if r["level"]),
            "signal_dimensions": sum(1 for r in rows if not r["level"])}


def build_state(ctx: Context, user_id: str) -> dict[str, Any]:
    """The whole memory of a user: short-term, mid-term, long-term, pending work."""
    cfg = ctx.config
    short = [page_view(r) for r in rows_db.short_term_rows(ctx.store, user_id)]
    pending = [page_view(r) for r in pending_pages(ctx, user_id)]
    segments = segment_views(ctx, user_id)
    user_state = persona_rows.user_state(ctx.store, user_id)
    pages_total = sum(len(s["pages"]) for s in segments) + len(pending)
    return {
        "user_id": user_id,
        "short_term": {"count": len(short), "capacity": cfg.short_term_capacity,
                       "exchanges": short},
        "mid_term": {
            "count": len(segments), "capacity": cfg.mid_term_capacity, "segments": segments,
            "pending_pages": pending, "page_count": pages_total,
            "chain_overview": user_state["overview"] if user_state else "",
            "heat_threshold": cfg.heat_threshold,
        },
        "long_term": {
            "profile": profile_rows(ctx, user_id),
            "user_facts": fact_timelines(ctx, user_id, "user"),
            "assistant_facts": fact_timelines(ctx, user_id, "assistant"),
            "fact_capacity": cfg.fact_capacity,
        },
        "pending_work": {
            "pages_to_consolidate": len(pending),
            "segments_to_analyse": sum(1 for s in segments if s["unanalysed_pages"]
                                       and s["heat"] >= cfg.heat_threshold),
            "unanalysed_pages": sum(s["unanalysed_pages"] for s in segments),
        },
    }


def one_segment(ctx: Context, user_id: str, segment_id: int) -> dict[str, Any]:
    """One segment of this user with its pages (NotFound otherwise)."""
    found = segment_views(ctx, user_id, segment_id=segment_id)
    if not found:
        raise NotFound(f"no segment {segment_id}")
    return found[0]


def one_page(ctx: Context, user_id: str, page_id: int) -> dict[str, Any]:
    """One exchange or page of this user, with the facts and profile rows it supports."""
    row = rows_db.exchange_row(ctx.store, user_id, page_id)
    if row is None:
        raise NotFound(f"no page {page_id}")
    view = page_view(row)
    view["facts"] = [dict(f, kind=kind) for kind in ("user", "assistant")
                     for f in fact_views(ctx, user_id, kind) if page_id in f["sources"]]
    view["profile"] = [p for p in profile_rows(ctx, user_id) if page_id in p["evidence"]]
    return view


def recent_exchanges(ctx: Context, user_id: str, limit: int = 50) -> list[dict[str, Any]]:
    """The newest exchanges of any tier, oldest first: the chat history."""
    rows = rows_db.recent_exchange_rows(ctx.store, user_id, limit)
    return [page_view(r) for r in reversed(rows)]
