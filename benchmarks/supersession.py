"""Supersession: which facts each rule marks replaced, the old extractive rule beside the new one.

Dialogue of LoCoMo-layout files is parsed as the import does (speaker A is the user), the
extractive facts of each exchange are taken as analysis takes them, and the analysis' merge and
supersession are replayed in time order, per fact list, with the rule before issue 33 (the
"same subject, another value" cosine band, for several lower bounds) and the rule after it
(attributes by meaning, memory/attributes.py, else the band). LoCoMo has almost no knowledge
updates, so what it supersedes is mostly false: the count per conversation is the
false-supersession measure, and every pair is printed for reading. Written update pairs and
pairs that are not updates (benchmarks/supersession_pairs.py) give precision and recall, and
the statements' attribute labels the classifier's.

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
from .supersession_pairs import (
    CHAT_NOT_UPDATES,
    COLOURS,
    FIRST_NOT_UPDATES,
    FIRST_UPDATES,
    LABELS,
    MEANING_NOT_UPDATES,
    MEANING_UPDATES,
    NEW_NOT_UPDATES,
    NEW_UPDATES,
    NOT_UPDATES,
    TWO_PETS,
    UPDATES,
)

BOUNDS = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
RULES = ("before", "after", "learned")  # band rule; attributes (issue 33); kinds (issue 44)


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


def replay(facts: list[dict[str, Any]], vecs: np.ndarray, bound: float, merge: float,
           rule: str = "before", emb: Any = None,
           ) -> tuple[int, list[tuple[dict[str, Any], dict[str, Any], float]]]:
    """The analysis' merge and supersession over one fact list in time order, with the rule
    before issue 33 or after it: (facts kept, supersessions as (old, new, cosine))."""
    from memoryos_core.memory import attributes, fact_history, fact_kinds
    from memoryos_core.text import normalise

    found = attributes.classify_many(vecs, emb) if rule == "after" else [{}] * len(facts)
    # not measured for this embedder (the tests' hashing one): no kind, as _pair_decisions
    kinds = ((fact_kinds.classify_many(vecs, emb) or [""] * len(facts)) if rule == "learned"
             else [])
    kept: list[dict[str, Any]] = []
    kept_vecs: list[np.ndarray] = []
    out = []
    for n, (fact, vec, attrs) in enumerate(zip(facts, vecs, found, strict=True)):
        said = fact["valid_from"]
        norm = normalise(fact["text"])
        if any(fact_history.holds_at(k, said) and (k["norm"] == norm or (
                float(v @ vec) >= merge and not fact_history.numbers_differ(k["text"], fact["text"])))
               for k, v in zip(kept, kept_vecs, strict=True)):
            continue
        scored = sorted(((float(v @ vec), k) for k, v in zip(kept, kept_vecs, strict=True)
                         if k["valid_until"] is None), key=lambda sk: -sk[0])
        cos_of = {id(k): c for c, k in scored}
        if rule == "learned":
            olders = fact_kinds.to_replace(scored, fact["text"], kinds[n], merge, bound)
        elif rule == "after":
            olders = fact_history.to_replace(scored, fact["text"], attrs, merge, bound)
        else:
            olders = [k for cos, k in scored if fact_history.same_subject_other_value(
                k["text"], fact["text"], cos, merge, bound)][:1]
        new = dict(fact, norm=norm, valid_until=None, attrs=attrs,
                   kind=kinds[n] if kinds else "")
        for older in olders:
            if older["valid_from"] < said:
                older["valid_until"] = said
                out.append((older, new, cos_of[id(older)]))
        kept.append(new)
        kept_vecs.append(vec)
    return len(kept), out


def _pair_decisions(pairs: list[tuple[str, str]], emb: Any, merge: float,
                    bound: float) -> dict[str, list[bool]]:
    """Whether each rule says the newer statement of each pair replaces the older."""
    from memoryos_core.memory import attributes, fact_history, fact_kinds

    vecs = emb.embed([t for pair in pairs for t in pair])
    attrs = attributes.classify_many(vecs, emb)
    kinds = fact_kinds.classify_many(vecs, emb) or [""] * len(vecs)
    out: dict[str, list[bool]] = {"before": [], "after": [], "learned": []}
    for i, (old, new) in enumerate(pairs):
        cos = float(vecs[2 * i] @ vecs[2 * i + 1])
        out["before"].append(fact_history.same_subject_other_value(old, new, cos, merge, bound))
        out["after"].append(bool(fact_history.to_replace(
            [(cos, {"text": old, "attrs": attrs[2 * i] if attrs[2 * i + 1] else {}})],
            new, attrs[2 * i + 1], merge, bound)))
        out["learned"].append(bool(fact_kinds.to_replace(
            [(cos, {"text": old, "kind": kinds[2 * i]})], new, kinds[2 * i + 1], merge, bound)))
    return out


def _scores(updates: list[bool], not_updates: list[bool]) -> dict[str, Any]:
    caught, false = sum(updates), sum(not_updates)
    return {"caught": caught, "of_updates": len(updates), "false": false,
            "of_not_updates": len(not_updates),
            "precision": round(caught / (caught + false), 3) if caught + false else None,
            "recall": round(caught / len(updates), 3) if updates else None}


def classifier_scores(emb: Any) -> dict[str, Any]:
    """Precision and recall of the attribute classifier on the labelled statements (a
    statement with more than one near attribute counts as none)."""
    from memoryos_core.memory import attributes

    texts = list(LABELS)
    got = [attributes.clear(a) for a in attributes.classify_many(emb.embed(texts), emb)]
    right = sum(1 for t, g in zip(texts, got, strict=True) if g is not None and g == LABELS[t])
    said = sum(1 for g in got if g is not None)
    labelled = sum(1 for t in texts if LABELS[t] is not None)
    wrong = [{"text": t, "label": LABELS[t], "got": g} for t, g in zip(texts, got, strict=True)
             if g != LABELS[t]]
    return {"statements": len(texts), "labelled": labelled,
            "precision": round(right / said, 3) if said else None,
            "recall": round(right / labelled, 3), "wrong": wrong}


def attributes_on_kinds(emb: Any) -> dict[str, Any]:
    """The attribute classifier (every near attribute) scored on the fact kinds' labelled
    sentences (memory/labelled/fact_kinds.tsv; "commute" is the car's attribute, a kind with
    no attribute, or none, must get none)."""
    from memoryos_core.memory import attributes, fact_kinds, learned

    rows = learned.read(fact_kinds.DATA)
    gold = [{"commute": "car"}.get(label, label) for label, _ in rows]
    got = attributes.classify_many(emb.embed([text for _, text in rows]), emb)
    right = sum(g in found for g, found in zip(gold, got, strict=True))
    said = sum(len(found) for found in got)
    held = sum(g in attributes.ATTRIBUTES for g in gold)
    return {"sentences": len(rows), "with_attribute": held,
            "precision": round(right / said, 3) if said else None,
            "recall": round(right / held, 3) if held else None}


def run(paths: list[str] | None = None, bound: float = 0.55, emb: Any = None) -> dict[str, Any]:
    """Supersessions per conversation (each rule; the old rule per bound), their pairs, and
    precision and recall of both rules on the written pairs."""
    from memoryos_core.config import EngineConfig

    emb = emb or common.embedder()
    merge = EngineConfig().fact_merge_similarity
    bounds = sorted({*BOUNDS, bound})
    result: dict[str, Any] = {"merge": merge, "bound": bound, "conversations": {}}
    for path, conv in common.load_locomo(paths):
        sample = str(conv.get("sample_id") or path.stem)
        row: dict[str, Any] = {"facts": 0, "superseded": {}, "after": 0, "learned": 0,
                               "pairs": {"before": [], "after": [], "learned": []}}
        for facts in conversation_facts(path, conv):
            if not facts:
                continue
            vecs = emb.embed([f["text"] for f in facts])
            for b in bounds:
                kept, pairs = replay(facts, vecs, b, merge)
                row["superseded"][str(b)] = row["superseded"].get(str(b), 0) + len(pairs)
                if b == bound:
                    row["facts"] += kept
                    row["pairs"]["before"] += [{"old": o["text"], "new": n["text"],
                                                "cos": round(c, 3)} for o, n, c in pairs]
            for rule in ("after", "learned"):
                _, pairs = replay(facts, vecs, bound, merge, rule, emb)
                row[rule] += len(pairs)
                row["pairs"][rule] += [{"old": o["text"], "new": n["text"], "cos": round(c, 3),
                                        "attrs": sorted(n["attrs"]) or n["kind"]}
                                       for o, n, c in pairs]
        result["conversations"][sample] = row
    sets = {"all": (UPDATES, NOT_UPDATES), "first": (FIRST_UPDATES, FIRST_NOT_UPDATES),
            "new": (NEW_UPDATES, NEW_NOT_UPDATES), "meaning": (MEANING_UPDATES, MEANING_NOT_UPDATES),
            "chat": ([], CHAT_NOT_UPDATES)}
    written: dict[str, Any] = {}
    for name, (ups, nots) in sets.items():
        up, no = _pair_decisions(ups, emb, merge, bound), _pair_decisions(nots, emb, merge, bound)
        written[name] = {r: _scores(up[r], no[r]) for r in RULES}
        if name == "all":
            written["missed"] = {r: [p for p, d in zip(ups, up[r], strict=True) if not d]
                                 for r in RULES}
            written["false"] = {r: [p for p, d in zip(nots, no[r], strict=True) if d]
                                for r in RULES}
    result["written_pairs"] = written
    result["sequences"] = sequences(emb, merge, bound)
    result["classifier"] = classifier_scores(emb)
    result["classifier_on_kinds"] = attributes_on_kinds(emb)
    from memoryos_core.memory import fact_kinds, learned

    result["kinds"] = None  # the kinds of fact are not measured for this embedder (hashing)
    if learned.model_for(fact_kinds.DATA, emb) is not None:
        result["kinds"] = learned.scores("fact_kinds.tsv", emb)
        result["kinds"]["one_value"] = one_value_scores(emb)
    return result


def one_value_scores(emb: Any) -> dict[str, Any]:
    """Held-out precision and recall of "a one-value kind, confidently" (what replaces)."""
    from memoryos_core.memory import fact_kinds, learned

    model = learned.model_for(fact_kinds.DATA, emb)
    assert model is not None
    test = learned.split(learned.read(fact_kinds.DATA))[1]
    got = model.predict(np.asarray(emb.embed([t for _, t in test])))
    said = [k in fact_kinds.ONE_VALUE and p >= fact_kinds.CONFIDENT for k, p in got]
    truth = [lab in fact_kinds.ONE_VALUE for lab, _ in test]
    same = [s and lab == k for s, (lab, _), (k, _) in zip(said, test, got, strict=True)]
    return {"said": sum(said), "of": sum(truth),
            "precision": round(sum(same) / sum(said), 3) if any(said) else None,
            "recall": round(sum(same) / sum(truth), 3) if any(truth) else None}


def sequences(emb: Any, merge: float, bound: float) -> dict[str, dict[str, int]]:
    """Runs of statements none of which replaces another (33 likes, two pets): how many
    supersessions each rule makes (0 is right)."""
    out: dict[str, dict[str, int]] = {}
    for name, texts in (("colours", COLOURS), ("two pets", TWO_PETS)):
        facts = [{"text": t, "valid_from": float(n)} for n, t in enumerate(texts)]
        vecs = emb.embed(texts)
        out[name] = {rule: len(replay(facts, vecs, bound, merge, rule, emb)[1])
                     for rule in RULES}
    return out


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
        print(f"{sample}: {row['facts']} facts; superseded before (per bound)"
              f" {row['superseded']}, after {row['after']}, learned {row['learned']}")
        for rule in RULES:
            for p in row["pairs"][rule]:
                print(f"  {rule:6} {p['cos']:.3f}  {p['old'][:88]!r}\n"
                      f"                -> {p['new'][:88]!r} {p.get('attrs', '')}")
    written = result["written_pairs"]
    for name in ("all", "first", "new", "meaning", "chat"):
        for rule in RULES:
            print(f"written pairs ({name}), rule {rule}: {json.dumps(written[name][rule])}")
    for rule in RULES:
        print(f"missed by {rule}: {written['missed'][rule]}")
        print(f"false by {rule}: {written['false'][rule]}")
    print(f"supersessions in runs that hold (0 is right): {json.dumps(result['sequences'])}")
    k = result["kinds"]
    if k:
        print(f"kinds of fact (memory/labelled/fact_kinds.tsv), held-out split: {k['held_out']}"
              f" of {k['train'] + k['held_out']} sentences, accuracy {k['accuracy']}")
        for cls, row in k["classes"].items():
            print(f"  {cls:10} n={row['n']:3} precision {row['precision']}"
                  f" recall {row['recall']}")
        print(f"  one value vs not: {json.dumps(k.get('one_value'))}")
    c = result["classifier"]
    print(f"attribute classifier: precision {c['precision']} recall {c['recall']} on"
          f" {c['statements']} statements ({c['labelled']} with an attribute)")
    c = result["classifier_on_kinds"]
    print(f"attribute classifier on the fact kinds' sentences: precision {c['precision']}"
          f" recall {c['recall']} on {c['sentences']} ({c['with_attribute']} with an attribute)")
    return result


if __name__ == "__main__":
    main()
