"""What the chat templates show of an exchange and of a prompt: figures and the window gauge."""

from __future__ import annotations

from typing import Any

from ..numbers import page_no

PROMPT_ONLY = {"instructions", "recent", "message"}  # every other prompt part is memory


def from_view(view: dict[str, Any]) -> dict[str, Any]:
    """A stored exchange (engine.conversation's ChatView) for _exchange.html."""
    return {"id": view["id"], "user": view["user"], "assistant": view["assistant"],
            "tier": view["tier"], "model": view.get("model"), "stats": view.get("stats"),
            "answer_source": view.get("answer_source"), "replaced": view.get("replaced"),
            "evidence": view.get("evidence"), "stored": True,
            "previous_answers": view.get("previous_answers", 0), "memory_updated": [],
            "number": page_no(view["id"])}  # the user's own: what its URLs use


def from_result(result: dict[str, Any], text: str, replaced: str | None = None,
                memory_updated: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An answer engine.chat just returned; `replaced`: why its streamed text was replaced."""
    trace = result.get("trace") or {}
    stored = result.get("exchange_id") is not None
    return {"id": result.get("exchange_id"), "user": text, "assistant": result["answer"],
            "tier": "short", "model": result.get("model"),
            "stats": result.get("stats") or trace.get("answer_stats"),
            "answer_source": result.get("source") or trace.get("answer_source"),
            "replaced": replaced, "evidence": result.get("evidence"), "stored": stored,
            "previous_answers": len(trace.get("previous_answers") or []),
            "memory_updated": memory_updated or [],
            "number": page_no(result["exchange_id"]) if stored else None}


def context_gauge(trace: dict[str, Any] | None, answer_max_tokens: int) -> dict[str, Any] | None:
    """How much of the model's window the memory, the recent turns, the rest of the prompt
    and the answer took in one turn (from its trace), or None without a fitted prompt."""
    if not trace:
        return None
    fitted = trace.get("fitted") or {}
    window = fitted.get("window")
    if not window:
        return None
    parts = trace.get("prompt_parts") or []
    memory = sum(int(p.get("tokens", 0)) for p in parts if p.get("name") not in PROMPT_ONLY)
    recent = sum(int(p.get("tokens", 0)) for p in parts if p.get("name") == "recent")
    other = sum(int(p.get("tokens", 0)) for p in parts) - memory - recent
    # what the answer used once answered (0 for one built without a model), the reservation
    # only for a prompt not yet answered
    used = trace.get("completion_tokens")
    answer = answer_max_tokens if used is None else int(used)
    total = int(window) + answer_max_tokens + 64  # fit_prompt's window leaves these out
    shares = [("memory", memory), ("recent", recent), ("instructions and message", other),
              ("answer", answer)]
    return {"total": total, "used": sum(n for _, n in shares),
            "parts": [{"name": name, "tokens": n, "pct": round(100 * n / total, 1)}
                      for name, n in shares]}
