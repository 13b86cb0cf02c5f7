"""Forced analysis: every segment with unanalysed pages, as a stored job; what changed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, url_for
from flask_login import current_user, login_required

from .forms import EmptyForm
from .jobs import get as get_job
from .jobs import latest
from .models import user_chat_model
from .rendering import engine, is_htmx, page, uid, wants_json

bp = Blueprint("analysis", __name__)


@bp.record_once
def _register(state: Any) -> None:
    """Forced analysis is a stored job: any worker of any host runs it (again, after a crash)."""
    app = state.app
    eng = app.extensions["memoryos"]
    eng.jobs.register("analysis", lambda user_id, payload, progress: eng.force_analysis(
        user_id, progress=progress))  # the engine's resolver gives the account's model


@bp.get("/analysis.json")
@bp.get("/analysis")
@login_required
def index() -> Any:
    state = engine().state(uid())
    return page("analysis.html", form=EmptyForm(), job=latest("analysis"),
                pending=state["pending_work"])


@bp.post("/analysis/run.json")
@bp.post("/analysis/run")
@login_required
def run() -> Any:
    user_id, eng = uid(), engine()
    user_chat_model(current_user)  # a disallowed endpoint fails here, before a job
    job_id = eng.jobs.submit(user_id, "analysis", coalesce=True)
    job = get_job(job_id)
    if wants_json():
        return page("_job.html", job=job)
    if is_htmx():
        return render_template("_job.html", job=job)
    return redirect(url_for("analysis.index"))
