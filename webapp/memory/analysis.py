"""Forced analysis: every segment with unanalysed pages, as a stored job; what changed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask
from flask_login import current_user

from ..actions import job_started, twin
from ..extensions import engine, uid
from ..forms import EmptyForm
from ..job_status import get as get_job
from ..job_status import latest
from ..models import user_chat_model
from ..rendering import page

bp = Blueprint("analysis", __name__)


def register_jobs(app: Flask) -> None:
    """Forced analysis is a stored job: any worker of any host runs it (again, after a crash)."""
    eng = app.extensions["memoryos"]
    eng.jobs.register("analysis", lambda user_id, payload, progress: eng.force_analysis(
        user_id, progress=progress))  # the engine's resolver gives the account's model


@twin(bp, "/analysis")
def index() -> Any:
    state = engine().state(uid())
    return page("analysis.html", form=EmptyForm(), job=latest("analysis"),
                pending=state["pending_work"])


@twin(bp, "/analysis/run", methods=["POST"])
def run() -> Any:
    user_chat_model(current_user)  # a disallowed endpoint fails here, before a job
    return job_started(get_job(engine().jobs.submit(uid(), "analysis", coalesce=True)),
                       "analysis.index")
