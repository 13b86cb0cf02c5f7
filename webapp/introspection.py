"""Instance introspection under /-/: engine settings (read-only), versions, health."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

from flask import Blueprint, jsonify
from flask_login import login_required

from memoryos_core import __version__, settings_table

from .models import default_model_info
from .rendering import engine, page

bp = Blueprint("introspection", __name__, url_prefix="/-")


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
    """Software versions of this instance."""
    packages = {name: _version(name) for name in (
        "memoryos-playground", "flask", "flask-login", "flask-wtf", "markdown-it-py", "nh3",
        "sentence-transformers", "faiss-cpu", "openai")}
    return page("introspection_versions.html", python=platform.python_version(),
                memoryos_core=__version__, packages=packages)


@bp.get("/health.json")
def health() -> Any:
    return jsonify({"ok": True})
