"""An evaluation's results as a text table, CSV rows and Markdown; two runs compared."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .data import CATEGORIES

CSV_COLUMNS = ("sample_id", "q", "category", "question_type", "strategy", "question", "recall",
               "tokens", "evidence", "mapped", "missed", "reasons", "prediction", "f1")


def category_names(result: dict[str, Any]) -> list[str]:
    """The categories that hold scored questions, in LoCoMo's order."""
    present = {c for s in result["summary"].values() for c in s["by_category"]}
    return [c for c in CATEGORIES.values() if c in present]


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def table_lines(result: dict[str, Any]) -> list[str]:
    """Recall per strategy overall and by category, median tokens, and the product's ratio."""
    cats = category_names(result)
    answered = any("f1" in s for s in result["summary"].values())
    head = ["strategy", "recall", *cats, "median tokens", "questions", *(["F1"] if answered else [])]
    rows = [[name, _fmt(s["recall"]), *(_fmt(s["by_category"].get(c)) for c in cats),
             _fmt(s["median_tokens"]), str(s["with_evidence"]),
             *([_fmt(s.get("f1"))] if answered else [])]
            for name, s in result["summary"].items()]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
           for r in [head, *rows]]
    cmp = result["comparison"]
    if cmp["best_baseline"]:
        out.append(f"memoryos / {cmp['best_baseline']} (best baseline) recall ="
                   f" {_fmt(cmp['ratio'])} over {cmp['questions']} questions at equal tokens;"
                   f" they disagree on {len(cmp['disagreements'])} (product better"
                   f" {cmp['product_better']}, baseline better {cmp['baseline_better']})")
    return out


def missed(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The gold turns a record's context does not hold."""
    return [g for g in record["gold"] if not g["in_context"]]


def csv_text(records: list[dict[str, Any]]) -> str:
    """One CSV row per (question, strategy), the missed turns with their reasons."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for r in records:
        miss = missed(r)
        writer.writerow({**r, "question_type": r.get("question_type", ""),
                         "missed": " ".join(g["dia_id"] for g in miss),
                         "reasons": "; ".join(f"{g['dia_id']}: {g['reason']}" for g in miss)})
    return buf.getvalue()


def markdown(result: dict[str, Any]) -> str:
    """The table and the settings as Markdown."""
    cats = category_names(result)
    lines = ["| strategy | recall | " + " | ".join(cats) + " | median tokens |",
             "|---" * (len(cats) + 3) + "|"]
    for name, s in result["summary"].items():
        lines.append(f"| {name} | {_fmt(s['recall'])} | "
                     + " | ".join(_fmt(s["by_category"].get(c)) for c in cats)
                     + f" | {_fmt(s['median_tokens'])} |")
    return (f"# Evaluation of {result['name']} ({result['format']})\n\n" + "\n".join(lines)
            + "\n\n" + table_lines(result)[-1] + "\n\nSettings: `"
            + json.dumps(result["settings"]) + "`\n")


def compare_runs(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Run b against run a: recall deltas per strategy and category, product flips both ways."""
    deltas: dict[str, dict[str, float | None]] = {}
    for name in a["summary"]:
        if name not in b["summary"]:
            continue
        sa, sb = a["summary"][name], b["summary"][name]
        row: dict[str, float | None] = {"overall": _delta(sa["recall"], sb["recall"])}
        for cat in CATEGORIES.values():
            if cat in sa["by_category"] or cat in sb["by_category"]:
                row[cat] = _delta(sa["by_category"].get(cat), sb["by_category"].get(cat))
        deltas[name] = row
    before = {(r["sample_id"], r["q"]): r for r in a["records"] if r["strategy"] == "memoryos"}
    better: list[dict[str, Any]] = []
    worse: list[dict[str, Any]] = []
    for r in b["records"]:
        old = before.get((r["sample_id"], r["q"]))
        if r["strategy"] != "memoryos" or old is None or r["recall"] is None \
                or old["recall"] is None or r["recall"] == old["recall"]:
            continue
        item = {"sample_id": r["sample_id"], "q": r["q"], "question": r["question"],
                "before": old["recall"], "after": r["recall"]}
        (better if r["recall"] > old["recall"] else worse).append(item)
    return {"deltas": deltas, "better": better, "worse": worse,
            "same_settings": a["settings"] == b["settings"]}


def _delta(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None else round(y - x, 4)
