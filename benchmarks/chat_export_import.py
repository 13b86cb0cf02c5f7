"""Chat-export import: a generated Claude-style export (100 MB by default) through import_dialogue.

Each import runs in its own process over a fresh data folder: wall time, exchanges (pages)
per second and the peak memory the import added (VmHWM reset after the embedder and engine are
loaded, so the model's own memory is left out). Baseline in the same run: the existing ChatGPT
importer (the whole document parsed at once) on a ChatGPT export of the same size, at the
largest size it accepts (50 MB); the Claude export is also imported at that size, so the two
compare like for like. A flat peak is one that does not grow with the file: compare the Claude
rows of different sizes.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import common

WORDS = ("garden tomato bicycle river mountain violin marathon recipe sourdough library train"
         " ticket museum painting kitten puppy holiday budget invoice meeting project deadline"
         " harbour lighthouse keeper poem weather umbrella jacket socks boots lantern compass"
         " orchard cider bakery oven flour yeast knitting scarf chess opening rook bishop").split()
ROOT_ID = "00000000-0000-4000-8000-000000000000"
# sizes like a real export's: 111 MB held 11,998 messages (export_formats.md 1.7), ~9 KB each
QUESTION_CHARS, ANSWER_CHARS = 600, 5000


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out).capitalize() + "."


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(ts))


def _claude_conversation(rng: random.Random, n: int, turns: int) -> dict[str, Any]:
    """One conversation: every fourth reply regenerated (the first try abandoned), thinking
    blocks, an artifact now and then."""
    start = 1_700_000_000 + n * 7200
    messages: list[dict[str, Any]] = []
    parent = ROOT_ID
    for t in range(turns):
        ts = start + t * 60
        question = f"[{n}.{t}] " + _text(rng, QUESTION_CHARS)
        uid = f"c{n}-h{t}"
        messages.append({"uuid": uid, "sender": "human", "text": question,
                         "content": [{"type": "text", "text": question, "citations": []}],
                         "created_at": _iso(ts), "updated_at": _iso(ts), "attachments": [],
                         "files": [], "parent_message_uuid": parent})
        if t % 4 == 0:
            dropped = _text(rng, ANSWER_CHARS)
            messages.append({"uuid": f"c{n}-x{t}", "sender": "assistant", "text": dropped,
                             "content": [{"type": "text", "text": dropped}],
                             "created_at": _iso(ts + 5), "parent_message_uuid": uid})
        answer = _text(rng, ANSWER_CHARS)
        content: list[dict[str, Any]] = [{"type": "thinking", "thinking": _text(rng, 2000),
                                          "summaries": [], "cut_off": False}]
        if t % 5 == 2:
            content.append({"type": "tool_use", "id": f"tu{n}{t}", "name": "artifacts",
                            "input": {"id": f"a{n}{t}", "type": "text/markdown",
                                      "title": f"Notes {n}.{t}", "command": "create",
                                      "content": _text(rng, 2000)}})
        content.append({"type": "text", "text": answer, "citations": []})
        parent = f"c{n}-a{t}"
        messages.append({"uuid": parent, "sender": "assistant", "text": answer,
                         "content": content, "created_at": _iso(ts + 20),
                         "updated_at": _iso(ts + 20), "attachments": [], "files": [],
                         "parent_message_uuid": uid})
    return {"uuid": f"conv-{n}", "name": f"Conversation {n}", "summary": "",
            "created_at": _iso(start), "updated_at": _iso(start + turns * 60),
            "account": {"uuid": "acc"}, "chat_messages": messages}


def _chatgpt_conversation(rng: random.Random, n: int, turns: int) -> dict[str, Any]:
    """The same kind of conversation in ChatGPT's mapping tree (regenerations as siblings)."""
    start = 1_700_000_000 + n * 7200
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None,
                                        "children": []}}
    parent = "root"

    def node(nid: str, role: str, text: str, ts: float, up: str) -> None:
        mapping[nid] = {"id": nid, "parent": up, "children": [], "message": {
            "id": nid, "author": {"role": role}, "create_time": ts,
            "content": {"content_type": "text", "parts": [text]}}}
        mapping[up]["children"].append(nid)

    for t in range(turns):
        ts = start + t * 60
        node(f"h{t}", "user", f"[{n}.{t}] " + _text(rng, QUESTION_CHARS), ts, parent)
        if t % 4 == 0:
            node(f"x{t}", "assistant", _text(rng, ANSWER_CHARS), ts + 5, f"h{t}")
        node(f"a{t}", "assistant", _text(rng, ANSWER_CHARS), ts + 20, f"h{t}")
        parent = f"a{t}"
    return {"title": f"Conversation {n}", "create_time": start, "mapping": mapping,
            "current_node": parent}


def generate(path: Path, kind: str, megabytes: float, turns: int = 20, seed: int = 7) -> int:
    """Write an export of about `megabytes` MB, one conversation at a time; returns how many."""
    rng = random.Random(seed)
    make = _claude_conversation if kind == "claude" else _chatgpt_conversation
    target = int(megabytes * 1024 * 1024)
    n = 0
    with path.open("w", encoding="utf-8") as fp:
        fp.write("[")
        written = 1
        while written < target:
            text = ("," if n else "") + json.dumps(make(rng, n, turns))
            fp.write(text)
            written += len(text)
            n += 1
        fp.write("]")
    return n


CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from benchmarks import common
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
emb = common.embedder() if {embedder!r} == "minilm" else None
if emb is None:
    from memoryos_core.testing import HashEmbedder
    emb = HashEmbedder()
engine = common.make_engine({data!r}, emb=emb, consolidation="extractive", analysis="extractive")
engine.preview_import("warm", b'[{{"user_input": "a", "agent_response": "b"}}]')
before = status("VmRSS")
open("/proc/self/clear_refs", "w").write("5")  # the peak from here on: the import's own
t0 = time.perf_counter()
source = Path({path!r}) if {kind!r} == "claude" else Path({path!r}).read_bytes()
report = engine.import_dialogue("bench", source, maintain=False)
wall = time.perf_counter() - t0
print(json.dumps({{"wall_s": wall, "exchanges": report["imported"],
                   "abandoned": report.get("abandoned"), "rss_before_mb": before,
                   "peak_rss_mb": status("VmHWM"), "format": report["format"]}}))
"""


def import_in_child(path: Path, kind: str, embedder: str, data: Path) -> dict[str, Any]:
    """One import in a fresh process: its wall time and the memory it added at its peak."""
    code = CHILD.format(root=str(common.ROOT), embedder=embedder, data=str(data),
                        path=str(path), kind=kind)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the {kind} import failed: {done.stderr[-2000:]}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    got["added_peak_mb"] = round(got["peak_rss_mb"] - got["rss_before_mb"], 1)
    got["pages_per_s"] = round(got["exchanges"] / max(got["wall_s"], 1e-9), 1)
    got["wall_s"] = round(got["wall_s"], 2)
    return got


def run(claude_mb: list[float] | None = None, baseline_mb: float = 40.0,
        embedder: str = "minilm", out: Path | None = None, write: bool = True) -> dict[str, Any]:
    claude_mb = claude_mb or [100.0]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-export-") as tmp:
        plan = [("chatgpt", baseline_mb), ("claude", baseline_mb)]
        plan += [("claude", mb) for mb in claude_mb if mb != baseline_mb]
        for n, (kind, mb) in enumerate(plan):
            path = Path(tmp) / f"{kind}-{mb:g}MB.json"
            conversations = generate(path, kind, mb)
            got = import_in_child(path, kind, embedder, Path(tmp) / f"data-{n}")
            size_mb = path.stat().st_size / 2**20
            got.update(kind=kind, file_mb=round(size_mb, 1), conversations=conversations,
                       mb_per_s=round(size_mb / max(got["wall_s"], 1e-9), 2))
            path.unlink()
            rows.append(got)
    base, same = rows[0], rows[1]
    result = {"embedder": embedder, "runs": rows,
              "ratio_pages_per_s_vs_chatgpt": round(same["pages_per_s"] / base["pages_per_s"], 2),
              "ratio_added_peak_vs_chatgpt": round(same["added_peak_mb"]
                                                   / max(base["added_peak_mb"], 0.1), 2),
              "settings": {"consolidation": "extractive", "analysis": "extractive",
                           "maintain": False, "turns_per_conversation": 20},
              "models": {"embedder": embedder},
              "machine": common.machine(), "versions": common.versions(),
              "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    if write:
        md = ["| importer | file MB | conversations | exchanges | wall s | pages/s | MB/s |"
              " added peak MB |", "|---|---|---|---|---|---|---|---|"]
        md += [f"| {r['kind']} | {r['file_mb']} | {r['conversations']} | {r['exchanges']} |"
               f" {r['wall_s']} | {r['pages_per_s']} | {r['mb_per_s']} | {r['added_peak_mb']} |"
               for r in rows]
        md.append(f"\nClaude vs ChatGPT importer at {baseline_mb:g} MB: pages/s x"
                  f"{result['ratio_pages_per_s_vs_chatgpt']}, added peak memory x"
                  f"{result['ratio_added_peak_vs_chatgpt']} ({embedder} embedder).")
        result["files"] = common.write_report("chat_export_import", result, "\n".join(md), out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--claude-mb", type=float, nargs="*", default=None,
                        help="sizes of the Claude exports (default 100)")
    parser.add_argument("--baseline-mb", type=float, default=None,
                        help="size of the like-for-like pair (default 40; ChatGPT reads <= 50)")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm",
                        help="hash: leave the embedding model out (the importers' own cost)")
    args = parser.parse_args(argv)
    sizes = args.claude_mb or ([4.0] if args.quick else [100.0])
    result = run(sizes, args.baseline_mb or (2.0 if args.quick else 40.0), args.embedder,
                 out=args.out)
    common.emit(result, args.json, "\n".join(
        f"{r['kind']:8s} {r['file_mb']:6.1f} MB: {r['exchanges']} exchanges in {r['wall_s']} s"
        f" ({r['pages_per_s']} pages/s), peak +{r['added_peak_mb']} MB" for r in result["runs"])
        + f"\nClaude/ChatGPT at the same size: pages/s x{result['ratio_pages_per_s_vs_chatgpt']},"
          f" added peak x{result['ratio_added_peak_vs_chatgpt']}")
    return result


if __name__ == "__main__":
    main()
