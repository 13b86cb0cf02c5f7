"""Speed of the embedded chat model per llama.cpp runtime: load, first token, prompt and generation.

    python -m benchmarks.local_model --json                  # every installed runtime
    python -m benchmarks.local_model --runtimes cffi --json

Prints one JSON object. Every installed runtime (llama-cpp-cffi, llama-cpp-python) loads the
same GGUF with the same threads and answers the same prompts, the repeats interleaved so that a
busy moment of the machine hits both alike; medians are reported, and the ratios of the first
runtime to the second. Generation speed is measured on plain replies and on grammar-constrained
JSON replies (maintenance calls use the latter). The machine's load average is reported too:
llama.cpp threads spin, so a busy machine slows it a lot.
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
SCHEMA = {"type": "object", "properties": {
    "topic": {"type": "string"}, "notes": {"type": "array", "items": {"type": "string"}}},
    "required": ["topic", "notes"]}


def _rss_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(repeats: int = 3, threads: int | None = None, gen_tokens: int = 64,
        kinds: list[str] | None = None) -> dict[str, Any]:
    """Measure each runtime side by side; returns the result object."""
    from memoryos_core.llm import runtime
    from memoryos_core.llm.local import LocalChatModel, model_path

    kinds = kinds or [k for k in runtime.RUNTIMES if runtime.installed(k)]
    models, out = {}, {}
    for kind in kinds:
        rss_before = _rss_mb()
        models[kind] = LocalChatModel(n_threads=threads, runtime=kind)
        load_s = models[kind].warm_up()
        out[kind] = {"runtime": models[kind].runtime_name, "load_s": round(load_s, 3),
                     "rss_added_by_load_mb": round(_rss_mb() - rss_before, 1)}
    samples: dict[str, dict[str, list[float]]] = {k: {} for k in kinds}

    def record(kind: str, name: str, value: float) -> None:
        samples[kind].setdefault(name, []).append(value)

    for i in range(repeats):
        for kind, model in models.items():
            # the number first: no runtime may reuse the previous repeat's cached prefix
            model.complete([{"role": "user", "content": f"{i}. {PROMPT} Summarise."}],
                           max_tokens=1, temperature=0.7)
            stats = model.last_stats
            assert stats is not None and stats.first_token_s
            record(kind, "prompt_tokens", stats.prompt_tokens)
            record(kind, "prompt_tokens_per_s", stats.prompt_tokens / stats.first_token_s)
            for name, question, schema in (
                    ("generation", f"Write a short story about a violin, number {i}.", None),
                    ("json_generation", f"Describe violin lesson {i} as JSON.", SCHEMA)):
                model.complete([{"role": "user", "content": question}], max_tokens=gen_tokens,
                               temperature=0.7, json_schema=schema)
                stats = model.last_stats
                assert stats is not None and stats.first_token_s is not None
                record(kind, f"{name}_tokens_per_s", stats.tokens_per_s)
                record(kind, f"{name}_first_token_s", stats.first_token_s)
                record(kind, f"{name}_tokens", stats.completion_tokens)
    for kind in kinds:
        for name, values in samples[kind].items():
            digits = 1 if name.endswith(("per_s", "tokens")) else 3
            out[kind][name] = round(statistics.median(values), digits)
    result: dict[str, Any] = {
        "benchmark": "local_model", "model": next(iter(models.values())).name,
        "model_file": str(model_path()),
        "n_threads": next(iter(models.values())).n_threads, "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2), "repeats": repeats,
        "gen_tokens": gen_tokens, "runtimes": out, "peak_rss_mb": round(_rss_mb(), 1)}
    if len(kinds) >= 2:
        a, b = out[kinds[0]], out[kinds[1]]
        result["ratios"] = {"of": f"{kinds[0]} / {kinds[1]}", **{
            name: round(a[name] / b[name], 2) for name in (
                "prompt_tokens_per_s", "generation_tokens_per_s",
                "json_generation_tokens_per_s", "generation_first_token_s", "load_s")
            if b.get(name)}}
    return result


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
    parser.add_argument("--threads", type=int, default=None,
                        help="default: the product's (MEMORYOS_LLM_THREADS, else half the cores)")
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--runtimes", default=None,
                        help="comma-separated: cffi,llamacpp (default: every installed one)")
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
    kinds = args.runtimes.split(",") if args.runtimes else None
    result = run(args.repeats, args.threads, args.gen_tokens, kinds)
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
