"""How a view is routed and how a POST ends: the page and its .json twin; JSON, or flash and redirect."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, flash, redirect, render_template, url_for
from flask_login import login_required

from .rendering import is_htmx, page, wants_json

View = Callable[..., Any]


def twin(bp: Blueprint, rule: str, methods: Iterable[str] = ("GET",),
         login: bool = True) -> Callable[[View], View]:
    """Route a view at `rule` and at `rule`.json, behind the login unless `login` is False.

    The HTML rule is added first: url_for builds an endpoint's first rule.
    """
    def wrap(view: View) -> View:
        guarded = login_required(view) if login else view
        for path in (rule, f"{rule}.json"):
            bp.add_url_rule(path, view_func=guarded, methods=list(methods))
        return guarded

    return wrap


def done(message: str, endpoint: str, /, flash_as: str = "info", **data: Any) -> Any:
    """A POST's end: the .json twin's {"ok": true, ...data}, else the message flashed (as
    `flash_as`: "info" or "error") and a redirect to `endpoint`."""
    if wants_json():
        return page("", **data)
    flash(message, flash_as)
    return redirect(url_for(endpoint))


def job_started(job: dict[str, Any], endpoint: str) -> Any:
    """A POST that queued a job: the job as JSON, its progress fragment (htmx), or a redirect
    to the page that shows it."""
    if wants_json():
        return page("_job.html", job=job)
    if is_htmx():
        return render_template("_job.html", job=job)
    return redirect(url_for(endpoint))
