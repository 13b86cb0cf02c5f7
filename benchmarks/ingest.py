"""Ingest time: a whole LoCoMo conversation through engine.import_dialogue, wall time and calls.

Modes: `default` (every setting at its default, embedded model: 'auto' files extractively),
`extractive` (no chat model), `llm-instant` (llm consolidation and analysis with an
instant scripted model: the engine's own cost of the llm path) and, with --llm, `llm` with the
embedded local model (target: <= 5 minutes on 2 cores). Baseline in the same run: embedding the
conversation's page texts in batches, the part no mode can avoid.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from . import common


def import_once(path: Path, conv: dict[str, Any], mode: str, model: Any, emb: Any,
                data: Path) -> dict[str, Any]:
    user = str(conv.get("sample_id") or path.stem)
    if mode == "default":  # every setting at its default, the embedded model if one is needed
        engine = common.make_engine(data, model=None, emb=emb)
    else:
        kind = "extractive" if mode == "extractive" else "llm"
        engine = common.make_engine(data, model=model, emb=emb, consolidation=kind,
                                    analysis=kind)
    with common.Timer() as t:
        report = engine.import_dialogue(user, path.read_bytes(), fmt="locomo",
                                        select=conv.get("sample_id"))
    usage = engine.usage(user)
    counts = common.memory_counts(engine.state(user))
    engine.store.close()
    calls = sum(u["calls"] for u in usage.values())
    return {"mode": mode, "sample_id": user, "exchanges": report["imported"],
            "wall_s": round(t.s, 2), "model_calls": calls,
            "calls_by_purpose": {k: v["calls"] for k, v in usage.items()},
            "fallbacks": sum(u["fallbacks"] for u in usage.values()),
            "calls_per_exchange": round(calls / max(1, report["imported"]), 4),
            "memory": counts, "model": getattr(model, "name", None),
            "settings": {"consolidation": engine.config.consolidation,
                         "analysis": engine.config.analysis,
                         "import_analysis": engine.config.import_analysis}}


def run(paths: list[str] | None = None, conversation: int = 0, sessions: int | None = None,
        llm: bool = False, emb: Any = None, out: Path | None = None,
        write: bool = True) -> dict[str, Any]:
    from memoryos_core.transfer import importers

    from .cost import trim_sessions

    emb = emb or common.embedder()
    path, conv = common.load_locomo(paths)[conversation]
    conv = trim_sessions(conv, sessions)
    runs = []
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        src = Path(tmp) / "conv.json"
        src.write_text(json.dumps([conv]), encoding="utf-8")
        items = importers.parse_locomo(conv, None, None)
        texts = [f"User: {i.user.strip()}\nAssistant: {i.assistant.strip()}" for i in items]
        with common.Timer() as t:
            for start in range(0, len(texts), 64):
                emb.embed(texts[start:start + 64])
        baseline = round(t.s, 2)
        modes = [("default", None), ("extractive", common.instant_model()),
                 ("llm-instant", common.instant_model())]
        if llm:
            from memoryos_core.llm import default_chat_model

            modes.append(("llm", default_chat_model()))
        for n, (mode, model) in enumerate(modes):
            runs.append(import_once(src, conv, mode, model, emb, Path(tmp) / f"d{n}"))
    for r in runs:
        r["ratio_vs_embedding"] = common.ratio(r["wall_s"], baseline)
    result = common.envelope("ingest", {"file": str(path), "sample_id": conv.get("sample_id"),
                                        "sessions": sessions or "all", "llm": llm},
                             {"embedder": emb.name, "llm": runs[-1]["model"] if llm else None})
    result.update({"runs": runs, "baseline_embedding_s": baseline,
                   "default_target_s": 300, "default_target_met": runs[0]["wall_s"] <= 300,
                   "llm_target_s": 300, "llm_target_met": (runs[-1]["wall_s"] <= 300)
                   if llm else None})
    if write:
        md = common.markdown_table(runs, ["mode", "exchanges", "wall_s", "ratio_vs_embedding",
                                          "model_calls", "calls_per_exchange", "fallbacks"])
        md += (f"\nBaseline: embedding the {len(texts)} page texts alone took {baseline} s in"
               " the same run. Target for `llm` with the embedded model: <= 300 s on 2 cores"
               " (run with --llm).\n")
        result["files"] = common.write_report("ingest", result, md, out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--conversation", type=int, default=0, help="index in the file(s)")
    parser.add_argument("--sessions", type=int, default=None, help="first N sessions only")
    parser.add_argument("--llm", action="store_true", help="also the embedded local model")
    args = parser.parse_args(argv)
    result = run(args.files or None, args.conversation,
                 args.sessions or (5 if args.quick else None), args.llm, out=args.out)
    common.emit(result, args.json, "\n".join(
        f"{r['mode']:12s} {r['exchanges']} exchanges in {r['wall_s']} s"
        f" (x{r['ratio_vs_embedding']} of embedding alone), {r['model_calls']} model calls"
        for r in result["runs"]))
    return result


if __name__ == "__main__":
    main()
