"""The user's own chat-model endpoint; the API key is stored server-side and never sent back."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from memoryos_core import InvalidInput
from memoryos_core.llm.discovery import EndpointProblem, list_models
from memoryos_core.llm.guard import is_public

from ..extensions import users as accounts
from ..forms import SettingsForm, form_error
from ..local_models import private_allowed
from ..models import default_model_info
from ..rendering import is_htmx, page, wants_json
from ..security import check_endpoint_url

bp = Blueprint("settings", __name__)


def _refused(base_url: str) -> str | None:
    """Why this instance refuses the base URL (a private address), or None."""
    try:
        check_endpoint_url(base_url, private_allowed(current_app.config))
    except InvalidInput as exc:
        return f"{exc} {SHARED}"
    return None


# why a shared instance refuses private addresses, said after the guard's own sentence
SHARED = ("Other people use this server, so it does not connect to addresses on its own"
          " network for them.")


def _tested(form: SettingsForm) -> dict[str, Any]:
    """Ask the typed endpoint (the stored key when none is typed for the stored URL) for its
    models; a failure is a sentence a person understands. Nothing is saved."""
    base_url = (form.base_url.data or "").strip()
    if not base_url:
        return {"ok": False, "kind": "missing", "message": "Type the base URL to test first."}
    stored = accounts().endpoint(current_user.id)
    key = (form.api_key.data or "").strip() or (
        stored.api_key if base_url == stored.base_url and not form.clear_key.data else "")
    guard = None if private_allowed(current_app.config) else is_public
    try:
        models, _ = list_models(base_url, key or None, address_check=guard)
    except EndpointProblem as exc:
        message = f"{exc} {SHARED}" if exc.kind == "address" else str(exc)
        return {"ok": False, "kind": exc.kind, "message": message}
    if not models:
        return {"ok": True, "models": [], "message": "Connected, but the endpoint lists no"
                " models: type the model name yourself."}
    count = f"{len(models)} model{'s' if len(models) != 1 else ''}"
    return {"ok": True, "models": models, "message": f"Connected: the endpoint serves {count}."
            " Pick one, then Save (nothing is saved yet)."}


@bp.post("/settings/test.json")
@bp.post("/settings/test")
@login_required
def test() -> Any:
    """Test connection: list the typed endpoint's models (or say why not), saving nothing."""
    form = SettingsForm()
    result = _tested(form) if form.validate() else {
        "ok": False, "kind": "input", "message": form_error(form, named=False, empty="")}
    chosen = (form.model.data or "").strip()
    if wants_json():
        return page("_endpoint_test.html", test=result)
    if is_htmx():
        return render_template("_endpoint_test.html", test=result, chosen=chosen, oob=True)
    endpoint = accounts().endpoint(current_user.id)
    typed_key = bool((form.api_key.data or "").strip())
    form.api_key.data = ""  # never rendered back: the page says to type it again
    return render_template("settings.html", form=form, key_lost=endpoint.key_lost, test=result,
                           chosen=chosen, retype_key=typed_key, endpoint=endpoint.public(),
                           default_model=default_model_info())


@bp.route("/settings.json", methods=["GET", "POST"])
@bp.route("/settings", methods=["GET", "POST"])
@login_required
def index() -> Any:
    users = accounts()
    endpoint = users.endpoint(current_user.id)
    form = SettingsForm(formdata=None, base_url=endpoint.base_url, model=endpoint.model)
    status = 200
    if request.method == "POST":
        form = SettingsForm()
        if form.validate():
            base_url = (form.base_url.data or "").strip()
            model = (form.model.data or "").strip()
            refused = _refused(base_url)
            if refused:
                form.base_url.errors = [refused]
            elif bool(base_url) != bool(model):
                form.model.errors = ["Give both the base URL and the model name, or neither."]
            else:  # back to the default model: the stored key is forgotten too
                users.save_endpoint(current_user.id, base_url, model,
                                    (form.api_key.data or "").strip() or None,
                                    clear_key=bool(form.clear_key.data) or not base_url)
                if wants_json():
                    return page("settings.html", endpoint=users.endpoint(current_user.id).public())
                flash("Settings saved." if base_url else
                      "Settings saved: you use the default model.", "info")
                return redirect(url_for("settings.index"))
        if wants_json():
            raise InvalidInput(form_error(form, named=False, empty=""))
        status = 400
    form.api_key.data = ""  # never rendered back
    data = {"endpoint": endpoint.public(), "default_model": default_model_info()}
    if wants_json():
        return page("settings.html", **data)
    return render_template("settings.html", form=form, key_lost=endpoint.key_lost,
                           **data), status
