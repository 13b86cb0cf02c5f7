"""Chat: the page, a plain POST (htmx) and a Server-Sent Events stream with Stop; the trace."""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask_login import current_user, login_required

from memoryos_core import InvalidInput, MemoryOSError, ModelError
from memoryos_core.answer.modes import MODES
from memoryos_core.runtime.jobs import INTERNAL_ERROR

from .. import metrics, numbers, warmup
from ..actions import twin
from ..extensions import engine, maintainer, uid
from ..forms import ChatForm, form_error
from ..models import model_label
from ..rendering import is_htmx, page, wants_json
from . import conversations, picker
from . import items as chat_items
from . import notes as memory_notes
from . import turns as chat_turns

bp = Blueprint("chat", __name__)
log = logging.getLogger(__name__)
HISTORY = 30  # exchanges the chat shows at first; "Load earlier" brings the ones before
CONVERSATIONS = 12  # listed beside the chat; "All conversations" has the rest


def _turn() -> dict[str, Any]:
    """The posted turn: message, mode, the exchange it replaces, an unstored chat's turns."""
    form = ChatForm()
    if not form.validate_on_submit():
        raise InvalidInput(form_error(form, named=False, empty="message must not be empty"))
    mode = request.form.get("mode") or "normal"
    args: dict[str, Any] = {}
    if mode != "normal":
        args["mode"] = mode
        try:
            args["recent"] = [tuple(p) for p in json.loads(request.form.get("recent") or "[]")]
        except (ValueError, TypeError):
            raise InvalidInput("recent turns must be a JSON list of [user, assistant]") from None
    replaces = (request.form.get("replaces") or "").strip()
    if replaces:
        if not replaces.isdigit():
            raise InvalidInput("replaces must be an exchange id")
        args["replaces"] = int(replaces)
    return {"text": str(form.message.data), "mode": mode, "args": args}


