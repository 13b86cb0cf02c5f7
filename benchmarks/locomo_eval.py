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
from pathlib import Path
from typing import Any

from memoryos_core.evaluation import harness
from memoryos_core.evaluation.conversation import STRATEGIES, Conversation
from memoryos_core.evaluation.conversation import import_conversation as _import
from memoryos_core.evaluation.data import CATEGORIES, Sample

from . import common, locomo_answer

__all__ = ["CATEGORIES", "STRATEGIES", "Conversation", "import_conversation", "main", "run"]


def import_conversation(path: Path, conv: dict[str, Any], mode: str, data: Path, emb: Any,
                        model: Any) -> tuple[Conversation, dict[str, Any]]:
    """A fresh engine per (conversation, mode), the conversation of `path` imported (the
    package's import, for the answer benchmark)."""
    sample = Sample(str(conv.get("sample_id") or path.stem), conv, path.read_bytes(),
                    qa=list(conv.get("qa") or []))
    return _import(sample, mode, data, emb, model)


def _records(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The package's records without their context lines and traces (the reasons stay):
    result files of whole data sets stay readable; `memoryos eval --out` keeps everything."""
    return [{k: v for k, v in r.items() if k not in ("context", "trace")} for r in recs]


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
        left = conversations
        for path in sorted({str(p) for p, _ in convs}, key=[str(p) for p, _ in convs].index):
            if left is not None and left <= 0:
                break
            # the package's harness on the product path, a throwaway memory per conversation
            body = harness.run(Path(path).read_bytes(), Path(path).stem, emb, budget=budget,
                               window=window, categories=categories, stride=question_stride,
                               limit=left, mode=mode, answerer=answerer, model=llm_model)
            imports += body["imports"]
            records += _records(body["records"])
            if left is not None:
                left -= len(body["imports"])
        summary = harness.aggregate(records)
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
