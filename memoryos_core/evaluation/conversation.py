"""One conversation imported into a throwaway memory, and each strategy's context for a question.

Strategies (nothing tuned per question):
- memoryos: engine.retrieve(strategy="memoryos") selected pages + short-term memory;
- flat-hybrid: dense (MiniLM) + keyword search (the store's stemmed index) by reciprocal-rank
  fusion over all mid-term pages, filled to the product's token count for the same question
  (equal tokens, question by question) + short-term memory;
- flat-hybrid-filtered: the same with the product's keyword pre-filter (words found in many
  exchanges are not searched), so the product's ranking gains are shown apart from it;
- flat: dense only, likewise at equal tokens;
- recent: short-term memory alone (the last short_term_capacity exchanges);
- full: as many exchanges as fit the window, most recent first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..answer.recent import fit_recent, recent_budget, recent_tokens
from ..config import EngineConfig
from ..engine import MemoryEngine
from ..llm import ChatModel, Embedder
from ..memory import reads
from ..text import count_tokens
from . import baselines, lines, reasons
from .data import Sample
from .lines import line

STRATEGIES = ("memoryos", "flat-hybrid", "flat-hybrid-filtered", "flat", "recent", "full")
FLAT = ("flat", "flat-hybrid", "flat-hybrid-filtered")


@dataclass
class Assembled:
    """A strategy's context for one question: exchanges held, tokens, text, lines, reasons."""

    ids: set[int]
    tokens: int
    text: str
    seconds: float
    lines: list[dict[str, Any]]
    why: dict[int, dict[str, Any]] = field(default_factory=dict)  # evidence exchange -> reason
    parts: dict[str, int] = field(default_factory=dict)
    fact_sources: set[int] = field(default_factory=set)
    trace: dict[str, Any] | None = None  # the product's retrieval trace, summarised


def memory_counts(state: Any) -> dict[str, int]:
    """Sizes of each tier from engine.state()."""
    mid, long = state["mid_term"], state["long_term"]
    return {"short_term": state["short_term"]["count"], "segments": mid["count"],
            "pages": mid["page_count"], "pending_pages": len(mid["pending_pages"]),
            "profile_rows": len(long["profile"]), "user_facts": len(long["user_facts"]),
            "assistant_facts": len(long["assistant_facts"])}


def make_engine(data_dir: Path, model: ChatModel | None, emb: Embedder,
                mode: str) -> MemoryEngine:
    """A throwaway engine over `data_dir` (SQLite always: never the user's database)."""
    config = EngineConfig.from_env().replace(consolidation=mode, analysis=mode)
    # database_url "" keeps MEMORYOS_DATABASE_URL out: the evaluation's memory is its own
    return MemoryEngine(data_dir, chat_model=model, embedder=emb, config=config, database_url="")


