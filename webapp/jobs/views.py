"""The job progress fragment (htmx polls it), its page and its JSON."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from ..actions import twin
from ..extensions import engine, uid
from ..job_status import get
from ..rendering import is_htmx, page

bp = Blueprint("jobs", __name__)


@twin(bp, "/jobs/<string(length=32):job_id>")
def show(job_id: str) -> Any:
    job = get(job_id)
    if is_htmx():
        # a job page's poll keeps that page's heading levels (?h=2)
        html = render_template("_job.html", job=job,
                               heading_level=2 if request.args.get("h") == "2" else 3)
        if job.get("kind") == "analysis" and not job["active"]:  # the page's counts too
            html += render_template("_analysis_pending.html", oob=True,
                                    pending=engine().state(uid())["pending_work"])
        return html
    return page("job.html", job=job)
