"""Retrieval: segments by cos + Jaccard, pages by vectors fused with FTS5, facts, profile; traced."""

from __future__ import annotations

import json
import time
from typing import Any

from .context import Context
from .heat import heat_terms, record_visits
from .prompts import when
from .text import count_tokens, jaccard, keywords, truncate_tokens

RRF_K = 60  # reciprocal-rank-fusion constant (Cormack et al.)
PAGE_LINE_TOKENS = 220


COMMON_TERM_SHARE = 0.05  # a keyword in more than 5% of all exchanges ranks nothing


def _distinctive(ctx: Context, words: list[str]) -> list[str]:
    """Keywords that are not in a large share of the stored exchanges (cheap BM25 pre-filter)."""
    if not words:
        return []
    total = int(ctx.store.scalar("SELECT max(id) FROM exchanges") or 0)
    marks = ",".join("?" * len(words))
    doc = {r["term"]: r["doc"] for r in ctx.store.query(
        f"SELECT term, doc FROM exchanges_vocab WHERE term IN ({marks})", words)}
    limit = max(50, COMMON_TERM_SHARE * total)
    return [w for w in words if doc.get(w, 0) <= limit]


def _fts_query(words: list[str]) -> str:
    """An FTS5 OR-query of quoted keywords (quotes keep user text from being FTS syntax)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def retrieve(
    ctx: Context, user_id: str, query: str, record: bool = True, strategy: str = "memoryos",
    token_budget: int | None = None,
) -> dict[str, Any]:
    """Rank memory for a query and assemble the memory block under the token budget."""
    cfg = ctx.config
    budget = cfg.memory_token_budget if token_budget is None else token_budget
    started = time.perf_counter()
    qvec = ctx.embedder.embed([query])[0]
    embed_ms = (time.perf_counter() - started) * 1000
    qkws = keywords(query, 12)
    now = time.time()

    segments: list[dict[str, Any]] = []
    candidate_ids: list[int] = []
    if strategy == "memoryos":
        for seg_id, cos in ctx.index.search(user_id, "segment", qvec, max(50, cfg.top_segments)):
            segments.append({"id": seg_id, "cos": round(cos, 4)})
        seg_rows = _rows(ctx, "segments", [s["id"] for s in segments], user_id)
        for seg in segments:
            row = seg_rows.get(seg["id"])
            if row is None:
                continue
            kws = json.loads(row["keywords"])
            seg.update(summary=row["summary"], keywords=kws, jaccard=round(jaccard(qkws, kws), 4),
                       heat=round(heat_terms(row, cfg, now)["heat"], 4))
            seg["score"] = round(seg["cos"] + seg["jaccard"], 4)
        segments = sorted((s for s in segments if "score" in s), key=lambda s: -s["score"])
        for rank, seg in enumerate(segments):
            seg["selected"] = rank < cfg.top_segments
        top = [s["id"] for s in segments if s["selected"]]
        if top:
            marks = ",".join("?" * len(top))
            candidate_ids = [r["id"] for r in ctx.store.query(
                f"SELECT id FROM exchanges WHERE segment_id IN ({marks})", top)]
        # Pending pages (not filed yet). The unary + keeps SQLite on ix_exchanges_segment
        # (segment_id IS NULL: short-term and pending rows only) instead of scanning every
        # mid-term page of the user through ix_exchanges_user_tier (3.6 ms at 10k pages).
        candidate_ids += [r["id"] for r in ctx.store.query(
            "SELECT id FROM exchanges WHERE segment_id IS NULL AND +user_id = ? AND"
            " +tier = 'mid'", (user_id,))]
        vector_hits = ctx.index.search(user_id, "page", qvec, cfg.top_pages * 3, among=candidate_ids)
        # Pages outside the chosen segments keep their rank over the whole mid-term memory, so
        # a page filed under a segment whose summary misses the query (small models write weak
        # summaries) stays reachable; a page inside them is ranked once, among their pages.
        inside = set(candidate_ids)
        global_hits = [(rank, pid, score) for rank, (pid, score)
                       in enumerate(_flat_hits(ctx, user_id, qvec, cfg.top_pages * 3), start=1)
                       if pid not in inside]
    else:  # "flat": the baseline, top pages by cosine over all mid-term pages
        vector_hits, global_hits = _flat_hits(ctx, user_id, qvec, cfg.top_pages * 3), []

    fused: dict[int, dict[str, Any]] = {}
    for rank, (pid, score) in enumerate(vector_hits, start=1):
        fused[pid] = {"id": pid, "vector_score": round(score, 4), "vector_rank": rank,
                      "fused": 1 / (RRF_K + rank)}
    for rank, pid, score in global_hits:
        entry = fused.setdefault(pid, {"id": pid, "vector_score": round(score, 4), "fused": 0.0})
        entry["global_rank"] = rank
        entry["fused"] += 1 / (RRF_K + rank)
    fts_words = _distinctive(ctx, qkws) if strategy == "memoryos" else []
    if fts_words:
        hits = ctx.store.query(
            "SELECT e.id FROM exchanges_fts f JOIN exchanges e ON e.id = f.rowid WHERE"
            " exchanges_fts MATCH ? AND e.user_id = ? AND e.tier = 'mid' ORDER BY bm25(exchanges_fts)"
            " LIMIT ?", (_fts_query(fts_words), user_id, cfg.top_pages * 3))
        for rank, row in enumerate(hits, start=1):
            entry = fused.setdefault(row["id"], {"id": row["id"], "fused": 0.0})
            entry["keyword_rank"] = rank
            entry["fused"] += 1 / (RRF_K + rank)
    pages = sorted(fused.values(), key=lambda p: -p["fused"])
    page_rows = _rows(ctx, "exchanges", [p["id"] for p in pages], user_id)
    pages = [p for p in pages if p["id"] in page_rows]

    profile = ctx.store.query(
        "SELECT dimension, family, level, reason, evidence FROM profile WHERE user_id = ?"
        " ORDER BY family, dimension", (user_id,))
    facts = _facts(ctx, user_id, qvec) if strategy == "memoryos" else {"user": [], "assistant": []}

    parts, block = _assemble(pages, page_rows, profile, facts, budget, cfg.top_pages)
    used_segments = sorted({page_rows[p["id"]]["segment_id"] for p in pages
                            if p.get("selected") and page_rows[p["id"]]["segment_id"]})
    if record and used_segments:
        with ctx.store.transaction() as conn:
            record_visits(conn, user_id, used_segments, now)
    for p in pages:
        row = page_rows[p["id"]]
        p.update(segment_id=row["segment_id"], timestamp=row["ts"], user=row["user_text"],
                 assistant=row["assistant_text"], fused=round(p["fused"], 5))
        p.setdefault("selected", False)
    return {
        "query": query, "query_keywords": qkws, "keyword_search_terms": fts_words,
        "strategy": strategy,
        "segments": segments[: max(cfg.top_segments * 2, 10)],
        "pages": pages, "facts": facts, "profile": profile,
        "used_segments": used_segments, "token_budget": budget,
        "prompt_parts": parts, "memory_block": block,
        "timings_ms": {"embed": round(embed_ms, 2),
                       "total": round((time.perf_counter() - started) * 1000, 2)},
    }


def _flat_hits(ctx: Context, user_id: str, qvec: Any, k: int) -> list[tuple[int, float]]:
    """Top mid-term pages by cosine over all of them (short-term rows are in the index too)."""
    short = {r["id"] for r in ctx.store.query(
        "SELECT id FROM exchanges WHERE user_id = ? AND tier = 'short'", (user_id,))}
    hits = ctx.index.search(user_id, "page", qvec, k + len(short))
    return [h for h in hits if h[0] not in short][:k]


def _rows(ctx: Context, table: str, ids: list[int], user_id: str) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {r["id"]: r for r in ctx.store.query(
        f"SELECT * FROM {table} WHERE id IN ({marks}) AND user_id = ?", (*ids, user_id))}


def _facts(ctx: Context, user_id: str, qvec: Any) -> dict[str, list[dict[str, Any]]]:
    hits = ctx.index.search(user_id, "fact", qvec, ctx.config.top_facts * 4)
    rows = _rows(ctx, "facts", [i for i, _ in hits], user_id)
    out: dict[str, list[dict[str, Any]]] = {"user": [], "assistant": []}
    for fid, score in hits:
        row = rows.get(fid)
        if row and len(out[row["kind"]]) < ctx.config.top_facts:
            out[row["kind"]].append({"id": fid, "text": row["text"], "score": round(score, 4),
                                     "sources": json.loads(row["sources"])})
    return out


def _assemble(
    pages: list[dict[str, Any]], page_rows: dict[int, dict[str, Any]],
    profile: list[dict[str, Any]], facts: dict[str, list[dict[str, Any]]], budget: int,
    max_pages: int,
) -> tuple[list[dict[str, Any]], str]:
    """Fill the memory block part by part, within the budget; mark what was selected.

    Dialogue pages are given the budget first (then the chain overview, facts, profile): they
    are the evidence itself, while profile rows and facts are derived from pages. The block
    still reads profile, facts, pages, overview.
    """
    sections: list[tuple[str, list[str]]] = []
    left = budget

    def take(name: str, header: str, lines: list[str]) -> list[int]:
        nonlocal left
        kept: list[str] = []
        taken: list[int] = []
        cost = count_tokens(header)
        for i, line in enumerate(lines):
            need = count_tokens(line) + (cost if not kept else 0)
            if need > left:
                continue
            kept.append(line)
            taken.append(i)
            left -= need
        if kept:
            sections.append((name, [header, *kept]))
        return taken

    ranked = pages[:max_pages]
    lines = []
    for p in ranked:
        row = page_rows[p["id"]]
        body = truncate_tokens(f"User: {row['user_text']} | Assistant: {row['assistant_text']}",
                               PAGE_LINE_TOKENS)
        lines.append(f"[{when(row['ts'])}] {body}")
    chosen = take("pages", "## Relevant past conversation", lines)
    for i in chosen:
        ranked[i]["selected"] = True
        ranked[i]["reason"] = f"in budget, rank {i + 1}"
    if chosen:  # pages read in time order
        name, body_lines = sections[-1]
        order = sorted(chosen, key=lambda i: (page_rows[ranked[i]["id"]]["ts"], ranked[i]["id"]))
        sections[-1] = (name, [body_lines[0], *(lines[i] for i in order)])
        overviews = list(dict.fromkeys(page_rows[ranked[i]["id"]]["overview"] for i in order))
        take("overview", "## Conversation context", [o for o in overviews if o][:2])
    take("user_facts", "## Facts about the user", [f"- {f['text']}" for f in facts["user"]])
    take("assistant_facts", "## Facts about the assistant (you)",
         [f"- {f['text']}" for f in facts["assistant"]])
    take("profile", "## User profile",
         [f"- {p['dimension']}: {p['level']} ({p['reason']})" for p in profile])
    layout = ("profile", "user_facts", "assistant_facts", "pages", "overview")
    sections.sort(key=lambda section: layout.index(section[0]))
    parts = [{"name": name, "tokens": count_tokens("\n".join(body)), "items": len(body) - 1}
             for name, body in sections]
    block = "\n".join("\n".join(body) for _, body in sections)
    return parts, block
