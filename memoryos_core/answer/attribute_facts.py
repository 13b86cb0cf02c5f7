"""The current value of what a question asks about: "Where do I live now?" gets the home fact.

A question about an attribute (memory/attributes.py: where the user lives, their job, their
car...) is answered by the fact that holds that attribute's current value, though its words
may be far from the question's ("I moved to Berlin last month, into a flat in Kreuzberg." is
under fact_min_score for "Where do I live now?"). The facts nearest to the attribute's
descriptions are classified like analysis classifies them; those of the question's attribute
and holder that are current enter the prompt first, the newest first. What they replaced
follows them for a question on the past, as for any current fact.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..context import Context
from ..memory import attributes

SEARCHED = 20  # facts nearest to an attribute's descriptions that are classified
PER_ATTRIBUTE = 3  # current facts of one asked attribute put first, at most


class Asked(NamedTuple):
    """The facts of the attributes a question asks about: fact id -> (attribute, cosine to
    the question), and the holder asked about per attribute."""

    facts: dict[int, tuple[str, float]]
    holders: dict[str, str]


def asked(ctx: Context, user_id: str, query: str, qvec: np.ndarray) -> Asked:
    """The user's facts of the attributes the question is about (none when it names none)."""
    found = attributes.asked_in(query, qvec, ctx.embedder)
    if not found:
        return Asked({}, {})
    holders = {name: attributes.holder(query, name) for name in found}
    ids: set[int] = set()
    for name in found:
        ids.update(i for i, _ in ctx.index.search(
            user_id, "fact", attributes.centroid(ctx.embedder, name), SEARCHED))
    vecs = ctx.index.vectors_of(user_id, "fact", sorted(ids))
    order = sorted(vecs)
    kinds = attributes.classify_many(np.vstack([vecs[i] for i in order]), ctx.embedder) \
        if order else []
    facts: dict[int, tuple[str, float]] = {}
    for fid, of in zip(order, kinds, strict=True):
        shared = [n for n in found if n in of]
        if shared:
            facts[fid] = (max(shared, key=lambda n: of[n]), float(vecs[fid] @ qvec))
    return Asked(facts, holders)


def current_values(question: Asked, rows: dict[int, dict[str, Any]]) -> list[tuple[int, float]]:
    """(fact id, cosine to the question) of the current facts of each asked attribute whose
    holder is the one asked about, newest first, PER_ATTRIBUTE at most per attribute."""
    out: list[tuple[int, float]] = []
    for name, holder in question.holders.items():
        mine = [r for fid, (attr, _) in question.facts.items() if attr == name
                and (r := rows.get(fid)) is not None and r["valid_until"] is None
                and attributes.holder(str(r["text"]), name) == holder]
        mine.sort(key=lambda r: -float(r["valid_from"] or r["created_at"] or 0.0))
        out += [(int(r["id"]), question.facts[int(r["id"])][1]) for r in mine[:PER_ATTRIBUTE]
                if all(int(r["id"]) != i for i, _ in out)]
    return out
