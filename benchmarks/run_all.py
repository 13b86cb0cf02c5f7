"""Run every benchmark and write benchmarks/results/report.md + report.json.

    python -m benchmarks.run_all --quick      # a few minutes on 2 cores
    python -m benchmarks.run_all              # full sizes (retrieval 1k + 10k, 3 conversations)
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import common, cost, ingest, locomo_eval, memory_quality, overhead, resources, retrieval


def plan(quick: bool, emb: Any, out: Path | None) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("retrieval", lambda: retrieval.run([1000] if quick else [1000, 10000], 50, emb, out)),
        ("overhead", lambda: overhead.run(40 if quick else 200, emb, out)),
        ("cost", lambda: cost.run(None, 1, 5 if quick else None, "chat", emb, out)),
        ("locomo_eval", lambda: locomo_eval.run(None, ("extractive",), 1 if quick else None,
                                                5 if quick else 1, emb=emb, out=out)),
        ("ingest", lambda: ingest.run(None, 0, 5 if quick else None, False, emb, out)),
        ("memory_quality", lambda: memory_quality.run(None, 0, 3 if quick else None,
                                                      ("extractive",), emb=emb, out=out)),
        ("resources", lambda: resources.run(False, 1 if quick else 3, out)),
    ]


def headline(name: str, r: dict[str, Any]) -> str:
    """One line per benchmark for the summary table."""
    if name == "retrieval":
        return "; ".join(f"{x['pages']} pages: p50 {x['p50_ms']:.1f} ms vs floor "
                         f"{x['floor_p50_ms']:.1f} ms (x{x['ratio_p50']})" for x in r["runs"])
    if name == "overhead":
        return (f"p50 {r['p50_ms']:.1f} ms / p95 {r['p95_ms']:.1f} ms per turn; x{r['ratio_p50']}"
                " of two bare embeddings")
    if name == "cost":
        return (f"{r['maintenance_calls_per_exchange']} maintenance calls per admitted exchange"
                f" (target <= 0.5; reference 3)")
    if name == "locomo_eval":
        return "; ".join(
            f"{mode}: recall memoryos {b['summary']['memoryos']['recall']} vs flat-hybrid "
            f"{b['summary']['flat-hybrid']['recall']} (x{b['recall_vs_flat_hybrid']}) at equal"
            f" tokens, flat {b['summary']['flat']['recall']}, recent "
            f"{b['summary']['recent']['recall']}, full {b['summary']['full']['recall']}"
            for mode, b in r["modes"].items())
    if name == "ingest":
        return "; ".join(f"{x['mode']}: {x['exchanges']} exchanges in {x['wall_s']} s,"
                         f" {x['model_calls']} calls" for x in r["runs"])
    if name == "memory_quality":
        return "; ".join(f"{x['mode']}: grounded {x['grounded_share']}, echoes {x['echoes']},"
                         f" fallbacks {sum(x['fallbacks'].values())}" for x in r["runs"])
    if name == "resources":
        return "; ".join(f"{x['variant']}: {x['startup_s']} s, {x['peak_rss_mb']} MB"
                         if x.get("ok") else f"{x['variant']}: skipped/failed"
                         for x in r["variants"])
    return ""


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help="comma-separated benchmark names")
    args = parser.parse_args(argv)
    emb = common.embedder()
    only = set(args.only.split(",")) if args.only else None
    report = common.envelope("report", {"quick": args.quick}, {"embedder": emb.name})
    report["results"] = {}
    rows = []
    for name, job in plan(args.quick, emb, args.out):
        if only and name not in only:
            continue
        print(f"== {name}", flush=True)
        try:
            with common.Timer() as t:
                result = job()
            report["results"][name] = result
            rows.append({"benchmark": name, "seconds": round(t.s, 1),
                         "headline": headline(name, result)})
        except common.LocomoDataMissing as exc:  # the LoCoMo benchmarks need a data file
            report["results"][name] = {"skipped": str(exc)}
            rows.append({"benchmark": name, "seconds": None, "headline": f"skipped: {exc}"})
        except Exception as exc:  # noqa: BLE001 - one failing benchmark must not hide the rest
            traceback.print_exc()
            report["results"][name] = {"error": f"{type(exc).__name__}: {exc}"}
            rows.append({"benchmark": name, "seconds": None, "headline": f"FAILED: {exc}"})
        print(f"   {rows[-1]['headline']}", flush=True)
    md = common.markdown_table(rows) + "\nDetails: " + ", ".join(
        f"[{n}]({n}.md)" for n in report["results"]) + "\n"
    report["files"] = common.write_report("report", report, md, args.out)
    if args.json:
        print(json.dumps(report, default=str))
    return report


if __name__ == "__main__":
    main()
