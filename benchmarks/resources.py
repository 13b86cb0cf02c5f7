"""Resources: peak RSS and start-up time of the web app and of the engine alone, embedder loaded.

Each variant runs in a fresh `python -c` process that builds the host, admits one exchange and
runs one retrieval (so the embedder is loaded and used), then reports its peak RSS
(VmHWM). Start-up = wall time from spawning the process to that first retrieval done.
Baseline in the same run: a bare interpreter (`python -c pass`). The web app variant is skipped
with a message when `webapp.create_app` cannot be imported. `--local-model` adds variants that
also load the embedded chat model and make one call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import common

PRELUDE = """
import json, os, resource, sys, time
t0 = time.perf_counter()
data = sys.argv[1]
def hwm():  # VmHWM resets on exec; ru_maxrss would carry the parent's peak over
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""
ENGINE = """
from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.testing import ScriptedChatModel, schema_filler
engine = MemoryEngine(data, chat_model=ScriptedChatModel(default=schema_filler),
                      config=EngineConfig(consolidation="extractive", analysis="extractive"))
status = None
"""
WEBAPP = """
from webapp import create_app
app = create_app({"TESTING": True, "DATA_DIR": data, "SECRET_KEY": "benchmark",
                  "WTF_CSRF_ENABLED": False})
engine = app.extensions["memoryos"]
status = app.test_client().get("/").status_code
"""
LOCAL = """
from memoryos_core.llm import default_chat_model
model = default_chat_model()
model.complete([{"role": "user", "content": "Say hello."}], max_tokens=8)
"""
FINISH = """
engine.add_exchange("bench", "I adopted a cat called Miso.", "Lovely name!")
engine.retrieve("bench", "What is my cat called?", record=False)
ready = time.perf_counter() - t0
print(json.dumps({"ready_in_process_s": ready, "http_status": status, "peak_rss_mb": hwm()}))
"""


def _spawn(code: str, timeout: float) -> dict[str, Any]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join([str(common.ROOT), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code, str(Path(tmp) / "data")],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=tmp)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"ok": False, "error": " / ".join(tail)[-400:]}
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "{}"
    return {"ok": True, "startup_s": round(wall, 3), **json.loads(last)}


def webapp_importable() -> str | None:
    """None when webapp.create_app imports, else why not."""
    probe = subprocess.run([sys.executable, "-c", "from webapp import create_app"],
                           capture_output=True, text=True, timeout=120, cwd=common.ROOT)
    if probe.returncode == 0:
        return None
    return (probe.stderr.strip().splitlines() or ["unknown error"])[-1][:300]


def run(local_model: bool = False, repeats: int = 1, out: Path | None = None,
        write: bool = True, timeout: float = 300) -> dict[str, Any]:
    bare = PRELUDE + "print(json.dumps({'peak_rss_mb': hwm()}))"
    variants: dict[str, str | None] = {
        "bare_python": bare, "engine": PRELUDE + ENGINE + FINISH, "webapp": None}
    why_not = webapp_importable()
    if why_not is None:
        variants["webapp"] = PRELUDE + WEBAPP + FINISH
    if local_model:
        variants["engine+local_model"] = PRELUDE + ENGINE + LOCAL + FINISH
        if why_not is None:
            variants["webapp+local_model"] = PRELUDE + WEBAPP + LOCAL + FINISH
    rows = []
    for name, code in variants.items():
        if code is None:
            rows.append({"variant": name, "ok": False,
                         "skipped": f"webapp.create_app is not importable yet: {why_not}"})
            continue
        tries = [_spawn(code, timeout) for _ in range(repeats)]
        good = [t for t in tries if t["ok"]]
        if not good:
            rows.append({"variant": name, **tries[-1]})
            continue
        best = min(good, key=lambda t: t["startup_s"])  # least disturbed by other load
        rows.append({"variant": name, **best, "peak_rss_mb": round(best["peak_rss_mb"], 1)})
    base = next((r for r in rows if r["variant"] == "bare_python" and r["ok"]), None)
    for r in rows:
        if base and r.get("ok"):
            r["startup_vs_bare"] = common.ratio(r["startup_s"], base["startup_s"])
            r["rss_vs_bare"] = common.ratio(r["peak_rss_mb"], base["peak_rss_mb"])
    result = common.envelope("resources", {"repeats": repeats, "local_model": local_model},
                             {"embedder": "all-MiniLM-L6-v2", "chat": "scripted (instant)"
                              + (" + embedded local model" if local_model else "")})
    result["variants"] = rows
    result["webapp_skipped"] = why_not
    if write:
        md = common.markdown_table(rows, ["variant", "ok", "startup_s", "peak_rss_mb",
                                          "startup_vs_bare", "rss_vs_bare", "http_status",
                                          "skipped", "error"])
        md += ("\nStart-up = spawn to first retrieval done (embedder loaded and used); best of"
               f" {repeats}. Baseline: a bare interpreter in the same run.\n")
        result["files"] = common.write_report("resources", result, md, out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--local-model", action="store_true",
                        help="also load the embedded chat model")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    result = run(args.local_model, args.repeats or (1 if args.quick else 3), out=args.out)
    common.emit(result, args.json, "\n".join(
        f"{r['variant']:20s} " + (f"start-up {r['startup_s']} s, peak RSS {r['peak_rss_mb']} MB"
                                  if r.get("ok") else r.get("skipped") or r.get("error", ""))
        for r in result["variants"]))
    return result


if __name__ == "__main__":
    main()
