"""Import a dialogue: upload or paste, preview (writes nothing), then run as a stored job."""

from __future__ import annotations

import time
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
PREVIEWS_KEPT = 3  # previews (uploads awaiting "Import") kept per user


def _uploads() -> Path:
    folder = Path(current_app.config["DATA_DIR"]) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _upload_path(token: str) -> Path:
    return _uploads() / f"{uid()}-{token}.bin"


def _sweep_uploads(keep_mine: int = PREVIEWS_KEPT) -> None:
    """Delete previews past their time limit, and this user's beyond the newest few."""
    limit = time.time() - float(current_app.config["UPLOAD_TTL_SECONDS"])
    mine = []
    for path in _uploads().glob("*.bin"):
        try:
            if path.stat().st_mtime < limit:
                path.unlink(missing_ok=True)
            elif path.name.startswith(f"{uid()}-"):
                mine.append((path.stat().st_mtime, path))
        except FileNotFoundError:  # swept by another request meanwhile
            continue
    for _, path in sorted(mine, key=lambda item: item[0])[:max(0, len(mine) - keep_mine)]:
        path.unlink(missing_ok=True)


def _claim_upload(token: str) -> bytes:
    """Take a previewed upload exactly once: the rename is atomic, so a second run fails."""
    path = _upload_path(token)
    claimed = path.with_name(f"{path.stem}.{uuid.uuid4().hex}.claimed")
    try:
        path.rename(claimed)
    except FileNotFoundError:
        raise InvalidInput("This preview has expired or was already imported; upload again."
                           ) from None
    try:
        return claimed.read_bytes()
    finally:
        claimed.unlink(missing_ok=True)


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
    _sweep_uploads(PREVIEWS_KEPT - 1)
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
        source = _claim_upload(form.token.data)
    else:
        form = ImportForm()
        if not form.validate_on_submit():
            raise _form_error(form)
        source = _source(form)
    options = _options(form)
    user_id, eng, model = uid(), engine(), user_chat_model(current_user)
    eng.preview_import(user_id, source, **options)  # malformed input fails here, before a job

    def work(progress: Any) -> dict[str, Any]:
        report = eng.import_dialogue(user_id, source, progress=progress, model=model, **options)
        report.pop("exchange_ids", None)
        return report

    job_id = eng.jobs.start(user_id, "import", work)
    job = get_job(job_id)
    if wants_json():
        return page("_job.html", job=job)
    if is_htmx():
        return render_template("_job.html", job=job)
    return redirect(url_for("imports.index"))
