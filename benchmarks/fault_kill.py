"""kill -9 at random points of import, consolidation, analysis, restore and clear; then check."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from . import common
from .fault_tools import HashEmbedder, exchange_texts, invariants

OPERATIONS = ("import", "consolidation", "analysis", "restore", "clear")
USER = "u1"
CHILD = """
import json, sys, time
from benchmarks.fault_kill import open_engine, dialogue
data, op, arg, settings = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
engine = open_engine(data, settings)
print("ready", flush=True)
started = time.perf_counter()
if op == "import":
    while True:
        engine.import_dialogue("u1", dialogue(arg))
        print(f"ok {arg}", flush=True)
        arg += 1
elif op in ("consolidation", "analysis"):
    engine.force_analysis("u1")
elif op == "restore":
    engine.restore("u1", arg)
else:
    engine.clear("u1")
print(f"done {time.perf_counter() - started:.4f}", flush=True)
"""


def open_engine(data_dir: str | Path, settings: dict[str, Any]) -> Any:
    """An engine with the scripted model (llm maintenance) and the hash embedder."""
    from memoryos_core import EngineConfig, MemoryEngine
    from memoryos_core.testing import ScriptedChatModel, schema_filler

    config = EngineConfig().replace(**{"consolidation": "llm", "analysis": "llm",
                                       "consolidation_batch": 4, **settings})
    return MemoryEngine(data_dir, chat_model=ScriptedChatModel(default=schema_filler),
                        embedder=HashEmbedder(), config=config)


TOPICS = ("my garden and the tomatoes", "training for the marathon", "the new puppy Biscuit",
          "learning Spanish in Valencia", "the pottery class", "moving to a bigger flat")


def dialogue(k: int, size: int = 6) -> bytes:
    """The k-th small Playground dialogue, with unique texts and timestamps."""
    base = 1_700_000_000 + k * 3600
    return json.dumps([{"user_input": f"dialogue {k} turn {i}: let me tell you about"
                                      f" {TOPICS[(k + i) % len(TOPICS)]}",
                        "agent_response": f"Thanks for telling me ({k}.{i}).",
                        "timestamp": base + i * 60} for i in range(size)]).encode()


def dialogue_texts(k: int) -> list[str]:
    """The user texts of dialogue k."""
    return [item["user_input"] for item in json.loads(dialogue(k))]


def _prepare(folder: Path, op: str, pages: int) -> dict[str, Any]:
    """The store an operation starts from, and the child's argument and settings."""
    settings: dict[str, Any] = {}
    if op == "analysis":
        settings = {"heat_threshold": 1e9}  # filed but never analysed before the trial
    engine = open_engine(folder, settings)
    arg = 0
    if op != "import":
        for k in range(pages // 6):
            engine.import_dialogue(USER, dialogue(k), maintain=op == "analysis")
        arg = k + 1 if op != "restore" else engine.snapshot(USER, "trial")["version"]
        if op == "restore":
            engine.import_dialogue(USER, dialogue(k + 1), maintain=False)
    engine.store.close()
    return {"arg": arg, "settings": {} if op == "analysis" else settings}


def _run_child(folder: Path, op: str, plan: dict[str, Any], kill_after: float | None,
               timeout: float = 300) -> tuple[list[str], bool]:
    """Start the child; kill -9 it `kill_after` seconds after it is ready (None: let it end)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder), op, str(plan["arg"]),
         json.dumps(plan["settings"])], cwd=common.ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            if line.strip() == "ready":
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not ready.wait(timeout):
        proc.kill()
        raise RuntimeError(f"the {op} child did not start")
    killed = False
    if kill_after is None:
        proc.wait(timeout)
    else:
        time.sleep(kill_after)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout)
    reader.join(10)
    return lines, killed


def _all_versions_texts(engine: Any) -> set[str]:
    from memoryos_core.transfer import versions

    texts: set[str] = set()
    for v in engine.versions(USER):
        doc = versions.load_version(engine.ctx, USER, v["version"])
        texts.update(e["user_text"] for e in doc["exchanges"])
    return texts


def _check(folder: Path, op: str, before: list[str], lines: list[str]) -> dict[str, int]:
    """Lost, duplicated, partial and invariant violations after a kill; then resume."""
    now = exchange_texts(folder)
    out = {"lost": 0, "duplicated": len(now) - len(set(now)), "partial_imports": 0,
           "invariant_violations": sum(invariants(folder).values()), "resume_failures": 0}
    engine = open_engine(folder, {})
    if op == "import":
        done = [int(line.split()[1]) for line in lines if line.startswith("ok ")]
        last = max(done, default=-1) + 1
        present = set(now)
        for k in range(last + 1):
            have = sum(t in present for t in dialogue_texts(k))
            if k in done:
                out["lost"] += len(dialogue_texts(k)) - have
            elif 0 < have < len(dialogue_texts(k)):
                out["partial_imports"] += 1
        for k in range(last + 1):  # resume: import everything again, nothing doubles
            engine.import_dialogue(USER, dialogue(k))
        expected = {t for k in range(last + 1) for t in dialogue_texts(k)}
        after = exchange_texts(folder)
        out["resume_failures"] += int(set(after) != expected or len(after) != len(expected))
    else:
        kept = set(now) | (_all_versions_texts(engine) if op in ("restore", "clear") else set())
        out["lost"] = len(set(before) - kept)
        try:
            if op in ("consolidation", "analysis"):
                engine.force_analysis(USER)
                pending = engine.state(USER)["pending_work"]
                out["resume_failures"] += int(pending["pages_to_consolidate"] > 0
                                              or pending["unanalysed_pages"] > 0)
            elif op == "clear":
                engine.clear(USER)
            else:
                engine.restore(USER, engine.versions(USER)[-1]["version"])
        except Exception:  # noqa: BLE001 - a failed resume is a figure, not a crash
            out["resume_failures"] += 1
    out["duplicated"] += len(exchange_texts(folder)) - len(set(exchange_texts(folder)))
    out["invariant_violations"] += sum(invariants(folder).values())
    engine.store.close()
    return out


def run(trials: int, pages: int, seed: int, workdir: Path) -> dict[str, Any]:
    """N kill trials per operation at uniformly random moments; figures per operation."""
    rng = random.Random(seed)
    results: dict[str, Any] = {}
    for op in OPERATIONS:
        template = workdir / f"{op}-template"
        plan = _prepare(template, op, pages)
        calib = workdir / f"{op}-calibration"
        shutil.copytree(template, calib)
        if op == "import":  # the child imports dialogue after dialogue: kill within a few
            _run_child(calib, op, plan, kill_after=2.0)
            span = 3 * 2.0 / max(1, len(exchange_texts(calib)) // 6)
        else:
            lines, _ = _run_child(calib, op, plan, kill_after=None)
            span = next(float(x.split()[1]) for x in lines if x.startswith("done "))
        totals = {"trials": trials, "killed_mid_operation": 0, "lost": 0, "duplicated": 0,
                  "partial_imports": 0, "invariant_violations": 0, "resume_failures": 0,
                  "operation_s": round(span, 3)}
        for n in range(trials):
            folder = workdir / f"{op}-{n}"
            shutil.copytree(template, folder)
            before = exchange_texts(folder)
            lines, killed = _run_child(folder, op, plan, kill_after=rng.uniform(0, span))
            totals["killed_mid_operation"] += int(killed and not any(
                x.startswith("done") for x in lines))
            for key, value in _check(folder, op, before, lines).items():
                totals[key] += value
            shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(calib, ignore_errors=True)
        results[op] = totals
    return results
