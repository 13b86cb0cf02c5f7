"""Read models for inspection: the whole memory state and the structured profile."""

from __future__ import annotations

import json
import time
from typing import Any, NotRequired, TypedDict

from ..context import Context
from ..errors import NotFound
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import notes as notes_db
from ..storage.tables import pages as pages_db
from ..storage.tables import profile as profile_db
from ..storage.tables import segments as segments_db
from ..storage.tables import user_state as user_state_db
from ..storage.tables.exchanges import Exchange
from ..storage.tables.facts import Fact
from . import fact_history, signals
from .consolidation import pending_pages
from .heat import heat_terms
from .persona import FAMILIES


class PageView(TypedDict):
    """A page or exchange as inspection shows it."""

    id: int
    user: str
    assistant: str
    timestamp: float
    tier: str
    segment_id: int | None
    prev_id: int | None
    next_id: int | None
    overview: str | None
    keywords: list[str]
    analysed: bool
    source: str | None


class FactView(TypedDict):
    """A fact as inspection shows it: sources, and since when / until when it held."""

    id: int
    text: str
    sources: list[int]
    created_at: float
    updated_at: float | None
    valid_from: float | None
    valid_until: float | None
    superseded_by: int | None
    by_user: bool
    origin: str  # where an imported fact came from ("imported from Claude memory"), or ''


class FactTimeline(FactView):
    """A current fact with the values it replaced, newest first."""

    history: list[FactView]


class PageFact(FactView):
    """A fact a page supports, with its list."""

    kind: str


class ProfileView(TypedDict):
    """A stored profile dimension as inspection shows it."""

    dimension: str
    family: str
    level: str | None
    reason: str | None
    evidence: list[int]
    signals: list[dict[str, Any]]  # the user's sentences with their pages (signals.py)
    kind: str  # "level" or "signals"
    summary: str
    updated_at: float | None
    by_user: bool


class PageDetail(PageView):
    """One page with the facts and profile rows it supports."""

    facts: list[PageFact]
    profile: list[ProfileView]


class SegmentView(TypedDict):
    """A segment with its heat terms and (when asked) its pages in order."""

    id: int
    summary: str
    keywords: list[str]
    heat: float
    n_visit: float
    l_interaction: float
    recency: float
    last_visit: float | None
    created_at: float
    analysed_at: float | None
    page_count: int
    unanalysed_pages: int
    pages: NotRequired[list[PageView]]


class Family(TypedDict):
    """One profile family and its dimensions in the declared order."""

    family: str
    dimensions: list[ProfileView]


class Profile(TypedDict):
    """The profile grouped by family, with the imported notes and counts."""

    families: list[Family]
    count: int
    notes: list[dict[str, Any]]  # imported notes as stored (kind, text, source, created_at)
    levels: int
    signal_dimensions: int
    imported_facts: list[FactView]  # facts brought from another assistant's saved memories


class ShortTermFill(TypedDict):
    """How full short-term memory is."""

    count: int
    capacity: int


class ShortTermView(ShortTermFill):
    exchanges: list[PageView]


class MidTermView(TypedDict):
    count: int
    capacity: int
    segments: list[SegmentView]
    pending_pages: list[PageView]
    page_count: int
    chain_overview: str
    heat_threshold: float


class LongTermView(TypedDict):
    profile: list[ProfileView]
    user_facts: list[FactTimeline]
    assistant_facts: list[FactTimeline]
    fact_capacity: int


class PendingWork(TypedDict):
    pages_to_consolidate: int
    segments_to_analyse: int
    unanalysed_pages: int


class State(TypedDict):
    """The whole memory of a user, tier by tier."""

    user_id: str
    short_term: ShortTermView
    mid_term: MidTermView
    long_term: LongTermView
    pending_work: PendingWork


def page_view(ex: Exchange) -> PageView:
    """A page or exchange as inspection shows it."""
    return {
        "id": ex.id, "user": ex.user_text, "assistant": ex.assistant_text,
        "timestamp": ex.ts, "tier": ex.tier, "segment_id": ex.segment_id,
        "prev_id": ex.prev_id, "next_id": ex.next_id, "overview": ex.overview,
        "keywords": list(ex.keywords), "analysed": ex.analysed, "source": ex.source,
    }


def segment_views(ctx: Context, user_id: str, with_pages: bool = True,
                  segment_id: int | None = None) -> list[SegmentView]:
    """Segments, hottest first, with heat terms and (optionally) their pages in order."""
    now = time.time()
    exact: list[tuple[float, SegmentView]] = []
    pages_by_segment: dict[int, list[PageView]] = {}
    if with_pages:
        for row in pages_db.filed_page_rows(ctx.store, user_id, segment_id):
            if row.segment_id is not None:  # filed pages: always
                pages_by_segment.setdefault(row.segment_id, []).append(page_view(row))
    for seg, page_count, unanalysed in segments_db.segments_with_counts(ctx.store, user_id,
                                                                        segment_id):
        terms = heat_terms(seg, ctx.config, now)
        view: SegmentView = {
            "id": seg.id, "summary": seg.summary, "keywords": list(seg.keywords),
            "heat": round(terms["heat"], 4), "n_visit": terms["n_visit"],
            "l_interaction": terms["l_interaction"], "recency": round(terms["recency"], 4),
            "last_visit": seg.last_visit, "created_at": seg.created_at,
            "analysed_at": seg.analysed_at, "page_count": page_count,
            "unanalysed_pages": unanalysed,
        }
        if with_pages:
            view["pages"] = pages_by_segment.get(seg.id, [])
        exact.append((terms["heat"], view))
    # order by the exact heat: rounded values tie and their order would drift with the clock
    exact.sort(key=lambda hv: (-hv[0], hv[1]["id"]))
    return [view for _, view in exact]


