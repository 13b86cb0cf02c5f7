"""Versions: list, snapshot, clear (with a confirmation step), restore, diff."""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Blueprint, Response, render_template, request
from flask_login import login_required

from memoryos_core import InvalidInput, NotFound

from ..actions import done, twin
from ..extensions import engine, uid
from ..forms import ClearForm, DiffForm, EmptyForm
from ..rendering import page, wants_json

bp = Blueprint("versions", __name__)


def _done(message: str, **data: Any) -> Any:
    return done(message, "versions.index", message=message, **data)


@twin(bp, "/versions")
def index() -> Any:
    items = engine().versions(uid())
    return page("versions.html", versions=items, form=EmptyForm(),
                diff_form=DiffForm(formdata=None, a=items[0]["version"] if items else 0, b=0))


@bp.get("/export.json")
@login_required
def export() -> Any:
    """The whole memory as `memoryos export` writes it, as a file to keep (no "ok" wrapper)."""
    doc = engine().export(uid())
    text = json.dumps(doc, ensure_ascii=False) + "\n"  # the engine's export is JSON-ready
    name = time.strftime("memoryos-export-%Y%m%d-%H%M%S.json", time.gmtime())
    return Response(text, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@twin(bp, "/versions/snapshot", methods=["POST"])
def snapshot() -> Any:
    result = engine().snapshot(uid(), "manual")
    return _done(f"Saved version {result['version']}.", version=result)


@bp.route("/versions/clear.json", methods=["POST"])
@bp.route("/versions/clear", methods=["GET", "POST"])
@login_required
def clear() -> Any:
    """GET shows the confirmation; POST with confirm=CLEAR snapshots, then empties memory."""
    form = ClearForm()
    if request.method == "GET":
        return render_template("versions_clear.html", form=form)
    if not form.validate_on_submit():
        if wants_json():
            raise InvalidInput("to clear memory, send confirm=CLEAR")
        return render_template("versions_clear.html", form=form), 400
    result = engine().clear(uid())
    return _done(f"Memory cleared. The state before is saved as version {result['saved_as']}.",
                 result=result)


@bp.get("/versions/<int:version>/restore")
@login_required
def confirm_restore(version: int) -> Any:
    """Ask before restoring a version (?undo=import: the one saved before an import)."""
    found = next((v for v in engine().versions(uid()) if v["version"] == version), None)
    if found is None:
        raise NotFound(f"no version {version}")
    return render_template("versions_restore.html", version=found, form=EmptyForm(),
                           undo_import=request.args.get("undo") == "import")


@twin(bp, "/versions/<int:version>/restore", methods=["POST"])
def restore(version: int) -> Any:
    result = engine().restore(uid(), version)
    if request.form.get("undo") == "import":
        return _done(f"Import undone: version {version}, the memory before it, is restored."
                     f" The memory with the import is saved as version {result['saved_as']}.",
                     result=result)
    return _done(f"Version {version} restored. The state before is saved as version"
                 f" {result['saved_as']}.", result=result)


@twin(bp, "/versions/diff")
def diff() -> Any:
    form = DiffForm(request.args)
    if not form.validate():
        raise InvalidInput("give two version numbers a and b (0 means the current state)")
    result = engine().diff(uid(), int(form.a.data), int(form.b.data))
    return page("diff.html", diff=result, diff_form=form)
