"""Memory quality on LoCoMo: evidence recall of the assembled context, vs. baselines, same run.

Each conversation is imported through engine.import_dialogue(fmt="locomo", select=sample_id)
(session timestamps kept), consolidated in `extractive` mode (and `llm` with --llm). For every
question the context a prompt would get is assembled and the share of the question's evidence
turns (dia_ids, mapped to exchanges through the import report's refs) inside it is reported:
- memoryos: engine.retrieve(strategy="memoryos") selected pages + short-term memory;
- flat-hybrid: the strongest simple baseline, dense (MiniLM) + keyword search (the store's
  stemmed index: pages with more of the words first, then BM25) by reciprocal-rank
  fusion over all mid-term pages, nothing else, filled to the product's token count for the same
  question (equal tokens, question by question) + short-term memory;
- flat-hybrid-filtered: the same with the product's keyword pre-filter (words found in many
  exchanges are not searched), so the product's ranking gains are shown apart from it;
- flat: dense only, likewise at equal tokens;
- recent: short-term memory alone (the last short_term_capacity exchanges);
- full: as many exchanges as fit --window tokens, most recent first.
Nothing is tuned per question. --answer adds an answering model and the official LoCoMo F1.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from . import common, flat_baselines, locomo_answer

STRATEGIES = ("memoryos", "flat-hybrid", "flat-hybrid-filtered", "flat", "recent", "full")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DIA = re.compile(r"D\d+:\d+")


def evidence_ids(qa: dict[str, Any]) -> list[str]:
    """The dia_ids of a question's evidence (some entries hold several, e.g. 'D8:6; D9:17')."""
    out: list[str] = []
    for item in qa.get("evidence") or []:
        out += [d for d in DIA.findall(str(item)) if d not in out]
    return out


def line(row: dict[str, Any]) -> str:
    """One exchange as the product's page lines read (time, user, assistant)."""
    from memoryos_core.memory.prompts import when

    return f"[{when(row['ts'])}] User: {row['user_text']} | Assistant: {row['assistant_text']}"


class Conversation:
    """One imported conversation: its exchanges, short-term ids and dia_id -> exchange map."""

    def __init__(self, engine: Any, user: str, report: dict[str, Any]) -> None:
        from memoryos_core.answer.recent import fit_recent, recent_budget, recent_tokens
        from memoryos_core.text import count_tokens

        self.engine, self.user, self.report = engine, user, report
        self.rows = engine.store.query(
            "SELECT id, user_text, assistant_text, ts, tier FROM exchanges WHERE user_id = ?"
            " ORDER BY ts, id", (user,))
        self.by_id = {r["id"]: r for r in self.rows}
        self.tokens = {r["id"]: count_tokens(line(r)) for r in self.rows}
        # the recent exchanges as the product's prompt shows them (long sides shortened); a
        # shortened exchange no longer counts as evidence in context: its text may be cut away
        fitted = fit_recent([r for r in self.rows if r["tier"] == "short"],
                            recent_budget(engine.config))
        self.short = [r["id"] for r in fitted if not r["shortened"]]
        self.short_all = [r["id"] for r in fitted]  # every short-term row: never a page
        self.short_text = "\n".join(line(r) for r in fitted)
        self.short_tokens = recent_tokens(fitted)
        self.now: float | None = None  # when the questions are asked (None: the current time)
        self.last_parts: dict[str, int] = {}
        self.fact_sources: set[int] = set()
        self.dia: dict[str, int] = {}
        for ex_id, refs in report["refs"].items():
            for ref in str(refs).split(","):
                self.dia[ref.strip()] = int(ex_id)

    def context(self, strategy: str, question: str, budget: int, window: int,
                target: int = 0) -> tuple[set[int], int, str, float]:
        """(exchange ids in context, context tokens, context text, seconds) for a strategy.

        `target` is the product's token count for this question: the flat baselines fill to it.
        """
        t0 = time.perf_counter()
        short_text = self.short_text
        if strategy == "memoryos":
            trace = self.engine.retrieve(self.user, question, record=False, strategy=strategy,
                                         token_budget=budget, now=self.now)
            ids = {p["id"] for p in trace["pages"] if p["selected"]}
            tokens = sum(p["tokens"] for p in trace["prompt_parts"]) + self.short_tokens
            text = trace["memory_block"] + "\n## Recent conversation\n" + short_text
            self.last_parts = {p["name"]: p["tokens"] for p in trace["prompt_parts"]}
            # facts carry their source pages: a looser hit, reported apart
            self.fact_sources = {s for kind in ("user", "assistant") for f in trace["facts"][kind]
                                 if f"- {f['text']}" in trace["memory_block"]
                                 for s in f["sources"]}
            return ids | set(self.short), tokens, text, time.perf_counter() - t0
        if strategy in ("flat", "flat-hybrid", "flat-hybrid-filtered"):
            mid = {i: r for i, r in self.by_id.items() if r["tier"] == "mid"}
            ids, tokens, text = flat_baselines.context(
                strategy, self.engine, self.user, question, mid, self.short_all,
                self.short_tokens, target)
            ids = (ids - set(self.short_all)) | set(self.short)
            text += "\n## Recent conversation\n" + short_text
            return ids, tokens, text, time.perf_counter() - t0
        if strategy == "recent":
            return set(self.short), self.short_tokens, short_text, time.perf_counter() - t0
        ids, used = [], 0
        for row in reversed(self.rows):  # full context: most recent first, until the window
            need = self.tokens[row["id"]]
            if used + need > window:
                break
            ids.append(row["id"])
            used += need
        text = "\n".join(line(self.by_id[i]) for i in reversed(ids))
        return set(ids), used, text, time.perf_counter() - t0