def fact_view(fact: Fact) -> FactView:
    """A fact as inspection shows it: sources, and since when / until when it held."""
    return {"id": fact.id, "text": fact.text, "sources": list(fact.sources),
            "created_at": fact.created_at, "updated_at": fact.updated_at,
            "valid_from": fact.valid_from, "valid_until": fact.valid_until,
            "superseded_by": fact.superseded_by, "by_user": fact.by_user, "origin": fact.origin}


def fact_views(ctx: Context, user_id: str, kind: str) -> list[FactView]:
    """One fact list with sources, replaced facts included."""
    return [fact_view(r) for r in facts_db.fact_rows(ctx.store, user_id, kind)]


def fact_timelines(ctx: Context, user_id: str, kind: str) -> list[FactTimeline]:
    """One fact list as it holds now, each fact with `history`: the values it replaced,
    newest first, each with its dates."""
    return [FactTimeline(**fact_view(fact), history=[fact_view(h) for h in history])
            for fact, history in fact_history.timeline(facts_db.fact_rows(ctx.store, user_id, kind))]


def profile_rows(ctx: Context, user_id: str) -> list[ProfileView]:
    """Stored profile dimensions: a model's level and reason, or (level None) the signals
    without a model, the user's sentences with their pages; `summary` says which, with counts."""
    out: list[ProfileView] = []
    for r in profile_db.profile_rows(ctx.store, user_id):
        evidence, found = json.loads(r["evidence"]), json.loads(r["signals"])
        out.append({"dimension": r["dimension"], "family": r["family"], "level": r["level"],
                    "reason": r["reason"], "evidence": evidence, "signals": found,
                    "kind": "level" if r["level"] else "signals",
                    "summary": f"{r['level']}: {r['reason']}" if r["level"]
                    else signals.summary(found, evidence),
                    "updated_at": r["updated_at"], "by_user": bool(r.get("by_user"))})
    return out


def build_profile(ctx: Context, user_id: str) -> Profile:
    """The profile grouped by the three families, in the families' declared order."""
    rows = profile_rows(ctx, user_id)
    families: list[Family] = []
    for family, dims in FAMILIES.items():
        order = {d: i for i, d in enumerate(dims)}
        items = sorted((r for r in rows if r["family"] == family),
                       key=lambda r: order.get(r["dimension"], 999))
        families.append({"family": family, "dimensions": items})
    notes = notes_db.note_rows(ctx.store, user_id)
    return {"families": families, "count": len(rows), "notes": notes,
            "levels": sum(1 for r in rows if r["level"]),
            "signal_dimensions": sum(1 for r in rows if not r["level"]),
            "imported_facts": [f for kind in ("user", "assistant")
                               for f in fact_views(ctx, user_id, kind)
                               if f["origin"] and not f["valid_until"]]}


def build_state(ctx: Context, user_id: str) -> State:
    """The whole memory of a user: short-term, mid-term, long-term, pending work."""
    cfg = ctx.config
    short = [page_view(Exchange.from_row(r))
             for r in exchanges_db.short_term_rows(ctx.store, user_id)]
    pending = [page_view(Exchange.from_row(r)) for r in pending_pages(ctx, user_id)]
    segments = segment_views(ctx, user_id)
    user_state = user_state_db.user_state(ctx.store, user_id)
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


def one_segment(ctx: Context, user_id: str, segment_id: int) -> SegmentView:
    """One segment of this user with its pages (NotFound otherwise)."""
    found = segment_views(ctx, user_id, segment_id=segment_id)
    if not found:
        raise NotFound(f"no segment {segment_id}")
    return found[0]


def one_page(ctx: Context, user_id: str, page_id: int) -> PageDetail:
    """One exchange or page of this user, with the facts and profile rows it supports."""
    row = exchanges_db.exchange_row(ctx.store, user_id, page_id)
    if row is None:
        raise NotFound(f"no page {page_id}")
    facts = [PageFact(**f, kind=kind) for kind in ("user", "assistant")
             for f in fact_views(ctx, user_id, kind) if page_id in f["sources"]]
    profile = [p for p in profile_rows(ctx, user_id) if page_id in p["evidence"]]
    return PageDetail(**page_view(row), facts=facts, profile=profile)


def recent_exchanges(ctx: Context, user_id: str, limit: int = 50) -> list[PageView]:
    """The newest exchanges of any tier, oldest first: the chat history."""
    rows = exchanges_db.recent_exchange_rows(ctx.store, user_id, limit)
    return [page_view(Exchange.from_row(r)) for r in reversed(rows)]
