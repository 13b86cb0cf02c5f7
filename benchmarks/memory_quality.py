"""Memory quality: are the stored summaries, facts and profile reasons true to their pages?

A LoCoMo-format conversation is imported and every segment analysed (forced), once per mode:
`extractive` (the baseline, no chat model: its texts are cut from the pages) and `llm` (the
embedded local model, or --base-url/--model). For each stored text: is it grounded (enough of its
content words occur in the pages it is about: memoryos_core.memory.grounding, the rule the engine
enforces) and does it echo an instruction of our prompts? Also reported: fallbacks to the
extractive path, pages the model left unassigned, model calls and wall time.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from . import common

UNASSIGNED = re.compile(r"pages \[([\d, ]*)\] were not assigned")


def _texts(engine: Any, user: str, ids: list[int]) -> str:
    if not ids:
        return ""
    marks = ",".join("?" * len(ids))
    rows = engine.store.query(f"SELECT user_text, assistant_text FROM exchanges WHERE id IN"
                              f" ({marks}) AND user_id = ?", (*ids, user))
    return " ".join(f"{r['user_text']} {r['assistant_text']}" for r in rows)


def judge(kind: str, text: str, source: str, least: float,
          ignore: list[str] | None = None) -> dict[str, Any]:
    """One stored text: its grounding share, whether it passes, and what it echoes."""
    from memoryos_core.memory import grounding

    share = grounding.grounding(text, source, ignore or [])
    copied = grounding.echo(text)
    return {"kind": kind, "text": text[:200], "grounding": round(share, 3),
            "grounded": share >= least and copied is None, "echo": copied}


def inspect(engine: Any, user: str) -> list[dict[str, Any]]:
    """Every segment summary, fact and profile reason of a user, judged against its pages."""
    from memoryos_core.memory import grounding
    from memoryos_core.text import words

    out = []
    for seg in engine.store.query("SELECT id, summary FROM segments WHERE user_id = ?", (user,)):
        ids = [r["id"] for r in engine.store.query(
            "SELECT id FROM exchanges WHERE segment_id = ? AND user_id = ?", (seg["id"], user))]
        for part in seg["summary"].split(" · "):  # a joined segment keeps several summaries
            out.append(judge("summary", part, _texts(engine, user, ids),
                             grounding.SUMMARY_GROUNDING))
    for fact in engine.store.query("SELECT text, sources FROM facts WHERE user_id = ?", (user,)):
        out.append(judge("fact", fact["text"], _texts(engine, user, json.loads(fact["sources"])),
                         grounding.FACT_GROUNDING))
    for row in engine.store.query("SELECT dimension, family, level, reason, evidence, signals"
                                  " FROM profile WHERE user_id = ?", (user,)):
        if not row["level"]:  # no model: the row holds the user's own sentences, no reason
            for signal in json.loads(row["signals"] or "[]"):
                out.append(judge("profile_signal", signal["text"],
                                 _texts(engine, user, [int(signal["page"])]),
                                 grounding.REASON_GROUNDING))
            continue
        out.append(judge("profile_reason", row["reason"],
                         _texts(engine, user, json.loads(row["evidence"])),
                         grounding.REASON_GROUNDING,
                         [*words(row["dimension"]), *words(row["level"]),
                          *words(row["family"])]))
    return out


def unassigned_pages(engine: Any, user: str) -> int:
    """Pages the model did not assign to a topic (from the consolidation events)."""
    total = 0
    for event in engine.events(user, limit=100_000):
        if event["kind"] != "consolidation":
            continue
        detail = event["detail"] if isinstance(event["detail"], dict) \
            else json.loads(event["detail"])
        for note in detail.get("notes", []):
            m = UNASSIGNED.search(note)
            if m:
                total += len([x for x in m.group(1).split(",") if x.strip()])
    return total


def run_mode(path: Path, conv: dict[str, Any], mode: str, model: Any, emb: Any,
             data: Path) -> dict[str, Any]:
    """Import and force-analyse one conversation in one mode; judge what was stored."""
    user = str(conv.get("sample_id") or "user")
    engine = common.make_engine(data, model=model, emb=emb, consolidation=mode, analysis=mode,
                                import_analysis="deferred")
    with common.Timer() as t:
        report = engine.import_dialogue(user, path.read_bytes(), fmt="locomo",
                                        select=conv.get("sample_id"))
        engine.force_analysis(user)
    items = inspect(engine, user)
    usage = engine.usage(user)
    result: dict[str, Any] = {
        "mode": mode, "sample_id": user, "exchanges": report["imported"],
        "wall_s": round(t.s, 2), "model": getattr(model, "name", None),
        "model_calls": sum(u["calls"] for u in usage.values()),
        "fallbacks": {k: v["fallbacks"] for k, v in usage.items()},
        "unassigned_pages": unassigned_pages(engine, user),
        "memory": common.memory_counts(engine.state(user)), "by_kind": {}}
    for kind in ("summary", "fact", "profile_reason", "profile_signal"):
        mine = [i for i in items if i["kind"] == kind]
        result["by_kind"][kind] = {
            "count": len(mine),
            "grounded_share": round(sum(i["grounded"] for i in mine) / len(mine), 4)
            if mine else None,
            "echoes": sum(1 for i in mine if i["echo"])}
    result["grounded_share"] = round(sum(i["grounded"] for i in items) / len(items), 4) \
        if items else None
    result["echoes"] = sum(1 for i in items if i["echo"])
    result["examples_not_grounded"] = [i for i in items if not i["grounded"]][:10]
    engine.store.close()
    return result


def run(paths: list[str] | None = None, conversation: int = 0, sessions: int | None = None,
        modes: tuple[str, ...] = ("extractive", "llm"), model: Any = None, emb: Any = None,
        out: Path | None = None, write: bool = True) -> dict[str, Any]:
    from .cost import trim_sessions

    emb = emb or common.embedder()
    path, conv = common.load_locomo(paths)[conversation]
    conv = trim_sessions(conv, sessions)
    if "llm" in modes and model is None:
        from memoryos_core.llm import default_chat_model

        model = default_chat_model()
    runs = []
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        src = Path(tmp) / "conv.json"
        src.write_text(json.dumps([conv]), encoding="utf-8")
        for n, mode in enumerate(modes):
            runs.append(run_mode(src, conv, mode, common.instant_model() if mode == "extractive"
                                 else model, emb, Path(tmp) / f"d{n}"))
    result = common.envelope(
        "memory_quality", {"file": str(path), "sample_id": conv.get("sample_id"),
                           "sessions": sessions or "all", "modes": list(modes)},
        {"embedder": emb.name, "llm": getattr(model, "name", None)})
    result["runs"] = runs
    if write:
        rows = [{"mode": r["mode"], "exchanges": r["exchanges"], "wall_s": r["wall_s"],
                 "grounded_share": r["grounded_share"], "echoes": r["echoes"],
                 **{f"{k}_grounded": v["grounded_share"] for k, v in r["by_kind"].items()},
                 **{f"{k}s": v["count"] for k, v in r["by_kind"].items()},
                 "fallbacks": sum(r["fallbacks"].values()),
                 "unassigned_pages": r["unassigned_pages"], "model_calls": r["model_calls"]}
                for r in runs]
        from memoryos_core.memory import grounding

        md = common.markdown_table(rows) + (
            "\nGrounded = not an echo of our prompts and at least"
            f" {grounding.SUMMARY_GROUNDING:.0%} (summaries), {grounding.REASON_GROUNDING:.0%}"
            f" (profile reasons) or {grounding.FACT_GROUNDING:.0%} (facts) of its content words"
            " occur in the pages it is about. `extractive` is the baseline measured in the same"
            " run.\n")
        result["files"] = common.write_report("memory_quality", result, md, out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="LoCoMo-format file (default: dev subset)")
    parser.add_argument("--conversation", type=int, default=0, help="index in the file(s)")
    parser.add_argument("--sessions", type=int, default=None, help="first N sessions only")
    parser.add_argument("--modes", default="extractive,llm", help="extractive, llm or both")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for llm")
    parser.add_argument("--model", default=None, help="model name at the endpoint")
    args = parser.parse_args(argv)
    model = None
    if args.model:
        from memoryos_core.llm import OpenAIChatModel

        model = OpenAIChatModel(args.model, base_url=args.base_url)
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    result = run(args.files or None, args.conversation,
                 args.sessions or (3 if args.quick else None), modes, model, out=args.out)
    common.emit(result, args.json, "\n".join(
        f"{r['mode']:10s} {r['exchanges']} exchanges, {r['wall_s']} s: grounded"
        f" {r['grounded_share']}, echoes {r['echoes']}, fallbacks {r['fallbacks']},"
        f" unassigned pages {r['unassigned_pages']}, {r['by_kind']}" for r in result["runs"]))
    return result


if __name__ == "__main__":
    main()
