"""Profile rows from analysis: a model's level over all of a dimension's evidence, or signals
(the user's sentences with their pages, no level) when no model analysed."""

from __future__ import annotations

import json
from typing import Any

from ..context import Context
from ..storage.db import Connection
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import profile as profile_db
from . import signals
from .persona import DIMENSIONS
from .reports import AnalysisTally

EVIDENCE_QUOTES = 3  # earlier evidence sentences per dimension shown to the model
QUOTE_CHARS = 100
PROMPT_DIMENSIONS = 16  # dimensions with their evidence in one profile prompt, newest first


def earlier_evidence(ctx: Context, user_id: str) -> list[dict[str, Any]]:
    """The stored dimensions as the profile prompt shows them: level, how many pages back it,
    and its newest evidence (its signals' sentences, else the user's side of its pages)."""
    rows = sorted(profile_db.profile_rows(ctx.store, user_id),
                  key=lambda r: -float(r["updated_at"]))[:PROMPT_DIMENSIONS]
    parsed = [(r, json.loads(r["evidence"]), json.loads(r["signals"])) for r in rows]
    want = sorted({i for _, ev, sig in parsed if not sig for i in ev[-EVIDENCE_QUOTES:]})
    pages = exchanges_db.exchanges_by_id(ctx.store, user_id, want) if want else {}
    out = []
    for row, evidence, sigs in parsed:
        quotes = ([s["text"] for s in sigs[-EVIDENCE_QUOTES:]] if sigs else
                  [pages[i]["user_text"] for i in evidence[-EVIDENCE_QUOTES:] if i in pages])
        out.append({"dimension": row["dimension"], "level": row["level"],
                    "pages": len(evidence),
                    "quotes": [" ".join(q.split())[:QUOTE_CHARS] for q in quotes]})
    return out


def extractive(ctx: Context, chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Signals of a batch of pages, one entry per dimension (no level: no model judged it)."""
    return [{"dimension": dim, "family": DIMENSIONS[dim], "signals": found,
             "evidence": sorted({s["page"] for s in found})}
            for dim, found in signals.match(ctx.embedder, chunk).items()]


def store(conn: Connection, user_id: str, dims: list[dict[str, Any]], now: float,
          tally: AnalysisTally) -> None:
    """Save analysed dimensions: evidence links are the union of all batches; a model's level
    replaces the level (it was given the earlier evidence); signals never set one."""
    for dim in dims:
        name = dim["dimension"]
        old = profile_db.profile_entry(conn, user_id, name)
        if old is not None and old.get("by_user"):
            continue  # the user's own correction: analysis never overwrites it
        new_signals = dim.get("signals", [])
        kept = signals.merge(old["signals"] if old else [], new_signals)
        evidence = sorted(set(dim["evidence"]) | set(old["evidence"] if old else []))
        if "level" in dim:
            level, reason = dim["level"], dim["reason"]
        else:
            level, reason = (old["level"], old["reason"]) if old else (None, "")
        profile_db.save_profile_entry(conn, user_id, name, dim["family"], level, reason,
                                        evidence, kept, now)
        if "level" in dim and (old is None or old["level"] != level):
            tally.profile_changes.append(
                {"dimension": name, "from": old["level"] if old else None, "to": level})
        added = len(kept) - len(old["signals"] if old else [])
        if new_signals and added:
            tally.profile_signals.append(
                {"dimension": name, "added": min(added, len(new_signals)),
                 "sentences": len(kept), "pages": len(evidence)})
