"""Stored background jobs as the pages show them: display status, percent and time left."""

from __future__ import annotations

import time
from typing import Any

from flask import current_app

from .extensions import engine, uid

ACTIVE = ("queued", "running")


def job_view(job: dict[str, Any] | None) -> dict[str, Any] | None:
    """A job with its display status: a running job nobody updated for long is 'interrupted'."""
    if job is None:
        return None
    view = dict(job)
    stale = current_app.config["JOB_STALE_SECONDS"]
    seen = max(float(view["updated_at"]), float(view.get("heartbeat_at") or 0))
    if view["status"] in ACTIVE and time.time() - seen > stale:
        view["status"] = "interrupted"
        view["error"] = view.get("error") or ("No worker has run this job for a while; it"
                                              " resumes when a server process is running.")
    view["active"] = view["status"] in ACTIVE
    total, done = view.get("total") or 0, view.get("done") or 0
    view["percent"] = 100 if view["status"] == "done" else (
        round(100 * done / total) if total else 0)
    view["eta"] = None
    if view["active"] and 0 < view["percent"] < 100:  # the rate so far, for what is left
        elapsed = float(view["updated_at"]) - float(view["created_at"])
        left = elapsed * (100 - view["percent"]) / view["percent"]
        view["eta"] = time_left(left)
    return view


def time_left(seconds: float) -> str:
    """What is left, as the progress line says it: "less than a minute left", "about 1
    minute left", "about 5 minutes left"."""
    if seconds < 60:
        return "less than a minute left"
    minutes = max(1, round(seconds / 60))
    return f"about {minutes} minute{'s' if minutes != 1 else ''} left"


def latest(kind: str) -> dict[str, Any] | None:
    """The user's newest job of a kind, for the page that started it."""
    jobs = engine().jobs.latest(uid(), kind, 1)
    return job_view(jobs[0]) if jobs else None


def get(job_id: str) -> dict[str, Any]:
    """One of the user's jobs (NotFound, hence 404, for anyone else's)."""
    return job_view(engine().jobs.get(uid(), job_id)) or {}
