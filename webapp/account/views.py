"""Delete my account: the password, then the account, its memory, versions and files' traces."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, url_for
from flask_login import current_user, logout_user

from ..actions import twin
from ..errors import respond
from ..extensions import engine, model_cache, uid, users
from ..forms import DeleteAccountForm, valid
from ..rendering import wants_json

bp = Blueprint("account", __name__)


@twin(bp, "/account/delete", methods=["POST"])
def delete() -> Any:
    """With the right password: erase the memory, then the account; nothing on a wrong one."""
    form = valid(DeleteAccountForm())
    if users().authenticate(current_user.username, form.password.data or "") is None:
        return respond(403, "Wrong password: nothing was deleted. Go back to the settings"
                            " and type your password to delete your account.")
    user, engine_user = current_user._get_current_object(), uid()  # type: ignore[attr-defined]
    memory = engine().erase_user(engine_user)  # memory first: an account never outlives it
    account = users().delete_account(user)
    cache = model_cache()
    for key in [k for k in cache if k[0] == user.id]:
        del cache[key]
    logout_user()
    if wants_json():
        return jsonify({"ok": True, "deleted": {"memory": memory["deleted"],
                                                "account": account["deleted"]},
                        "files_scrubbed": memory["files_scrubbed"]
                        and account["files_scrubbed"] is not False})
    flash("Your account, your memory and every saved version are deleted.", "info")
    return redirect(url_for("auth.login"))
