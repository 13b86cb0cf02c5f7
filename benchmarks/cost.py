"""Cost: chat-model calls and tokens per admitted exchange over a whole LoCoMo conversation.

The conversation is replayed through the product's own path, counted through engine.usage():
- `chat` (default): every turn of the chosen speaker goes through engine.chat; an instant
  scripted model answers with the recorded reply of the other speaker (and valid JSON for
  structured calls), so answers, consolidation and analysis are the product's real calls;
- `import`: engine.import_dialogue of the whole conversation (one unit), then its maintenance.
`llm` consolidation and analysis. Completion tokens of maintenance calls are those of the fake's
minimal JSON, so they understate a real model's; prompt tokens are the product's real prompts.
The reference makes 3 maintenance calls per exchange once short-term memory is full, plus 2 per
hot segment (stated by issue 6, not measured here).
"""

from __future__ import annotations

import copy
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from . import common

MAINTENANCE = ("consolidation", "analysis")


def trim_sessions(conv: dict[str, Any], sessions: int | None) -> dict[str, Any]:
    """A copy of a LoCoMo conversation with only its first `sessions` sessions."""
    if not sessions:
        return conv
    conv = copy.deepcopy(conv)
    body = conv["conversation"]
    for key in list(body):
        m = re.fullmatch(r"session_(\d+)(_date_time)?", key)
        if m and int(m.group(1)) > sessions:
            del body[key]
    return conv


def replay(conv: dict[str, Any], mode: str, emb: Any, data_dir: Path) -> dict[str, Any]:
    """Run one conversation through chat or import; return usage and counts."""
    from memoryos_core.transfer import importers

    user = str(conv.get("sample_id") or "locomo")
    settings = {"consolidation": "llm", "analysis": "llm"}
    skipped = 0
    if mode == "chat":
        items = importers.parse_locomo(conv, None, None)
        replies = iter([it.assistant or "(no reply)" for it in items if it.user.strip()])
        model = common.instant_model(lambda: next(replies))
        engine = common.make_engine(data_dir, model=model, emb=emb, **settings)
        admitted = 0
        with common.Timer() as t:
            for it in items:
                if not it.user.strip():
                    skipped += 1
                    continue
                engine.chat(user, it.user, model=model)
                admitted += 1
    else:
        model = common.instant_model()
        engine = common.make_engine(data_dir, model=model, emb=emb, **settings)
        with common.Timer() as t:
            report = engine.import_dialogue(user, json.dumps(conv).encode(), fmt="locomo",
                                            maintain=True)
        admitted = report["imported"]
        skipped = len(report["skipped"])
    usage = engine.usage(user)
    counts = common.memory_counts(engine.state(user))
    engine.store.close()
    return {"user": user, "mode": mode, "admitted": admitted, "skipped": skipped,
            "wall_s": round(t.s, 2), "usage": usage, "memory": counts, "model": model.name}


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals and per-exchange figures, split by purpose."""
    admitted = sum(r["admitted"] for r in runs)
    purposes: dict[str, dict[str, float]] = {}
    for r in runs:
        for purpose, u in r["usage"].items():
            slot = purposes.setdefault(purpose, {"calls": 0, "prompt_tokens": 0,
                                                 "completion_tokens": 0, "fallbacks": 0})
            for k in slot:
                slot[k] += u.get(k, 0)
    for slot in purposes.values():
        slot["calls_per_exchange"] = round(slot["calls"] / admitted, 4) if admitted else 0.0
        slot["tokens_per_exchange"] = round(
            (slot["prompt_tokens"] + slot["completion_tokens"]) / admitted, 1) if admitted else 0.0
    maint = sum(purposes.get(p, {}).get("calls", 0) for p in MAINTENANCE)
    maint_tok = sum(purposes.get(p, {}).get("prompt_tokens", 0)
                    + purposes.get(p, {}).get("completion_tokens", 0) for p in MAINTENANCE)
    per = round(maint / admitted, 4) if admitted else 0.0
    return {"admitted": admitted, "by_purpose": purposes, "maintenance_calls": maint,
            "maintenance_calls_per_exchange": per,
            "maintenance_tokens_per_exchange": round(maint_tok / admitted, 1) if admitted else 0,
            "reference_maintenance_calls_per_exchange": common.REFERENCE[
                "maintenance_calls_per_exchange"],
            "ratio_vs_reference": common.ratio(per, common.REFERENCE[
                "maintenance_calls_per_exchange"]),
            "target_max_maintenance_calls_per_exchange": 0.5, "target_met": per <= 0.5}


def run(paths: list[str] | None = None, conversations: int | None = 1,
        sessions: int | None = None, mode: str = "chat", emb: Any = None,
        out: Path | None = None, write: bool = True) -> dict[str, Any]:
    emb = emb or common.embedder()
    convs = [c for _, c in common.load_locomo(paths)][: conversations or None]
    runs = []
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        for n, conv in enumerate(convs):
            runs.append(replay(trim_sessions(conv, sessions), mode, emb, Path(tmp) / f"d{n}"))
    result = common.envelope("cost", {"mode": mode, "conversations": len(runs),
                                      "sessions": sessions or "all",
                                      "engine": {"consolidation": "llm", "analysis": "llm"},
                                      "files": [str(p) for p in paths or [common.locomo_path()]]},
                             {"chat": "instant-scripted (counted via engine.usage)",
                              "embedder": emb.name})
    result["runs"] = runs
    result.update(summarise(runs))
    if write:
        rows = [{"purpose": p, **v} for p, v in sorted(result["by_purpose"].items())]
        md = (f"{result['admitted']} admitted exchanges ({mode} path).\n\n"
              + common.markdown_table(rows) +
              f"\n**Maintenance calls per admitted exchange: "
              f"{result['maintenance_calls_per_exchange']}** (target <= 0.5; the reference makes"
              f" 3 per exchange plus 2 per hot segment, stated, not measured: ratio "
              f"{result['ratio_vs_reference']}).\n")
        result["files"] = common.write_report("cost", result, md, out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="LoCoMo-format files (default: dev subset)")
    parser.add_argument("--mode", choices=("chat", "import"), default="chat")
    parser.add_argument("--conversations", type=int, default=None,
                        help="how many conversations (default: 1, all with --all)")
    parser.add_argument("--all", action="store_true", help="every conversation of the files")
    parser.add_argument("--sessions", type=int, default=None, help="first N sessions only")
    args = parser.parse_args(argv)
    conversations = None if args.all else (args.conversations or 1)
    sessions = args.sessions or (5 if args.quick else None)
    result = run(args.files or None, conversations, sessions, args.mode, out=args.out)
    common.emit(result, args.json,
                f"{result['admitted']} exchanges: maintenance calls/exchange "
                f"{result['maintenance_calls_per_exchange']} (target <= 0.5, reference 3);"
                f" by purpose " + json.dumps({p: v["calls"] for p, v in
                                             result["by_purpose"].items()}))
    return result


if __name__ == "__main__":
    main()
