"""Small talk met in kind: the act model's replies on a held-out set nobody tunes on.

Each held-out message (benchmarks/data/social_acts_heldout.jsonl, written apart from the
training messages of answer/data/) is answered as the product answers small talk: the set
replies of courtesy.py first, then the learned act model (answer/social_acts.py), else the
model. Counted per act: answered in kind with the right act, with a wrong one, or left to the
model; beside the set replies alone (the baseline, same run). "other" is right when left to
the model. `--write-weights` fits on the real MiniLM model and writes the shipped weights.

    python -m benchmarks.social_acts [--json] [--write-weights]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import common

HELDOUT = Path(__file__).resolve().parent / "data" / "social_acts_heldout.jsonl"

# which act a set reply of courtesy.py answers, by its opening
_COURTESY_ACTS = (("Hello", "greeting"), ("I'm well", "how_are_you"), ("You're welcome", "thanks"),
                  ("Bye", "goodbye"), ("Okay!", "ack"), ("Got it", "told"),
                  ("Nice to meet", "told"), ("I'm sorry", "feeling"), ("Glad to hear", "feeling"))


def courtesy_act(text: str, is_name: Callable[[str], bool]) -> str | None:
    """The act a set reply of courtesy.py answers `text` as, or None where it has none."""
    from memoryos_core.answer import courtesy
    from memoryos_core.answer.saying import reflect

    said = courtesy.reply(text, [], reflect, is_name)
    if said is None:
        return None
    return next((act for opening, act in _COURTESY_ACTS if said.startswith(opening)), "told")


def tally(gold: list[str], said: list[str | None]) -> dict[str, dict[str, int]]:
    """Per gold act: right in kind, a wrong act's reply, or left to the model."""
    out: dict[str, Counter[str]] = {}
    for g, s in zip(gold, said, strict=True):
        verdict = ("right" if g == "other" else "to the model") if s is None else \
            ("wrong" if g == "other" else "right" if s == g else "wrong act")
        out.setdefault(g, Counter())[verdict] += 1
    return {g: dict(c) for g, c in sorted(out.items())}


def main() -> None:
    """Fit, answer the held-out messages with and without the act model, report."""
    from memoryos_core.answer import names, social_acts

    parser = common.base_parser(__doc__ or "")
    parser.add_argument("--heldout", type=Path, default=HELDOUT)
    parser.add_argument("--write-weights", action="store_true")
    args = parser.parse_args()
    emb = common.embedder()
    rows = social_acts.examples()
    fitted = social_acts.train(emb, rows)
    if args.write_weights:
        social_acts.save(fitted, social_acts.SHIPPED, social_acts.data_hash(rows))
    held = [json.loads(x) for x in args.heldout.read_text(encoding="utf-8").splitlines()
            if x.strip()]
    texts, gold = [r["text"] for r in held], [r["act"] for r in held]
    probs = fitted.model.probabilities(
        social_acts.features(np.asarray(emb.embed(texts), dtype=np.float32), texts))
    is_name = names.first_name_check(emb)
    rules = [courtesy_act(t, is_name) for t in texts]
    learned = [fitted.act(p) for p in probs]
    product = [a if a is not None else r for r, a in zip(rules, learned, strict=True)]
    result = common.envelope("social_acts", {"train_examples": len(rows), "heldout": len(held),
                                             "floors": fitted.floors}, {})
    result.update({"product": tally(gold, product), "set_replies_only": tally(gold, rules),
                   "misses": [{"text": t, "gold": g, "said": s} for t, g, s in
                              zip(texts, gold, product, strict=True)
                              if (s or "other") != g]})
    lines = [f"held-out {len(held)} messages; trained on {len(rows)}; floors {fitted.floors}",
             "act: product (set replies + acts) | set replies only"]
    for act in sorted(set(gold)):
        lines.append(f"  {act:16} {result['product'].get(act)} | "
                     f"{result['set_replies_only'].get(act)}")
    for name in ("product", "set_replies_only"):
        total = Counter[str]()
        for counts in result[name].values():
            total.update(counts)
        lines.append(f"{name}: {dict(total)}")
    lines += [f"  miss {m['gold']} -> {m['said']}: {m['text']}" for m in result["misses"]]
    common.emit(result, args.json, "\n".join(lines))


if __name__ == "__main__":
    main()
