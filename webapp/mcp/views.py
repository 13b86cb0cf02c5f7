"""MCP over Streamable HTTP at /mcp (bearer tokens, one user per token) and the token pages."""

# The SDK's transport answers each POST in stateless JSON mode inside the request's own thread
# (`memoryos_core.hosts.mcp_server.serve_http`): no event loop or session outlives a request, so the
# endpoint works the same under gunicorn's sync workers, threaded workers and the dev server.

from __future__ import annotations

import contextvars
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    make_response,
    render_template,
    request,
)
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from wtforms import StringField
from wtforms.validators import DataRequired, Length

from memoryos_core.hosts.mcp_server import build_server, jsonrpc_error, serve_http
from memoryos_core.llm import ChatModel

from ..actions import done, twin
from ..extensions import csrf, maintainer, tokens, users
from ..forms import valid
from ..models import user_chat_model
from ..rendering import page, wants_json
from ..storage.tokens import TokenStore

bp = Blueprint("mcp", __name__)
_MODEL: contextvars.ContextVar[ChatModel | None] = contextvars.ContextVar("mcp_model",
                                                                          default=None)
HOP_HEADERS = {"content-length", "transfer-encoding", "connection"}


class TokenForm(FlaskForm):
    name = StringField("Token name", validators=[DataRequired(), Length(max=100)])


def _server() -> Any:
    """The app's MCP server, built on first use (the SDK is imported only then)."""
    ext = current_app.extensions
    if "memplay_mcp" not in ext:
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        ext["memplay_mcp"] = build_server(
            ext["memoryos"], model=lambda _user: _MODEL.get(),
            maintain=lambda user, model: maintainer(app).request(user))
    return ext["memplay_mcp"]


def _refuse(status: int, message: str) -> Response:
    return Response(jsonrpc_error(message), status=status, mimetype="application/json",
                    headers={"WWW-Authenticate": 'Bearer realm="memoryos"'} if status == 401
                    else {})


@bp.route("/mcp", methods=["GET", "POST", "DELETE"])
def endpoint() -> Response:
    """Streamable HTTP for the account a bearer token belongs to; anything else is refused."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return _refuse(401, "MCP needs an access token: send 'Authorization: Bearer <token>'"
                            " (create one on /settings)")
    account = tokens().user_for(token.strip())
    user = users().get(account) if account else None
    if user is None:
        return _refuse(401, "this access token is unknown or was revoked")
    headers = [(k, v) for k, v in request.headers.items() if k.lower() != "cookie"]
    token_ctx = _MODEL.set(user_chat_model(user))
    try:
        status, out_headers, body = serve_http(_server(), user.engine_id, request.method,
                                               "/mcp", headers, request.get_data(cache=False))
    finally:
        _MODEL.reset(token_ctx)
    return Response(body, status=status,
                    headers=[(k, v) for k, v in out_headers if k.lower() not in HOP_HEADERS])


# -- token pages ------------------------------------------------------------------------------

@bp.get("/settings/tokens.json")
@login_required
def list_tokens() -> Any:
    return page("settings.html", tokens=[t.public() for t in tokens().list(current_user.id)])


@twin(bp, "/settings/tokens", methods=["POST"])
def create_token() -> Any:
    """Create a named token and show it once (it is stored only as a hash)."""
    form = valid(TokenForm(), named=False)
    token, info = tokens().create(current_user.id, form.name.data.strip())
    data = {"token": token, "info": info.public(), "url": request.host_url.rstrip("/") + "/mcp"}
    body = page("mcp_token.html", **data) if wants_json() else render_template(
        "mcp_token.html", **data)
    response = make_response(body, 201)
    response.headers["Cache-Control"] = "no-store"  # the token is shown this once
    return response


@twin(bp, "/settings/tokens/<int:token_id>/revoke", methods=["POST"])
def revoke_token(token_id: int) -> Any:
    valid(FlaskForm(), named=False)
    if not tokens().revoke(current_user.id, token_id):
        abort(404, "No such token, or it is already revoked.")
    return done("Token revoked: clients using it are refused from now on.", "settings.index",
                revoked=token_id)


def init_app(app: Flask) -> None:
    """Token store, the blueprint (CSRF-exempt /mcp: bearer auth, never cookies), template helpers."""
    app.extensions["memplay_tokens"] = TokenStore(users(app).store)
    csrf.exempt(endpoint)
    app.register_blueprint(bp)

    @app.context_processor
    def token_helpers() -> dict[str, Any]:
        def my_tokens() -> list[dict[str, Any]]:
            return [t.public() for t in tokens().list(current_user.id)]

        return {"mcp_tokens": my_tokens, "token_form": TokenForm}
