"""Fault suite: kill -9 trials, provider faults, fuzzed inputs and a load run, as figures.

    python -m benchmarks.faults --quick --json      # a few minutes
    python -m benchmarks.faults                     # full sizes -> benchmarks/results/faults.md

Zeros are expected for: lost, duplicated, partial imports, invariant violations, resume
failures, faulty answers stored, error texts stored, server errors, load errors.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import common

SIZES = {"quick": {"trials": 5, "pages": 120, "examples": 150, "users": 10, "turns": 5},
         "full": {"trials": 20, "pages": 600, "examples": 1000, "users": 50, "turns": 10}}
PARTS = ("kill", "provider", "fuzz", "load")


def zeros(result: dict[str, Any]) -> dict[str, int]:
    """Every figure that must be zero, by name (the verdict is that they all are)."""
    out: dict[str, int] = {}
    for op, figures in result.get("kill", {}).items():
        for key in ("lost", "duplicated", "partial_imports", "invariant_violations",
                    "resume_failures"):
            out[f"kill.{op}.{key}"] = figures[key]
    provider = result.get("provider", {})
    for key in ("faulty_answers_stored", "exchanges_stored_on_error", "error_texts_stored",
                "maintenance_not_resumed", "recovery_failures", "invariant_violations"):
        if key in provider:
            out[f"provider.{key}"] = provider[key]
    for key in ("server_errors", "partial_imports"):
        if key in result.get("fuzz", {}):
            out[f"fuzz.{key}"] = result["fuzz"][key]
    for key in ("errors", "not_stored_once"):
        if key in result.get("load", {}):
            out[f"load.{key}"] = result["load"][key]
    return out


def run(quick: bool = True, parts: tuple[str, ...] = PARTS, seed: int = 11,
        out: Path | None = None) -> dict[str, Any]:
    """Run the chosen parts; every part's figures, the zero checks and the verdict."""
    size = SIZES["quick" if quick else "full"]
    result = common.envelope("faults", {"quick": quick, "seed": seed, **size},
                             {"chat": "scripted (in-process or OpenAI-compatible HTTP)",
                              "embedder": "hash (kill, provider, fuzz); MiniLM (load)"})
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memoryos-faults-") as tmp:
        work = Path(tmp)
        for part in parts:
            started = time.perf_counter()
            print(f"== {part}", file=sys.stderr, flush=True)
            if part == "kill":
                from . import fault_kill

                result["kill"] = fault_kill.run(size["trials"], size["pages"], seed, work)
            elif part == "provider":
                from . import fault_provider

                result["provider"] = fault_provider.run(work)
            elif part == "fuzz":
                from . import fault_fuzz

                result["fuzz"] = fault_fuzz.run(size["examples"], seed, work)
            elif part == "load":
                from . import fault_load

                result["load"] = fault_load.run(size["users"], size["turns"], work)
            timings[part] = round(time.perf_counter() - started, 1)
    result["seconds"] = timings
    result["must_be_zero"] = zeros(result)
    result["ok"] = not any(result["must_be_zero"].values())
    result["files"] = common.write_report("faults", result, markdown(result), out)
    return result


def markdown(result: dict[str, Any]) -> str:
    """The figures as Markdown tables."""
    parts = []
    if "kill" in result:
        rows = [{"operation": op, **figures} for op, figures in result["kill"].items()]
        parts.append("## kill -9 at random points\n\n" + common.markdown_table(rows))
    if "provider" in result:
        rows = [{"fault": mode, **entry} for mode, entry in result["provider"]["modes"].items()]
        parts.append("## Provider faults\n\n" + common.markdown_table(rows))
    for name in ("fuzz", "load"):
        if name in result:
            body = {k: v for k, v in result[name].items() if not isinstance(v, list | dict)}
            parts.append(f"## {name}\n\n" + common.markdown_table([body]))
    bad = [k for k, v in result["must_be_zero"].items() if v]
    parts.append("## Verdict\n\n" + ("all zero figures are zero\n" if not bad else
                                      "non-zero: " + ", ".join(bad) + "\n"))
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help=f"comma-separated parts of {PARTS}")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    parts = tuple(p for p in PARTS if not args.only or p in args.only.split(","))
    result = run(args.quick, parts, args.seed, args.out)
    lines = [f"{k}: {v}" for k, v in result["must_be_zero"].items() if v]
    summary = (f"fault suite {'passed' if result['ok'] else 'FAILED'} in "
               f"{sum(result['seconds'].values())} s; " + ("; ".join(lines) or "all zeros"))
    if "load" in result:
        summary += (f"; load p50 {result['load']['p50_ms']:.0f} ms,"
                    f" p95 {result['load']['p95_ms']:.0f} ms")
    common.emit(result, args.json, summary)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
