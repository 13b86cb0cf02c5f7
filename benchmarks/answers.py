"""Answers, not only recall: what the chat model says given the product's prompt, vs. baselines.

For a stride of questions of each conversation (LoCoMo files; LongMemEval files are converted
to that layout), the chat model (embedded by default, an endpoint with --base-url/--model)
answers three times through the product's own answer path (layout for the model, the guard
against repeats), the prompts differing only in their memory:
- memoryos: the product's prompt (engine.prompt), exactly as a chat turn would send it;
- flat-hybrid: the same prompt with flat-hybrid memory (dense + keyword search, RRF) filled to
  the product's memory tokens;
- none: the same prompt with no memory.
Scored with the official LoCoMo token F1 and "the answer contains the gold answer"; plus the
share of answers that repeat an earlier answer (80% or more of the same words). First, a
first-impression check: a made-up chat with personal facts among small talk (the facts in
mid-term memory), then questions about them through engine.chat, as a new user would.
Nothing is tuned per question.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import common, flat_baselines, locomo_eval, locomo_scoring
from .first_impression import (  # noqa: F401 - the check's parts, as answers.* for callers
    FACT_SETS,
    FACTS,
    OTHER_FACTS,
    echoes_prompt,
    first_impression,
    impression_chat,
    repeats_earlier,
)

if TYPE_CHECKING:
    from memoryos_core.answer.types import Retrieval

STRATEGIES = ("memoryos", "flat-hybrid", "none")

def contains_gold(prediction: str, gold: str) -> bool:
    """The normalised gold answer appears in the normalised prediction."""
    g = locomo_scoring.normalize_answer(gold)
    return bool(g) and g in locomo_scoring.normalize_answer(prediction)


def flat_trace(conv: locomo_eval.Conversation, trace: Retrieval, question: str,
               tokens: int) -> Retrieval:
    """The product's retrieval with its memory replaced by flat-hybrid pages of `tokens`
    tokens."""
    from memoryos_core.answer import memory_block

    qvec = conv.engine.ctx.embedder.embed([question])[0]
    mid = {i: r for i, r in conv.by_id.items() if r["tier"] == "mid"}
    keyword = flat_baselines.bm25_ranking(conv.engine, conv.user, question)
    dense = flat_baselines.dense_ranking(conv.engine, conv.user, qvec, set(conv.short_all))
    ranked = flat_baselines.rrf(dense, keyword)
    rows = [mid[p] for p in ranked if p in mid]
    keyword_rank = {pid: n for n, pid in enumerate(keyword, start=1)}  # as the product marks
    vector_rank = {pid: n for n, pid in enumerate(dense, start=1)}
    taken, lines = memory_block.fill_pages(rows, tokens, len(rows))
    block = "\n".join(lines)
    return dataclasses.replace(
        trace, facts={"user": [], "assistant": []},
        pages=[{"id": rows[i]["id"], "selected": True, "user": rows[i]["user_text"],
                "assistant": rows[i]["assistant_text"], "timestamp": rows[i]["ts"],
                "segment_id": None, "keyword_rank": keyword_rank.get(rows[i]["id"]),
                "vector_rank": vector_rank.get(rows[i]["id"])}
               for i in taken],
        memory_block=block,
        prompt_parts=[{"name": "pages", "tokens": memory_block.count_tokens(block),
                       "items": len(taken)}] if taken else [])


def empty_trace(trace: Retrieval) -> Retrieval:
    """The product's retrieval with no memory at all."""
    return dataclasses.replace(trace, facts={"user": [], "assistant": []}, pages=[],
                               memory_block="", prompt_parts=[])


def abstains(text: str, source: str) -> bool:
    """The answer says memory has nothing (or gives our plain reply), not an answer."""
    from memoryos_core.answer.grounded import DONT_REMEMBER

    return source in ("no memory", "plain") or DONT_REMEMBER.lower() in text.lower()


def memory_text(trace: dict[str, Any], messages: list[dict[str, str]]) -> str:
    """What the prompt's memory held (the block, or the compact lines)."""
    return trace.get("memory_block", "") + "\n" + messages[-1]["content"]


