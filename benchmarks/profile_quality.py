"""Profile signals without a model: false matches of the extractive interest matching.

On a made-up labelled set of user sentences (benchmarks/profile_sentences.py, small talk and
hard negatives among them): precision (the share of matches that name a right dimension), the
false matches, and recall, at the chosen threshold and beside it, for the lexicon + embedding
rule, the embedding alone, and the rule used before ("The user talks about X." at 0.3). On
LoCoMo-format files: how many sentences each dimension matched, with a seeded sample printed for
judging by hand (the texts are printed, never stored in the repository).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.profile_sentences import LABELLED, NOT_THE_USERS

NOT_THE_USERS_SET = {t for t, _ in NOT_THE_USERS}

THRESHOLDS = (0.25, 0.30, 0.35, 0.40, 0.45, 0.50)


def _evaluate(decisions: list[str | None]) -> dict[str, Any]:
    """Precision, false matches and recall of one rule's decisions over the labelled set."""
    matched = [(d, labels) for d, (_, labels) in zip(decisions, LABELLED, strict=True) if d]
    right = sum(1 for d, labels in matched if d in labels)
    positives = sum(1 for _, labels in LABELLED if labels)
    small_talk = sum(1 for d, (_, labels) in zip(decisions, LABELLED, strict=True)
                     if d and not labels)
    return {"matches": len(matched), "false_matches": len(matched) - right,
            "false_on_small_talk": small_talk,
            "precision": round(right / len(matched), 3) if matched else None,
            "recall": round(right / positives, 3) if positives else None}


def labelled(emb: Any) -> list[dict[str, Any]]:
    """Each rule at each threshold over the labelled set."""
    from memoryos_core.memory import signals

    texts = [t for t, _ in LABELLED]
    dims, best = signals.score(emb, texts)
    hits = [signals.lexicon_hits(t) for t in texts]
    rows = []
    for threshold in THRESHOLDS:
        for rule, lexicon in (("lexicon+embedding", True), ("embedding", False)):
            decisions = [signals.decide(dims, row, h, threshold, signals.MATCH_MARGIN, lexicon)
                         for row, h in zip(best, hits, strict=True)]
            rows.append({"rule": rule, "threshold": threshold, **_evaluate(decisions)})
    for margin in (0.0, 0.05):  # the margin beside the chosen one, at the chosen threshold
        decisions = [signals.decide(dims, row, h, signals.MATCH_THRESHOLD, margin)
                     for row, h in zip(best, hits, strict=True)]
        rows.append({"rule": f"lexicon+embedding, margin {margin}",
                     "threshold": signals.MATCH_THRESHOLD, **_evaluate(decisions)})
    own = signals.owned_sentences(emb, texts, emb.embed(texts))  # the learned check
    for rule, keep in (("without the own-interest check", [True] * len(texts)),
                       ("with the own-interest check", own)):
        decisions = [signals.decide(dims, row, h) if k else None
                     for row, h, k in zip(best, hits, keep, strict=True)]
        rows.append({"rule": rule, "threshold": signals.MATCH_THRESHOLD, **_evaluate(decisions)})
        sub = [d for d, (t, _) in zip(decisions, LABELLED, strict=True) if t in NOT_THE_USERS_SET]
        rows[-1]["false_on_not_the_users"] = sum(1 for d in sub if d) - sum(
            1 for d, (t, g) in zip(decisions, LABELLED, strict=True)
            if t in NOT_THE_USERS_SET and d and d in g)
    rows.append({"rule": "before: 'The user talks about X.' >= 0.3 (any of 27)",
                 "threshold": 0.3, **_before(emb, texts)})
    return rows


