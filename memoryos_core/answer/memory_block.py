"""The memory block: its token budget, page lines under day headers, and its assembly."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Collection
from typing import Any

from ..text import count_tokens, stem, stems_held, truncate_tokens
from .types import FactHit, Facts, PageHit, Part, ProfileHit

PAGE_LINE_TOKENS = 220
# A page too long for its line (an assistant's reply of hundreds of tokens) shows the passages
# that hold the query's words instead of its opening: the user's side whole up to
# USER_SIDE_TOKENS, then the reply's sentences with query words, best first, within a line of
# FOCUSED_LINE_TOKENS; a reply without any shows its opening only (REPLY_OPENING_TOKENS). More
# pages fit the budget, each with what the question is about (LongMemEval dev, equal tokens:
# recall 0.813 -> 0.886, the evidence turns shown whole 0.736 -> 0.769; line caps of 100 / 140 /
# 160 / 220: 0.891 / 0.869 / 0.869 / 0.852, 100 showing fewer turns whole; LoCoMo dev 0.823
# unchanged, its lines are short).
USER_SIDE_TOKENS = 120
REPLY_OPENING_TOKENS = 30
FOCUSED_LINE_TOKENS = 120
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+|\n+")
PAGES_HEADER = "## Relevant past conversation"


def memory_budget(asked: int, context_budget: int, recent: int) -> int:
    """The memory block's budget: what `asked`, and the context budget less the recent
    conversation, allow (never below a quarter of `asked`; context budget 0: no cap).

    The prompt's memory and recent conversation stay within one size; the recent exchanges are
    shortened to their share first (memoryos_core.answer.recent), so they rarely leave the memory less.
    """
    if context_budget <= 0:
        return asked
    return min(asked, max(asked // 4, context_budget - recent))


def profile_line(row: ProfileHit) -> str:
    """One profile dimension as the memory block writes it: a model's level with its reason,
    or, with signals and no level, how many pages mention it and the newest thing said."""
    if row["level"]:
        return f"- {row['dimension']}: {row['level']} ({row['reason']})"
    pages = len(_decoded(row["evidence"]))
    said = _decoded(row.get("signals") or [])
    quote = f" ({truncate_tokens(said[-1]['text'], 30)})" if said else ""
    return f"- {row['dimension']}: mentioned in {pages} page{'s' if pages != 1 else ''}{quote}"


def _decoded(value: Any) -> list[Any]:
    """A JSON list column as stored (text) or already read (list)."""
    return list(json.loads(value) if isinstance(value, str) else value)


def fact_line(fact: FactHit) -> str:
    """One fact as the memory block writes it; a replaced one says until when it held."""
    until = fact.get("valid_until")
    if until is None:
        return f"- {fact['text']}"
    d = dt.datetime.fromtimestamp(until, tz=dt.UTC)
    return f"- {fact['text']} (until {d.day} {d:%B %Y}; replaced)"


@functools.lru_cache(maxsize=4096)  # ~40 per retrieval, the same pages' times again and again
def day(ts: float) -> str:
    """The day header of pages in the memory block, e.g. '[8 May 2023, Monday]'."""
    d = dt.datetime.fromtimestamp(ts, tz=dt.UTC)
    return f"[{d.day} {d:%B %Y, %A}]"


def page_body(row: dict[str, Any], focus: Collection[str] = ()) -> str:
    """One page as a line of the memory block (its day is the header above it); a page longer
    than its line shows the passages holding the `focus` words, where any are given."""
    return _line(row, {stem(w) for w in focus})


def _line(row: dict[str, Any], stems: set[str]) -> str:
    """`page_body` with the focus words already stemmed."""
    line = f"User: {row['user_text']} | Assistant: {row['assistant_text']}"
    if not stems or count_tokens(line) <= PAGE_LINE_TOKENS:
        return truncate_tokens(line, PAGE_LINE_TOKENS)
    user = _passages(row["user_text"], stems, USER_SIDE_TOKENS, keep_first=True)
    left = FOCUSED_LINE_TOKENS - count_tokens(f"User: {user} | Assistant: ")
    reply = _passages(row["assistant_text"], stems, left, keep_first=False) \
        or truncate_tokens(" ".join(row["assistant_text"].split()), REPLY_OPENING_TOKENS)
    return truncate_tokens(f"User: {user} | Assistant: {reply}", FOCUSED_LINE_TOKENS)


def _passages(text: str, stems: set[str], budget: int, keep_first: bool) -> str:
    """The sentences of `text` holding the most `stems`, in text order, within `budget`
    tokens, gaps marked "…" (the whole text when it fits; `keep_first`: the opening always)."""
    text = text.strip()
    if count_tokens(text) <= budget:
        return " ".join(text.split()) if keep_first or stems_held(text, stems) else ""
    sentences = [" ".join(s.split()) for s in _SENTENCE_END.split(text) if s.strip()]
    hits = [stems_held(s, stems) for s in sentences]
    chosen: set[int] = {0} if keep_first else set()
    left = budget - (count_tokens(sentences[0]) if keep_first else 0)
    for i in sorted(range(len(sentences)), key=lambda i: (-hits[i], i)):  # best, then first
        need = count_tokens(sentences[i]) + 1
        if hits[i] and i not in chosen and need <= left:
            chosen.add(i)
            left -= need
    out: list[str] = []
    for i in sorted(chosen):
        if i and i - 1 not in chosen:
            out.append("…")
        out.append(sentences[i])
    if out and max(chosen) < len(sentences) - 1:
        out.append("…")
    return truncate_tokens(" ".join(out), budget)


def page_tokens(row: dict[str, Any]) -> int:
    """Tokens of a page's line in the memory block."""
    return count_tokens(page_body(row))


