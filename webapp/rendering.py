"""Shared view helpers: safe Markdown, HTML-or-JSON twins, htmx fragments, time formatting."""

from __future__ import annotations

import datetime as dt
from typing import Any

import nh3
from flask import Flask, jsonify, render_template, request
from markdown_it import MarkdownIt
from markupsafe import Markup
from wtforms.form import BaseForm

_md = MarkdownIt("commonmark", {"html": False})


def markdown(text: str | None) -> Markup:
    """Model Markdown as HTML: raw HTML disabled in the parser, then nh3 as a second guard."""
    html = _md.render(text or "")
    return Markup(nh3.clean(html))  # noqa: S704 - cleaned by nh3 just above


def _utc(ts: float | None) -> dt.datetime | None:
    """A stored timestamp as a UTC datetime, or None (none, or outside what dates can say)."""
    if not ts:
        return None
    try:
        return dt.datetime.fromtimestamp(float(ts), dt.UTC)
    except (ValueError, OverflowError, OSError):
        return None


def when_text(ts: float | None) -> str:
    """A timestamp as plain text 'YYYY-MM-DD HH:MM UTC' (where no element may go), or a dash."""
    moment = _utc(ts)
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "—"


def when(ts: float | None) -> Markup | str:
    """A timestamp as a <time> element reading 'YYYY-MM-DD HH:MM UTC'; app.js shows it in the
    reader's own zone (named), so without JavaScript the zone is still said. A dash for none."""
    moment = _utc(ts)
    if moment is None:
        return "—"
    return Markup(f'<time datetime="{moment.strftime("%Y-%m-%dT%H:%MZ")}">'
                  f'{moment.strftime("%Y-%m-%d %H:%M")} UTC</time>')  # noqa: S704 - digits only


def duration(seconds: float) -> str:
    """A length of time in the largest whole unit: '2 weeks', '1 day', '90 minutes'."""
    seconds = int(seconds)
    for unit, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} seconds"


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def wants_json() -> bool:
    """A .json path, or a client that prefers JSON over HTML."""
    if request.path.endswith(".json"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and request.accept_mimetypes[best] > \
        request.accept_mimetypes["text/html"]


def page(template: str, **data: Any) -> Any:
    """One view, two faces: the HTML page, or {"ok": true, ...data} for the .json twin."""
    if wants_json():
        return jsonify({"ok": True, **{k: v for k, v in data.items()
                                        if not k.startswith("_") and not isinstance(v, BaseForm)}})
    return render_template(template, **data)


def fragment_or_page(fragment: str, template: str, **data: Any) -> Any:
    """An htmx request's fragment, else the page (or its .json twin)."""
    if is_htmx() and not wants_json():
        return render_template(fragment, **data)
    return page(template, **data)


def heat_bars(segments: list[dict[str, Any]], threshold: float, width: int = 560) -> dict[str, Any]:
    """Geometry of the server-rendered SVG bar chart of segment heat (hottest first)."""
    shown = segments[:20]
    top = max([s["heat"] for s in shown] + [threshold, 1e-9])
    row, label_w = 22, 70
    usable = width - label_w - 60
    bars = [{"id": s["id"], "y": i * row, "w": max(1.0, usable * s["heat"] / top),
             "heat": s["heat"], "hot": s["heat"] >= threshold} for i, s in enumerate(shown)]
    return {"bars": bars, "height": max(row, len(bars) * row) + 4, "width": width,
            "label_w": label_w, "threshold_x": label_w + usable * threshold / top,
            "more": max(0, len(segments) - len(shown))}


def event_items(detail: Any) -> list[tuple[str, str]]:
    """An event's detail as readable (label, value) pairs instead of raw JSON."""
    if not isinstance(detail, dict):
        return [("", str(detail)[:300])]
    items = []
    for key, value in detail.items():
        if isinstance(value, list):
            text = ", ".join(str(v) for v in value[:12]) + (" …" if len(value) > 12 else "")
            text = text or "none"
        elif isinstance(value, dict):
            text = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in value.items())
        elif isinstance(value, bool):
            text = "yes" if value else "no"
        else:
            text = str(value)
        items.append((str(key).replace("_", " "), text[:300]))
    return items


def init_app(app: Flask) -> None:
    app.jinja_env.filters["event_items"] = event_items
    app.jinja_env.filters["markdown"] = markdown
    app.jinja_env.filters["when"] = when
    app.jinja_env.filters["when_text"] = when_text
    app.jinja_env.filters["duration"] = duration
    app.jinja_env.globals["heat_bars"] = heat_bars
