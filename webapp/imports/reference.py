"""Import a reference MemoryOS data folder (uploaded as a zip): preview, then a stored job."""

from __future__ import annotations

import base64
import uuid
from typing import Any

from flask import Blueprint, Flask
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import StringField
from wtforms.validators import DataRequired, Length, Optional, Regexp

from memoryos_core import InvalidInput
from memoryos_core.transfer.reference_import import read_zip

from ..actions import job_started, twin
from ..extensions import engine, uid
from ..forms import valid
from ..job_status import get as get_job
from ..job_status import latest
from ..rendering import fragment_or_page, page
from . import uploads

bp = Blueprint("reference_imports", __name__)
KIND = "reference-import"
UPLOAD_KIND = "reference-zip"


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


def run_reference_job(app: Any, user_id: str, payload: dict[str, Any], progress: Any,
                      ) -> dict[str, Any]:
    """The stored reference-import job (the zip travels in the job row)."""
    files = read_zip(base64.b64decode(payload["zip"]))
    return dict(app.extensions["memoryos"].import_reference(user_id, files, progress=progress,
                                                            **payload["choice"]))


def register_jobs(app: Flask) -> None:
    """Reference imports are stored jobs that any worker of any host runs."""
    app.extensions["memoryos"].jobs.register(
        KIND, lambda user_id, payload, progress: run_reference_job(app, user_id, payload,
                                                                   progress))


def _choice(form: Any) -> dict[str, str | None]:
    return {"ref_user": (form.from_user.data or "").strip() or None,
            "assistant": (form.assistant.data or "").strip() or None}


@twin(bp, "/import/memoryos")
def index() -> Any:
    return page("import_reference.html", form=FolderForm(), job=latest(KIND))


@twin(bp, "/import/memoryos/preview", methods=["POST"])
def preview() -> Any:
    """Validate the whole folder and show what it holds; keep the zip under a random token."""
    form = valid(FolderForm())
    upload = form.upload.data
    data = upload.read() if upload is not None and getattr(upload, "filename", "") else b""
    if not data:
        raise InvalidInput("Choose a zip of the MemoryOS data folder to import.")
    result = engine().preview_reference(uid(), read_zip(data), **_choice(form))
    token = uuid.uuid4().hex
    uploads.keep(token, UPLOAD_KIND, data)
    run_form = RunFolderForm(formdata=None, token=token, from_user=result["user"],
                             assistant=result["assistant"] or "")
    return fragment_or_page("_reference_preview.html", "import_reference.html",
                            form=FolderForm(formdata=None), job=None, preview=result,
                            token=token, run_form=run_form)


@twin(bp, "/import/memoryos/run", methods=["POST"])
def run() -> Any:
    """Start the import job from a preview token; a malformed folder fails before any job."""
    form = valid(RunFolderForm())
    data = uploads.kept(form.token.data, UPLOAD_KIND)
    files, choice, user_id, eng = read_zip(data), _choice(form), uid(), engine()
    eng.preview_reference(user_id, files, **choice)  # a malformed folder fails before a job
    uploads.kept(form.token.data, UPLOAD_KIND, take=True)
    job_id = eng.jobs.submit(user_id, KIND, {
        "zip": base64.b64encode(data).decode("ascii"), "choice": choice})
    return job_started(get_job(job_id), "reference_imports.index")
