"""Instance introspection under /-/ (settings, operators' versions, health); /favicon.ico."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

from flask import Blueprint, Flask, abort, current_app, jsonify, send_from_directory
from flask.blueprints import BlueprintSetupState
from flask_login import current_user, login_required

from memoryos_core import __version__, settings_table

from ..extensions import engine
from ..models import default_model_info
from ..rendering import page

bp = Blueprint("introspection", __name__, url_prefix="/-")


def favicon() -> Any:
    """The SVG icon where browsers ask for /favicon.ico (pages link it too)."""
    folder = current_app.static_folder or ""
    return send_from_directory(folder, "favicon.svg", mimetype="image/svg+xml", max_age=86400)


def is_operator() -> bool:
    """Whether the logged-in account is named in config OPERATORS (none by default)."""
    names = current_app.config.get("OPERATORS") or []
    if not isinstance(names, list | tuple | set):  # "alice,bob" (or one bare name) from env
        names = str(names).split(",")
    return bool(current_user.is_authenticated
                and current_user.username in {str(n).strip() for n in names})


@bp.record_once
def _root_routes(state: BlueprintSetupState) -> None:
    # browsers ask the site root, outside this blueprint's /- prefix
    app: Flask = state.app
    app.add_url_rule("/favicon.ico", "favicon", favicon)
    app.jinja_env.globals["is_operator"] = is_operator


@bp.get("/settings.json")
@bp.get("/settings")
@login_required
def settings() -> Any:
    """The engine settings table as this instance runs it, and the default chat model."""
    eng = engine()
    model = {k: v for k, v in default_model_info().items() if k != "base_url"}
    return page("introspection_settings.html", settings=settings_table(eng.config),
                default_model=model)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@bp.get("/versions.json")
@bp.get("/versions")
@login_required
def versions() -> Any:
    """Software versions of this instance, for operators only (others get a 404)."""
    # exact library versions tell an attacker which known flaws to try
    if not is_operator():
        abort(404)
    packages = {name: _version(name) for name in (
        "memoryos-playground", "flask", "flask-login", "flask-wtf", "markdown-it-py", "nh3",
        "sentence-transformers", "faiss-cpu", "openai")}
    return page("introspection_versions.html", python=platform.python_version(),
                memoryos_core=__version__, packages=packages)


@bp.get("/health.json")
def health() -> Any:
    return jsonify({"ok": True})
