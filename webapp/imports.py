"""Import a dialogue: upload or paste, preview (writes nothing), then run as a stored job."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, url_for
from flask_login import current_user, login_required

from memoryos_core import InvalidInput

from .forms import ImportForm, RunImportForm
from .jobs import get as get_job
from .jobs import latest
from .models import user_chat_model
from .rendering import engine, is_htmx, page, uid, wants_json

bp = Blueprint("imports", __name__)


def _uploads() -> Path:
    folder = Path(current_app.config["DATA_DIR"]) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _upload_path(token: str) -> Path:
    return _uploads() / f"{uid()}-{token}.bin"


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
    return page("import.html", form=ImportForm(), job=latest("import"))


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
    _upload_path(token).write_bytes(source)
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
        path = _upload_path(form.token.data)
        if not path.exists():
            raise InvalidInput("This preview has expired or was already imported; upload again.")
        source = path.read_bytes()
    else:
        form = ImportForm()
        if not form.validate_on_submit():
            raise _form_error(form)
        source, path = _source(form), None
    options = _options(form)
    user_id, eng, model = uid(), engine(), user_chat_model(current_user)
    eng.preview_import(user_id, source, **options)  # malformed input fails here, before a job

    def work(progress: Any) -> dict[str, Any]:
        try:
            report = eng.import_dialogue(user_id, source, progress=progress, model=model,
                                         **options)
        finally:
            if path is not None:
                path.unlink(missing_ok=True)
        report.pop("exchange_ids", None)
        return report

    job_id = eng.jobs.start(user_id, "import", work)
    job = get_job(job_id)
    if wants_json():
        return page("_job.html", job=job)
    if is_htmx():
        return render_template("_job.html", job=job)
    return redirect(url_for("imports.index"))
