"""The evaluation lab (/lab): start a run, watch it, read its results, compare two runs."""

# A run evaluates an uploaded LoCoMo / LongMemEval file, or a built-in sample, on a throwaway
# memory of its own (see runs); the user's memory is never read or changed. Runs are the
# user's stored jobs: listed, cancelled, deleted, gone with the account.

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import BooleanField, IntegerField, SelectField, SelectMultipleField, widgets
from wtforms.fields.choices import SelectChoice
from wtforms.validators import NumberRange, Optional

from memoryos_core import ImportFormatError, InvalidInput
from memoryos_core.evaluation import CATEGORIES, DEFAULT_BUDGET, STRATEGIES, report
from memoryos_core.evaluation.samples import SAMPLES, sample_bytes
from memoryos_core.runtime import JobWorkers
from memoryos_core.runtime.jobs import Jobs

from ..actions import twin
from ..extensions import engine, uid
from ..forms import EmptyForm, valid
from ..job_status import get as get_job
from ..job_status import job_view
from ..models import user_chat_model
from ..rendering import is_htmx, page, wants_json
from . import results as lab_view
from . import runs as lab_runs

bp = Blueprint("lab", __name__)
RUNS_LISTED = 50


class LabForm(FlaskForm):
    """Start a run: a file or a built-in sample, the budget, the baselines."""

    upload = FileField("LoCoMo or LongMemEval file (JSON)")
    sample = SelectField("…or a built-in sample", default="", choices=[
        SelectChoice("", "none: use the file"),
        *(SelectChoice(k, v[1]) for k, v in SAMPLES.items())])
    budget = IntegerField("Memory token budget", default=DEFAULT_BUDGET,
                          validators=[NumberRange(min=10, max=100_000)])
    strategies = SelectMultipleField(
        "Baselines beside the product", default=list(STRATEGIES[1:]),
        choices=list(STRATEGIES[1:]), option_widget=widgets.CheckboxInput(),
        widget=widgets.ListWidget(prefix_label=False))
    limit = IntegerField("First N conversations (LongMemEval: questions); empty for all",
                         validators=[Optional(), NumberRange(min=1, max=10_000)])
    answer = BooleanField("Also answer each question from each context with my chat model and"
                          " score LoCoMo's official F1 (one model call per question and strategy)")


def register_jobs(app: Flask) -> None:
    """Runs go to the app's job workers, or with LAB_WORKERS > 0 to the lab's own queue."""
    # threads of its own: imports and analysis never wait behind an evaluation
    main = app.extensions["memoryos"].jobs
    if int(app.config.get("LAB_WORKERS") or 0) <= 0:
        lab_runs.register(app, main)
        return
    own = Jobs(main.store, stale_seconds=main.stale_seconds)  # the same table, evals only
    lab_runs.register(app, own)
    app.extensions["memplay_lab_workers"] = JobWorkers(own)


def start_workers(app: Flask) -> None:
    """Start the lab's own worker threads, if it has its own queue."""
    workers = app.extensions.get("memplay_lab_workers")
    if workers is not None:
        workers.start(int(app.config["LAB_WORKERS"]))


def _run(job_id: str) -> dict[str, Any]:
    """One of the user's runs (404 for another user's job or a job of another kind)."""
    job = get_job(job_id)
    if job.get("kind") != lab_runs.KIND:
        abort(404)
    return lab_runs.shown(job)


def _runs() -> list[dict[str, Any]]:
    """The user's runs for the list: status, name and the product's recall, no records read."""
    jobs = engine().jobs.latest_fields(uid(), lab_runs.KIND, RUNS_LISTED, {
        "run_name": "name", "recall": "summary.memoryos.recall",
        "questions": "summary.memoryos.questions", "budget": "settings.token_budget",
        "strategies": "settings.strategies"})
    out = []
    for job in jobs:
        view = lab_runs.shown(job_view(job) or {})
        view.pop("result", None)
        recall, questions = view.pop("recall"), view.pop("questions")
        view["name"] = view.pop("run_name")
        # two runs of one file are told apart by their settings (JSON text from the database)
        budget, strategies = view.pop("budget"), view.pop("strategies")
        if isinstance(strategies, str):
            strategies = json.loads(strategies)
        view["settings"] = None if budget is None else {
            "budget": int(budget), "strategies": list(strategies or [])}
        view["summary"] = None if questions is None else {
            "recall": None if recall is None else float(recall), "questions": int(questions)}
        out.append(view)
    return out


@twin(bp, "/lab")
def index() -> Any:
    return page("lab.html", form=LabForm(formdata=None), runs=_runs(), empty=EmptyForm())


