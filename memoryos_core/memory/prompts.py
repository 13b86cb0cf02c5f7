"""Prompts and JSON schemas for consolidation, analysis and answers, with their validators."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from ..text import truncate_tokens, words
from . import grounding
from .persona import DIMENSIONS, LEVELS

PAGE_TOKENS = 160  # one page's share of a maintenance prompt; small models have small windows
# Filing needs the gist of a page, not all of it: shorter lines make a batch's prompt read in
# about half the time on the embedded model (prompt reading dominates its consolidation time).
CONSOLIDATION_PAGE_TOKENS = 90


def when(ts: float) -> str:
    """A timestamp as the prompt shows it, e.g. '2023-05-08 13:56'."""
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M")


def page_line(label: str, page: dict[str, Any], budget: int = PAGE_TOKENS) -> str:
    """One page as a prompt line: label, time, both sides (truncated to `budget` tokens)."""
    body = f"User: {page['user_text']} | Assistant: {page['assistant_text']}"
    return f"[{label}] ({when(page['ts'])}) {truncate_tokens(body, budget)}"


# -- consolidation --------------------------------------------------------------------------

def consolidation_messages(
    pages: list[dict[str, Any]], previous: dict[str, Any] | None, overview: str
) -> list[dict[str, str]]:
    """One user message asking to group new pages into at most two topics."""
    lines = [
        "You organise a conversation memory. Group the new dialogue pages into one or two topics.",
        f"Conversation overview so far: {overview or '(none)'}",
        "Previous page: " + (page_line("prev", previous, 100) if previous else "(none)"),
        "New pages:",
        *(page_line(str(i), p, CONSOLIDATION_PAGE_TOKENS) for i, p in enumerate(pages, start=1)),
        "Reply with JSON: continues_previous (true when page 1 goes on with the previous"
        " page), overview (what the conversation so far is about, naming its people and"
        " subjects), topics (one or two; for each, a summary naming what its pages say, its"
        " keywords taken from those pages, and the numbers of its pages). Each page number is"
        " in one topic.",
    ]
    return [{"role": "user", "content": "\n".join(lines)}]


def consolidation_schema(n_pages: int) -> dict[str, Any]:
    """Schema of the consolidation reply; page numbers are an enum so grammars keep them valid.

    String and list lengths are bounded so that a grammar-constrained small model cannot run a
    summary on until `max_tokens` cuts the JSON (which then fails and is retried).
    """
    return {
        "type": "object",
        "properties": {
            "continues_previous": {"type": "boolean"},
            "overview": {"type": "string", "minLength": 1, "maxLength": 300},
            "topics": {
                "type": "array", "minItems": 1, "maxItems": 2,
                "items": {
                    "type": "object",
                    "properties": {
                        "summary": {"type": "string", "minLength": 1, "maxLength": 200},
                        "keywords": {"type": "array", "maxItems": 6,
                                     "items": {"type": "string", "maxLength": 30}},
                        "pages": {"type": "array", "minItems": 1, "maxItems": n_pages,
                                  "items": {"type": "integer",
                                            "enum": list(range(1, n_pages + 1))}},
                    },
                    "required": ["summary", "keywords", "pages"],
                },
            },
        },
        "required": ["continues_previous", "overview", "topics"],
    }


# -- analysis -------------------------------------------------------------------------------

def profile_messages(
    pages: list[dict[str, Any]], profile: list[dict[str, Any]]
) -> list[dict[str, str]]:
    """Ask which profile dimensions the pages show, at which level, with which page ids.

    `profile` holds each stored dimension's level and earlier evidence (`pages` and `quotes`,
    from profile_update.earlier_evidence): a level given is for all of a dimension's evidence.
    """
    current = [f"- {p['dimension']}: {p['level'] or 'no level yet'}; earlier evidence,"
               f" {p.get('pages', 0)} pages: " + " | ".join(f'"{q}"' for q in p.get("quotes", []))
               for p in profile]
    lines = [
        "You maintain a structured profile of the USER from dialogue pages.",
        "Current profile:", *(current or ["(empty)"]),
        "Pages:",
        *(page_line(f"p{p['id']}", p) for p in pages),
        "Reply with JSON: dimensions, a list of the profile dimensions these pages give clear"
        " evidence for (at most 8), each with level High, Medium or Low, a one-line reason, and"
        " the ids of the supporting pages. A level is for all of a dimension's evidence: its"
        " earlier evidence above together with these pages. Use only dimension names from the"
        " allowed list.",
        "Allowed dimensions: " + ", ".join(DIMENSIONS),
    ]
    return [{"role": "user", "content": "\n".join(lines)}]


def profile_schema(page_ids: list[int]) -> dict[str, Any]:
    """Schema of the profile reply."""
    return {
        "type": "object",
        "properties": {
            "dimensions": {
                "type": "array", "maxItems": 8,
                "items": {
                    "type": "object",
                    "properties": {
                        "dimension": {"type": "string", "enum": list(DIMENSIONS)},
                        "level": {"type": "string", "enum": list(LEVELS)},
                        "reason": {"type": "string", "minLength": 1, "maxLength": 160},
                        "evidence": {"type": "array", "minItems": 1, "maxItems": 8,
                                     "items": {"type": "integer", "enum": page_ids}},
                    },
                    "required": ["dimension", "level", "reason", "evidence"],
                },
            }
        },
        "required": ["dimensions"],
    }


def validate_profile(value: Any, page_ids: list[int],
                     texts: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """Checked profile updates; unknown dimensions or levels are errors, bad evidence is dropped.

    With the pages' `texts`, a reason that echoes the prompt or is not grounded in its evidence
    pages is dropped; when every proposed row is dropped that way, the reply is an error.
    """
    if not isinstance(value, dict) or not isinstance(value.get("dimensions"), list):
        raise ValueError("expected an object with a 'dimensions' list")
    out: dict[str, dict[str, Any]] = {}
    rejected = 0
    for n, item in enumerate(value["dimensions"], start=1):
        if not isinstance(item, dict):
            raise ValueError(f"dimensions[{n}] is not an object")
        name, level = item.get("dimension"), item.get("level")
        if name not in DIMENSIONS:
            raise ValueError(f"dimensions[{n}].dimension {name!r} is not an allowed dimension")
        if level not in LEVELS:
            raise ValueError(f"dimensions[{n}].level must be High, Medium or Low")
        evidence = [i for i in _ints(item.get("evidence")) if i in page_ids]
        reason = str(item.get("reason") or "").strip()
        if not evidence or not reason:
            continue  # a claim without support or reason is not stored
        if texts is not None and not grounding.is_true_to(
                reason, " ".join(texts[i] for i in evidence), grounding.REASON_GROUNDING,
                ignore=[*words(name), *words(level), *words(DIMENSIONS[name])]):
            rejected += 1
            continue
        out[name] = {"dimension": name, "family": DIMENSIONS[name], "level": level,
                     "reason": reason[:300], "evidence": sorted(set(evidence))}
    if rejected and not out:
        raise ValueError("every reason repeated the instructions or named nothing of its"
                         " evidence pages; give reasons from what the pages say")
    return list(out.values())


def facts_messages(pages: list[dict[str, Any]],
                   known: Sequence[dict[str, Any]] = ()) -> list[dict[str, str]]:
    """Ask for durable facts about the user and about the assistant, with source page ids;
    with `known` facts, a new fact may name the one it replaces."""
    lines = [
        "Extract durable facts from these dialogue pages.",
        "Pages:",
        *(page_line(f"p{p['id']}", p) for p in pages),
        "Reply with JSON: user_facts and assistant_facts. A user fact is something the USER"
        " said about their life, plans or likes; an assistant fact is something the ASSISTANT"
        " said about itself. Write each fact in your own words from the pages, with its date"
        " when known, and give the page ids it comes from. Leave a list empty when nothing fits.",
    ]
    if known:
        lines += [
            "Facts already known (id, since when):",
            *(f"[{f['id']}] ({when(float(f['valid_from'] or f['created_at']))}) {f['text']}"
              for f in known),
            "When a new fact says the known one no longer holds (a new job, car, home, record),"
            " give that id as replaces; otherwise replaces is 0.",
        ]
    return [{"role": "user", "content": "\n".join(lines)}]


def facts_schema(page_ids: list[int], known: Sequence[int] = ()) -> dict[str, Any]:
    """Schema of the facts reply (`replaces`: 0 or one of the `known` fact ids)."""
    fact: dict[str, Any] = {
        "type": "object",
        "properties": {
            "fact": {"type": "string", "minLength": 8, "maxLength": 160},
            "pages": {"type": "array", "minItems": 1, "maxItems": 4,
                      "items": {"type": "integer", "enum": page_ids}},
        },
        "required": ["fact", "pages"],
    }
    if known:
        fact["properties"]["replaces"] = {"type": "integer", "enum": [0, *known]}
    return {
        "type": "object",
        "properties": {
            "user_facts": {"type": "array", "maxItems": 8, "items": fact},
            "assistant_facts": {"type": "array", "maxItems": 8, "items": fact},
        },
        "required": ["user_facts", "assistant_facts"],
    }


def validate_facts(value: Any, page_ids: list[int], texts: dict[int, str] | None = None,
                   known: Sequence[int] = ()) -> dict[str, list[dict[str, Any]]]:
    """Checked facts per list; facts without text or valid sources are dropped.

    With the pages' `texts`, a fact that echoes the prompt or is not grounded in its source
    pages is dropped; when every proposed fact is dropped that way, the reply is an error.
    A fact's `replaces` is kept only when it names one of the `known` facts shown.
    """
    if not isinstance(value, dict):
        raise ValueError("expected an object with user_facts and assistant_facts")
    out: dict[str, list[dict[str, Any]]] = {}
    rejected = 0
    for key, kind in (("user_facts", "user"), ("assistant_facts", "assistant")):
        items = value.get(key, [])
        if not isinstance(items, list):
            raise ValueError(f"{key} must be a list")
        kept = []
        for item in items[:8]:
            if isinstance(item, str):
                item = {"fact": item, "pages": page_ids[:1]}
            if not isinstance(item, dict):
                continue
            text = " ".join(str(item.get("fact") or "").split())
            sources = sorted({i for i in _ints(item.get("pages")) if i in page_ids})
            if len(text) < 8 or not sources:
                continue
            if texts is not None and not grounding.is_true_to(
                    text, " ".join(texts[i] for i in sources), grounding.FACT_GROUNDING):
                rejected += 1
                continue
            replaces = item.get("replaces")
            kept.append({"text": text[:300], "sources": sources,
                         "replaces": replaces if replaces in known
                         and not isinstance(replaces, bool) else None})
        out[kind] = kept
    if rejected and not (out["user"] or out["assistant"]):
        raise ValueError("every fact repeated the instructions or was not in its pages; state"
                         " only what the pages say")
    return out


def _ints(value: Any) -> list[int]:
    """Integers from a list that may hold numbers or strings like 'p12'."""
    if not isinstance(value, list):
        return []
    out = []
    for v in value:
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            out.append(v)
        elif isinstance(v, str) and v.lstrip("p").isdigit():
            out.append(int(v.lstrip("p")))
    return out


# -- answering ------------------------------------------------------------------------------

def answer_system(
    memory_block: str, now: float, relationship: str | None, style_hint: str | None
) -> str:
    """The system message of an answer: role, language rule and the memory block."""
    parts = [
        "You are a helpful assistant with a long-term memory of this user.",
        f"You are the user's {relationship}." if relationship else "",
        f"Style: {style_hint}." if style_hint else "",
        "Reply in the language of the user's latest message and match its length and tone.",
        "Use the memory below when it helps; the times show when things were said. If the memory"
        " does not hold the answer, say you do not know rather than invent it.",
        f"Current time: {when(now)}.",
        memory_block,
    ]
    return "\n".join(p for p in parts if p)
