"""Evidence recall at equal tokens on the product path, vs. baselines measured in the same run.

Each conversation is imported into a throwaway memory of its own (a temporary folder, SQLite,
never the user's) through engine.import_dialogue(fmt="locomo") and consolidated in `extractive`
mode. For every question each strategy's context (see evaluation.conversation) is assembled and
the share of the question's evidence turns (dia_ids, mapped to exchanges through the import
report's refs) inside it is its recall; every evidence turn gets the reason it is in the context
or not. Nothing is tuned per question.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..llm import Embedder
from ..testing import ScriptedChatModel, schema_filler
from . import scoring
from .conversation import FLAT, STRATEGIES, Conversation, import_conversation
from .data import CATEGORIES, Sample, evidence_ids, parse

Progress = Callable[[int, int, str], None]
DEFAULT_BUDGET = 1200
DEFAULT_WINDOW = 7792
# progress: importing a turn takes about as long as a question's six contexts (conv-26: 52 s
# for 419 turns, 24 s for 199 questions), so the bar's ETA holds through the import
IMPORT_TURNS_PER_UNIT = 1


def instant_model() -> ScriptedChatModel:
    """An instant scripted chat model answering any structured call with valid JSON."""
    # extractive mode asks the model nothing: this only answers a call that would slip through
    return ScriptedChatModel(default=schema_filler, name="instant-scripted")


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    data = sorted(values)
    pos = (len(data) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def chosen_strategies(names: Sequence[str] | None) -> tuple[str, ...]:
    """The strategies to run, in the harness's order, the product always included."""
    # the equal-token baselines fill to the product's token count: it runs first, every time
    if not names:
        return STRATEGIES
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        raise InvalidInput(f"unknown strategy {', '.join(unknown)}; choose from"
                           f" {', '.join(STRATEGIES)}")
    return tuple(s for s in STRATEGIES if s == "memoryos" or s in names)


def evaluate(conv: Conversation, qas: list[dict[str, Any]], budget: int, window: int,
             answerer: Any = None, strategies: Sequence[str] = STRATEGIES,
             tick: Callable[[], None] | None = None,
             question_type: str | None = None) -> list[dict[str, Any]]:
    """One record per (question, strategy): recall, tokens, context lines, a reason per turn
    (and the sample's `question_type`, LongMemEval's)."""
    records = []
    for q_no, qa in enumerate(qas):
        wanted = evidence_ids(qa)
        mapped = sorted({conv.dia[d] for d in wanted if d in conv.dia})
        question = str(qa["question"])
        gold = [{"dia_id": d, "exchange": conv.dia.get(d), "text": conv.turn_text.get(d, "")}
                for d in wanted]
        qvec = conv.engine.ctx.embedder.embed([question])[0] \
            if any(s in FLAT for s in strategies) else None
        target = 0
        for strategy in strategies:  # memoryos first: its token count is the others' target
            got = conv.context(strategy, question, budget, window, target, mapped, qvec)
            if strategy == "memoryos":
                target = got.tokens
            product: dict[str, Any] = {}
            if strategy == "memoryos":  # its facts carry their source pages: a looser recall
                hit = got.ids | got.fact_sources
                product = {"parts": got.parts, "recall_with_facts": (
                    sum(1 for i in mapped if i in hit) / len(mapped) if mapped else None)}
            records.append({  # one record, built whole
                "sample_id": conv.user, "q": q_no, "category": int(qa.get("category", 0)),
                "strategy": strategy, "evidence": len(wanted), "mapped": len(mapped),
                "recall": (sum(1 for i in mapped if i in got.ids) / len(mapped)) if mapped
                else None, "tokens": got.tokens, "context_ms": round(got.seconds * 1000, 2),
                **product,
                **(answerer.answer(qa, got.text) if answerer is not None else {}),
                "question": question,
                "answer": str(qa.get("answer", "")) if qa.get("answer") is not None else None,
                "gold": [dict(g, **_verdict(g, got.why, conv)) for g in gold],
                "context": got.lines,
                **({"trace": got.trace} if got.trace is not None else {}),
                **({"question_type": question_type} if question_type is not None else {})})
        if tick is not None:
            tick()
    return records


def _verdict(gold: dict[str, Any], why: dict[int, dict[str, Any]], conv: Conversation,
             ) -> dict[str, Any]:
    """The reason for one gold turn; a turn that is no exchange says why it was not imported."""
    ex = gold["exchange"]
    if ex is not None:
        return why[ex]
    dia = gold["dia_id"]
    where = conv.turn_where.get(dia)
    if where is None:  # the data set's mistake, not the importer's
        text = (f"not in the file: the evidence id {dia} names no turn in it (no session"
                " holds a turn with this dia_id)")
    elif where in conv.skipped:
        text = f"not imported: the importer skipped {where} ({conv.skipped[where]})"
    else:
        text = f"not imported: {where} was read but no imported exchange carries its id"
    return {"code": "not_imported", "in_context": False, "ranks": {}, "reason": text}