def ask(conv: locomo_eval.Conversation, llm: Any, question: str, now: float | None,
        earlier: dict[str, list[str]], max_tokens: int) -> dict[str, dict[str, Any]]:
    """The three answers to one question: product, flat-hybrid at equal memory, no memory."""
    from memoryos_core.answer import answering, retrieval, turn
    from memoryos_core.answer.types import Trace

    engine = conv.engine
    messages, trace = engine.prompt(conv.user, question, model=llm, now=now)
    memory_tokens = sum(p["tokens"] for p in trace["prompt_parts"]
                        if p["name"] not in ("instructions", "recent", "message"))
    base = retrieval.retrieve(engine.ctx, conv.user, question, record=False, now=now)
    memories = {"flat-hybrid": flat_trace(conv, base, question, memory_tokens),
                "none": empty_trace(base)}
    out = {}
    for strategy in ("memoryos", *memories):
        tr = trace
        if strategy != "memoryos":  # "none": no memory of any tier, short-term included
            fitted = answering.fit_prompt(engine.ctx, conv.user, question, memories[strategy],
                                          llm, now=now, refit=False,
                                          short_rows=[] if strategy == "none" else None)
            messages, tr = fitted.messages, Trace.build(fitted)
        t0 = time.perf_counter()
        reply, _ = turn.answer(llm, messages, tr["layout"], tr.get("answer_plan"),
                               earlier[strategy], max_tokens, question, None, None, None)
        text = reply.text.strip()
        out[strategy] = {"prediction": text[:300], "source": reply.source,
                         "answer_ms": round((time.perf_counter() - t0) * 1000, 1),
                         "prompt_tokens": sum(p["tokens"] for p in tr["prompt_parts"]),
                         "repeat": repeats_earlier(text, earlier[strategy]),
                         "abstains": abstains(text, reply.source),
                         # a sentence built from memory says its memory line back by design
                         "echo": reply.source not in ("memory", "no memory")
                         and echoes_prompt(text, question, messages),
                         "memory": memory_text(tr, messages)}
        earlier[strategy].append(text)
    return out


def run(paths: list[str] | None, stride: int, conversations: int | None, max_tokens: int,
        base_url: str | None, model_name: str | None, impression: bool = True,
        emb: Any = None, trials: int = 1, questions: bool = True,
        llm: Any = None, fact_sets: tuple[str, ...] = ("main",)) -> dict[str, Any]:
    """Import each conversation, answer a stride of its questions three ways, aggregate."""
    emb = emb or common.embedder()
    llm = llm or answer_model(base_url, model_name)
    result = common.envelope(
        "answers", {"files": paths or [str(common.locomo_path())], "stride": stride,
                    "max_tokens": max_tokens, "strategies": list(STRATEGIES)},
        {"embedder": emb.name, "answer": llm.name})
    with tempfile.TemporaryDirectory(prefix="memoryos-answers-") as tmp:
        if impression:  # the model samples: each trial is a new chat, both reply styles
            result["first_impression"] = [
                first_impression(llm, Path(tmp) / f"fi{name}{alike}{n}", emb, alike, max_tokens,
                                 name)
                for name in fact_sets for n in range(trials) for alike in (False, True)]
            runs = result["first_impression"]
            result["first_impression_total"] = {
                "answered": sum(r["answered"] for r in runs),
                "asked": sum(r["facts"] for r in runs),
                "repeats": sum(r["repeats"] for r in runs),
                "mixed": sum(r["mixed"] for r in runs),
                "echoes": sum(r["echoes"] for r in runs)}
        records: list[dict[str, Any]] = []
        for n, (_path, conv) in enumerate(load(paths)[: conversations or None] if questions
                                         else []):
            source = Path(tmp) / f"source{n}.json"  # one conversation (a LongMemEval question's
            source.write_text(json.dumps([conv]), encoding="utf-8")  # history, converted)
            c, _ = locomo_eval.import_conversation(source, conv, "extractive",
                                                   Path(tmp) / f"c{n}", emb,
                                                   common.instant_model())
            earlier: dict[str, list[str]] = {s: [] for s in STRATEGIES}
            qas = [qa for qa in conv.get("qa", [])
                   if int(qa.get("category", 0)) in (1, 2, 3, 4, 5)]
            for q_no, qa in enumerate(qas[::stride]):
                now = question_time(qa)
                for strategy, ans in ask(c, llm, str(qa["question"]), now, earlier,
                                         max_tokens).items():
                    gold = locomo_scoring.gold_answer(qa)
                    memory = ans.pop("memory")
                    records.append({"sample_id": c.user, "q": q_no, "strategy": strategy,
                                    "category": int(qa.get("category", 0)),
                                    "question": str(qa["question"]), "gold": gold, **ans,
                                    **locomo_scoring.score(qa, ans["prediction"]),
                                    "contains": contains_gold(ans["prediction"], gold),
                                    "memory_had_gold": contains_gold(memory, gold)})
            c.engine.store.close()
    result["summary"] = aggregate(records)
    result["records"] = records
    s = result["summary"]
    if not records:
        return result
    result["f1_vs_flat_hybrid"] = common.ratio(s["memoryos"]["f1"], s["flat-hybrid"]["f1"])
    result["f1_vs_no_memory"] = common.ratio(s["memoryos"]["f1"], s["none"]["f1"])
    return result


def question_time(qa: dict[str, Any]) -> float | None:
    """When a question is asked: its `question_date` (LongMemEval) else now."""
    value = qa.get("question_date")
    if not value:
        return None
    from memoryos_core.transfer.importers import parse_time

    return parse_time(str(value).split(" (")[0].replace("/", "-") + "T"
                      + str(value).rsplit(" ", 1)[-1], "question_date")


