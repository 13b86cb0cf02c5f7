"""Why each evidence exchange is, or is not, in a strategy's context.

Codes: in context (`short_term`, `selected`, `continuation`); missed: `budget` (ranked, then
dropped by the token budget), `page_limit` (ranked below the pages considered), `filtered`
(a repeat of a better page, or its words too common to search), `shortened` (its page is in
short-term memory, shown shortened), `not_candidate` (in no candidate list), `not_recent`,
`window` (older than the full-context window).
"""

from __future__ import annotations

from typing import Any

from ..answer.types import RetrievalData
from ..text import stem, stems_held
from .baselines import DEPTH, FlatContext

# the conversation (evaluation.conversation.Conversation) is typed Any here: it builds reasons
Conversation = Any


def reason(code: str, text: str, found: bool, **ranks: int | None) -> dict[str, Any]:
    """One evidence exchange's verdict: code, words, in context or not, its list ranks."""
    return {"code": code, "reason": text, "in_context": found,
            "ranks": {k: v for k, v in ranks.items() if v is not None}}


def _ranks_text(ranks: dict[str, int | None]) -> str:
    named = {"vector": "vector", "keyword": "keyword", "period": "date"}
    got = [f"{named[k]} #{v}" for k, v in ranks.items() if v is not None]
    return ", ".join(got) if got else "no list"


def _lists_text(ranks: dict[str, int | None], searched: list[str],
                period: list[str] | None = None) -> str:
    """Its ranks, and the lists it is missing from with what they searched: a vector #2 page
    ranked 63 because pages holding the searched words came first, which the reader can act on."""
    got = _ranks_text(ranks) if any(v is not None for v in ranks.values()) else ""
    missed = []
    if ranks.get("keyword") is None:
        missed.append(f"not in the keyword list (searched: {', '.join(searched)})" if searched
                      else "no keyword search (no distinctive word in the question)")
    if period and ranks.get("period") is None:
        missed.append(f"not in the date list ({' to '.join(period)})")
    return "; ".join(p for p in (got, *missed) if p)


def _worded_above(trace: RetrievalData, ranked: list[int], ex: int) -> str:
    """How many pages found by the keyword search ranked above a page missing from it."""
    above = {p["id"]: p for p in trace["pages"]}
    n = sum(1 for pid in ranked[:ranked.index(ex)] if "keyword_rank" in above[pid])
    return f"; {n} pages holding the searched words ranked above it" if n else ""


def _common_words(conv: Conversation, ex_id: int, dropped: list[str]) -> list[str]:
    """The dropped (too common) query words this exchange holds."""
    row = conv.by_id[ex_id]
    text = f"{row['user_text']} {row['assistant_text']}"
    return [w for w in dropped if stems_held(text, {stem(w)})]


def _shortened(conv: Conversation, ex_id: int) -> bool:
    return ex_id in conv.short_all and ex_id not in conv.short