def import_conversation(path: Path, conv: dict[str, Any], mode: str, data: Path, emb: Any,
                        model: Any) -> tuple[Conversation, dict[str, Any]]:
    """A fresh engine per (conversation, mode); the conversation imported and consolidated."""
    user = str(conv.get("sample_id") or path.stem)
    engine = common.make_engine(data, model=model, emb=emb, consolidation=mode, analysis=mode)
    with common.Timer() as t:
        report = engine.import_dialogue(user, path.read_bytes(), fmt="locomo",
                                        select=conv.get("sample_id"))
    usage = engine.usage(user)
    info = {"sample_id": user, "mode": mode, "imported": report["imported"],
            "skipped": len(report["skipped"]), "import_s": round(t.s, 2),
            "model_calls": {k: v["calls"] for k, v in usage.items()},
            "memory": common.memory_counts(engine.state(user))}
    return Conversation(engine, user, report), info


def evaluate(conv: Conversation, qas: list[dict[str, Any]], budget: int, window: int,
             answerer: Any = None) -> list[dict[str, Any]]:
    """One record per (question, strategy): recall, tokens, and answer scores when asked."""
    records = []
    for q_no, qa in enumerate(qas):
        wanted = evidence_ids(qa)
        mapped = sorted({conv.dia[d] for d in wanted if d in conv.dia})
        target = 0
        for strategy in STRATEGIES:  # memoryos first: its token count is the others' target
            ids, tokens, text, secs = conv.context(strategy, str(qa["question"]), budget, window,
                                                   target)
            if strategy == "memoryos":
                target = tokens
            rec = {"sample_id": conv.user, "q": q_no, "category": int(qa.get("category", 0)),
                   "strategy": strategy, "evidence": len(wanted), "mapped": len(mapped),
                   "recall": (sum(1 for i in mapped if i in ids) / len(mapped)) if mapped
                   else None, "tokens": tokens, "context_ms": round(secs * 1000, 2)}
            if strategy == "memoryos":
                rec["parts"] = conv.last_parts
                hit = ids | conv.fact_sources
                rec["recall_with_facts"] = (sum(1 for i in mapped if i in hit) / len(mapped)
                                            if mapped else None)
            if answerer is not None:
                rec.update(answerer.answer(qa, text))
            records.append(rec)
    return records