def _rendered(result: dict[str, Any], turn: dict[str, Any], user_id: str,
              replaced: str | None = None, report: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    """The answered turn's fragment (with the gauges out of band) and what the page needs;
    `report`: the turn's own maintenance run, when it ran inline."""
    eng = engine()
    notes = memory_notes.turn_notes(eng, user_id, result, report,
                                    background=not maintainer().inline)
    item = chat_items.from_result(result, turn["text"], replaced, notes)
    stored = result.get("exchange_id") is not None
    html = render_template(
        "_exchange.html", exchange=item, controls=stored, mode=turn["mode"],
        gauge_update=eng.short_term_fill(user_id) if stored else None,
        context_update=chat_items.context_gauge(result.get("trace"),
                                                eng.config.answer_max_tokens),
        conversations_update=eng.conversations(user_id, CONVERSATIONS) if stored else None)
    return {"exchange_id": result.get("exchange_id"), "model": result.get("model"),
            "replaces": turn["args"].get("replaces"), "html": html,
            "recent": None if stored else [turn["text"], result["answer"]]}


@bp.get("/")
@login_required
def index() -> Any:
    mode = request.args.get("mode", "normal")
    mode = mode if mode in MODES else "normal"
    eng, user_id = engine(), uid()
    current = eng.current_conversation(user_id) if mode == "normal" else None
    shown = eng.conversation(user_id, current, HISTORY) if current is not None else None
    if shown:
        numbers.known([int(v["id"]) for v in shown["exchanges"]])  # one lookup, not 30
    history = [chat_items.from_view(dict(v)) for v in shown["exchanges"]] if shown else []
    notes = memory_notes.history_notes(eng, user_id, [h["id"] for h in history],
                                       background=not maintainer().inline)
    for item in history:  # the "Memory updated" notes the answers had, after a reload too
        item["memory_updated"] = notes.get(item["id"], [])
    gauge = None
    if history and history[-1]["model"]:
        try:
            gauge = chat_items.context_gauge(dict(eng.trace(user_id, history[-1]["id"])),
                                             eng.config.answer_max_tokens)
        except MemoryOSError:  # no trace (an imported exchange): no gauge yet
            gauge = None
    model = model_label(current_user)
    models = picker.view(current_app._get_current_object(), current_user, mode)  # type: ignore[attr-defined]
    loading = warmup.state(current_app)["state"] == "loading" and \
        models["current"].value == picker.EMBEDDED
    return render_template(
        "chat.html", form=ChatForm(), history=history, mode=mode, conversation=shown,
        conversations=eng.conversations(user_id, CONVERSATIONS), short_term=eng.short_term_fill(user_id),
        context=gauge, model=model, model_loading=loading, models=models,
        model_groups=list(picker.grouped(models["options"])))


@bp.post("/chat")
@login_required
def send() -> Any:
    turn = _turn()
    try:  # the conversation's pick, else the engine's resolver (the account's model)
        result = engine().chat(uid(), turn["text"], maintain=False,
                               model=picker.turn_model(current_user, turn), **turn["args"])
    except ModelError:
        metrics.model_error("plain")
        raise
    picker.remember(current_app, current_user, turn, result)
    stored = result.get("exchange_id") is not None
    report = None
    if stored:
        metrics.observe_turn(dict(result), "plain")
        report = maintainer().request(uid())
    item = chat_items.from_result(dict(result), turn["text"])
    if wants_json():
        return page("_exchange.html", exchange=item)
    if is_htmx():
        return _rendered(dict(result), turn, uid(), report=report)["html"]
    return redirect(url_for("chat.index", mode=turn["mode"] if turn["mode"] != "normal"
                            else None))


bp.add_url_rule("/chat.json", view_func=send, methods=["POST"], endpoint="send_json")


def _error_event(data: dict[str, Any]) -> dict[str, Any]:
    status = data["status"]
    title = "Chat model failed" if status in (502, 504) else "Error"
    return {**data, "html": render_template("_turn_error.html", status=status, title=title,
                                            message=data["error"], page_id=data.get("page_id"))}


@bp.post("/chat/stream")
@login_required
def stream() -> Any:
    """Answer as Server-Sent Events: `start` (the turn's id, for Stop), `phase`, `token` and
    `replace` while it is made, then `done` (the fragment), `stopped` or `error`."""
    turn = _turn()
    picked = picker.turn_model(current_user, turn)  # a refused pick fails before the stream
    account = current_user._get_current_object()  # type: ignore[attr-defined]
    user_id, eng, app = uid(), engine(), current_app._get_current_object()  # type: ignore[attr-defined]
    keeper = maintainer(app)

    replaced: list[str] = []  # why the streamed text was replaced, for the finished bubble

    def work(live: chat_turns.Turn) -> None:
        def event(kind: str, data: dict[str, Any]) -> None:
            if kind == "replace":
                replaced.append(str(data.get("reason") or "replaced"))
            live.put(kind, data)

        try:
            result = eng.chat(user_id, turn["text"], maintain=False, stop=live.stop, model=picked,
                              on_token=lambda piece: live.put("token", {"text": piece}),
                              on_event=event, **turn["args"])
            report = None
            if result.get("exchange_id") is not None:
                metrics.observe_turn(dict(result), "stream")
                report = keeper.request(user_id)
                picker.remember(app, account, turn, result)
            live.put("result", {"result": dict(result), "report": report})
        except MemoryOSError as exc:  # the stream has started: errors travel as events
            if type(exc).__name__ == "Stopped" or live.stop.is_set():
                live.put("stopped", {"stored": False})
                return
            if isinstance(exc, ModelError):
                metrics.model_error("stream")
            error = {"status": exc.status, "error": str(exc)}
            if isinstance(exc, InvalidInput) and "replaces" in turn["args"]:
                error["page_id"] = turn["args"]["replaces"]  # offer the page's Forget/Correct
            live.put("error", error)
        except Exception:  # noqa: BLE001 - logged in full; the user gets a plain message
            log.exception("chat stream failed")
            live.put("error", {"status": 500, "error": INTERNAL_ERROR + "."})

    def done(data: dict[str, Any]) -> dict[str, Any]:
        return _rendered(data["result"], turn, user_id, replaced[-1] if replaced else None,
                         data["report"])

    live = chat_turns.begin(app, user_id, work)
    events = chat_turns.relay(app, live, done, _error_event,
                              float(app.config["STREAM_TIMEOUT_SECONDS"]))
    return Response(stream_with_context(events), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.post("/chat/stop")
@login_required
def stop() -> Any:
    """Stop one of the user's answers being made (the turn id from its `start` event; the
    CSRF token in its header, as every POST)."""
    stopped = chat_turns.stop(current_app, uid(), request.form.get("turn", ""))
    return ("", 204) if stopped else ("", 404)


@bp.get("/chat/model-status.json")
@login_required
def model_status() -> Any:
    """Whether the embedded model is still loading in the background."""
    return {"ok": True, **warmup.state(current_app)}


@twin(bp, "/chat/trace/<int:number>")
def trace(number: int) -> Any:
    """Why an answer was given, by the user's own number of its exchange (numbers.py)."""
    data = engine().trace(uid(), numbers.exchange_of(number))
    total = sum(p.get("tokens", 0) for p in data.get("prompt_parts", []))
    numbers.known([int(p["id"]) for p in data.get("pages", []) if isinstance(p.get("id"), int)])
    return page("trace.html", number=number, trace=data, prompt_total=total)


bp.add_url_rule("/chat/models.json", view_func=picker.models_json)
bp.add_url_rule("/chat/model", view_func=picker.pick, methods=["POST"])
bp.add_url_rule("/chat/model.json", view_func=picker.pick, methods=["POST"],
                endpoint="pick_json")
bp.add_url_rule("/chat/new", view_func=conversations.new_chat, methods=["POST"])
# the HTML rule first: url_for builds the first rule of an endpoint
bp.add_url_rule("/chat/conversations", view_func=conversations.listing)
bp.add_url_rule("/chat/conversations.json", view_func=conversations.listing)
bp.add_url_rule("/chat/conversations/<int:conversation_id>", view_func=conversations.one)
bp.add_url_rule("/chat/conversations/<int:conversation_id>.json",
                view_func=conversations.one)
