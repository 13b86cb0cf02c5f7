"""The stored structured profile by family (levels come from the store, never parsed text);
the user corrects or deletes a dimension."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, url_for
from flask_login import login_required

from memoryos_core import InvalidInput
from memoryos_core.memory.persona import LEVELS

from .control_forms import DimensionForm, ProfileForm, form_error
from .rendering import engine, page, uid, wants_json

bp = Blueprint("profile", __name__)


@bp.get("/profile.json")
@bp.get("/profile")
@login_required
def index() -> Any:
    return page("profile.html", levels_allowed=list(LEVELS), **engine().profile(uid()))


def _done(message: str, result: dict[str, Any]) -> Any:
    if wants_json():
        return page("profile.html", result=result)
    flash(message, "info")
    return redirect(url_for("profile.index"))


@bp.post("/profile/edit.json")
@bp.post("/profile/edit")
@login_required
def edit() -> Any:
    """Set a dimension's level and reason (kept as yours: analysis never overwrites it)."""
    form = ProfileForm()
    if not form.validate_on_submit():
        raise InvalidInput(form_error(form))
    result = engine().edit_profile(uid(), form.dimension.data or "", form.level.data or "",
                                   form.reason.data or "")
    return _done(f"{result['dimension']} set to {result['level']}. The profile before is saved"
                 f" as version {result['saved_as']}.", result)


@bp.post("/profile/delete.json")
@bp.post("/profile/delete")
@login_required
def delete() -> Any:
    form = DimensionForm()
    if not form.validate_on_submit():
        raise InvalidInput(form_error(form))
    result = engine().delete_profile(uid(), form.dimension.data or "")
    return _done(f"{result['deleted_dimension']} deleted. The profile before is saved as"
                 f" version {result['saved_as']}.", result)
