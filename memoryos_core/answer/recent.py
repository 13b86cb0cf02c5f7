"""The recent conversation as a prompt shows it: every short-term exchange, long sides shortened.

Short-term memory keeps every exchange whole; only what the prompt shows is shortened. A pasted
document or an assistant reply of hundreds of tokens would otherwise take the room the memory
block needs (LongMemEval: 7 recent exchanges were a median 3,276 tokens).
"""

from __future__ import annotations

import re
from typing import Any

from ..config import EngineConfig
from ..text import count_tokens, stem, stems_held, truncate_tokens

SIDE_FLOOR = 24  # a side is never cut below this many tokens: the gist stays readable
NEWEST_WEIGHT = 3  # the newest exchange keeps 3x the room of older ones (it is being answered)
SHORTENED = " [shortened]"
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#{1,6}|>)\s+")  # list item, heading, quote
_FENCE = re.compile(r"^\s*(?:```|~~~).*$", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)(?=\S)(.+?)(?<=\S)\1")


def plain_turn(text: str) -> str:
    """An earlier reply as plain sentences, without Markdown: list markers, headings, bold.

    The small model copies the form of the turns it is shown: after three replies with lists,
    every later reply of SmolLM2-135M began with a literal "*" (issue 48).
    """
    lines = [_MARKER.sub("", line).strip() for line in _FENCE.sub("", text).splitlines()]
    lines = [_EMPHASIS.sub(r"\2", line).replace("**", "").strip() for line in lines]
    out = ""
    for line in filter(None, lines):  # items end with ';' where they had no stop of their own
        out += (" " if not out or out[-1] in ".!?:;," else "; ") + line
    return out.strip()


def recent_budget(config: EngineConfig) -> int:
    """Tokens the recent conversation may take: the context budget less the memory's (0: no cap)."""
    if config.context_token_budget <= 0:
        return 0
    return max(SIDE_FLOOR * 2, config.context_token_budget - config.memory_token_budget)


def _cap_level(sizes: list[tuple[int, int]], budget: int) -> int:
    """The largest level L with sum(min(size, max(floor, weight*L))) <= budget (0 if none)."""

    def total(level: int) -> int:
        return sum(min(size, max(SIDE_FLOOR, weight * level)) for size, weight in sizes)

    lo, hi = 0, max((size for size, _ in sizes), default=0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if total(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def fit_recent(rows: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """Copies of the short-term rows (oldest first) whose sides fit `budget` tokens together.

    Long sides are cut first and to the same length (water-filling), the newest exchange's
    sides to NEWEST_WEIGHT times that; short sides stay whole. A cut row is marked
    `shortened`. Budget 0: the rows as they are.
    """
    out = [dict(r, shortened=False) for r in rows]
    if budget <= 0 or not out:
        return out
    sides = [(i, key) for i in range(len(out)) for key in ("user_text", "assistant_text")]
    sizes = [(count_tokens(out[i][key]), NEWEST_WEIGHT if i == len(out) - 1 else 1)
             for i, key in sides]
    if sum(size for size, _ in sizes) <= budget:
        return out
    level = _cap_level(sizes, budget)
    for (i, key), (size, weight) in zip(sides, sizes, strict=True):
        cap = max(SIDE_FLOOR, weight * level)
        if size > cap:
            out[i][key] = truncate_tokens(out[i][key], cap - count_tokens(SHORTENED)) + SHORTENED
            out[i]["shortened"] = True
    return out


def recent_tokens(rows: list[dict[str, Any]]) -> int:
    """Tokens of the exchanges' two sides, as the prompt shows them."""
    return sum(count_tokens(r["user_text"]) + count_tokens(r["assistant_text"]) for r in rows)


def shortened_by_keywords(rows: list[dict[str, Any]], fitted: list[dict[str, Any]],
                          keywords: list[str]) -> list[int]:
    """The short-term exchanges the prompt shows shortened that hold at least half of the
    query's distinctive `keywords`, most first (ties: newest first).

    Such an exchange is in no memory page yet and cut in the recent conversation, so without
    this the memory could not show what it said ("the stand mixer my sister gave me", four
    turns after a long recipe). Its whole text is searched, not the shortened one.
    """
    wanted = {stem(k) for k in keywords}
    if not wanted:
        return []
    held = []
    for row, shown in zip(rows, fitted, strict=True):
        if not shown["shortened"]:
            continue
        have = stems_held(f"{row['user_text']} {row['assistant_text']}", wanted)
        if 2 * have >= len(wanted):
            held.append((-have, -int(row["id"]), int(row["id"])))
    return [pid for _, _, pid in sorted(held)]
