"""Register, log in (rate limited per username + address), log out; safe `next` redirects."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required, login_user, logout_user

from ..extensions import login_manager, users
from ..forms import EmptyForm, LoginForm, RegisterForm
from ..rendering import wants_json
from ..storage.users import UsernameTaken

bp = Blueprint("auth", __name__)


def safe_next(target: str | None) -> str:
    """A local path to go to after login; anything pointing elsewhere becomes the chat page."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return url_for("chat.index")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or any(ord(c) < 32 for c in target):
        return url_for("chat.index")
    return target


@login_manager.unauthorized_handler
def unauthorized() -> Any:
    if wants_json() or request.headers.get("HX-Request") == "true":
        return jsonify({"ok": False, "error": "log in first", "status": 401}), 401
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))


def _limit_key(username: str) -> str:
    return f"{username.strip().lower()}|{request.remote_addr or '-'}"


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    if current_user.is_authenticated:
        return redirect(safe_next(request.args.get("next")))
    form = LoginForm()
    status = 200
    if form.validate_on_submit():
        accounts = users()
        key = _limit_key(form.username.data or "")
        window = current_app.config["LOGIN_WINDOW_SECONDS"]
        if not accounts.reserve_attempt(key, window, current_app.config["LOGIN_MAX_FAILURES"]):
            minutes = max(1, round(window / 60))
            message = (f"Too many failed logins for this account from your address."
                       f" Wait {minutes} minutes and try again.")
            if wants_json():
                return jsonify({"ok": False, "error": message, "status": 429}), 429
            return render_template("login.html", form=form, error=message), 429
        user = accounts.authenticate(form.username.data or "", form.password.data or "")
        if user is not None:
            accounts.clear_failures(key)
            login_user(accounts.start_session(user))
            return redirect(safe_next(request.args.get("next")))
        status = 401  # the reserved attempt stays recorded as a failure
        form.password.errors = ["Unknown username or wrong password."]
    elif request.method == "POST":
        status = 400
    return render_template("login.html", form=form, error=None), status


@bp.route("/register", methods=["GET", "POST"])
def register() -> Any:
    if current_user.is_authenticated:
        return redirect(url_for("chat.index"))
    form = RegisterForm()
    status = 200
    if form.validate_on_submit():
        try:
            user = users().create(
                form.username.data.strip(), form.password.data)
        except UsernameTaken:
            form.username.errors = ["This username is taken."]
            status = 409
        else:
            login_user(users().start_session(user))
            flash("Welcome! Your memory starts empty.", "info")
            return redirect(url_for("chat.index"))
    elif request.method == "POST":
        status = 400
    return render_template("register.html", form=form), status


@bp.post("/logout")
@login_required
def logout() -> Any:
    if EmptyForm().validate_on_submit():
        users().end_session(current_user.session_id)
        logout_user()
    return redirect(url_for("auth.login"))


@bp.post("/logout/everywhere.json")
@bp.post("/logout/everywhere")
@login_required
def logout_everywhere() -> Any:
    """End every login session of this account (other browsers, copied cookies) and this one."""
    if not EmptyForm().validate_on_submit():
        if wants_json():
            return jsonify({"ok": False, "error": "The form expired: reload and try again.",
                            "status": 400}), 400
        flash("The form expired: reload the page and try again.", "error")
        return redirect(url_for("settings.index"))
    ended = users().end_all_sessions(current_user.id)
    logout_user()
    if wants_json():
        return jsonify({"ok": True, "sessions_ended": ended})
    flash(f"Logged out everywhere ({ended} session{'s' if ended != 1 else ''} ended).", "info")
    return redirect(url_for("auth.login"))
