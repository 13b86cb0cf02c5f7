"""The stored structured profile by family; the user corrects or deletes a dimension."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from memoryos_core.memory.persona import LEVELS

from ..actions import done, twin
from ..extensions import engine, uid
from ..forms import DimensionForm, ProfileForm, valid
from ..rendering import page

bp = Blueprint("profile", __name__)


@twin(bp, "/profile")
def index() -> Any:
    return page("profile.html", levels_allowed=list(LEVELS), **engine().profile(uid()))


@twin(bp, "/profile/edit", methods=["POST"])
def edit() -> Any:
    """Set a dimension's level and reason (kept as yours: analysis never overwrites it)."""
    form = valid(ProfileForm())
    result = engine().edit_profile(uid(), form.dimension.data or "", form.level.data or "",
                                   form.reason.data or "")
    return done(f"{result['dimension']} set to {result['level']}. The profile before is saved"
                f" as version {result['saved_as']}.", "profile.index", result=result)


@twin(bp, "/profile/delete", methods=["POST"])
def delete() -> Any:
    form = valid(DimensionForm())
    result = engine().delete_profile(uid(), form.dimension.data or "")
    return done(f"{result['deleted_dimension']} deleted. The profile before is saved as"
                f" version {result['saved_as']}.", "profile.index", result=result)
