"""The stored structured profile by family (levels come from the store, never parsed text)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from flask_login import login_required

from .rendering import engine, page, uid

bp = Blueprint("profile", __name__)


@bp.get("/profile.json")
@bp.get("/profile")
@login_required
def index() -> Any:
    return page("profile.html", **engine().profile(uid()))
