"""What each answer of the slot benchmark is, and what it costs the user.

An answer is right, unsure (the sentence holds the answer beside a wrong word), wrong, offered
as "not sure" (hedged_*), declined though an answer was there, or rightly declined; the costs
price each against "I don't remember" though it was told. The old rule (a shared keyword or a
cosine over 0.45) is kept here as the baseline `benchmarks.slot_answers` reports beside the
learned slot model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

WRONG_COST = 2.0  # a wrong fact said back costs twice a question left unanswered
HEDGED_UNKNOWN_COST = 0.5


def outcome(q: Any, pick: int | None, hedged: int | None = None) -> str:
    """right, unsure (the sentence holds the answer beside a wrong word), wrong, hedged_*
    ("I'm not sure. You told me: …" naming a right, unsure or wrong sentence), declined (an
    answer was there) or rightly_declined."""
    answerable = any(r is True for r in q.right)
    if pick is None and hedged is not None:
        r = q.right[hedged]
        if q.kind == "unknown":  # what was found, offered: worse where it is unrelated
            related = q.setting is None or q.setting.related[hedged]
            return "hedged_unknown" if related else "hedged_unrelated"
        return "hedged_right" if r is True else "hedged_unsure" if r is None else "hedged_wrong"
    if pick is None:
        return "declined" if answerable else "rightly_declined"
    return "right" if q.right[pick] is True else "unsure" if q.right[pick] is None else "wrong"


def rule_pick(emb: Any, q: Any) -> int | None:
    """The old rule: a shared keyword or cosine 0.45, score cos + 0.25 a word, newest of near."""
    from memoryos_core.text import query_keywords, stem, stems_held

    terms = {stem(w) for w in query_keywords(q.text)}
    vecs = np.asarray(emb.embed([q.text] + [c.sentence for c in q.candidates]))
    cos = vecs[1:] @ vecs[0]
    ok = []
    for i, c in enumerate(q.candidates):
        hits = stems_held(c.sentence, terms)
        if hits or cos[i] >= 0.45:
            ok.append((float(cos[i]) + 0.25 * hits, c.timestamp or 0.0, i))
    if not ok:
        return None
    best = max(s for s, _, _ in ok)
    return max((t, s, i) for s, t, i in ok if s >= best - 0.08)[2]


# what each outcome costs the user: "I don't remember" though it was told 1.5 (a false thing
# said with confidence, "you never told me", where what was found offered as "not sure", even
# the wrong sentence, is true and says it is unsure: 1); a wrong fact said with confidence 2; a
# right one offered as "not sure" a quarter; what was found offered as "not sure" for a question
# nothing told answers a half where it shares a word with it or names what it asks about, else
# 1 (issue 44: "I don't remember" only where memory holds nothing related, else say what was
# found; "What's my blood type?" is not answered "not sure… you have a dog called Rex")
COSTS = {"right": 0.0, "unsure": 0.5, "wrong": WRONG_COST, "hedged_right": 0.25,
         "hedged_unsure": 0.5, "hedged_wrong": 1.0, "hedged_unknown": HEDGED_UNKNOWN_COST,
         "hedged_unrelated": 1.0,
         "declined": 1.5, "rightly_declined": 0.0}


def tally(outcomes: list[str]) -> dict[str, Any]:
    """Counts of each outcome and their cost (COSTS)."""
    out: dict[str, Any] = {k: outcomes.count(k) for k in COSTS}
    out["questions"] = len(outcomes)
    out["cost"] = sum(COSTS[o] for o in outcomes)
    return out