class Conversation:
    """One imported conversation: its exchanges, short-term ids and dia_id -> exchange map."""

    def __init__(self, engine: MemoryEngine, user: str, report: dict[str, Any],
                 sample: Sample | None = None) -> None:
        self.engine, self.user, self.report = engine, user, report
        self.rows = reads.all_exchanges(engine.ctx, user)  # oldest first (ts, id)
        self.by_id = {r["id"]: r for r in self.rows}
        self.tokens = {r["id"]: count_tokens(line(r)) for r in self.rows}
        # the recent exchanges as the product's prompt shows them (long sides shortened); a
        # shortened exchange no longer counts as evidence in context: its text may be cut away
        fitted = fit_recent([r for r in self.rows if r["tier"] == "short"],
                            recent_budget(engine.config))
        self.fitted = fitted
        self.short = [r["id"] for r in fitted if not r["shortened"]]
        self.short_all = [r["id"] for r in fitted]  # every short-term row: never a page
        self.short_text = "\n".join(line(r) for r in fitted)
        self.short_tokens = recent_tokens(fitted)
        self.now: float | None = sample.now if sample else None  # None: the current time
        self.dia: dict[str, int] = {}
        for ex_id, refs in report["refs"].items():
            for ref in str(refs).split(","):
                self.dia[ref.strip()] = int(ex_id)
        self.turn_text: dict[str, str] = {}
        self.turn_where: dict[str, str] = {}  # dia_id -> its place, as the importer names it
        conv = (sample.doc.get("conversation") if sample else None) or {}
        for key, value in conv.items():
            if key.startswith("session_") and isinstance(value, list):
                for k, turn in enumerate(value):
                    if isinstance(turn, dict) and "dia_id" in turn:
                        self.turn_text[str(turn["dia_id"])] = \
                            f"{turn.get('speaker', '')}: {turn.get('text', '')}"
                        self.turn_where[str(turn["dia_id"])] = f"{key}[{k}]"
        self.skipped = {str(s["where"]): str(s["reason"]) for s in report.get("skipped", [])}

    def context(self, strategy: str, question: str, budget: int, window: int, target: int,
                evidence: list[int], qvec: Any = None) -> Assembled:
        """A strategy's context for a question and why each evidence exchange is in it or not."""
        # `target`: the product's token count for this question, which the flat baselines fill
        # to; `qvec`: the question's vector, shared by the flat baselines
        t0 = time.perf_counter()
        short_text = self.short_text
        recent = lines.recent_lines(self.fitted)
        if strategy == "memoryos":
            trace = self.engine.retrieve(self.user, question, record=False, strategy=strategy,
                                         token_budget=budget, now=self.now)
            ids = {p["id"] for p in trace["pages"] if p["selected"]}
            tokens = sum(p["tokens"] for p in trace["prompt_parts"]) + self.short_tokens
            text = trace["memory_block"] + "\n## Recent conversation\n" + short_text
            # facts carry their source pages: a looser hit, reported apart
            sources = {s for kind in ("user", "assistant") for f in trace["facts"][kind]
                       if f"- {f['text']}" in trace["memory_block"] for s in f["sources"]}
            out = Assembled(ids | set(self.short), tokens, text, time.perf_counter() - t0,
                            lines.product_lines(trace, self.by_id) + recent,
                            parts={p["name"]: p["tokens"] for p in trace["prompt_parts"]},
                            fact_sources=sources, trace=lines.trace_summary(trace, evidence))
            out.why = reasons.product(trace, evidence, self, self.engine.config.top_pages)
            return out
        if strategy in FLAT:
            mid = {i: r for i, r in self.by_id.items() if r["tier"] == "mid"}
            if qvec is None:
                qvec = self.engine.ctx.embedder.embed([question])[0]
            flat = baselines.context(strategy, self.engine, self.user, question, qvec, mid,
                                     self.short_all, self.short_tokens, target)
            ids = (flat.ids - set(self.short_all)) | set(self.short)
            text = "\n".join(flat.lines) + "\n## Recent conversation\n" + short_text
            out = Assembled(ids, flat.tokens, text, time.perf_counter() - t0,
                            lines.flat_lines(flat.lines, [mid[i] for i in flat.taken]) + recent)
            out.why = reasons.flat(flat, evidence, self)
            return out
        if strategy == "recent":
            out = Assembled(set(self.short), self.short_tokens, short_text,
                            time.perf_counter() - t0, recent)
            out.why = reasons.recent(evidence, self)
            return out
        taken, used = [], 0
        for row in reversed(self.rows):  # full context: most recent first, until the window
            need = self.tokens[row["id"]]
            if used + need > window:
                break
            taken.append(row["id"])
            used += need
        chosen = [self.by_id[i] for i in reversed(taken)]
        out = Assembled(set(taken), used, "\n".join(line(r) for r in chosen),
                        time.perf_counter() - t0,
                        [lines.entry(line(r), r["id"], r["tier"]) for r in chosen])
        out.why = reasons.full(evidence, self, set(taken), window)
        return out


def import_conversation(sample: Sample, mode: str, data: Path, emb: Embedder,
                        model: ChatModel | None, progress: Any = None,
                        ) -> tuple[Conversation, dict[str, Any]]:
    """A fresh engine per (conversation, mode); the conversation imported and consolidated."""
    user = sample.sample_id
    engine = make_engine(data, model, QuestionVectors(emb), mode)
    started = time.perf_counter()
    report = engine.import_dialogue(user, sample.source, fmt="locomo",
                                    select=sample.doc.get("sample_id"), progress=progress)
    seconds = time.perf_counter() - started
    usage = engine.usage(user)
    info = {"sample_id": user, "mode": mode, "imported": report["imported"],
            "skipped": len(report["skipped"]), "import_s": round(seconds, 2),
            "model_calls": {k: v["calls"] for k, v in usage.items()},
            "memory": memory_counts(engine.state(user))}
    return Conversation(engine, user, dict(report), sample), info


class QuestionVectors:
    """The embedder of a throwaway memory, remembering the vector of each single text."""

    # A question is embedded once, not once per strategy (the product's retrieval and the flat
    # baselines ask for the same text alone); texts embedded together (the import's batches)
    # go to the embedder as they are, so every vector is the one the embedder gives.

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self._known: dict[str, Any] = {}

    def embed(self, texts: list[str]) -> Any:
        """A single known text from memory, everything else from the embedder."""
        if len(texts) != 1:
            return self.inner.embed(texts)
        if texts[0] not in self._known:
            if len(self._known) > 10_000:  # a long run's memory stays bounded
                self._known.clear()
            self._known[texts[0]] = self.inner.embed(texts)
        return self._known[texts[0]]
