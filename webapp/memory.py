"""Memory inspection: tiers, gauges and heat chart, segments, pages with chain links, events."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from flask_login import login_required

from .rendering import engine, page, uid

bp = Blueprint("memory", __name__)


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
    seg = engine().segment(uid(), segment_id)
    return page("segment.html", segment=seg, heat_threshold=engine().config.heat_threshold)


@bp.get("/memory/pages/<int:page_id>.json")
@bp.get("/memory/pages/<int:page_id>")
@login_required
def page_view(page_id: int) -> Any:
    item = engine().page(uid(), page_id)
    facts, profile = item.pop("facts"), item.pop("profile")
    return page("page.html", page=item, facts=facts, profile=profile)


@bp.get("/memory/events.json")
@bp.get("/memory/events")
@login_required
def events() -> Any:
    return page("events.html", events=engine().events(uid()))
