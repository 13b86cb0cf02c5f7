"""Import a dialogue: upload or paste, preview (writes nothing), then run as a stored job."""

from __future__ import annotations

import base64
import time
import uuid
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, url_for
from flask_login import current_user, login_required

from memoryos_core import InvalidInput
from memoryos_core.storage import jobs_rows

from .forms import ImportForm, RunImportForm
from .jobs import get as get_job
from .jobs import latest
from .models import user_chat_model
from .rendering import engine, is_htmx, page, uid, wants_json

bp = Blueprint("imports", __name__)
PREVIEWS_KEPT = 3  # previews (uploads awaiting "Import") kept per user
UPLOAD_KIND = "dialogue"


def _keep_upload(token: str, data: bytes) -> None:
    """Keep a previewed upload in the store (any host may run it); old previews go."""
    store = engine().store
    jobs_rows.sweep_uploads(store, time.time() - float(current_app.config["UPLOAD_TTL_SECONDS"]))
    jobs_rows.put_upload(store, token, uid(), UPLOAD_KIND, data, PREVIEWS_KEPT)


def _claim_upload(token: str) -> bytes:
    """Take a previewed upload exactly once, so a second run fails."""
    data = jobs_rows.take_upload(engine().store, token, uid(), UPLOAD_KIND)
    if data is None:
        raise InvalidInput("This preview has expired or was already imported; upload again.")
    return data


def run_import_job(app: Any, user_id: str, payload: dict[str, Any], progress: Any,
                   ) -> dict[str, Any]:
    """The stored import job: any worker of any host runs it (again, after a crash)."""
    eng = app.extensions["memoryos"]
    source = base64.b64decode(payload["source"])
    report = eng.import_dialogue(user_id, source, progress=progress,  # the account's model:
                                 **payload["options"])  # chosen by the engine's resolver
    report.pop("exchange_ids", None)
    return dict(report)


@bp.record_once
def _register(state: Any) -> None:
    app = state.app
    app.extensions["memoryos"].jobs.register(
        "import", lambda user_id, payload, progress: run_import_job(app, user_id, payload,
                                                                    progress))


def _form_error(form: Any) -> InvalidInput:
    return InvalidInput("; ".join(f"{name}: {e}" for name, errs in form.errors.items()
                                  for e in errs) or "invalid form")


def _source(form: ImportForm) -> bytes:
    """The uploaded file, else the pasted text, as bytes."""
    upload = form.upload.data
    if upload is not None and getattr(upload, "filename", ""):
        data = upload.read()
        if data:
            return bytes(data)
    if form.text.data and form.text.data.strip():
        return form.text.data.encode("utf-8")
    raise InvalidInput("Choose a file or paste a dialogue to import.")


def _options(form: Any) -> dict[str, Any]:
    return {"fmt": form.format.data or "auto", "speaker": (form.speaker.data or "").strip() or None,
            "select": (form.select.data or "").strip() or None}


@bp.get("/import.json")
@bp.get("/import")
@login_required
def index() -> Any:
    return page("import.html", form=ImportForm(), job=latest("import"),
                _max_text_chars=engine().config.max_text_chars)


@bp.post("/import/preview.json")
@bp.post("/import/preview")
@login_required
def preview() -> Any:
    """Validate and describe the import; keep the source server-side under a random token."""
    form = ImportForm()
    if not form.validate_on_submit():
        raise _form_error(form)
    source, options = _source(form), _options(form)
    result = engine().preview_import(uid(), source, **options)
    token = uuid.uuid4().hex
    _keep_upload(token, source)
    run_form = RunImportForm(formdata=None, token=token, format=options["fmt"],
                             speaker=options["speaker"] or "", select=options["select"] or "")
    data = {"preview": result, "token": token, "run_form": run_form}
    if is_htmx() and not wants_json():
        return render_template("_import_preview.html", **data)
    return page("import_preview.html", **data)


@bp.post("/import/run.json")
@bp.post("/import/run")
@login_required
def run() -> Any:
    """Start the import job from a preview token (or a direct upload/paste)."""
    form = RunImportForm()
    if form.token.data:
        if not form.validate_on_submit():
            raise _form_error(form)
        source = _claim_upload(form.token.data)
    else:
        form = ImportForm()
        if not form.validate_on_submit():
            raise _form_error(form)
        source = _source(form)
    options = _options(form)
    user_id, eng = uid(), engine()
    user_chat_model(current_user)  # a disallowed endpoint fails here, before a job
    eng.preview_import(user_id, source, **options)  # malformed input fails here, before a job
    job_id = eng.jobs.submit(user_id, "import", {
        "source": base64.b64encode(source).decode("ascii"), "options": options})
    job = get_job(job_id)
    if wants_json():
        return page("_job.html", job=job)
    if is_htmx():
        return render_template("_job.html", job=job)
    return redirect(url_for("imports.index"))