def load(paths: list[str] | None) -> list[tuple[Path, dict[str, Any]]]:
    """LoCoMo conversations; LongMemEval files converted to the LoCoMo layout first (each
    question its own history)."""
    from memoryos_core.errors import ImportFormatError
    from memoryos_core.transfer.importers import detect

    from . import longmemeval_data

    locomo: list[str] = []
    out: list[tuple[Path, dict[str, Any]]] = []
    for name in paths or []:
        try:
            fmt = detect(json.loads(Path(name).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, ImportFormatError):
            fmt = None  # load_locomo says what is wrong with it
        if fmt == "longmemeval":
            out += [(Path(name), longmemeval_data.to_locomo(q))
                    for q in longmemeval_data.load_longmemeval(name)]
        else:
            locomo.append(name)
    if locomo or not paths:
        out += common.load_locomo(locomo or None)
    return out


def answer_model(base_url: str | None, model_name: str | None) -> Any:
    """The embedded model, or an OpenAI-compatible endpoint."""
    if base_url:
        import os

        from memoryos_core.llm import OpenAIChatModel

        return OpenAIChatModel(model_name or "default", base_url=base_url,
                               api_key=os.environ.get("OPENAI_API_KEY"))
    from memoryos_core.llm import default_chat_model

    return default_chat_model()


def aggregate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per strategy: mean F1, share containing the gold answer, repeats, prompt tokens."""
    out: dict[str, Any] = {}
    for strategy in STRATEGIES:
        mine = [r for r in records if r["strategy"] == strategy]
        adversarial = [r for r in mine if r["category"] == 5]
        recs = [r for r in mine if r["category"] != 5]
        if not recs:
            out[strategy] = {"questions": 0, "f1": 0.0}
            continue
        out[strategy] = {
            "questions": len(recs), "f1": round(statistics.fmean(r["f1"] for r in recs), 4),
            "contains_gold": round(statistics.fmean(r["contains"] for r in recs), 4),
            "repeats": round(statistics.fmean(r["repeat"] for r in recs), 4),
            "echoes": round(statistics.fmean(r["echo"] for r in recs), 4),
            "abstains": round(statistics.fmean(r["abstains"] for r in recs), 4),
            # "I don't know" though the gold answer was in the prompt's memory
            "dont_know_when_memory_had_it": round(statistics.fmean(
                r["abstains"] and r["memory_had_gold"] for r in recs), 4),
            # category 5: the question asks about something never said; anything but
            # "I don't remember" is invented
            "adversarial_questions": len(adversarial),
            "invented_on_adversarial": round(statistics.fmean(
                not r["abstains"] for r in adversarial), 4) if adversarial else None,
            "median_prompt_tokens": statistics.median(r["prompt_tokens"] for r in recs),
            "sources": {s: sum(1 for r in recs if r["source"] == s)
                        for s in {r["source"] for r in recs}},
            "by_category": {name: round(statistics.fmean(r["f1"] for r in recs
                                                         if r["category"] == cat), 4)
                            for cat, name in locomo_eval.CATEGORIES.items()
                            if any(r["category"] == cat for r in recs)}}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="LoCoMo or LongMemEval JSON files")
    parser.add_argument("--stride", type=int, default=8, help="every Nth question")
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--max-tokens", type=int, default=100)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--model", default=None)
    parser.add_argument("--no-impression", action="store_true")
    parser.add_argument("--impression-only", action="store_true",
                        help="only the first-impression check (no LoCoMo questions)")
    parser.add_argument("--trials", type=int, default=1,
                        help="first-impression chats of each reply style")
    parser.add_argument("--fact-sets", default="main,other",
                        help=f"first-impression fact sets, of {', '.join(FACT_SETS)}")
    args = parser.parse_args(argv)
    fact_sets = tuple(n for n in args.fact_sets.split(",") if n)
    if unknown := [n for n in fact_sets if n not in FACT_SETS]:
        parser.error(f"unknown fact set(s): {', '.join(unknown)}")
    stride = max(args.stride, 40) if args.quick else args.stride
    result = run(args.files or None, stride, 1 if args.quick else args.conversations,
                 args.max_tokens, args.base_url, args.model, not args.no_impression,
                 trials=args.trials, questions=not args.impression_only, fact_sets=fact_sets)
    s = result["summary"]
    lines = [f"{k}: F1 {v['f1']}, contains {v.get('contains_gold')}, repeats {v.get('repeats')}"
             for k, v in s.items() if result["records"]]
    for fi in result.get("first_impression", []):
        lines.append(f"first impression ({fi['fact_set']}, alike replies {fi['alike_replies']}): "
                     f"{fi['answered']}/{fi['facts']} answered, {fi['repeats']} repeats")
    common.emit({k: v for k, v in result.items() if k != "records"} | {
        "records": result["records"]}, args.json, "\n".join(lines))
    return result


if __name__ == "__main__":
    main()
