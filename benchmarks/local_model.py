"""Speed of the embedded chat model: load time, prompt and generation tokens/s, peak RSS.

    python -m benchmarks.local_model --json

Prints one JSON object. Generation speed is measured on plain replies (no grammar) and on
grammar-constrained JSON replies, since maintenance calls use the latter. The machine's load
average is reported too: llama.cpp threads spin, so a busy machine slows it a lot.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from typing import Any

PROMPT = ("I started learning the violin last month and practise every evening after work. "
          "My teacher says my bow hold is too tight, and I have a recital in June. ") * 12


def _rss_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(repeats: int = 3, threads: int | None = None, gen_tokens: int = 64) -> dict[str, Any]:
    """Measure the embedded model; returns the result object."""
    import llama_cpp

    from memoryos_core.llm.local import LocalChatModel, model_path

    rss_before = _rss_mb()
    model = LocalChatModel(n_threads=threads)
    load_s = model.warm_up()
    rss_loaded = _rss_mb()
    llama = model._llama()

    # prompt processing: evaluate a ~400-token prompt from an empty cache
    tokens = llama.tokenize(PROMPT.encode(), add_bos=True, special=False)
    prompt_rates = []
    for _ in range(repeats):
        llama.reset()
        started = time.perf_counter()
        llama.eval(tokens)
        prompt_rates.append(len(tokens) / (time.perf_counter() - started))

    def generate(schema: dict[str, Any] | None) -> list[float]:
        rates = []
        for i in range(repeats):
            question = f"Write a short story about a violin, number {i}."
            if schema is not None:
                question = f"Describe violin lesson {i} as JSON."
            started = time.perf_counter()
            done = model.complete([{"role": "user", "content": question}],
                                  max_tokens=gen_tokens, temperature=0.7, json_schema=schema)
            elapsed = time.perf_counter() - started
            # subtract this call's prompt time at the measured prompt rate
            prompt_s = done.prompt_tokens / statistics.median(prompt_rates)
            rates.append(done.completion_tokens / max(1e-6, elapsed - prompt_s))
        return rates

    plain = generate(None)
    schema = {"type": "object", "properties": {
        "topic": {"type": "string"}, "notes": {"type": "array", "items": {"type": "string"}}},
        "required": ["topic", "notes"]}
    constrained = generate(schema)
    return {
        "benchmark": "local_model",
        "model": model.name,
        "model_file": str(model_path()),
        "llama_cpp_python": llama_cpp.__version__,
        "n_threads": model.n_threads,
        "n_ctx": model.context_window,
        "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "load_s": round(load_s, 3),
        "prompt_tokens": len(tokens),
        "prompt_tokens_per_s": round(statistics.median(prompt_rates), 1),
        "generation_tokens_per_s": round(statistics.median(plain), 1),
        "json_generation_tokens_per_s": round(statistics.median(constrained), 1),
        "repeats": repeats,
        "rss_before_mb": round(rss_before, 1),
        "rss_after_load_mb": round(rss_loaded, 1),
        "peak_rss_mb": round(_rss_mb(), 1),
        "model_rss_mb": round(_rss_mb() - rss_before, 1),
    }


class _Timed:
    """A ChatModel proxy that records the seconds and validity of every structured call."""

    def __init__(self, model: Any) -> None:
        self.model, self.name, self.context_window = model, model.name, model.context_window
        self.calls: list[dict[str, Any]] = []

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        from memoryos_core.llm.structured import parse_json

        started = time.perf_counter()
        done = self.model.complete(messages, **kwargs)
        try:
            parse_json(done.text)
            parses = True
        except ValueError:
            parses = False
        kind = "consolidation" if "organise a conversation" in messages[0]["content"] else \
            "profile" if "profile" in messages[0]["content"] else "facts"
        self.calls.append({"kind": kind, "s": time.perf_counter() - started, "parses": parses,
                           "prompt_tokens": done.prompt_tokens,
                           "completion_tokens": done.completion_tokens})
        print(json.dumps(self.calls[-1]), file=sys.stderr, flush=True)  # survives a timeout
        return done

    def stream(self, messages: Any, **kwargs: Any) -> Any:
        return self.model.stream(messages, **kwargs)


def locomo_prefix(exchanges: int, path: str) -> bytes:
    """The first conversation of a LoCoMo file cut to about `exchanges` exchanges (2 turns)."""
    doc = json.load(open(path, encoding="utf-8"))[0]
    conv = dict(doc["conversation"])
    left = 2 * exchanges
    for key in sorted((k for k in conv if k.startswith("session_") and isinstance(conv[k], list)),
                      key=lambda k: int(k.split("_")[1])):
        if left <= 0:
            conv.pop(key)
            conv.pop(f"{key}_date_time", None)
            continue
        conv[key] = conv[key][:left]
        left -= len(conv[key])
    return json.dumps({**doc, "conversation": conv}).encode()


def consolidation_run(exchanges: int, path: str, threads: int | None) -> dict[str, Any]:
    """Import a LoCoMo prefix with consolidation=llm and analysis=llm; time every model call."""
    import tempfile

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from memoryos_core import EngineConfig, MemoryEngine
    from memoryos_core.llm.embedder import SentenceTransformerEmbedder
    from memoryos_core.llm.local import LocalChatModel

    model = _Timed(LocalChatModel(n_threads=threads))
    model.model.warm_up()
    config = EngineConfig().replace(consolidation="llm", analysis="llm")
    with tempfile.TemporaryDirectory() as tmp:
        engine = MemoryEngine(tmp, chat_model=model, embedder=SentenceTransformerEmbedder(),
                              config=config)
        started = time.perf_counter()
        report = engine.import_dialogue("bench", locomo_prefix(exchanges, path), fmt="locomo")
        import_s = time.perf_counter() - started
        started = time.perf_counter()
        engine.force_analysis("bench")
        force_s = time.perf_counter() - started
        usage = engine.usage("bench")
        segments = engine.store.query("SELECT summary FROM segments WHERE user_id = 'bench'")
    out: dict[str, Any] = {"exchanges": len(report.get("exchange_ids", [])),
                           "import_batches": report.get("consolidation_batches"),
                           "import_s": round(import_s, 1), "force_analysis_s": round(force_s, 1),
                           "segments": len(segments),
                           "fallbacks": {k: v["fallbacks"] for k, v in usage.items()},
                           "calls": {k: v["calls"] for k, v in usage.items()}}
    for kind in ("consolidation", "profile", "facts"):
        calls = [c for c in model.calls if c["kind"] == kind]
        if calls:
            out[kind] = {"calls": len(calls),
                         "median_s": round(statistics.median(c["s"] for c in calls), 2),
                         "max_s": round(max(c["s"] for c in calls), 2),
                         "parse_rate": round(sum(c["parses"] for c in calls) / len(calls), 3),
                         "median_prompt_tokens": statistics.median(
                             c["prompt_tokens"] for c in calls),
                         "median_completion_tokens": statistics.median(
                             c["completion_tokens"] for c in calls)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object (default)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="default: os.cpu_count()")
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--locomo", type=int, default=0, metavar="N",
                        help="also import the first N exchanges of a LoCoMo conversation with"
                        " consolidation=llm and time every model call")
    parser.add_argument("--locomo-file", default=None,
                        help="LoCoMo JSON file (default: $MEMORYOS_LOCOMO or ../shared)")
    args = parser.parse_args(argv)
    locomo_file = None
    if args.locomo:  # a missing data file fails here, before minutes of measuring
        from .common import load_locomo, locomo_path

        locomo_file = str(args.locomo_file or locomo_path())
        load_locomo([locomo_file])
    result = run(args.repeats, args.threads, args.gen_tokens)
    if args.locomo and locomo_file:
        result["locomo_import"] = consolidation_run(args.locomo, locomo_file, args.threads)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:28} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
