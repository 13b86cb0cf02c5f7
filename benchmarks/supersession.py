"""Supersession: which facts the extractive rule marks replaced, for each lower bound of its band.

Dialogue of LoCoMo-layout files is parsed as the import does (speaker A is the user), the
extractive facts of each exchange are taken as analysis takes them, and the analysis' merge and
supersession are replayed in time order, per fact list, for several lower bounds of the
"same subject, another value" cosine band (the upper bound is the merge threshold). LoCoMo has
almost no knowledge updates, so what it supersedes is mostly false: the count per conversation
is the false-supersession measure, and every pair at the chosen bound is printed for reading.
A set of written update pairs (a new car, job, city, record...) and of pairs that are not
updates measures what the rule catches.

    python -m benchmarks.supersession [FILE ...] [--bound 0.55] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from . import common

BOUNDS = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)

# (older statement, newer statement): the newer replaces the older
UPDATES = [
    ("I drive a 2014 Subaru Outback.", "I sold the Subaru, I drive a Tesla Model 3 now."),
    ("I work as a nurse at St Mary's hospital.", "I quit the hospital and I work as a paramedic now."),
    ("My sister lives in Boston.", "My sister moved to Denver last month."),
    ("My personal best in the 5k is 24 minutes.", "I set a new personal best in the 5k: 22 minutes."),
    ("I live in a flat in Leeds.", "We moved into a house in York."),
    ("I'm currently on episode 10 of the Science series.",
     "I just completed 50 episodes of the Science series."),
    ("I've been using my Fitbit Charge 3 for 6 months now.",
     "I've been using my Fitbit Charge 3 for 9 months now."),
    ("I'm determined to reach level 100 in Apex Legends.",
     "I'm aiming to hit level 150 in Apex Legends eventually."),
    ("My phone is an iPhone 11.", "I switched to a Pixel 8 phone."),
    ("I'm dating a guy named Tom.", "I broke up with Tom and I'm seeing Alex now."),
    ("I have two cats.", "I have three cats now that we adopted Misty."),
    ("My favourite band is Coldplay.", "My favourite band these days is Arctic Monkeys."),
]
# (older, newer): both hold, nothing is replaced
NOT_UPDATES = [
    ("I drive a 2014 Subaru Outback.", "My sister lives in Boston."),
    ("I love painting sunsets.", "I went hiking with my dog last weekend."),
    ("I adopted a beagle puppy called Biscuit.", "Biscuit learned to sit this week."),
    ("I play the guitar in a band.", "I'm learning Spanish with an app."),
    ("I'm training for the Lisbon marathon.", "My knee hurt after the intervals."),
]


def conversation_facts(path: Path, conv: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """One conversation's extractive facts, user list then assistant list, each fact with the
    time of its exchange."""
    from memoryos_core.memory.analysis import extractive_facts
    from memoryos_core.transfer.importers import parse_locomo

    items = [i for i in parse_locomo(conv, None) if not i.skip]
    pages = [{"id": n, "user_text": i.user, "assistant_text": i.assistant, "ts": i.ts}
             for n, i in enumerate(items)]
    facts = extractive_facts(pages)
    return [[dict(f, valid_from=pages[f["sources"][0]]["ts"]) for f in facts[kind]]
            for kind in ("user", "assistant")]


def replay(facts: list[dict[str, Any]], vecs: np.ndarray, bound: float,
           merge: float) -> tuple[int, list[tuple[dict[str, Any], dict[str, Any], float]]]:
    """The analysis' merge and supersession over one fact list in time order: (facts kept,
    supersessions as (old, new, cosine))."""
    from memoryos_core.memory import fact_history
    from memoryos_core.text import normalise

    kept: list[dict[str, Any]] = []
    kept_vecs: list[np.ndarray] = []
    out = []
    for fact, vec in zip(facts, vecs, strict=True):
        said = fact["valid_from"]
        norm = normalise(fact["text"])
        if any(fact_history.holds_at(k, said) and (k["norm"] == norm or (
                float(v @ vec) >= merge and not fact_history.numbers_differ(k["text"], fact["text"])))
               for k, v in zip(kept, kept_vecs, strict=True)):
            continue
        scored = sorted(((float(v @ vec), k) for k, v in zip(kept, kept_vecs, strict=True)
                         if k["valid_until"] is None), key=lambda sk: -sk[0])
        older = next((k for cos, k in scored if fact_history.same_subject_other_value(
            k["text"], fact["text"], cos, merge, bound)), None)
        new = dict(fact, norm=norm, valid_until=None)
        if older is not None and older["valid_from"] < said:
            older["valid_until"] = said
            out.append((older, new, next(c for c, k in scored if k is older)))
        kept.append(new)
        kept_vecs.append(vec)
    return len(kept), out


def run(paths: list[str] | None = None, bound: float = 0.55, emb: Any = None) -> dict[str, Any]:
    """Supersessions per conversation and bound, the chosen bound's pairs, and the written
    update / non-update pairs caught at each bound."""
    from memoryos_core.config import EngineConfig
    from memoryos_core.memory import fact_history

    emb = emb or common.embedder()
    merge = EngineConfig().fact_merge_similarity
    bounds = sorted({*BOUNDS, bound})
    result: dict[str, Any] = {"merge": merge, "bound": bound, "conversations": {}}
    for path, conv in common.load_locomo(paths):
        sample = str(conv.get("sample_id") or path.stem)
        row: dict[str, Any] = {"facts": 0, "superseded": {}, "pairs": []}
        for facts in conversation_facts(path, conv):
            if not facts:
                continue
            vecs = emb.embed([f["text"] for f in facts])
            for b in bounds:
                kept, pairs = replay(facts, vecs, b, merge)
                row["superseded"][str(b)] = row["superseded"].get(str(b), 0) + len(pairs)
                if b == bound:
                    row["facts"] += kept
                    row["pairs"] += [{"old": o["text"], "new": n["text"], "cos": round(c, 3)}
                                     for o, n, c in pairs]
        result["conversations"][sample] = row
    caught: dict[str, dict[str, int]] = {}
    for name, pairs in (("updates", UPDATES), ("not_updates", NOT_UPDATES)):
        vecs = emb.embed([t for pair in pairs for t in pair])
        coses = [float(vecs[2 * i] @ vecs[2 * i + 1]) for i in range(len(pairs))]
        caught[name] = {str(b): sum(fact_history.same_subject_other_value(o, n, c, merge, b)
                                    for (o, n), c in zip(pairs, coses, strict=True))
                        for b in bounds}
        result[f"{name}_cosines"] = [round(c, 3) for c in coses]
    result["written_pairs"] = {"updates": len(UPDATES), "not_updates": len(NOT_UPDATES),
                               "caught": caught}
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Command line: LoCoMo-layout files (default: the dev set), the bound, --json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--bound", type=float, default=0.55)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.files or None, args.bound)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        return result
    for sample, row in result["conversations"].items():
        print(f"{sample}: {row['facts']} facts; superseded per bound {row['superseded']}")
        for p in row["pairs"]:
            print(f"  {p['cos']:.3f}  {p['old'][:90]!r}\n         -> {p['new'][:90]!r}")
    print("written pairs caught per bound:", json.dumps(result["written_pairs"]["caught"]))
    print("update cosines:", result["updates_cosines"])
    print("non-update cosines:", result["not_updates_cosines"])
    return result


if __name__ == "__main__":
    main()
