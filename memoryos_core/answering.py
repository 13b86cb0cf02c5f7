"""The answer prompt: memory block, short-term turns and the message, fitted to the model."""

from __future__ import annotations

import time
from typing import Any

from . import retrieval
from .context import Context
from .llm import ChatModel
from .prompts import answer_system
from .storage import exchanges as rows_db
from .text import count_tokens

MAX_REFITS = 4  # retrievals with a smaller memory budget before the memory is left out


def _messages(block: str, short: list[dict[str, Any]], text: str, relationship: str | None,
              style_hint: str | None) -> list[dict[str, str]]:
    system = answer_system(block, time.time(), relationship, style_hint)
    turns: list[dict[str, str]] = []
    for row in short:
        turns += [{"role": "user", "content": row["user_text"]},
                  {"role": "assistant", "content": row["assistant_text"]}]
    return [{"role": "system", "content": system}, *turns, {"role": "user", "content": text}]


def _size(messages: list[dict[str, str]]) -> int:
    return sum(count_tokens(m["content"]) + 4 for m in messages)


def fit_prompt(
    ctx: Context, user_id: str, text: str, trace: dict[str, Any], llm: ChatModel,
    relationship: str | None = None, style_hint: str | None = None,
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """Messages that fit the model's window, and the trace of exactly what they hold.

    The oldest short-term turns go first; then the memory is retrieved again under a smaller
    budget, so the trace's selected pages, used segments (heat visits) and prompt parts
    describe the prompt that is sent, never a longer one that was cut.
    """
    short = rows_db.short_term_rows(ctx.store, user_id)
    window = llm.context_window - ctx.config.answer_max_tokens - 64
    dropped, refits, first_budget = 0, 0, trace.get("token_budget")
    while True:
        messages = _messages(trace["memory_block"], short, text, relationship, style_hint)
        excess = _size(messages) - window
        if excess <= 0 or (not short and not trace["memory_block"]):
            break
        if short:
            short, dropped = short[1:], dropped + 1
            continue
        block_tokens = count_tokens(trace["memory_block"])
        budget = 0 if refits >= MAX_REFITS else max(0, block_tokens - excess - 8 * refits)
        trace = retrieval.retrieve(ctx, user_id, text, record=False, token_budget=budget)
        refits += 1
        if budget == 0:
            trace["memory_block"], trace["prompt_parts"] = "", []
            for page in trace["pages"]:
                page["selected"] = False
            trace["used_segments"] = []
    turn_tokens = sum(count_tokens(m["content"]) for m in messages[1:-1])
    trace["prompt_parts"] = [*trace["prompt_parts"],
                             {"name": "short_term", "tokens": turn_tokens,
                              "items": len(short)},
                             {"name": "message", "tokens": count_tokens(text), "items": 1}]
    trace["fitted"] = {"window": window, "short_term_dropped": dropped,
                       "memory_budget": trace.get("token_budget"),
                       "memory_budget_asked": first_budget, "refits": refits}
    return messages, trace
