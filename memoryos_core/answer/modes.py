"""Chat modes: normal (memory read and written), temporary (memory read, the chat's own turns
never stored) and memory off (neither read nor written)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInput
from .types import Facts, Retrieval

MODES = ("normal", "temporary", "off")
MAX_RECENT = 50  # turns a temporary chat sends back with each message, at most


def check_mode(mode: Any, recent: Any, replaces: Any) -> str:
    """The mode, checked with what it allows: `recent` only off the record, `replaces` only on."""
    if mode not in MODES:
        raise InvalidInput(f"mode must be one of {', '.join(MODES)}")
    if mode == "normal" and recent is not None:
        raise InvalidInput("recent turns are given only in a temporary or memory-off chat")
    if mode != "normal" and replaces is not None:
        raise InvalidInput("a temporary or memory-off chat stores nothing to replace")
    return str(mode)


def own_rows(recent: Sequence[Any] | None) -> list[dict[str, Any]]:
    """An unstored chat's earlier turns ((user, assistant) pairs, oldest first) shaped as the
    short-term rows the prompt shows; their ids are negative, so no stored page matches."""
    turns = list(recent or [])[-MAX_RECENT:]
    rows = []
    now = time.time()
    for n, pair in enumerate(turns):
        if (not isinstance(pair, list | tuple) or len(pair) != 2
                or not all(isinstance(side, str) for side in pair)):
            raise InvalidInput("recent turns must be pairs of strings (user, assistant)")
        rows.append({"id": -(len(turns) - n), "user_text": pair[0], "assistant_text": pair[1],
                     "ts": now - (len(turns) - n), "tier": "short", "source": "unstored",
                     "segment_id": None})
    return rows


def no_memory(query: str) -> Retrieval:
    """The retrieval of a memory-off turn: nothing read, nothing in the prompt."""
    return Retrieval(
        query=query, query_keywords=[], keyword_search_terms=[], period=None,
        strategy="off", segments=[], pages=[], facts=Facts(user=[], assistant=[]),
        profile=[], used_segments=[], token_budget=0, recent_tokens=0,
        prompt_parts=[], memory_block="", timings_ms={"embed": 0.0, "total": 0.0},
    )
