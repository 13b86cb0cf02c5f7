"""The facts a question gets: the current ones that score, the asked attribute's current
value first, and the values they replaced for a question on the past (else traced as left out)."""

from __future__ import annotations

import json
from typing import Any

from ..context import Context
from ..memory import fact_history
from ..storage.tables import facts as facts_db
from . import attribute_facts
from .types import FactHit, Facts

HISTORY_STEPS = 5  # replaced values followed back from a current fact, for a question on the past


def question_facts(ctx: Context, user_id: str, qvec: Any, query: str,
                   now: float, hits: list[tuple[int, float]] | None = None) -> Facts:
    """The best current facts per list that score at least `fact_min_score` against the query,
    after the current value of an attribute the query asks about (`attribute_facts`).

    A replaced fact (history) follows the current ones only when the query asks about the past
    ("before", "used to", a named period it held in), with the values the found current facts
    replaced; otherwise it is listed under `superseded_left_out` for the trace, not the prompt.
    `hits`: the top_facts * 4 facts nearest to the query, when already searched.
    """
    cfg = ctx.config
    if hits is None:  # the facts nearest to the query, when the caller has not searched them
        hits = ctx.index.search(user_id, "fact", qvec, cfg.top_facts * 4)
    question = attribute_facts.asked(ctx, user_id, query, qvec)  # "Where do I live now?"
    # the found facts and what they replaced, in one read (the first step back needs them)
    rows, replaced = facts_db.facts_with_predecessors(ctx.store, user_id, sorted(
        {i for i, s in hits if s >= cfg.fact_min_score} | set(question.facts)))
    window = fact_history.past_window(query, now)
    out: dict[str, list[FactHit]] = {"user": [], "assistant": [], "superseded_left_out": []}
    history: dict[str, list[FactHit]] = {"user": [], "assistant": []}
    # the current value of the attribute asked about comes first, whatever its score
    first = attribute_facts.current_values(question, rows)
    for fid, score in first:
        if len(out[rows[fid]["kind"]]) < cfg.top_facts:
            out[rows[fid]["kind"]].append(fact_entry(rows[fid], score))
    for fid, score in hits:
        row = rows.get(fid)
        if row is None or score < cfg.fact_min_score or any(fid == i for i, _ in first):
            continue
        if row["valid_until"] is None:
            if len(out[row["kind"]]) < cfg.top_facts:
                out[row["kind"]].append(fact_entry(row, score))
        elif window is not None and fact_history.held_during(row, window):
            history[row["kind"]].append(fact_entry(row, score))
        else:
            out["superseded_left_out"].append(fact_entry(row, score))
    # what the found current facts replaced, back along the chain: history for a question on
    # the past, else named in the trace as left out
    seen = {f["id"] for part in (*out.values(), *history.values()) for f in part}
    heads = [f["id"] for kind in ("user", "assistant") for f in out[kind]]
    for step in range(HISTORY_STEPS if window is not None else 1):
        if not heads:
            break
        if step:  # the first step back came with the found facts
            replaced = facts_db.fact_predecessors(ctx.store, user_id, heads)
        wanted = set(heads)
        older = [r for r in replaced if r["superseded_by"] in wanted and r["id"] not in seen]
        vecs = ctx.index.vectors_of(user_id, "fact", [r["id"] for r in older])
        for r in older:
            seen.add(r["id"])
            entry = fact_entry(r, float(vecs[r["id"]] @ qvec) if r["id"] in vecs else 0.0)
            if window is not None and fact_history.held_during(r, window):
                history[r["kind"]].append(entry)
            else:
                out["superseded_left_out"].append(entry)
        heads = [r["id"] for r in older]
    for kind in ("user", "assistant"):
        out[kind] += history[kind][: cfg.top_facts]
    return Facts(user=out["user"], assistant=out["assistant"],
                 superseded_left_out=out["superseded_left_out"])


def fact_entry(row: dict[str, Any], score: float) -> FactHit:
    """A fact as the trace lists it, with its time: a replaced fact is marked superseded."""
    return FactHit(id=row["id"], text=row["text"], score=round(score, 4),
                   sources=json.loads(row["sources"]), valid_from=row["valid_from"],
                   valid_until=row["valid_until"], superseded_by=row["superseded_by"],
                   superseded=row["valid_until"] is not None)
