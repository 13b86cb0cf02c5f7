"""Writes the router's real-message examples from the dev corpora (LongMemEval, LUFY).

Labels come from where a message stands in its corpus, never from a rule on its words: a user
turn of a LongMemEval history that asks something ('?') is a request to the assistant (model);
LongMemEval's own questions ask what was said earlier (memory), except its preference
questions, which ask for advice (model); a LUFY participant's turn that asks the AI friend
something is a request (model). LUFY's own questions are left out: they ask about the
participant in the third person ("What will Alexander drink in Mexico?"), as an evaluator does,
not as a person asks in a chat; learned from, they made "What is the capital of France?" a
question on memory. Licences: LongMemEval MIT, LUFY CC BY 4.0 (attribution in answer/data/README.md).

The dev newcomer chats of benchmarks/data/ (written for this project: people telling facts,
asking about them in other words, asking for advice) give a third file, each turn labelled by
the kind it was written as (recall and unknown: memory; request: model; told; social); the
held-out chats are never read.

    python -m benchmarks.route_sources [--longmemeval FILE] [--lufy FILE]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "memoryos_core" / "answer" / "data" / "routes_real.jsonl"
SHARED = ROOT.parent / "shared" / "data"
MAX_CHARS = 300  # chat messages, not pasted documents
NEWCOMER_OUT = OUT.with_name("routes_newcomer_dev.jsonl")
PER_SOURCE = {"longmemeval": 1200, "lufy": 400}
ROUTE_OF_KIND = {"recall": "memory", "unknown": "memory", "request": "model", "told": "told",
                 "social": "social"}


def _short(text: str) -> bool:
    return 3 <= len(text.split()) and len(text) <= MAX_CHARS


def longmemeval(path: Path) -> list[dict[str, str]]:
    """Requests of LongMemEval users (model) and its questions (memory; preference: model)."""
    out, seen = [], set()
    for item in json.loads(path.read_text()):
        person = f"lme-{item['question_id']}"
        route = "model" if item["question_type"] == "single-session-preference" else "memory"
        out.append({"text": item["question"], "route": route, "person": person,
                    "group": f"longmemeval-question-{item['question_type']}"})
        for session in item["haystack_sessions"]:
            for turn in session:
                text = turn["content"].strip()
                if turn["role"] == "user" and "?" in text and _short(text) and text not in seen:
                    seen.add(text)
                    out.append({"text": text, "route": "model", "person": person,
                                "group": "longmemeval-request"})
    return out


def lufy(path: Path) -> list[dict[str, str]]:
    """LUFY participants' questions to the AI friend (model)."""
    out, seen = [], set()
    for conv in json.loads(path.read_text()):
        person = "lufy-" + conv["sample_id"].rsplit("-", 1)[-1].lower()
        for key, turns in conv["conversation"].items():
            if not key.startswith("session_") or not isinstance(turns, list):
                continue
            for turn in turns:
                text = turn["text"].strip()
                if turn["speaker"] != "AI friend" and text.endswith("?") and _short(text) \
                        and text not in seen:
                    seen.add(text)
                    out.append({"text": text, "route": "model", "person": person,
                                "group": "lufy-question-to-ai"})
    return out


def newcomer_dev() -> list[dict[str, str]]:
    """Every turn of the dev newcomer chats, labelled by the kind it was written as."""
    out = []
    for path in sorted((ROOT / "benchmarks" / "data").glob("newcomer_chats_dev*.json")):
        for chat in json.loads(path.read_text(encoding="utf-8")):
            out += [{"text": t["text"], "route": ROUTE_OF_KIND[t["kind"]],
                     "person": f"newcomer-{chat['person']}", "group": f"newcomer-{t['kind']}"}
                    for t in chat["turns"]]
    return out


def main() -> None:
    """Sample each source's requests (every question kept) and write the JSONL."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--longmemeval", type=Path,
                        default=SHARED / "longmemeval" / "longmemeval_s_dev30.json")
    parser.add_argument("--lufy", type=Path, default=SHARED / "lufy" / "lufy_dev.json")
    args = parser.parse_args()
    rng = random.Random(44)
    rows: list[dict[str, str]] = []
    for name, found in (("longmemeval", longmemeval(args.longmemeval)),
                        ("lufy", lufy(args.lufy))):
        questions = [r for r in found if "request" not in r["group"]
                     and "to-ai" not in r["group"]]
        requests = [r for r in found if r not in questions]
        rows += questions + rng.sample(requests, min(PER_SOURCE[name], len(requests)))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(rows)} examples -> {OUT.relative_to(ROOT)}")
    chats = newcomer_dev()
    NEWCOMER_OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chats))
    print(f"{len(chats)} examples -> {NEWCOMER_OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
