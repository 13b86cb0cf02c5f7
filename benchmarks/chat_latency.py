"""What a chat user waits for with the embedded model, on the product path (engine.chat with
the web app's callbacks): the first sign of life (a phase event), the first token, the whole
answer and its tokens/s; the first turn cold (the model not loaded) and the rest warm.

    python -m benchmarks.chat_latency --turns 8 --json

The server loads the model in the background at start (webapp/warmup.py), so a user who
writes after that sees the warm figures; the cold turn is what one who writes sooner waits.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

MESSAGES = [
    "Hi! I just moved to Porto for a new job at a bakery.",
    "My sister Ines lives in Lisbon and studies architecture.",
    "Can you suggest a weekend trip from Porto?",
    "I adopted a cat called Figo last week.",
    "Where does my sister live?",
    "What is a good way to learn Portuguese quickly?",
    "I run along the river every morning before work.",
    "What is my cat called?",
    "Tell me a short joke about bread.",
    "What do you remember about my job?",
]


def _turn(engine: Any, text: str) -> dict[str, Any]:
    """One turn, timed from the moment it is sent (Enter)."""
    sent = time.perf_counter()
    seen: dict[str, float] = {}
    phases: list[str] = []
    replaced: list[str] = []

    def on_event(kind: str, data: dict[str, Any]) -> None:
        seen.setdefault("event", time.perf_counter() - sent)
        if kind == "phase":
            phases.append(str(data.get("phase")))
        elif kind == "replace":
            replaced.append(str(data.get("reason")))

    def on_token(piece: str) -> None:
        seen.setdefault("token", time.perf_counter() - sent)

    result = engine.chat("bench", text, on_token=on_token, on_event=on_event, maintain=False)
    stats = result.get("stats") or {}
    return {"first_event_s": round(seen.get("event", float("nan")), 3),
            "first_token_s": round(seen.get("token", float("nan")), 3),
            "total_s": round(time.perf_counter() - sent, 3),
            "tokens_per_second": stats.get("tokens_per_second"),
            "completion_tokens": stats.get("completion_tokens"),
            "source": result.get("source"), "phases": phases, "replaced": replaced}


def run(turns: int = 8) -> dict[str, Any]:
    """Cold first turn, then warm turns; returns the result object."""
    from benchmarks.common import embedder as real_embedder
    from memoryos_core import EngineConfig, MemoryEngine
    from memoryos_core.llm import default_chat_model

    embedder = real_embedder()  # loaded before timing, as the server has it
    model = default_chat_model()
    engine = MemoryEngine(tempfile.mkdtemp(prefix="chat-latency-"), chat_model=model,
                          embedder=embedder, config=EngineConfig().replace(
                              consolidation="extractive", analysis="extractive"))
    cold = _turn(engine, MESSAGES[0])
    warm = [_turn(engine, MESSAGES[n % len(MESSAGES)]) for n in range(1, turns)]
    streamed = [t for t in warm if t["source"] in ("model", "retry", "plain")]

    def median(key: str, rows: list[dict[str, Any]]) -> float | None:
        values = [r[key] for r in rows if isinstance(r[key], int | float) and r[key] == r[key]]
        return round(statistics.median(values), 3) if values else None

    def most(key: str, rows: list[dict[str, Any]]) -> float | None:
        values = [r[key] for r in rows if isinstance(r[key], int | float) and r[key] == r[key]]
        return round(max(values), 3) if values else None

    return {
        "model": model.name, "cpus": os.cpu_count(), "load_average": os.getloadavg(),
        "cold": cold,
        "warm_first_event_s_max": most("first_event_s", warm),
        "warm_first_token_s_median": median("first_token_s", warm),
        "warm_first_token_s_max": most("first_token_s", warm),
        "warm_total_s_median": median("total_s", warm),
        "warm_tokens_per_second_median": median("tokens_per_second", streamed),
        "warm_model_answers": len(streamed), "warm_memory_answers": len(warm) - len(streamed),
        "turns": warm,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="print the whole result")
    args = parser.parse_args(argv)
    result = run(args.turns)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(json.dumps({k: v for k, v in result.items() if k != "turns"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
