"""Memory quality on LongMemEval: evidence recall per question type vs. baselines, same run.

Each question's own user-assistant history (Wu et al., ICLR 2025) is imported as its own user
(in the LoCoMo layout of `longmemeval_data.to_locomo`, so the harness and its strategies are
those of `benchmarks.locomo_eval`: the product, flat-hybrid at equal tokens, flat-hybrid with
the product's keyword filter, dense only, recent, full) and the question is asked at its
`question_date` ("yesterday", "last week" mean what they meant then). Recall is the share of
the evidence turns (`has_answer`) inside the context a prompt would get. Nothing is tuned per
question.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memoryos_core.evaluation import harness

from . import common, locomo_eval
from .longmemeval_data import load_longmemeval


def run(paths: list[str] | None = None, limit: int | None = None, stride: int = 1,
        budget: int = 1200, window: int = 7792, emb: Any = None,
        mode: str = "extractive", out: Path | None = None,
        write: bool = True) -> dict[str, Any]:
    """Import each question's history, assemble each strategy's context, aggregate by type."""
    emb = emb or common.embedder()
    questions = [q for p in (paths or [None]) for q in load_longmemeval(p)]
    picked = questions[::stride][: limit or None]
    result = common.envelope(
        "longmemeval", {"files": paths or ["default"], "questions": len(picked),
                        "stride": stride, "token_budget": budget, "mode": mode,
                        "strategies": list(locomo_eval.STRATEGIES),
                        "now": "question_date"},
        {"embedder": emb.name})
    # the package's harness: each question's history in a throwaway memory of its own
    body = harness.run(json.dumps(questions).encode("utf-8"), "longmemeval", emb, budget=budget,
                       window=window, stride=stride, limit=limit, mode=mode)
    records = locomo_eval._records(body["records"])
    result["summary"] = harness.aggregate(records)
    result["by_type"] = harness.by_type(records)
    s = result["summary"]
    result["recall_vs_flat_hybrid"] = common.ratio(s["memoryos"]["recall"] or 0,
                                                   s["flat-hybrid"]["recall"] or 0)
    result["records"] = records
    if write:
        result["files"] = common.write_report("longmemeval", result, summary_text(result), out)
    return result


def summary_text(result: dict[str, Any]) -> str:
    """The summary as lines: each strategy's recall and tokens, then per question type."""
    lines = [f"{k}: recall {v['recall']} at median {v['median_tokens']} tokens"
             for k, v in result["summary"].items()]
    lines += [f"{t}: " + ", ".join(f"{k} {v}" for k, v in row.items())
              for t, row in result["by_type"].items()]
    lines.append(f"memoryos / flat-hybrid: {result['recall_vs_flat_hybrid']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="LongMemEval JSON files (default: the dev set)")
    parser.add_argument("--limit", type=int, default=None, help="first N questions")
    parser.add_argument("--stride", type=int, default=1, help="every Nth question")
    parser.add_argument("--budget", type=int, default=1200, help="memory token budget")
    args = parser.parse_args(argv)
    result = run(args.files or None, 3 if args.quick else args.limit, args.stride, args.budget,
                 out=args.out)
    common.emit(result, args.json, summary_text(result))
    return result


if __name__ == "__main__":
    main()
