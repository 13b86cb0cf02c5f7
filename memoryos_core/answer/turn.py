"""One answering turn between the prompt and the store: phases, the guarded reply, its figures."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import Stopped
from ..llm import ChatModel
from ..text import count_tokens
from . import answer_guard
from .answer_guard import Reply
from .types import Answered, Retrieval

Event = Callable[[str, dict[str, Any]], None]
LOADING = "loading the local model (first answer only)"


def _quiet(kind: str, data: dict[str, Any]) -> None:
    """No host listens for events."""


def model_loaded(llm: ChatModel) -> bool:
    """False only for an embedded model that has not been loaded in this process yet."""
    check = getattr(llm, "is_loaded", None)
    return bool(check()) if callable(check) else True


def earlier_answers(short_rows: list[dict[str, Any]], memory: Retrieval) -> list[str]:
    """The answers a new one must not repeat: the recent ones and those of the pages found."""
    return [r["assistant_text"] for r in short_rows] + [
        p.get("assistant", "") for p in memory.pages if p.get("assistant")]


def answer(llm: ChatModel, messages: list[dict[str, str]], layout: str,
           plan: dict[str, Any] | None, earlier: list[str], max_tokens: int, question: str,
           on_token: Callable[[str], None] | None, on_event: Event | None,
           stop: threading.Event | None) -> tuple[Reply, Answered]:
    """The reply to a prompt's `messages` (its `layout`, the small model's `plan`), with the
    host told each phase, and the figures its trace records."""
    emit = on_event or _quiet
    plan = plan or {}
    built = plan.get("built")
    if built is None and not model_loaded(llm):
        emit("phase", {"phase": LOADING})
    emit("phase", {"phase": "writing"})
    started = time.perf_counter()
    reply = answer_guard.answer(
        llm, layout, messages, earlier, max_tokens, built=built,
        built_source="courtesy" if plan.get("kind") == "courtesy"
        else "memory" if plan.get("evidence") else "no memory",
        kind=plan.get("kind", "chat"), on_token=on_token, on_event=on_event, stop=stop,
        question=question)
    if stop is not None and stop.is_set():
        raise Stopped("the answer was stopped")
    seconds = time.perf_counter() - started
    generating = reply.generating_s or seconds
    kept_tokens = 0 if built is not None else count_tokens(reply.text)
    stats = {
        # a built answer (from memory, a set reply) ran no model: no first token to time
        "first_token_ms": None if reply.first_token_s is None or built is not None
        else round(reply.first_token_s * 1000, 1),
        "no_model": built is not None,
        "small_model": built is None and bool(getattr(llm, "embedded", False)),
        "answer_ms": round(seconds * 1000, 1), "completion_tokens": kept_tokens,
        "tokens_per_second": round(kept_tokens / generating, 1)
        if kept_tokens and generating > 0 else None}
    return reply, Answered(model=llm.name, answer_ms=round(seconds * 1000, 1),
                           prompt_tokens=reply.prompt_tokens,
                           completion_tokens=reply.completion_tokens, source=reply.source,
                           attempts=reply.attempts, stats=stats, sent=reply.sent)