def aggregate(records: list[dict[str, Any]],
              strategies: Sequence[str] = STRATEGIES) -> dict[str, Any]:
    """Per strategy: overall / per-category recall, median tokens, answer scores."""
    out: dict[str, Any] = {}
    for strategy in strategies:
        recs = [r for r in records if r["strategy"] == strategy]
        scored = [r for r in recs if r["recall"] is not None]
        entry: dict[str, Any] = {
            "questions": len(recs), "with_evidence": len(scored),
            "recall": round(statistics.fmean(r["recall"] for r in scored), 4) if scored else None,
            "median_tokens": statistics.median(r["tokens"] for r in recs) if recs else None,
            "context_p50_ms": round(percentile([r["context_ms"] for r in recs], 50), 2),
            "recall_with_fact_sources": round(statistics.fmean(
                r["recall_with_facts"] for r in scored), 4) if scored and
            "recall_with_facts" in scored[0] else None,
            "median_part_tokens": {name: statistics.median(r["parts"].get(name, 0) for r in recs)
                                   for name in sorted({n for r in recs for n in r.get("parts",
                                                                                    {})})},
            "by_category": {}}
        for cat, name in CATEGORIES.items():
            sub = [r for r in scored if r["category"] == cat]
            if sub:
                entry["by_category"][name] = round(statistics.fmean(r["recall"] for r in sub), 4)
        if recs and "f1" in recs[0]:
            entry.update(scoring.answer_summary(recs, CATEGORIES, percentile))
        out[strategy] = entry
    return out


def _questions(fmt: str, samples: list[Sample], categories: Sequence[int] | None,
               stride: int, limit: int | None) -> list[tuple[Sample, list[dict[str, Any]]]]:
    """(sample, its questions) to run, per format (see `run` for the defaults)."""
    # LoCoMo: every stride-th question of the first `limit` conversations, categories 1-4 by
    # default; LongMemEval: every stride-th question (a sample each) up to `limit`, all
    if fmt == "longmemeval":
        picked = samples[::stride][: limit or None]
        return [(s, [qa for qa in s.qa if categories is None
                     or int(qa.get("category", 0)) in categories]) for s in picked]
    cats = (1, 2, 3, 4) if categories is None else tuple(categories)
    return [(s, [qa for qa in s.qa if int(qa.get("category", 0)) in cats][::stride])
            for s in samples[: limit or None]]


def prepare(data: bytes, name: str, budget: int = DEFAULT_BUDGET,
            window: int = DEFAULT_WINDOW, strategies: Sequence[str] | None = None,
            categories: Sequence[int] | None = None, stride: int = 1, limit: int | None = None,
            ) -> tuple[str, tuple[str, ...], list[tuple[Sample, list[dict[str, Any]]]]]:
    """Check a run before it starts, writing nothing: (format, strategies, work) or InvalidInput."""
    # a host calls this before it queues anything, so a bad file makes no half-made run
    if not 10 <= budget <= 100_000 or not 10 <= window <= 1_000_000:
        raise InvalidInput("the token budget must be 10 to 100000 tokens, the window 10 to"
                           " 1000000")
    fmt, samples = parse(data, name)
    names = chosen_strategies(strategies)
    work = _questions(fmt, samples, categories, max(1, stride), limit)
    if not any(qas for _, qas in work):
        raise InvalidInput(f"{name}: no question in the chosen categories")
    return fmt, names, work


