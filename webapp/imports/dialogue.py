"""Import a dialogue: upload or paste, preview (writes nothing), then run as a stored job."""

from __future__ import annotations

import base64
import re
import uuid
from typing import Any

from flask import Blueprint, Flask, render_template, request
from flask_login import current_user

from memoryos_core import InvalidInput
from memoryos_core.transfer.sniff import MAX_EXPANDED_BYTES

from ..actions import done, job_started, twin
from ..extensions import engine, uid
from ..forms import EmptyForm, ImportForm, RunImportForm, valid
from ..job_status import get as get_job
from ..job_status import latest
from ..models import user_chat_model
from ..rendering import fragment_or_page, is_htmx, page, wants_json
from . import uploads

bp = Blueprint("imports", __name__)
UPLOAD_KIND = "dialogue"
TOKEN = re.compile(r"[0-9a-f]{32}")
DISCARDED = "The preview was discarded and the uploaded file deleted."


def run_import_job(app: Any, user_id: str, payload: dict[str, Any], progress: Any,
                   ) -> dict[str, Any]:
    """The stored import job: any worker of any host runs it (again, after a crash)."""
    eng = app.extensions["memoryos"]
    source = base64.b64decode(payload["source"])
    report = eng.import_dialogue(user_id, source, progress=progress,  # the account's model:
                                 **payload["options"])  # chosen by the engine's resolver
    report.pop("exchange_ids", None)
    return dict(report)


def register_jobs(app: Flask) -> None:
    """Imports are stored jobs that any worker of any host runs."""
    # MEMPLAY_MAX_EXPANDED_BYTES: the upload limit does not bound what a ZIP unpacks to
    app.extensions["memoryos"].max_expanded_bytes = int(app.config.get(
        "MAX_EXPANDED_BYTES", MAX_EXPANDED_BYTES))
    app.extensions["memoryos"].jobs.register(
        "import", lambda user_id, payload, progress: run_import_job(app, user_id, payload,
                                                                    progress))


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


@twin(bp, "/import")
def index() -> Any:
    return page("import.html", form=ImportForm(), job=latest("import"),
                _max_text_chars=engine().config.max_text_chars)


@twin(bp, "/import/preview", methods=["POST"])
def preview() -> Any:
    """Validate and describe the import; keep the source server-side under a random token."""
    form = valid(ImportForm())
    source, options = _source(form), _options(form)
    result = engine().preview_import(uid(), source, **options)
    token: str | None = None
    facts = result.get("facts") or {}
    if result["to_import"] or result["replaces_memory"] or facts.get("new") or result.get(
            "partial"):  # nothing to run: the upload is not kept at all
        token = uuid.uuid4().hex
        uploads.keep(token, UPLOAD_KIND, source)
    run_form = RunImportForm(formdata=None, token=token or "", format=options["fmt"],
                             speaker=options["speaker"] or "", select=options["select"] or "")
    return fragment_or_page("_import_preview.html", "import_preview.html", preview=result,
                            token=token, run_form=run_form)


@twin(bp, "/import/discard", methods=["POST"])
def discard() -> Any:
    """Delete a previewed upload now (it would stay until it expires)."""
    valid(EmptyForm())  # the CSRF token
    token = request.form.get("token", "")
    if TOKEN.fullmatch(token):
        try:
            uploads.kept(token, UPLOAD_KIND, take=True)
        except InvalidInput:
            pass  # already gone (expired or imported): the outcome is the same
    if is_htmx() and not wants_json():
        return render_template("_import_discarded.html")
    return done(DISCARDED, "imports.index", discarded=True)


@twin(bp, "/import/run", methods=["POST"])
def run() -> Any:
    """Start the import job from a preview token (or a direct upload/paste)."""
    run_form = RunImportForm()
    if run_form.token.data:
        source = uploads.kept(valid(run_form).token.data, UPLOAD_KIND, take=True)
        options = _options(run_form)
    else:
        form = valid(ImportForm())
        source, options = _source(form), _options(form)
    user_id, eng = uid(), engine()
    user_chat_model(current_user)  # a disallowed endpoint fails here, before a job
    if not run_form.token.data:  # a previewed file was checked; this one is recognised here
        eng.check_import(source, **options)  # (only its start: the job reads the rest)
    job_id = eng.jobs.submit(user_id, "import", {
        "source": base64.b64encode(source).decode("ascii"), "options": options})
    return job_started(get_job(job_id), "imports.index")
