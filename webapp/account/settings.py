"""The user's own chat-model endpoint; the API key is stored server-side and never sent back."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from memoryos_core import InvalidInput

from ..extensions import users as accounts
from ..forms import SettingsForm, form_error
from ..models import default_model_info
from ..rendering import page, wants_json
from ..security import check_endpoint_url

bp = Blueprint("settings", __name__)


def _refused(base_url: str) -> str | None:
    """Why this instance refuses the base URL (a private address), or None."""
    try:
        check_endpoint_url(base_url, current_app.config["ALLOW_PRIVATE_ENDPOINTS"])
    except InvalidInput as exc:
        return str(exc)
    return None


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
