"""Chat: the page, a plain POST (htmx) and a Server-Sent Events stream; the retrieval trace."""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Iterator
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    stream_with_context,
    url_for,
)
from flask_login import login_required

from memoryos_core import InvalidInput, MemoryOSError, ModelError
from memoryos_core.runtime.jobs import INTERNAL_ERROR

from . import metrics
from .forms import ChatForm
from .maintenance import maintainer
from .models import model_label, user_chat_model
from .rendering import engine, is_htmx, page, uid, wants_json

bp = Blueprint("chat", __name__)
log = logging.getLogger(__name__)


def _message() -> str:
    form = ChatForm()
    if not form.validate_on_submit():
        raise InvalidInput("; ".join(e for errs in form.errors.values() for e in errs)
                           or "message must not be empty")
    return str(form.message.data)


@bp.get("/")
@login_required
def index() -> Any:
    from flask_login import current_user

    eng = engine()
    history = eng.recent_exchanges(uid(), 30)
    short_term = eng.short_term_fill(uid())
    return render_template("chat.html", form=ChatForm(), history=history,
                           short_term=short_term, model=model_label(current_user))


@bp.post("/chat")
@login_required
def send() -> Any:
    from flask_login import current_user

    text = _message()
    user_chat_model(current_user)  # a disallowed endpoint fails here, before the model call
    try:  # the engine's resolver answers with the account's model
        result = engine().chat(uid(), text, maintain=False)
    except ModelError:
        metrics.model_error("plain")
        raise
    metrics.observe_turn(result, "plain")
    maintainer(current_app).request(uid())
    exchange = {"id": result["exchange_id"], "user": text, "assistant": result["answer"],
                "model": result["model"], "source": "chat"}
    if wants_json():
        return page("_exchange.html", exchange=exchange)
    if is_htmx():
        return render_template("_exchange.html", exchange=exchange,
                               gauge_update=engine().short_term_fill(uid()))
    return redirect(url_for("chat.index"))


bp.add_url_rule("/chat.json", view_func=send, methods=["POST"], endpoint="send_json")


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@bp.post("/chat/stream")
@login_required
def stream() -> Any:
    """Answer as Server-Sent Events: `token` pieces, then `done` (the fragment) or `error`."""
    from flask_login import current_user

    text = _message()
    user_chat_model(current_user)  # a disallowed endpoint fails here, before the stream opens
    user_id, eng = uid(), engine()
    keeper = maintainer(current_app)
    events: queue.Queue[tuple[str, Any]] = queue.Queue()
    abandoned = threading.Event()  # the client was told the stream ended: store nothing

    def token(piece: str) -> None:
        if abandoned.is_set():
            raise ModelError("the stream was stopped before the answer was complete")
        events.put(("token", piece))

    def work() -> None:
        try:
            result = eng.chat(user_id, text, maintain=False, on_token=token)
            metrics.observe_turn(result, "stream")
            keeper.request(user_id)
            events.put(("result", result))
        except MemoryOSError as exc:  # the stream has started: errors travel as events
            if isinstance(exc, ModelError) and not abandoned.is_set():
                metrics.model_error("stream")
            events.put(("error", {"status": exc.status, "error": str(exc)}))
        except Exception:  # noqa: BLE001 - logged in full; the user gets a plain message
            log.exception("chat stream failed")
            events.put(("error", {"status": 500, "error": INTERNAL_ERROR + "."}))

    threading.Thread(target=work, name="chat-stream", daemon=True).start()

    def generate() -> Iterator[str]:
        while True:
            try:
                kind, data = events.get(timeout=current_app.config["STREAM_TIMEOUT_SECONDS"])
            except queue.Empty:  # the model went silent: end the stream with a clear error
                abandoned.set()
                kind, data = "error", {"status": 504, "error": (
                    "The chat model sent nothing for too long; the answer was stopped and"
                    " is not stored.")}
            if kind == "token":
                yield _sse("token", {"text": data})
            elif kind == "error":
                yield _sse("error", {**data, "html": render_template(
                    "_error.html", status=data["status"], title="Chat model failed"
                    if data["status"] in (502, 504) else "Error", message=data["error"])})
                return
            else:
                exchange = {"id": data["exchange_id"], "user": text,
                            "assistant": data["answer"], "model": data["model"],
                            "source": "chat"}
                yield _sse("done", {"exchange_id": data["exchange_id"], "model": data["model"],
                                    "html": render_template(
                                        "_exchange.html", exchange=exchange,
                                        gauge_update=eng.short_term_fill(user_id))})
                return

    return Response(stream_with_context(generate()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/chat/trace/<int:exchange_id>.json")
@bp.get("/chat/trace/<int:exchange_id>")
@login_required
def trace(exchange_id: int) -> Any:
    if exchange_id < 0:
        abort(404)
    data = engine().trace(uid(), exchange_id)
    total = sum(p.get("tokens", 0) for p in data.get("prompt_parts", []))
    return page("trace.html", exchange_id=exchange_id, trace=data, prompt_total=total)
