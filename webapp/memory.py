"""Memory inspection: tiers, gauges and heat chart, segments, pages with chain links, events."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from flask_login import login_required

from memoryos_core import NotFound

from .rendering import engine, page, uid

bp = Blueprint("memory", __name__)


def _find_page(state: dict[str, Any], page_id: int) -> dict[str, Any]:
    """A page (or short-term exchange) of this user from the state (the engine has no getter)."""
    pools = [state["short_term"]["exchanges"], state["mid_term"]["pending_pages"],
             *[s["pages"] for s in state["mid_term"]["segments"]]]
    for pool in pools:
        for item in pool:
            if item["id"] == page_id:
                return dict(item)
    raise NotFound(f"no page {page_id}")


def _segment(state: dict[str, Any], segment_id: int) -> dict[str, Any]:
    for seg in state["mid_term"]["segments"]:
        if seg["id"] == segment_id:
            return dict(seg)
    raise NotFound(f"no segment {segment_id}")


@bp.get("/memory.json")
@bp.get("/memory")
@login_required
def index() -> Any:
    state = engine().state(uid())
    state.pop("user_id", None)
    return page("memory.html", **state)


@bp.get("/memory/segments/<int:segment_id>.json")
@bp.get("/memory/segments/<int:segment_id>")
@login_required
def segment(segment_id: int) -> Any:
    state = engine().state(uid())
    seg = _segment(state, segment_id)
    return page("segment.html", segment=seg, heat_threshold=state["mid_term"]["heat_threshold"])


@bp.get("/memory/pages/<int:page_id>.json")
@bp.get("/memory/pages/<int:page_id>")
@login_required
def page_view(page_id: int) -> Any:
    state = engine().state(uid())
    item = _find_page(state, page_id)
    facts = [dict(f, kind=kind) for kind in ("user", "assistant")
             for f in state["long_term"][f"{kind}_facts"] if page_id in f["sources"]]
    profile = [p for p in state["long_term"]["profile"] if page_id in p["evidence"]]
    return page("page.html", page=item, facts=facts, profile=profile)


@bp.get("/memory/events.json")
@bp.get("/memory/events")
@login_required
def events() -> Any:
    return page("events.html", events=engine().events(uid()))