def fill_pages(rows: list[dict[str, Any]], left: int, limit: int,
               focus: Collection[str] = ()) -> tuple[list[int], list[str]]:
    """Pages in rank order while they fit `left` tokens, grouped under day headers (long
    pages show the passages holding the `focus` words).

    Returns the positions taken and the section's lines (header, then days in time order with
    their pages). A day header is paid once: pages of one sitting share it.
    """
    header_cost = count_tokens(PAGES_HEADER)
    stems = {stem(w) for w in focus}
    days: set[str] = set()
    taken: list[int] = []
    bodies: dict[int, str] = {}  # each line is written once: a focused one costs sentence work
    for i, row in enumerate(rows[:limit]):
        d = day(row["ts"])
        bodies[i] = _line(row, stems)
        need = count_tokens(bodies[i]) + (0 if taken else header_cost) \
            + (0 if d in days else count_tokens(d))
        if need > left:
            continue
        taken.append(i)
        days.add(d)
        left -= need
    lines = [PAGES_HEADER] if taken else []
    current = None
    for i in sorted(taken, key=lambda i: (rows[i]["ts"], rows[i]["id"])):
        d = day(rows[i]["ts"])
        if d != current:
            lines.append(d)
            current = d
        lines.append(bodies[i])
    return taken, lines


def assemble(
    pages: list[PageHit], page_rows: dict[int, dict[str, Any]],
    profile: list[ProfileHit], facts: Facts, budget: int,
    max_pages: int, focus: Collection[str] = (),
) -> tuple[list[Part], str]:
    """Fill the memory block part by part, within the budget; mark what was selected.

    Facts and profile rows are here only because they scored against the query; they are short
    and go first. Dialogue pages then get the rest of the budget (they are the evidence itself),
    the chain overview whatever is left. The block reads profile, facts, pages, overview.
    """
    sections: list[tuple[str, list[str]]] = []
    left = budget

    def take(name: str, header: str, lines: list[str]) -> list[int]:
        nonlocal left
        kept: list[str] = []
        taken: list[int] = []
        cost = count_tokens(header)
        for i, line in enumerate(lines):
            need = count_tokens(line) + (cost if not kept else 0)
            if need > left:
                continue
            kept.append(line)
            taken.append(i)
            left -= need
        if kept:
            sections.append((name, [header, *kept]))
        return taken

    for kept, name, header in ((facts["user"], "user_facts", "## Facts about the user"),
                               (facts["assistant"], "assistant_facts",
                                "## Facts about the assistant (you)")):
        for i in take(name, header, [fact_line(f) for f in kept]):
            kept[i]["in_prompt"] = True
    for i in take("profile", "## User profile", [profile_line(p) for p in profile]):
        profile[i]["in_prompt"] = True
    ranked = [p for p in pages if "repeats" not in p][:max_pages]
    for p in pages:
        if "repeats" in p:
            p["reason"] = f"repeats page {p['repeats']}"
    chosen, lines = fill_pages([page_rows[p["id"]] for p in ranked], left, max_pages, focus)
    if chosen:
        sections.append(("pages", lines))
        left -= count_tokens("\n".join(lines))
    for i in chosen:
        ranked[i]["selected"] = True
        ranked[i]["reason"] = (f"in budget, continues page {ranked[i]['continues']}"
                               if "continues" in ranked[i] else f"in budget, rank {i + 1}")
    overviews = list(dict.fromkeys(page_rows[ranked[i]["id"]]["overview"] for i in chosen))
    take("overview", "## Conversation context", [o for o in overviews if o][:2])
    layout = ("profile", "user_facts", "assistant_facts", "pages", "overview")
    sections.sort(key=lambda section: layout.index(section[0]))
    parts = [Part(name=name, tokens=count_tokens("\n".join(body)),
                  items=len(chosen) if name == "pages" else len(body) - 1)
             for name, body in sections]
    block = "\n".join("\n".join(body) for _, body in sections)
    return parts, block