@twin(bp, "/lab/run", methods=["POST"])
def start() -> Any:
    """Check the file and settings (a bad one makes no run), then queue the run."""
    form = valid(LabForm())
    name = "upload"
    try:
        if form.sample.data:
            data, name = sample_bytes(form.sample.data), f"sample {form.sample.data}"
        else:
            upload = form.upload.data
            data = bytes(upload.read()) if upload is not None and getattr(
                upload, "filename", "") else b""
            if not data:
                raise InvalidInput("Choose a LoCoMo or LongMemEval file, or a built-in sample.")
            name = Path(upload.filename).stem[:80] or "upload"
        opts = lab_runs.options(form.budget.data or DEFAULT_BUDGET,
                                list(form.strategies.data or []), None,
                                limit=form.limit.data or None)
        if form.answer.data:
            user_chat_model(current_user)  # a disallowed endpoint fails here, before a job
        opts["answer"] = bool(form.answer.data)
        job_id = lab_runs.submit(engine(), uid(), data, name, opts)
    except (InvalidInput, ImportFormatError) as exc:
        if wants_json():
            raise
        # back to the form, its settings kept, the reason beside the file field
        message = str(exc).removeprefix(f"{name}: ")
        form.upload.errors = [message[:1].upper() + message[1:]]
        return render_template("lab.html", form=form, runs=_runs(), empty=EmptyForm()), 400
    if wants_json():
        return page("lab_run.html", job=_run(job_id))
    return redirect(url_for("lab.run", job_id=job_id))


@twin(bp, "/lab/runs/<string(length=32):job_id>")
def run(job_id: str) -> Any:
    job = _run(job_id)
    if wants_json():
        body = {k: v for k, v in job.items() if k != "result"}
        if job["status"] == "done":
            body["result"] = lab_runs.full_result(job)
        return page("lab_run.html", job=body)
    view = None
    if job["status"] == "done":
        view = lab_view.summary(job["result"], lab_runs.records(job))
    others = [r for r in _runs() if r["id"] != job_id and r["status"] == "done"]
    return render_template("lab_run.html", job=job, result=job.get("result"), view=view,
                           empty=EmptyForm(), others=others, category_names=CATEGORIES)


@bp.get("/lab/runs/<string(length=32):job_id>/progress")
@login_required
def progress(job_id: str) -> Any:
    """The progress fragment a running run's page polls; done: the page reloads itself."""
    job = _run(job_id)
    if is_htmx() and not job["active"]:
        return Response("", headers={"HX-Refresh": "true"})
    return render_template("_lab_progress.html", job=job)


@twin(bp, "/lab/runs/<string(length=32):job_id>/questions/<int:n>")
def question(job_id: str, n: int) -> Any:
    job = _run(job_id)
    if job["status"] != "done":
        abort(404)
    view = lab_view.question(lab_runs.records(job), n, request.args.get("vs"), job["result"])
    if view is None:
        abort(404)
    return page("lab_question.html", job={"id": job_id, "name": job["result"].get("name")},
                q=view)


@twin(bp, "/lab/runs/<string(length=32):job_id>/questions/<int:n>/trace")
def trace(job_id: str, n: int) -> Any:
    """The product's retrieval trace for question `n`, in the form of a chat answer's."""
    job = _run(job_id)
    view = lab_view.question(lab_runs.records(job), n, None, job["result"]) \
        if job["status"] == "done" else None
    if view is None or "trace" not in view["record"]:
        abort(404)
    return page("lab_trace.html", job={"id": job_id}, n=n, rec=view["record"])


@bp.get("/lab/runs/<string(length=32):job_id>/records.<fmt>")
@login_required
def download(job_id: str, fmt: str) -> Any:
    """The run's records as a JSON (the CLI's --json) or CSV download."""
    job = _run(job_id)
    if job["status"] != "done" or fmt not in ("json", "csv"):
        abort(404)
    name = f"eval-{job_id[:8]}.{fmt}"
    if fmt == "csv":
        body, mime = report.csv_text(lab_runs.records(job)), "text/csv"
    else:
        import json

        body, mime = json.dumps(lab_runs.full_result(job), ensure_ascii=False), \
            "application/json"
    return Response(body, mimetype=mime,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _own_run(job_id: str) -> None:
    """A posted button on one of the user's runs (404 for anyone else's)."""
    valid(EmptyForm(), "the form expired; reload the page")
    _run(job_id)


@bp.post("/lab/runs/<string(length=32):job_id>/cancel")
@login_required
def cancel(job_id: str) -> Any:
    _own_run(job_id)
    engine().jobs.cancel(uid(), job_id)
    return redirect(url_for("lab.run", job_id=job_id))


@bp.post("/lab/runs/<string(length=32):job_id>/delete")
@login_required
def delete(job_id: str) -> Any:
    _own_run(job_id)
    engine().jobs.delete(uid(), job_id)
    return redirect(url_for("lab.index"))


@twin(bp, "/lab/compare")
def compare() -> Any:
    """Run b against run a: per-category deltas and the questions that flipped."""
    a, b = (_run(request.args.get(k, "")) if len(request.args.get(k, "")) == 32 else abort(404)
            for k in ("a", "b"))
    if a["status"] != "done" or b["status"] != "done":
        raise InvalidInput("Both runs must have finished to be compared.")
    delta = report.compare_runs(lab_runs.full_result(a), lab_runs.full_result(b))
    return page("lab_compare.html", a={"id": a["id"], "name": a["result"].get("name"),
                                       "settings": a["result"]["settings"]},
                b={"id": b["id"], "name": b["result"].get("name"),
                   "settings": b["result"]["settings"]}, compare=delta)
