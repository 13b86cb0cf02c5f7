"""What the lab's pages show of a run: tables, chart bars, token spread, questions, a question."""

from __future__ import annotations

from typing import Any

from memoryos_core.evaluation import report
from memoryos_core.evaluation.harness import best_baseline, percentile


def questions(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per question (in run order): its key, text, category and recall per strategy."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for r in recs:
        row = out.setdefault((r["sample_id"], r["q"]), {
            "n": len(out), "sample_id": r["sample_id"], "q": r["q"], "question": r["question"],
            "category": r["category"], "recall": {}})
        row["recall"][r["strategy"]] = r["recall"]
    return list(out.values())


def summary(result: dict[str, Any], recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The result page: category table, chart bars, token spread, disagreements first."""
    cats = report.category_names(result)
    strategies = list(result["summary"])
    bars = [{"category": cat, "bars": [
        {"strategy": s, "recall": result["summary"][s]["by_category"].get(cat)}
        for s in strategies]} for cat in [*cats, "overall"]]
    for group in bars[-1:]:
        for b in group["bars"]:
            b["recall"] = result["summary"][b["strategy"]]["recall"]
    spread = []
    for s in strategies:
        tokens = [float(r["tokens"]) for r in recs if r["strategy"] == s]
        spread.append({"strategy": s, **{k: round(percentile(tokens, q)) for k, q in
                                         (("min", 0), ("p25", 25), ("median", 50),
                                          ("p75", 75), ("max", 100))}})
    top = max([x["max"] for x in spread] + [1])
    for x in spread:
        x["left"], x["width"] = 100 * x["p25"] / top, max(0.5, 100 * (x["p75"] - x["p25"]) / top)
        x["mid"] = 100 * x["median"] / top
    rows = questions(recs)
    best = result["comparison"]["best_baseline"]
    differ = {(d["sample_id"], d["q"]) for d in result["comparison"]["disagreements"]}
    first = [q for q in rows if (q["sample_id"], q["q"]) in differ]
    order = {(d["sample_id"], d["q"]): i for i, d in enumerate(result["comparison"]["disagreements"])}
    first.sort(key=lambda q: order[(q["sample_id"], q["q"])])
    return {"categories": cats, "strategies": strategies, "bars": bars, "spread": spread,
            "tokens_top": top, "best": best, "disagree": first,
            "answered": any("f1" in s for s in result["summary"].values()),
            "agree": [q for q in rows if (q["sample_id"], q["q"]) not in differ]}


def question(recs: list[dict[str, Any]], n: int, other: str | None,
             result: dict[str, Any]) -> dict[str, Any] | None:
    """Question `n`: the product's and another strategy's (default the best) contexts, marked."""
    rows = questions(recs)
    if not 0 <= n < len(rows):
        return None
    key = (rows[n]["sample_id"], rows[n]["q"])
    mine = {r["strategy"]: r for r in recs if (r["sample_id"], r["q"]) == key}
    other = other if other in mine and other != "memoryos" else best_baseline(result["summary"])
    sides = []
    for name in ("memoryos", other):
        rec = mine.get(name or "")
        if rec is None:
            continue
        gold = {g["exchange"] for g in rec["gold"] if g["exchange"] is not None}
        lines = [dict(line, evidence=line["source"] in gold) for line in rec["context"]]
        sides.append({"strategy": name, "record": rec, "lines": lines,
                      "missed": report.missed(rec)})
    first = mine["memoryos"]
    return {"n": n, "total": len(rows), "row": rows[n], "record": first,
            "gold": first["gold"], "sides": sides, "other": other,
            "choices": [s for s in mine if s != "memoryos"]}
