"""The answer prompt: a layout per model class, fitted to the model's window, traced exactly.

`chat` (any configured endpoint): a system message with the instructions and the memory block,
the recent exchanges as turns, then the message. `compact` (the embedded 135M model): a question
on memory is answered from memory (grounded.py), and its prompt, kept for the trace, is one plain
message with the best memory lines last; every other message goes to the model as a short chat
of its own format (a one-line system message, the last recent exchanges as turns, the message)
and no memory. Measured on ten small-talk and general messages side by side (README, "The
embedded model's answers"): the one-message layout answered "Tell me a joke" with "Priya, a
paramedic in Leeds." and copied the recent lines; the chat format answered each in kind.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from ..context import Context
from ..llm import ChatModel
from ..memory.prompts import answer_system, when
from ..storage.tables import exchanges as exchanges_db
from ..text import count_tokens, truncate_tokens
from . import grounded, retrieval
from .memory_block import day
from .recent import fit_recent, plain_turn, recent_budget
from .types import FactHit, Facts, Fitted, PageHit, Part, Prompt, Retrieval

MAX_REFITS = 4  # retrievals with a smaller memory budget before the memory is left out
COMPACT_MEMORY_TOKENS = 450  # the small model's memory: a few pages, not a dozen
COMPACT_PAGES = 4  # pages at most in a compact prompt
COMPACT_USER_TOKENS = 60  # one side of a memory line in a compact prompt
COMPACT_ASSISTANT_TOKENS = 30
COMPACT_RECENT = 3  # recent exchanges shown to the small model
COMPACT_RECENT_USER_TOKENS = 40
COMPACT_RECENT_REPLY_TOKENS = 8  # its own earlier replies: a few words, never a whole reply
SMALL_CHAT_SYSTEM = "You are a friendly, helpful assistant. Reply in one or two short sentences."
SMALL_CHAT_TURN_TOKENS = 60  # one side of a recent exchange in the small model's chat


def layout_for(llm: ChatModel) -> str:
    """'compact' for the embedded small model, 'chat' for any configured endpoint."""
    return "compact" if getattr(llm, "embedded", False) else "chat"


Laid = tuple[list[dict[str, str]], list[Part]]  # a layout's messages and their parts


def _chat_messages(memory: Retrieval, recent: list[dict[str, Any]], text: str,
                   now: float, relationship: str | None, style_hint: str | None) -> Laid:
    system = answer_system(memory.memory_block, now, relationship, style_hint)
    turns: list[dict[str, str]] = []
    for row in recent:
        turns += [{"role": "user", "content": row["user_text"]},
                  {"role": "assistant", "content": row["assistant_text"]}]
    messages = [{"role": "system", "content": system}, *turns, {"role": "user", "content": text}]
    block = count_tokens(memory.memory_block)
    parts = [Part(name="instructions", tokens=count_tokens(system) - block, items=1),
             *memory.prompt_parts,
             Part(name="recent", tokens=sum(count_tokens(t["content"]) for t in turns),
                  items=len(recent)),
             Part(name="message", tokens=count_tokens(text), items=1)]
    return messages, parts


def compact_memory_lines(memory: Retrieval) -> list[str]:
    """The memory lines of a compact prompt: scored facts, then the best pages, best last."""
    lines = [f"- {f['text']}" for kind in ("user", "assistant") for f in memory.facts[kind]
             if f.get("in_prompt")]
    pages = [p for p in memory.pages if p.get("selected")][:COMPACT_PAGES]
    for p in reversed(pages):
        user = truncate_tokens(p["user"], COMPACT_USER_TOKENS)
        reply = truncate_tokens(p["assistant"], COMPACT_ASSISTANT_TOKENS)
        lines.append(f"- {day(p['timestamp'])} User: {user} | Assistant: {reply}")
    return lines


def _compact_messages(retrieved: Retrieval, recent: list[dict[str, Any]], text: str,
                      now: float) -> Laid:
    intro = ("You are a helpful assistant who remembers this user. Answer the user's message"
             " in one or two short sentences, in the user's language, using the memory lines"
             " when they hold the answer.")
    shown = recent[-COMPACT_RECENT:]
    recent_lines = []
    for row in shown:
        recent_lines.append(f"User: {truncate_tokens(row['user_text'], COMPACT_RECENT_USER_TOKENS)}")
        recent_lines.append("Assistant: " + truncate_tokens(
            plain_turn(row["assistant_text"]), COMPACT_RECENT_REPLY_TOKENS))
    memory = compact_memory_lines(retrieved)
    pieces = [(intro, "instructions"), (f"Current time: {when(now)}.", "instructions")]
    if recent_lines:
        pieces += [("Recent conversation:", "recent")] + [(x, "recent") for x in recent_lines]
    if memory:
        pieces += [("Memory (what the user told you before):", "memory")]
        pieces += [(x, "memory") for x in memory]
    pieces += [(f"User's message: {text}", "message"), ("Answer:", "instructions")]
    content = "\n".join(p for p, _ in pieces)
    parts: dict[str, int] = {}
    for piece, name in pieces:
        parts[name] = parts.get(name, 0) + count_tokens(piece)
    items = {"instructions": 1, "recent": len(shown), "memory": len(memory), "message": 1}
    return ([{"role": "user", "content": content}],
            [Part(name=n, tokens=t, items=items[n]) for n, t in parts.items()])


def _small_chat_messages(recent: list[dict[str, Any]], text: str) -> Laid:
    """The small model's own chat format for small talk and general questions: no memory."""
    turns: list[dict[str, str]] = []
    # exchanges answered from memory are left out: the model imitated them, inventing memories
    own = [r for r in recent if not grounded.built_answer(r["assistant_text"])]
    for row in own[-COMPACT_RECENT:]:
        turns += [{"role": "user",
                   "content": truncate_tokens(row["user_text"], SMALL_CHAT_TURN_TOKENS)},
                  {"role": "assistant",  # plain: the small model copies list markers
                   "content": truncate_tokens(plain_turn(row["assistant_text"]),
                                              SMALL_CHAT_TURN_TOKENS)}]
    messages = [{"role": "system", "content": SMALL_CHAT_SYSTEM}, *turns,
                {"role": "user", "content": text}]
    parts = [Part(name="instructions", tokens=count_tokens(SMALL_CHAT_SYSTEM), items=1),
             Part(name="recent", tokens=sum(count_tokens(t["content"]) for t in turns),
                  items=len(turns) // 2),
             Part(name="message", tokens=count_tokens(text), items=1)]
    return messages, parts


def _size(messages: list[dict[str, str]]) -> int:
    return sum(count_tokens(m["content"]) + 4 for m in messages)


def _compact_memory(memory: Retrieval, with_memory: bool = True) -> Retrieval:
    """The memory a compact prompt shows: the pages and facts it leaves out marked so, in a
    new Retrieval (the given one is left as it is), so the trace is what was sent."""
    kept = 0
    pages: list[PageHit] = []
    for p in memory.pages:
        if p.get("selected"):
            kept += 1
            if not with_memory:
                p = {**p, "selected": False,
                     "reason": "not a question on memory: the small model is not shown memory"}
            elif kept > COMPACT_PAGES:
                p = {**p, "selected": False, "reason": "beyond the compact prompt's pages"}
        pages.append(p)
    facts: Facts = memory.facts
    if not with_memory:
        facts = {**facts, "user": [_left_out(f) for f in facts["user"]],
                 "assistant": [_left_out(f) for f in facts["assistant"]]}
    selected = {p["segment_id"] for p in pages if p.get("selected")}
    return dataclasses.replace(memory, pages=pages, facts=facts, used_segments=[
        s for s in memory.used_segments if s in selected])


def _left_out(fact: FactHit) -> FactHit:
    return {**fact, "in_prompt": False}


def _without_memory(memory: Retrieval) -> Retrieval:
    """A refit's last memory: nothing of it in the prompt."""
    return dataclasses.replace(memory, memory_block="", prompt_parts=[], used_segments=[],
                               pages=[{**p, "selected": False} for p in memory.pages])


def fit_prompt(
    ctx: Context, user_id: str, text: str, retrieved: Retrieval, llm: ChatModel,
    relationship: str | None = None, style_hint: str | None = None,
    now: float | None = None, refit: bool = True,
    short_rows: list[dict[str, Any]] | None = None, asked: str | None = None,
) -> Prompt:
    """The messages that fit the model's window, with exactly the memory they hold.

    Recent exchanges are shortened to their share of `context_token_budget`; if the model's
    window is still too small the oldest go first, then the memory is retrieved again under a
    smaller budget, so the Prompt's memory (selected pages, used segments for heat visits) and
    parts describe the prompt that is sent, never a longer one that was cut. `retrieved` is
    not changed. `refit` False keeps the given memory as it is (a benchmark's baseline memory
    in the product's layout). `short_rows`: the user's short-term rows when the caller has
    read them this turn. A small model's memory comes retrieved at its compact budget
    (`retrieve(..., budget_cap=COMPACT_MEMORY_TOKENS)`, as the engine does). `asked`: the
    question as searched and weighed, when not `text` itself (followup.py).
    """
    now = time.time() if now is None else now
    layout = layout_for(llm)
    # the small model writes only small talk and general replies; memory answers memory questions
    rows = exchanges_db.short_term_rows(ctx.store, user_id) if short_rows is None else short_rows
    asked = asked or text
    # "What do you know about me?" reads what the user told across every tier, not the pages
    # found by its words (which name nothing of theirs)
    told = exchanges_db.recent_exchange_rows(ctx.store, user_id, grounded.ABOUT_ME_ROWS) \
        if layout == "compact" and grounded.ABOUT_ME.search(asked) else rows
    planned = grounded.plan(ctx.embedder, retrieved, asked, told) if layout == "compact" \
        else None
    with_memory = planned is None or planned.kind == "memory"
    recent = fit_recent(rows, recent_budget(ctx.config))
    window = llm.context_window - ctx.config.answer_max_tokens - 64
    dropped, refits, first_budget = 0, 0, retrieved.token_budget
    memory = retrieved
    while True:
        if layout == "compact":
            shown = _compact_memory(memory, with_memory)
            messages, parts = _compact_messages(shown, recent, text, now) if with_memory \
                else _small_chat_messages(recent, text)
        else:
            shown = memory
            messages, parts = _chat_messages(memory, recent, text, now, relationship,
                                             style_hint)
        excess = _size(messages) - window
        if excess <= 0 or (not recent and (not memory.memory_block or not refit)):
            break
        if recent:
            recent, dropped = recent[1:], dropped + 1
            continue
        block_tokens = count_tokens(memory.memory_block)
        budget = 0 if refits >= MAX_REFITS else max(0, block_tokens - excess - 8 * refits)
        memory = retrieval.retrieve(ctx, user_id, asked, record=False, token_budget=budget,
                                    now=now, short_rows=rows)
        refits += 1
        if budget == 0:
            memory = _without_memory(memory)
    plan = None if planned is None else {
        "kind": planned.kind, "built": planned.text or None,
        "evidence": grounded.evidence_view(planned.evidence), "routed": planned.routed,
        "considered": list(planned.considered), **({"asked": asked} if asked != text else {})}
    return Prompt(layout=layout, messages=messages, parts=parts, memory=shown,
                  recent_shortened=sum(1 for r in recent if r["shortened"]),
                  fitted=Fitted(window=window, short_term_dropped=dropped,
                                memory_budget=memory.token_budget,
                                memory_budget_asked=first_budget, refits=refits),
                  plan=plan)