def aggregate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per strategy: overall / per-category recall, median tokens, answer scores."""
    out: dict[str, Any] = {}
    for strategy in STRATEGIES:
        recs = [r for r in records if r["strategy"] == strategy]
        scored = [r for r in recs if r["recall"] is not None]
        entry: dict[str, Any] = {
            "questions": len(recs), "with_evidence": len(scored),
            "recall": round(statistics.fmean(r["recall"] for r in scored), 4) if scored else None,
            "median_tokens": statistics.median(r["tokens"] for r in recs) if recs else None,
            "context_p50_ms": round(common.percentile([r["context_ms"] for r in recs], 50), 2),
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
            entry.update(locomo_answer.aggregate(recs, CATEGORIES))
        out[strategy] = entry
    return out


def plot(summary: dict[str, Any], name: str, out: Path | None) -> str | None:
    """Grouped bars: evidence recall by category for each strategy."""
    plt = common.pyplot()
    if plt is None:
        return None
    cats = [c for c in CATEGORIES.values() if any(c in summary[s]["by_category"]
                                                   for s in STRATEGIES)] + ["overall"]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(STRATEGIES)
    for k, strategy in enumerate(STRATEGIES):
        vals = [summary[strategy]["by_category"].get(c, 0) for c in cats[:-1]]
        vals.append(summary[strategy]["recall"] or 0)
        ax.bar([i + k * width for i in range(len(cats))], vals, width,
               label=f"{strategy} ({summary[strategy]['median_tokens']:.0f} tok)")
    ax.set_xticks([i + width * (len(STRATEGIES) - 1) / 2 for i in range(len(cats))], cats)
    ax.set_ylim(0, 1)
    ax.set_ylabel("evidence recall")
    ax.set_title(f"LoCoMo evidence recall by category ({name})")
    ax.legend(fontsize=8)
    path = common.plot_path(f"locomo_recall_{name}", out)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def run(paths: list[str] | None = None, modes: tuple[str, ...] = ("extractive",),
        conversations: int | None = None, question_stride: int = 1, budget: int = 1200,
        window: int = 7792, answer_args: dict[str, Any] | None = None, emb: Any = None,
        out: Path | None = None, write: bool = True,
        categories: tuple[int, ...] = (1, 2, 3, 4)) -> dict[str, Any]:
    emb = emb or common.embedder()
    convs = common.load_locomo(paths)[: conversations or None]
    answerer = locomo_answer.Answerer(**answer_args) if answer_args else None
    llm_model = answerer.model if answerer and answer_args.get("base_url") else None
    result = common.envelope(
        "locomo_eval",
        {"files": sorted({str(p) for p, _ in convs}), "modes": list(modes),
         "conversations": [c.get("sample_id") for _, c in convs],
         "question_stride": question_stride, "categories": list(categories),
         "token_budget": budget, "full_window": window,
         "strategies": list(STRATEGIES), "context_includes_short_term": True},
        {"embedder": emb.name, "answer": answerer.model.name if answerer else None,
         "consolidation_llm": "embedded local model" if "llm" in modes and not llm_model
         else (llm_model.name if llm_model else None)})
    result["modes"] = {}
    for mode in modes:
        records, imports = [], []
        with tempfile.TemporaryDirectory(prefix="memoryos-bench-") as tmp:
            for n, (path, conv) in enumerate(convs):
                model = common.instant_model() if mode == "extractive" else llm_model
                c, info = import_conversation(path, conv, mode, Path(tmp) / f"d{n}", emb, model)
                imports.append(info)
                qas = [qa for qa in conv.get("qa", [])
                       if int(qa.get("category", 0)) in categories][::question_stride]
                records += evaluate(c, qas, budget, window, answerer)
                c.engine.store.close()
        summary = aggregate(records)
        prod, flat = summary["memoryos"]["recall"], summary["flat"]["recall"]
        hybrid = summary["flat-hybrid"]["recall"]
        filtered = summary["flat-hybrid-filtered"]["recall"]
        result["modes"][mode] = {
            "imports": imports, "summary": summary,
            "recall_vs_flat_hybrid": common.ratio(prod or 0, hybrid or 0),
            "recall_vs_flat_hybrid_filtered": common.ratio(prod or 0, filtered or 0),
            "recall_vs_flat": common.ratio(prod or 0, flat or 0),
            "product_beats_flat_hybrid": (prod or 0) > (hybrid or 0),
            "product_beats_flat": (prod or 0) > (flat or 0),
            "plot": plot(summary, mode, out) if write else None}
        result.setdefault("records", {})[mode] = records if len(records) < 50000 else []
    if write:
        result["files"] = common.write_report("locomo_eval", result, markdown(result), out)
    return result


def markdown(result: dict[str, Any]) -> str:
    parts = []
    for mode, body in result["modes"].items():
        rows = []
        for strategy, s in body["summary"].items():
            row = {"strategy": strategy, "recall": s["recall"],
                   "recall_with_fact_sources": s["recall_with_fact_sources"],
                   "median_tokens": s["median_tokens"],
                   **s["by_category"], "context_p50_ms": s["context_p50_ms"]}
            for key in ("f1", "bleu1", "answer_p50_ms"):
                if key in s:
                    row[key] = s[key]
            rows.append(row)
        parts.append(f"## Consolidation: {mode}\n\nImports: `{json.dumps(body['imports'])}`\n\n"
                     + common.markdown_table(rows) +
                     f"\nProduct recall / flat-hybrid recall = {body['recall_vs_flat_hybrid']},"
                     f" product / flat (dense only) = {body['recall_vs_flat']}, at equal tokens"
                     " question by question.\n\n"
                     "Median tokens per part of the memory block: `" + json.dumps(
                         {k: v["median_part_tokens"] for k, v in body["summary"].items()
                          if v["median_part_tokens"]}) + "`\n")
        if body.get("plot"):
            parts.append(f"\n![recall by category]({Path(body['plot']).name})\n")
    parts.append("\nContext = selected pages (and facts, profile, overview when they score) +"
                 " short-term memory for memoryos (budget "
                 f"{result['settings']['token_budget']} tokens for the memory block); flat-hybrid"
                 " and flat fill pages to the product's token count of the same question; short-term "
                 f"only for recent, up to {result['settings']['full_window']} tokens most recent"
                 " first for full. Recall = share of a question's evidence turns whose exchange"
                 " is in the context, averaged over questions with mapped evidence.\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="LoCoMo-format files (default: dev subset)")
    parser.add_argument("--llm", action="store_true", help="also llm consolidation (slow)")
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--stride", type=int, default=None, help="every Nth question")
    parser.add_argument("--budget", type=int, default=1200, help="memory token budget")
    parser.add_argument("--window", type=int, default=7792, help="full-context window tokens")
    parser.add_argument("--categories", default="1,2,3,4",
                        help="question categories (1 multi-hop, 2 temporal, 3 open-domain,"
                        " 4 single-hop, 5 adversarial)")
    locomo_answer.add_arguments(parser)
    args = parser.parse_args(argv)
    modes = ("extractive", "llm") if args.llm else ("extractive",)
    result = run(args.files or None, modes, args.conversations or (1 if args.quick else None),
                 args.stride or (5 if args.quick else 1), args.budget, args.window,
                 locomo_answer.answer_args(args), out=args.out,
                 categories=tuple(int(c) for c in args.categories.split(",") if c.strip()))
    lines = []
    for mode, body in result["modes"].items():
        for strategy, s in body["summary"].items():
            extra = f", F1 {s['f1']}" if "f1" in s else ""
            lines.append(f"[{mode}] {strategy:9s} recall {s['recall']} at median"
                         f" {s['median_tokens']} tokens{extra} {s['by_category']}")
        lines.append(f"[{mode}] product/flat-hybrid recall = {body['recall_vs_flat_hybrid']},"
                     f" product/flat = {body['recall_vs_flat']} (equal tokens)")
    common.emit(result, args.json, "\n".join(lines))
    return result


if __name__ == "__main__":
    main()
