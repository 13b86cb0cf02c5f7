"""The one place where errors become pages, htmx fragments or JSON {"ok": false, "error": ...}."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from memoryos_core import MemoryOSError

from .rendering import is_htmx, wants_json

TITLES = {400: "Bad request", 401: "Not logged in", 403: "Forbidden", 404: "Not found",
          405: "Method not allowed", 413: "Too large", 429: "Too many attempts",
          500: "Server error", 502: "Chat model failed"}


def respond(status: int, message: str) -> Any:
    """An error in the shape the client asked for."""
    if wants_json():
        return jsonify({"ok": False, "error": message, "status": status}), status
    title = TITLES.get(status, "Error")
    if is_htmx():
        return render_template("_error.html", status=status, title=title, message=message), status
    return render_template("error.html", status=status, title=title, message=message), status


def init_app(app: Flask) -> None:
    @app.errorhandler(MemoryOSError)
    def engine_error(exc: MemoryOSError) -> Any:
        return respond(int(getattr(exc, "status", 500)), str(exc))

    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError) -> Any:
        return respond(400, f"The form's security token is missing or expired ({exc.description})."
                            " Reload the page and try again.")

    @app.errorhandler(413)
    def too_large(exc: HTTPException) -> Any:
        limit = app.config.get("MAX_CONTENT_LENGTH") or 0
        return respond(413, f"The upload is larger than {limit // (1024 * 1024)} MB.")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        return respond(exc.code or 500, exc.description or TITLES.get(exc.code or 500, "Error"))
