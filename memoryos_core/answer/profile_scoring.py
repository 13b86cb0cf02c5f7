"""Profile rows scored against the query: only those that score enter the prompt."""

from __future__ import annotations

from typing import Any

from ..context import Context
from .memory_block import profile_line
from .types import ProfileHit

PROFILE_ROWS = 3  # profile dimensions in one prompt at most

_PROFILE_VECTORS: dict[tuple[str, str], Any] = {}


def scored_profile_rows(ctx: Context, profile: list[ProfileHit],
                   qvec: Any) -> list[ProfileHit]:
    """Profile rows that score at least `profile_min_score` against the query, best first.

    Row embeddings are cached by text: a profile changes only when it is analysed.
    """
    if not profile:
        return []
    texts = [profile_line(r)[2:] for r in profile]
    fresh = [t for t in texts if (ctx.embedder.name, t) not in _PROFILE_VECTORS]
    if fresh:
        if len(_PROFILE_VECTORS) > 20_000:
            _PROFILE_VECTORS.clear()
        for text, vec in zip(fresh, ctx.embedder.embed(fresh), strict=True):
            _PROFILE_VECTORS[(ctx.embedder.name, text)] = vec
    scored: list[ProfileHit] = []
    for row, text in zip(profile, texts, strict=True):
        score = float(_PROFILE_VECTORS[(ctx.embedder.name, text)] @ qvec)
        if score >= ctx.config.profile_min_score:
            scored.append(ProfileHit(**row, score=round(score, 4)))
    return sorted(scored, key=lambda r: -r.get("score", 0.0))[:PROFILE_ROWS]


