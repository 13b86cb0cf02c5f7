"""Per-turn engine overhead of engine.chat with an instant scripted model (llm maintenance on).

Every turn runs the product path: retrieval, prompt assembly, the (instant) answer call,
admission, consolidation and analysis bookkeeping. The model replies instantly (valid JSON for
structured calls), so what is timed is the engine itself plus the embedder. Baseline in the same
run, turn by turn: the two embedding calls a turn cannot avoid (the query and the new page).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from . import common, synthetic

USER = "overhead-user"


class TimedEmbedder:
    """Wraps the embedder and adds up the time spent in it."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim, self.spent = inner, inner.name, inner.dim, 0.0

    def embed(self, texts: list[str]) -> Any:
        t0 = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.spent += time.perf_counter() - t0


def run(turns: int = 200, emb: Any = None, out: Path | None = None,
        write: bool = True) -> dict[str, Any]:
    """Chat `turns` turns; time each, its embedder share and a bare two-embedding baseline."""
    inner = emb or common.embedder()
    timed = TimedEmbedder(inner)
    msgs = synthetic.messages(turns)
    answers = iter(synthetic.messages(turns, seed=12) * 2)
    model = common.instant_model(lambda: next(answers))
    settings = {"consolidation": "llm", "analysis": "llm"}
    total, engine_only, embed_s, baseline = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
        engine = common.make_engine(Path(tmp) / "data", model=model, emb=timed, **settings)
        engine.chat(USER, "warm up message", model=model)
        for text in msgs:
            timed.spent = 0.0
            t0 = time.perf_counter()
            reply = engine.chat(USER, text, model=model)
            dt = time.perf_counter() - t0
            total.append(dt)
            embed_s.append(timed.spent)
            engine_only.append(dt - timed.spent)
            t0 = time.perf_counter()
            inner.embed([text])
            inner.embed([f"User: {text}\nAssistant: {reply['answer']}"])
            baseline.append(time.perf_counter() - t0)
        usage = engine.usage(USER)
        state = engine.state(USER)
        engine.store.close()
    tot, base = common.summary_ms(total), common.summary_ms(baseline)
    counts = common.memory_counts(state)
    result = common.envelope("overhead", {"turns": turns, "engine": settings},
                             {"chat": model.name, "embedder": inner.name})
    result.update({
        "turns": turns, "p50_ms": tot["p50_ms"], "p95_ms": tot["p95_ms"],
        "mean_ms": tot["mean_ms"], "max_ms": tot["max_ms"],
        "engine_only_p50_ms": common.summary_ms(engine_only)["p50_ms"],
        "engine_only_p95_ms": common.summary_ms(engine_only)["p95_ms"],
        "embedder_p50_ms": common.summary_ms(embed_s)["p50_ms"],
        "baseline_two_embeddings_p50_ms": base["p50_ms"],
        "baseline_two_embeddings_p95_ms": base["p95_ms"],
        "ratio_p50": common.ratio(tot["p50_ms"], base["p50_ms"]),
        "ratio_p95": common.ratio(tot["p95_ms"], base["p95_ms"]),
        "model_calls": {k: v["calls"] for k, v in usage.items()},
        "state_counts": counts,
    })
    if write:
        md = common.markdown_table([{k: result[k] for k in (
            "turns", "p50_ms", "p95_ms", "engine_only_p50_ms", "engine_only_p95_ms",
            "embedder_p50_ms", "baseline_two_embeddings_p50_ms", "ratio_p50", "ratio_p95")}])
        md += ("\nPer `engine.chat` turn with an instant scripted model, `llm` consolidation and"
               " analysis. engine_only = turn time minus time inside the embedder. Baseline: two"
               " bare embedding calls (query + new page) timed right after each turn; ratio ="
               " turn / baseline.\n\nModel calls: `" + str(result["model_calls"]) + "`\n")
        result["files"] = common.write_report("overhead", result, md, out)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=None)
    args = parser.parse_args(argv)
    result = run(args.turns or (40 if args.quick else 200), out=args.out)
    common.emit(result, args.json,
                f"{result['turns']} turns: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms"
                f" (engine only p50 {result['engine_only_p50_ms']} ms); baseline two embeddings"
                f" p50 {result['baseline_two_embeddings_p50_ms']} ms -> x{result['ratio_p50']};"
                f" calls {result['model_calls']}")
    return result


if __name__ == "__main__":
    main()