def _before(emb: Any, texts: list[str]) -> dict[str, Any]:
    """The rule used before, per sentence: every interest label at cosine 0.3 or more."""
    from memoryos_core.memory.persona import FAMILIES

    names = FAMILIES["content interests"]
    labels = emb.embed([f"The user talks about {n.lower()}." for n in names])
    sims = emb.embed(texts) @ labels.T
    matches = right = small = 0
    for row, (_, gold) in zip(sims, LABELLED, strict=True):
        for j, name in enumerate(names):
            if row[j] >= 0.3:
                matches += 1
                right += name in gold
                small += not gold
    positives = sum(1 for _, g in LABELLED if g)
    found = sum(1 for row, (_, gold) in zip(sims, LABELLED, strict=True)
                if any(row[j] >= 0.3 and n in gold for j, n in enumerate(names)))
    return {"matches": matches, "false_matches": matches - right, "false_on_small_talk": small,
            "precision": round(right / matches, 3) if matches else None,
            "recall": round(found / positives, 3)}


def locomo(emb: Any, files: list[str] | None, sample: int, seed: int) -> dict[str, Any]:
    """Matches per dimension over every turn of the LoCoMo-format conversations."""
    from memoryos_core.memory import signals

    pages = []
    for _, conv in common.load_locomo(files):
        talk = conv["conversation"]
        for key, turns in talk.items():
            if key.startswith("session_") and isinstance(turns, list):
                pages += [{"id": len(pages) + 1, "user_text": t.get("text", "")} for t in turns]
    found = signals.match(emb, pages)
    counts = {dim: len(s) for dim, s in sorted(found.items(), key=lambda kv: -len(kv[1]))}
    flat = [(dim, s["text"]) for dim, items in found.items() for s in items]
    picked = random.Random(seed).sample(flat, min(sample, len(flat)))
    return {"turns": len(pages), "sentences_matched": len(flat), "by_dimension": counts,
            "sample": [{"dimension": d, "sentence": t} for d, t in picked]}


def run(files: list[str] | None = None, sample: int = 40, seed: int = 7,
        with_locomo: bool = True, out: Path | None = None) -> dict[str, Any]:
    """Both checks; writes results/profile_quality.{json,md} (without the sampled texts)."""
    from memoryos_core.memory import signals

    emb = common.embedder()
    result = common.envelope("profile_quality", {
        "threshold": signals.MATCH_THRESHOLD, "margin": signals.MATCH_MARGIN,
        "labelled_sentences": len(LABELLED),
        "small_talk": sum(1 for _, g in LABELLED if not g)}, {"embedder": emb.name})
    result["labelled"] = labelled(emb)
    from memoryos_core.memory import learned

    result["own_interest"] = learned.scores(signals.OWN_DATA, emb)
    if with_locomo:
        result["locomo"] = locomo(emb, files, sample, seed)
    if out is not None or with_locomo:
        stored = dict(result, locomo={k: v for k, v in result.get("locomo", {}).items()
                                      if k != "sample"})
        md = common.markdown_table(result["labelled"]) + (
            f"\nChosen: lexicon+embedding at {signals.MATCH_THRESHOLD}, margin"
            f" {signals.MATCH_MARGIN}.\n")
        result["files"] = common.write_report("profile_quality", stored, md, out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="LoCoMo-format file (default: dev subset)")
    parser.add_argument("--sample", type=int, default=40, help="LoCoMo matches to print")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-locomo", action="store_true", help="the labelled set only")
    args = parser.parse_args(argv)
    result = run(args.files or None, args.sample, args.seed, not args.no_locomo, args.out)
    lines = [f"{r['rule'][:24]:24s} t={r['threshold']:.2f} matches {r['matches']:3d} false"
             f" {r['false_matches']:3d} (small talk {r['false_on_small_talk']}) precision"
             f" {r['precision']} recall {r['recall']}"
             + (f" false on others'/questions {r['false_on_not_the_users']}"
                if "false_on_not_the_users" in r else "") for r in result["labelled"]]
    k = result["own_interest"]
    lines.append(f"own-interest check, held-out {k['held_out']} of {k['train'] + k['held_out']}:"
                 f" accuracy {k['accuracy']} {json.dumps(k['classes'])}")
    if "locomo" in result:
        lo = result["locomo"]
        lines.append(f"LoCoMo: {lo['sentences_matched']} sentences of {lo['turns']} turns:"
                     f" {lo['by_dimension']}")
        lines += [f"  [{s['dimension']}] {s['sentence']}" for s in lo["sample"]]
    common.emit(result, args.json, "\n".join(lines))
    return result


if __name__ == "__main__":
    main()
