"""How well messages are routed: precision and recall per route on a held-out set nobody tunes on.

The learned router (memoryos_core/answer/router.py) is fitted on answer/data/ and scored on
benchmarks/data/routes_heldout.jsonl (other people, other wordings, written apart from the
training messages), beside the hand-written rules it replaced (the baseline, same run).
`--write-weights` fits the router on the real MiniLM model and writes the weights the product
ships (answer/data/router_weights.npz), stamped with the examples' digest.

`--heldout benchmarks/data/routes_heldout_short.jsonl` scores 150 short messages written apart
from the examples (facts told in passing, short requests, small talk and recall; 30 people).
`--heldout benchmarks/data/routes_heldout_boundary.jsonl` scores 164 messages on the boundary
between questions on memory that read like requests ("going by what I told you, can I have
prawns?", "any food I have to stay away from?") and requests that read like them ("remind me
to call mum", "I'm lactose intolerant, can I have milk in my tea?"): 20 writers whose other
half trains the router (answer/data/routes_written6.jsonl).
`--casual` scores the held-out messages as typed in a hurry (lower case, no apostrophes, no
closing "?"): `text.casually_typed`.

    python -m benchmarks.routing [--json] [--heldout FILE] [--casual] [--write-weights]
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from . import common

HELDOUT = Path(__file__).resolve().parent / "data" / "routes_heldout.jsonl"

# The rules the router replaced (grounded.plan and courtesy.reply before issue 44), kept here
# only as the baseline: a courtesy reply is social or told, no question is the model's, a
# first-person question that is not an advice opening, or a question naming someone, is memory.
_QUESTION_STARTS = frozenset("what which who whom whose where when why how do does did is are"
                             " was were can could have has had remind".split())
_FIRST = frozenset({"i", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})
_ADVICE = re.compile(r"^\s*(?:how\s+(?:do|can|could|should|would)|should|can|could|would|shall"
                     r"|must|what\s+should|where\s+(?:can|should)|when\s+should)\s+i\b", re.I)
_TO_YOU = re.compile(r"\b(?:are|do|can|could|will|would|have|did|were)\s+you\b|^\s*how\s+"
                     r"(?:are|is)\b", re.I)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+")


def rule_route(text: str) -> str:
    """The route the old hand-written rules gave a message."""
    from memoryos_core.answer import courtesy
    from memoryos_core.answer.grounded import reflect
    from memoryos_core.text import words

    polite = courtesy.reply(text, [], reflect)
    if polite is not None:
        return "told" if polite.startswith(("Got it", "Nice to meet")) else "social"
    said = words(text)
    if not said or not ("?" in text or said[0] in _QUESTION_STARTS):
        return "model"
    first = any(w in _FIRST for w in said)
    about_user = first and ("my" in said or "mine" in said or not _ADVICE.match(text))
    named = any(m.group(0).split("'")[0] != "I" for m in _NAME.finditer(text.strip()))
    to_you = _TO_YOU.search(text) is not None and not first
    return "memory" if not to_you and (about_user or named) else "model"


def scores(gold: list[str], said: list[str], routes: tuple[str, ...]) -> dict[str, Any]:
    """Precision, recall and counts per route, and accuracy."""
    out: dict[str, Any] = {}
    for r in routes:
        tp = sum(1 for g, s in zip(gold, said, strict=True) if g == s == r)
        n_said, n_gold = said.count(r), gold.count(r)
        out[r] = {"precision": round(tp / n_said, 3) if n_said else None,
                  "recall": round(tp / n_gold, 3) if n_gold else None,
                  "said": n_said, "gold": n_gold}
    out["accuracy"] = round(sum(g == s for g, s in zip(gold, said, strict=True)) / len(gold), 3)
    return out


def main() -> None:
    """Fit, score on the held-out set beside the rule baseline, report."""
    from memoryos_core.answer import router

    parser = common.base_parser(__doc__ or "")
    parser.add_argument("--heldout", type=Path, default=HELDOUT)
    parser.add_argument("--write-weights", action="store_true")
    parser.add_argument("--casual", action="store_true", help="held-out messages typed casually")
    args = parser.parse_args()
    emb = common.embedder()
    rows = router.examples()
    fitted = router.train(emb, rows)
    if args.write_weights:
        router.save(fitted, router.SHIPPED, router.data_hash(rows))
    held = [json.loads(x) for x in args.heldout.read_text(encoding="utf-8").splitlines()
            if x.strip()]
    if args.casual:
        from memoryos_core.text import casually_typed

        held = [{**r, "text": casually_typed(r["text"]) or r["text"]} for r in held]
    texts = [r["text"] for r in held]
    probs = fitted.model.probabilities(router.features(np.asarray(emb.embed(texts)), texts))
    decided = [fitted.decide(p) for p in probs]
    gold = [r["route"] for r in held]
    learned = [d.route for d in decided]
    rules = [rule_route(t) for t in texts]
    misses = [{"text": r["text"], "gold": r["route"], "said": d.route,
               "p": round(d.probabilities[d.route], 2), "group": r.get("group")}
              for r, d in zip(held, decided, strict=True) if d.route != r["route"]]
    by_group: dict[str, Counter[str]] = {}
    for r, s in zip(held, learned, strict=True):
        by_group.setdefault(r.get("group", "?"), Counter())["right" if s == r["route"]
                                                             else "wrong"] += 1
    result = common.envelope("routing", {"train_examples": len(rows), "heldout": len(held),
                                         "floors": fitted.floors}, {})
    result.update({"learned": scores(gold, learned, router.ROUTES),
                   "rules_baseline": scores(gold, rules, router.ROUTES),
                   "train_counts": dict(Counter(r["route"] for r in rows)),
                   "groups": {g: dict(c) for g, c in sorted(by_group.items())},
                   "misses": misses})
    lines = [f"held-out {len(held)} messages; trained on {len(rows)}; floors {fitted.floors}",
             "route    learned P/R          rules P/R"]
    for r in router.ROUTES:
        a, b = result["learned"][r], result["rules_baseline"][r]
        lines.append(f"{r:8} {a['precision']}/{a['recall']}  ({a['said']}/{a['gold']})"
                     f"      {b['precision']}/{b['recall']}")
    lines.append(f"accuracy learned {result['learned']['accuracy']}, rules"
                 f" {result['rules_baseline']['accuracy']}")
    lines += [f"  miss [{m['group']}] {m['gold']}->{m['said']} ({m['p']}): {m['text']}"
              for m in misses]
    common.emit(result, args.json, "\n".join(lines))


if __name__ == "__main__":
    main()