def run(data: bytes, name: str, emb: Embedder, *, budget: int = DEFAULT_BUDGET,
        window: int = DEFAULT_WINDOW, strategies: Sequence[str] | None = None,
        categories: Sequence[int] | None = None, stride: int = 1, limit: int | None = None,
        mode: str = "extractive", answerer: Any = None, model: Any = None,
        progress: Progress | None = None) -> dict[str, Any]:
    """Evaluate a LoCoMo or LongMemEval file's bytes: settings, summary, comparison, records."""
    # `progress(done, total, phase)` may raise to stop the run: its temporary memory goes too
    fmt, names, work = prepare(data, name, budget, window, strategies, categories, stride,
                               limit)
    units = [max(1, _turns(s) // IMPORT_TURNS_PER_UNIT) for s, _ in work]
    bar = _Bar(progress, sum(units) + sum(len(q) for _, q in work))
    started = time.perf_counter()
    timings = {"import_s": 0.0, "questions_s": 0.0}
    records: list[dict[str, Any]] = []
    imports: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memoryos-eval-") as tmp:
        for n, ((sample, qas), weight) in enumerate(zip(work, units, strict=True)):
            t0 = time.perf_counter()
            # extractive mode asks no model; llm mode the given one (None: the embedded model)
            chat = instant_model() if mode == "extractive" else model
            conv, info = import_conversation(sample, mode, Path(tmp) / f"d{n}", emb, chat,
                                             bar.stage(weight, f"importing {sample.sample_id}"))
            timings["import_s"] += time.perf_counter() - t0
            imports.append(info)
            try:
                t0 = time.perf_counter()
                recs = evaluate(conv, qas, budget, window, answerer, names,
                                bar.ticker(f"questions of {sample.sample_id}"),
                                sample.question_type)
                timings["questions_s"] += time.perf_counter() - t0
            finally:
                conv.engine.store.close()
            records += recs
    timings = {k: round(v, 2) for k, v in timings.items()}
    timings["total_s"] = round(time.perf_counter() - started, 2)
    summary = aggregate(records, names)
    return {"format": fmt, "name": name,
            "settings": {"token_budget": budget, "full_window": window, "strategies": list(names),
                         "categories": None if categories is None else list(categories),
                         "stride": stride, "limit": limit, "mode": mode,
                         "embedder": emb.name, "context_includes_short_term": True},
            "warnings": [w for s, _ in work for w in s.warnings], "imports": imports,
            "summary": summary, "comparison": compare_strategies(records, summary),
            "by_type": by_type(records, names) if fmt == "longmemeval" else {},
            "timings": timings, "records": records}


class _Bar:
    """The run's progress in units: an import weighs its turns, a question one unit."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.report = progress or (lambda *_: None)
        self.total, self.done = total, 0
        self.report(0, total, "starting")

    def stage(self, weight: int, phase: str) -> Progress:
        """A progress callback for the next `weight` units (the engine's import reports 0-100)."""
        base = self.done
        self.done += weight

        def step(done: int, total: int, what: str) -> None:
            self.report(base + (weight * done // total if total else 0), self.total,
                        f"{phase}: {what}")
        return step

    def ticker(self, phase: str) -> Callable[[], None]:
        """A callback counting one unit per question."""
        def tick() -> None:
            self.done += 1
            self.report(self.done, self.total, phase)
        return tick


def _turns(sample: Sample) -> int:
    conv = sample.doc.get("conversation") or {}
    return sum(len(v) for k, v in conv.items() if k.startswith("session_") and isinstance(v, list))


def by_type(records: list[dict[str, Any]],
            strategies: Sequence[str] = STRATEGIES) -> dict[str, dict[str, float]]:
    """Recall per question type and strategy (LongMemEval)."""
    out: dict[str, dict[str, float]] = {}
    for qtype in sorted({r["question_type"] for r in records}):
        for strategy in strategies:
            scored = [r["recall"] for r in records if r["question_type"] == qtype
                      and r["strategy"] == strategy and r["recall"] is not None]
            if scored:
                out.setdefault(qtype, {})[strategy] = round(statistics.fmean(scored), 4)
    return out


BASELINE_ORDER = ("flat-hybrid", "flat-hybrid-filtered", "flat")  # on a tie, the first


def best_baseline(summary: dict[str, Any]) -> str | None:
    """The equal-token baseline with the highest recall (else recent, else full)."""
    flat = [s for s in BASELINE_ORDER if s in summary and summary[s]["recall"] is not None]
    if flat:
        return max(flat, key=lambda s: (summary[s]["recall"], -BASELINE_ORDER.index(s)))
    return next((s for s in ("recent", "full") if s in summary), None)


def compare_strategies(records: list[dict[str, Any]], summary: dict[str, Any]) -> dict[str, Any]:
    """The product against its best baseline: recall ratio, questions, and where they differ."""
    best = best_baseline(summary)
    prod = summary["memoryos"]["recall"] or 0
    base = summary[best]["recall"] or 0 if best else 0
    pairs: dict[tuple[str, int], dict[str, Any]] = {}
    for r in records:
        if r["strategy"] in ("memoryos", best) and r["recall"] is not None:
            pairs.setdefault((r["sample_id"], r["q"]), {})[r["strategy"]] = r["recall"]
    differ = [{"sample_id": k[0], "q": k[1], "memoryos": v["memoryos"], "baseline": v[best]}
              for k, v in pairs.items() if best and best in v and v["memoryos"] != v[best]]
    differ.sort(key=lambda d: (-abs(d["memoryos"] - d["baseline"]), d["sample_id"], d["q"]))
    return {"best_baseline": best, "product_recall": prod, "baseline_recall": base,
            "ratio": round(prod / base, 3) if base else None,
            "questions": len(pairs), "disagreements": differ,
            "product_better": sum(1 for d in differ if d["memoryos"] > d["baseline"]),
            "baseline_better": sum(1 for d in differ if d["memoryos"] < d["baseline"])}