def product(trace: RetrievalData, evidence: list[int], conv: Conversation,
            top_pages: int) -> dict[int, dict[str, Any]]:
    """The product's verdict per evidence exchange, from its retrieval trace."""
    depth = max(top_pages * 3, 60)
    hits = {p["id"]: p for p in trace["pages"]}
    ranked = [p["id"] for p in trace["pages"] if "repeats" not in p]
    dropped = [w for w in trace["query_keywords"] if w not in trace["keyword_search_terms"]]
    words_searched = list(trace["keyword_search_terms"])
    out: dict[int, dict[str, Any]] = {}
    for ex in evidence:
        p = hits.get(ex)
        ranks = {"vector": p.get("vector_rank"), "keyword": p.get("keyword_rank"),
                 "period": p.get("period_rank")} if p else {}
        if ex in conv.short:
            out[ex] = reason("short_term", "in context: in short-term memory (the recent"
                             " conversation)", True, **ranks)
        elif p is not None and p.get("selected"):
            pos = ranked.index(ex) + 1
            if "continues" in p:
                out[ex] = reason("continuation", f"in context: continues page {p['continues']}"
                                 f" in its dialogue (rank {pos})", True, **ranks)
            else:
                out[ex] = reason("selected", f"in context: page rank {pos}"
                                 f" ({_ranks_text(ranks)})", True, **ranks)
        elif p is not None and "repeats" in p:
            out[ex] = reason("filtered", f"filtered out: repeats page {p['repeats']}", False,
                             **ranks)
        elif p is not None and ranked.index(ex) >= top_pages:
            lists = _lists_text(ranks, words_searched, trace["period"])
            worded = _worded_above(trace, ranked, ex) if ranks["keyword"] is None else ""
            out[ex] = reason("page_limit", f"ranked {ranked.index(ex) + 1} ({lists}), below the"
                             f" {top_pages} pages the block considers{worded}", False, **ranks)
        elif p is not None:
            short = " (its page is in short-term memory, shown shortened)" \
                if _shortened(conv, ex) else ""
            lists = _lists_text(ranks, words_searched, trace["period"])
            out[ex] = reason("budget", f"dropped by the token budget: rank {ranked.index(ex) + 1}"
                             f" ({lists}){short}", False, **ranks)
        elif _shortened(conv, ex):
            out[ex] = reason("shortened", "its page is in short-term memory, shown shortened"
                             " (the evidence may be cut away)", False)
        elif common := _common_words(conv, ex, dropped):
            out[ex] = reason("filtered", f"filtered out: not in the vector top {depth}, and its"
                             f" words {', '.join(common)} are too common to be searched", False)
        else:
            searched = ", ".join(trace["keyword_search_terms"]) or "none"
            period = " to ".join(trace["period"]) if trace["period"] else "none named"
            out[ex] = reason("not_candidate", f"not in any candidate list (vector top {depth};"
                             f" keyword search on: {searched}; date period: {period})", False)
        if not out[ex]["in_context"] and ex in _fact_sources(trace):
            out[ex]["reason"] += "; a fact drawn from it is in context"
    return out


def _fact_sources(trace: RetrievalData) -> set[int]:
    return {s for kind in ("user", "assistant") for f in trace["facts"][kind]
            if f.get("in_prompt") for s in f["sources"]}


def flat(ctx: FlatContext, evidence: list[int], conv: Conversation) -> dict[int, dict[str, Any]]:
    """A flat baseline's verdict per evidence exchange."""
    out: dict[int, dict[str, Any]] = {}
    for ex in evidence:
        ranks = {"vector": ctx.dense.index(ex) + 1 if ex in ctx.dense else None,
                 "keyword": ctx.keyword.index(ex) + 1 if ex in ctx.keyword else None}
        if ex in conv.short:
            out[ex] = reason("short_term", "in context: in short-term memory (the recent"
                             " conversation)", True, **ranks)
        elif ex in ctx.taken:
            out[ex] = reason("selected", f"in context: page {ctx.taken.index(ex) + 1} of"
                             f" {len(ctx.taken)} ({_ranks_text(ranks)})", True, **ranks)
        elif ranks["vector"] or ranks["keyword"]:
            lists = _lists_text(ranks, ctx.words) if ctx.keyword or ctx.words else \
                _ranks_text(ranks)  # flat (dense only) searches no words
            out[ex] = reason("budget", "dropped by the token budget (equal tokens with the"
                             f" product; {lists})", False, **ranks)
        elif _shortened(conv, ex):
            out[ex] = reason("shortened", "its page is in short-term memory, shown shortened",
                             False)
        elif common := _common_words(conv, ex, ctx.dropped_words):
            out[ex] = reason("filtered", f"filtered out: its words {', '.join(common)} are too"
                             " common to be searched", False)
        else:
            searched = ", ".join(ctx.words) or "none"
            out[ex] = reason("not_candidate", f"not in any candidate list (vector top {DEPTH};"
                             f" keyword search on: {searched})", False)
    return out


def recent(evidence: list[int], conv: Conversation) -> dict[int, dict[str, Any]]:
    """Recent turns: in short-term memory whole, shortened, or older."""
    out: dict[int, dict[str, Any]] = {}
    for ex in evidence:
        if ex in conv.short:
            out[ex] = reason("short_term", "in context: in short-term memory", True)
        elif _shortened(conv, ex):
            out[ex] = reason("shortened", "in short-term memory, shown shortened", False)
        else:
            out[ex] = reason("not_recent", f"not among the last {len(conv.short_all)} exchanges"
                             " (short-term memory)", False)
    return out


def full(evidence: list[int], conv: Conversation, taken: set[int],
         window: int) -> dict[int, dict[str, Any]]:
    """Full context: in the window of the most recent exchanges, or older."""
    return {ex: reason("selected", "in context: within the window", True) if ex in taken
            else reason("window", f"older than the most recent {window} tokens (the window)",
                        False) for ex in evidence}
