"""Import a reference MemoryOS data folder (uploaded as a zip): preview, then a stored job."""

from __future__ import annotations

import base64
import time
import uuid
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, url_for
from flask_login import login_required
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import StringField
from wtforms.validators import DataRequired, Length, Optional, Regexp

from memoryos_core import InvalidInput
from memoryos_core.storage import jobs_rows
from memoryos_core.transfer.reference_import import read_zip

from .jobs import get as get_job
from .jobs import latest
from .rendering import engine, is_htmx, page, uid, wants_json

bp = Blueprint("reference_imports", __name__)
KIND = "reference-import"


class FolderForm(FlaskForm):
    upload = FileField("Zip of the MemoryOS data folder (data_storage_path)")
    from_user = StringField("Which users/<id> (if it holds several)",
                            validators=[Optional(), Length(max=200)])
    assistant = StringField("Which assistants/<id> (if it holds several)",
                            validators=[Optional(), Length(max=200)])


class RunFolderForm(FlaskForm):
    token = StringField(validators=[DataRequired(), Regexp(r"^[0-9a-f]{32}$")])
    from_user = StringField(validators=[Optional(), Length(max=200)])
    assistant = StringField(validators=[Optional(), Length(max=200)])


UPLOAD_KIND = "reference-zip"


def run_reference_job(app: Any, user_id: str, payload: dict[str, Any], progress: Any,
                      ) -> dict[str, Any]:
    """The stored reference-import job (the zip travels in the job row)."""
    files = read_zip(base64.b64decode(payload["zip"]))
    return dict(app.extensions["memoryos"].import_reference(user_id, files, progress=progress,
                                                            **payload["choice"]))


@bp.record_once
def _register(state: Any) -> None:
    app = state.app
    app.extensions["memoryos"].jobs.register(
        KIND, lambda user_id, payload, progress: run_reference_job(app, user_id, payload,
                                                                   progress))


def _check(form: FlaskForm) -> None:
    if not form.validate_on_submit():
        raise InvalidInput("; ".join(f"{n}: {e}" for n, errs in form.errors.items()
                                     for e in errs) or "invalid form")


def _choice(form: Any) -> dict[str, str | None]:
    return {"ref_user": (form.from_user.data or "").strip() or None,
            "assistant": (form.assistant.data or "").strip() or None}


@bp.get("/import/memoryos.json")
@bp.get("/import/memoryos")
@login_required
def index() -> Any:
    return page("import_reference.html", form=FolderForm(), job=latest(KIND))


@bp.post("/import/memoryos/preview.json")
@bp.post("/import/memoryos/preview")
@login_required
def preview() -> Any:
    """Validate the whole folder and show what it holds; keep the zip under a random token."""
    form = FolderForm()
    _check(form)
    upload = form.upload.data
    data = upload.read() if upload is not None and getattr(upload, "filename", "") else b""
    if not data:
        raise InvalidInput("Choose a zip of the MemoryOS data folder to import.")
    choice = _choice(form)
    result = engine().preview_reference(uid(), read_zip(data), **choice)
    token = uuid.uuid4().hex
    store = engine().store
    jobs_rows.sweep_uploads(store, time.time() - float(current_app.config["UPLOAD_TTL_SECONDS"]))
    jobs_rows.put_upload(store, token, uid(), UPLOAD_KIND, data, keep=3)
    run_form = RunFolderForm(formdata=None, token=token, from_user=result["user"],
                             assistant=result["assistant"] or "")
    body = {"preview": result, "token": token, "run_form": run_form}
    if is_htmx() and not wants_json():
        return render_template("_reference_preview.html", **body)
    return page("import_reference.html", form=FolderForm(formdata=None), job=None, **body)


@bp.post("/import/memoryos/run.json")
@bp.post("/import/memoryos/run")
@login_required
def run() -> Any:
    """Start the import job from a preview token; a malformed folder fails before any job."""
    form = RunFolderForm()
    _check(form)
    data = jobs_rows.get_upload(engine().store, form.token.data, uid(), UPLOAD_KIND)
    if data is None:
        raise InvalidInput("This preview has expired or was already imported; upload again.")
    files, choice, user_id, eng = read_zip(data), _choice(form), uid(), engine()
    eng.preview_reference(user_id, files, **choice)  # a malformed folder fails before a job
    if jobs_rows.take_upload(eng.store, form.token.data, user_id, UPLOAD_KIND) is None:
        raise InvalidInput("This preview has expired or was already imported; upload again.")
    job = get_job(eng.jobs.submit(user_id, KIND, {
        "zip": base64.b64encode(data).decode("ascii"), "choice": choice}))
    if wants_json():
        return page("_job.html", job=job)
    if is_htmx():
        return render_template("_job.html", job=job)
    return redirect(url_for("reference_imports.index"))
