"""Retrieval: segments by cos + Jaccard, pages by vectors fused with FTS5, facts, profile; traced."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..context import Context
from ..memory.heat import heat_terms, record_visits
from ..storage import search
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import pages as pages_db
from ..storage.tables import profile as profile_db
from ..storage.tables import segments as segments_db
from ..text import query_keywords
from ..timeframe import named_period
from .aliases import alias_hits
from .fact_search import question_facts
from .fusion import learned_order
from .memory_block import assemble, memory_budget
from .page_order import CONTINUED_PAGES, with_continuations, without_repeats
from .profile_scoring import scored_profile_rows
from .recent import fit_recent, recent_budget, recent_tokens, shortened_by_keywords
from .types import Facts, PageHit, ProfileHit, Retrieval, SegmentHit

RRF_K = 60  # reciprocal-rank-fusion constant (Cormack et al.)
# A keyword match on a distinctive word (stemmed, common words dropped) is stronger evidence than
# a dense neighbour: the keyword list weighs 3x in the fusion (LoCoMo dev set, equal tokens:
# 0.773 -> 0.804 recall; the gain holds from 1.5x to 5x and in each of the 3 conversations).
KEYWORD_WEIGHT = 3.0
# The pages of a period the query names ("in May 2023", "yesterday") weigh as much: the dialogue
# rarely spells out its own date (dev set: the 26 questions naming a date 0.67 -> 0.94 recall).
PERIOD_WEIGHT = 3.0
PERIOD_PAGES = 5000  # pages of a named period read at most (ranked by the query's vector)
# what ranking, the block and the trace read of a page (not its keywords, source, key...)
PAGE_COLUMNS = "id, user_id, user_text, assistant_text, ts, tier, segment_id, next_id, overview"
# what ranking, heat and the trace read of a segment
SEGMENT_COLUMNS = "id, summary, keywords, n_visit, l_interaction, last_visit"


COMMON_TERM_SHARE = 0.05  # a keyword in more than 5% of the user's pages ranks nothing
COMMON_TERM_FLOOR = 50  # ... and in more than this many of them


def mid_term_pages(ctx: Context, user_id: str, short: int | None = None) -> int:
    """How many mid-term pages the user has (`short`: the short-term count, when known)."""
    kept = pages_db.kept_mid_term_count(ctx.store, user_id)  # PostgreSQL: one row
    if kept is not None:
        return kept
    # every page has one vector: the FAISS index counts the user's pages at no cost
    if short is None:
        short = exchanges_db.short_term_count(ctx.store, user_id)
    return max(0, ctx.index.size(user_id, "page") - short)


def distinctive_words(ctx: Context, user_id: str, words: list[str],
                      total: int | None = None,
                      counts: dict[str, int] | None = None) -> list[str]:
    """Keywords not in a large share of the user's `total` mid-term pages (cheap BM25
    pre-filter); `total` is counted when not given; `counts` receives the page counts of the
    words kept where the backend counted them (PostgreSQL), for the keyword search."""
    if not words:
        return []
    total = mid_term_pages(ctx, user_id) if total is None else total
    limit = int(max(COMMON_TERM_FLOOR, COMMON_TERM_SHARE * total))
    common = search.frequent_terms(ctx.store, user_id, words, limit, total, counts)
    return [w for w in words if w not in common]


def retrieve(
    ctx: Context, user_id: str, query: str, record: bool = True, strategy: str = "memoryos",
    token_budget: int | None = None, now: float | None = None,
    short_rows: list[dict[str, Any]] | None = None, budget_cap: int | None = None,
) -> Retrieval:
    """Rank memory for a query and assemble the memory block under the token budget
    (`short_rows`: the user's short-term rows when the caller has read them this turn;
    `budget_cap`: a budget the memory is retrieved at instead, when the usual one is larger,
    such as a small model's compact prompt).

    memoryos: pages by dense vectors over the whole mid-term memory fused (weighted RRF) with
    stemmed keyword matches on the query's distinctive words and the pages of a period the
    query names; each of the best pages brings the page that continues it in its dialogue
    chain; facts and profile rows enter only when they score; segments are ranked for the
    trace and for heat. Any other strategy is the flat baseline (`retrieve_flat`).
    """
    if strategy != "memoryos":
        return retrieve_flat(ctx, user_id, query, record, token_budget, now, short_rows,
                             budget_cap, strategy)
    # the vector namespaces' freshness and the keyword statistics are read once, not per search
    with ctx.store.reads_once():
        return _retrieve(ctx, user_id, query, record, token_budget, now, short_rows,
                         budget_cap)


def retrieve_flat(
    ctx: Context, user_id: str, query: str, record: bool = True,
    token_budget: int | None = None, now: float | None = None,
    short_rows: list[dict[str, Any]] | None = None, budget_cap: int | None = None,
    strategy: str = "flat",
) -> Retrieval:
    """The flat baseline: the product's dense page ranking alone (no segments, keywords,
    named period, continuations, repeats, facts or scored profile), in the same memory block
    under the same budget, traced the same way."""
    with ctx.store.reads_once():
        asked = _ask(ctx, user_id, query, token_budget, now, short_rows, budget_cap, ())
        pages = sorted(asked.fused.values(), key=lambda p: -p["fused"])
        page_rows = exchanges_db.exchanges_by_id(ctx.store, user_id, [p["id"] for p in pages],
                                            PAGE_COLUMNS)
        pages = [p for p in pages if p["id"] in page_rows]
        return _assembled(ctx, user_id, asked, strategy, record, [], pages, page_rows,
                          Facts(user=[], assistant=[]), [], [], None, ())


@dataclass
class _Asked:
    """What both rankings start from: the recent exchanges as shown, the memory budget, the
    query's vector and keywords, and the dense page ranking."""

    query: str
    short_rows: list[dict[str, Any]]
    fitted: list[dict[str, Any]]  # the short-term rows as the prompt shows them
    recent: int
    budget: int
    qvec: Any
    embed_ms: float
    started: float
    qkws: list[str]
    now: float
    depth: int
    short: set[int]
    fused: dict[int, PageHit]
    nearest: dict[str, list[tuple[int, float]]]  # the query's nearest vectors of each kind


def _ask(ctx: Context, user_id: str, query: str, token_budget: int | None, now: float | None,
         short_rows: list[dict[str, Any]] | None, budget_cap: int | None,
         also: Collection[str] = ("segment", "fact")) -> _Asked:
    """The start of both rankings, up to the dense page list; the nearest vectors of the
    kinds `also` names are searched with the pages (PostgreSQL: in one statement)."""
    cfg = ctx.config
    if short_rows is None:
        short_rows = exchanges_db.short_term_rows(ctx.store, user_id)
    # the recent exchanges as the prompt shows them: long sides shortened to leave the memory room
    fitted = fit_recent(short_rows, recent_budget(cfg))
    recent = recent_tokens(fitted)
    budget = memory_budget(cfg.memory_token_budget if token_budget is None else token_budget,
                           cfg.context_token_budget, recent)
    if budget_cap is not None and budget > budget_cap:
        budget = memory_budget(budget_cap, cfg.context_token_budget, recent)
    started = time.perf_counter()
    qvec = ctx.embedder.embed([query])[0]
    embed_ms = (time.perf_counter() - started) * 1000
    qkws = query_keywords(query, 12)
    now = time.time() if now is None else now  # "yesterday" is relative to now
    depth = max(cfg.top_pages * 3, 60)
    fused: dict[int, PageHit] = {}
    # a recent exchange the prompt shows whole is never a page too; one it shows shortened can
    # be (LongMemEval dev: a fact said four long turns ago was in neither the pages nor the
    # recent conversation; recall 0.886 -> 0.919, LoCoMo dev 0.823 -> 0.822)
    whole = {int(r["id"]) for r, shown in zip(short_rows, fitted, strict=True)
             if not shown["shortened"]}
    short = {int(r["id"]) for r in short_rows}
    # short-term rows are in the page index too: as many more pages as may be left out
    wanted = {"page": depth + len(whole), "segment": max(50, cfg.top_segments),
              "fact": cfg.top_facts * 4}
    nearest = ctx.index.search_each(user_id, qvec, {kind: k for kind, k in wanted.items()
                                                    if kind == "page" or kind in also})
    for rank, (pid, score) in enumerate(_flat_hits(nearest["page"], depth, whole), start=1):
        fused[pid] = {"id": pid, "vector_score": round(score, 4), "vector_rank": rank,
                      "fused": 1 / (RRF_K + rank)}
    return _Asked(query, short_rows, fitted, recent, budget, qvec, embed_ms, started, qkws,
                  now, depth, short, fused, nearest)


def _retrieve(
    ctx: Context, user_id: str, query: str, record: bool,
    token_budget: int | None, now: float | None, short_rows: list[dict[str, Any]] | None,
    budget_cap: int | None,
) -> Retrieval:
    """The ranking and assembly of `retrieve`."""
    short_rows, kept, profile_rows = _query_free_reads(ctx, user_id, short_rows)
    asked = _ask(ctx, user_id, query, token_budget, now, short_rows, budget_cap)
    short_rows, fitted, qvec, qkws = asked.short_rows, asked.fitted, asked.qvec, asked.qkws
    now, depth, short, fused = asked.now, asked.depth, asked.short, asked.fused
    segments = _rank_segments(ctx, user_id, asked.nearest["segment"], qkws, now)
    fts_words: list[str] = []
    keyword_hits: list[int] = []
    total = mid_term_pages(ctx, user_id, len(short)) if kept is None else kept
    if qkws:
        counts: dict[str, int] = {}
        fts_words = distinctive_words(ctx, user_id, qkws, total, counts)
        keyword_hits = search.keyword_search(ctx.store, user_id, fts_words, depth, total, counts)
        # shortened recent exchanges holding half the words or more rank first: they are what
        # was just said, and the keyword index holds mid-term pages only
        recent_hits = shortened_by_keywords(short_rows, fitted, fts_words)
        keyword_hits = recent_hits + [pid for pid in keyword_hits if pid not in recent_hits]
    _fuse(fused, keyword_hits, KEYWORD_WEIGHT, "keyword_rank")
    period = named_period(query, now)
    _fuse(fused, _period_hits(ctx, user_id, qvec, period, depth, total), PERIOD_WEIGHT,
          "period_rank")
    pages = sorted(fused.values(), key=lambda p: -p["fused"])
    # the pages that may continue the best ones come with them (with_continuations reads any
    # other it needs)
    page_rows = exchanges_db.exchanges_by_id(
        ctx.store, user_id, [p["id"] for p in pages], PAGE_COLUMNS,
        next_of=[p["id"] for p in pages[:CONTINUED_PAGES]])
    pages = [p for p in pages if p["id"] in page_rows]
    # "my husband" is searched by the name the user gave him too ("Chidi is a pilot")
    named, hits = alias_hits(ctx, user_id, query, (str(r["user_text"] or "") for r in
                                                   [*page_rows.values(), *short_rows]),
                             fts_words, depth, total)
    if hits:
        fts_words += named
        pages = _with_alias_hits(ctx, user_id, fused, hits, page_rows)
    # in a chat with a talkative assistant the pages are ranked by a model learned on the dev
    # chats (answer/fusion.py), not by the fixed weights tuned on chats between people
    pages = learned_order(pages, page_rows, fts_words, RRF_K)
    pages = with_continuations(ctx, user_id, pages, page_rows, PAGE_COLUMNS)
    pages = without_repeats(pages, page_rows)
    profile = [_profile_hit(r) for r in profile_rows]
    facts = question_facts(ctx, user_id, qvec, query, now, asked.nearest["fact"])
    scored_profile = scored_profile_rows(ctx, profile, qvec)
    return _assembled(ctx, user_id, asked, "memoryos", record, segments, pages, page_rows,
                      facts, scored_profile, fts_words, period, qkws, profile)


def _fuse(fused: dict[int, PageHit], hits: list[int], weight: float, field: str) -> None:
    """A ranked list added to the fusion (weighted RRF); a page keeps its first rank."""
    for rank, pid in enumerate(hits, start=1):
        entry = fused.setdefault(pid, PageHit(id=pid, fused=0.0))
        entry.setdefault(field, rank)  # type: ignore[misc]
        entry["fused"] += weight / (RRF_K + rank)


def _with_alias_hits(ctx: Context, user_id: str, fused: dict[int, PageHit], hits: list[int],
                     page_rows: dict[int, dict[str, Any]]) -> list[PageHit]:
    """The ranking with the pages naming an alias as a keyword list of its own (the rows
    of the new ones read into `page_rows`)."""
    _fuse(fused, hits, KEYWORD_WEIGHT, "keyword_rank")
    pages = sorted(fused.values(), key=lambda p: -p["fused"])
    missing = [p["id"] for p in pages if p["id"] not in page_rows]
    if missing:
        page_rows.update(exchanges_db.exchanges_by_id(
            ctx.store, user_id, missing, PAGE_COLUMNS,
            next_of=[p["id"] for p in pages[:CONTINUED_PAGES] if p["id"] in missing]))
    return [p for p in pages if p["id"] in page_rows]


def _query_free_reads(ctx: Context, user_id: str, short_rows: list[dict[str, Any]] | None,
                      ) -> tuple[list[dict[str, Any]], int | None, list[dict[str, Any]]]:
    """What a retrieval reads whatever the query: the short-term rows (unless given), the
    mid-term page count the writes keep (PostgreSQL; None on SQLite) and the profile rows,
    sent together (PostgreSQL: one round trip for the three)."""
    statements: list[tuple[str, tuple[str]]] = [(profile_db.PROFILE_ROWS, (user_id,))]
    if short_rows is None:
        statements.append((exchanges_db.SHORT_TERM_ROWS, (user_id,)))
    counted = ctx.store.dialect == "postgresql"  # SQLite: the FAISS index counts them
    if counted:
        statements.append((pages_db.KEPT_MID_TERM_COUNT, (user_id,)))
    results = ctx.store.query_each(statements)
    kept = int(results[-1][0]["n"]) if counted else None
    return (results[1] if short_rows is None else short_rows), kept, results[0]


def _assembled(
    ctx: Context, user_id: str, asked: _Asked, strategy: str, record: bool,
    segments: list[SegmentHit], pages: list[PageHit], page_rows: dict[int, dict[str, Any]],
    facts: Facts, scored_profile: list[ProfileHit], fts_words: list[str],
    period: tuple[float, float] | None, focus: Collection[str],
    profile: list[ProfileHit] | None = None,
) -> Retrieval:
    """The memory block of the ranked pages, the visits recorded, the Retrieval built (the
    profile rows are read here unless given)."""
    if profile is None:
        profile = [_profile_hit(r) for r in profile_db.profile_rows(ctx.store, user_id)]
    now, short = asked.now, asked.short
    parts, block = assemble(pages, page_rows, scored_profile, facts, asked.budget,
                            ctx.config.top_pages, focus)
    in_prompt = {r["dimension"] for r in scored_profile if r.get("in_prompt")}
    for dim in profile:  # the trace lists every dimension; only these entered the prompt
        dim["in_prompt"] = dim["dimension"] in in_prompt
    used_segments = sorted({page_rows[p["id"]]["segment_id"] for p in pages
                            if p.get("selected") and page_rows[p["id"]]["segment_id"]})
    if record and used_segments:
        with ctx.store.transaction(user_id) as conn:
            record_visits(conn, user_id, used_segments, now)
    for p in pages:
        row = page_rows[p["id"]]
        p["segment_id"], p["timestamp"] = row["segment_id"], row["ts"]
        p["user"], p["assistant"] = row["user_text"], row["assistant_text"]
        p["fused"] = round(p["fused"], 5)
        if p["id"] in short:  # a recent exchange the prompt shows shortened
            p["recent"] = True
        p.setdefault("selected", False)
    return Retrieval(
        query=asked.query, query_keywords=asked.qkws, keyword_search_terms=fts_words,
        period=None if period is None else [  # first and last day searched
            dt.datetime.fromtimestamp(t, tz=dt.UTC).date().isoformat()
            for t in (period[0], period[1] - 1)],
        strategy=strategy,
        segments=segments,
        pages=pages, facts=facts, profile=profile,
        used_segments=used_segments, token_budget=asked.budget, recent_tokens=asked.recent,
        prompt_parts=parts, memory_block=block,
        timings_ms={"embed": round(asked.embed_ms, 2),
                    "total": round((time.perf_counter() - asked.started) * 1000, 2)},
    )


def _profile_hit(row: dict[str, Any]) -> ProfileHit:
    """A profile row as the trace lists it: only its newest signal, the one the block quotes."""
    return ProfileHit(dimension=row["dimension"], family=row["family"], level=row["level"],
                      reason=row["reason"], evidence=row["evidence"],
                      signals=json.loads(row["signals"])[-1:])


def _rank_segments(ctx: Context, user_id: str, hits: list[tuple[int, float]],
                   qkws: list[str], now: float) -> list[SegmentHit]:
    """The best max(2m, 10) segments by cos + Jaccard (the admission score), with heat, of
    the segments nearest to the query (`hits`)."""
    cfg = ctx.config
    seg_rows = segments_db.segments_by_id(ctx.store, user_id, [i for i, _ in hits],
                                          SEGMENT_COLUMNS)
    scored = []
    asked = {x.lower() for x in qkws}  # jaccard(qkws, kws), the query's side made once
    for seg_id, cos in hits:
        row = seg_rows.get(seg_id)
        if row is not None:
            kws, own = _segment_keywords(row["keywords"])
            similar = len(asked & own) / len(asked | own) if asked and own else 0.0
            cos, similar = round(cos, 4), round(similar, 4)
            scored.append((round(cos + similar, 4), seg_id, cos, kws, similar, row))
    scored.sort(key=lambda s: -s[0])  # stable: equal scores keep the vector order; the top m
    # are selected, and only those the trace shows have their heat read
    return [SegmentHit(id=seg_id, cos=cos, summary=row["summary"], keywords=list(kws),
                       jaccard=similar, heat=round(heat_terms(row, cfg, now)["heat"], 4),
                       score=score, selected=rank < cfg.top_segments)
            for rank, (score, seg_id, cos, kws, similar, row)
            in enumerate(scored[:max(cfg.top_segments * 2, 10)])]


_SEGMENT_KEYWORDS: dict[str, tuple[list[str], frozenset[str]]] = {}


def _segment_keywords(text: str) -> tuple[list[str], frozenset[str]]:
    """A segment's keywords column parsed, with the lower-cased set `jaccard` compares: once
    per text (a segment's keywords change only when it is analysed; 50 segments a retrieval)."""
    kept = _SEGMENT_KEYWORDS.get(text)
    if kept is None:
        kws = json.loads(text)
        kept = (kws, frozenset(x.lower() for x in kws))
        if len(_SEGMENT_KEYWORDS) > 20_000:
            _SEGMENT_KEYWORDS.clear()
        _SEGMENT_KEYWORDS[text] = kept
    return kept


def _period_hits(ctx: Context, user_id: str, qvec: Any, period: tuple[float, float] | None,
                 k: int, total: int) -> list[int]:
    """The user's pages inside a named period, closest to the query first.

    A period that holds more than half of the user's `total` mid-term pages tells nothing
    (like a common word) and ranks none.
    """
    if period is None:
        return []
    ids = pages_db.mid_term_ids_between(ctx.store, user_id, period[0], period[1], PERIOD_PAGES)
    if not ids or 2 * len(ids) > total:
        return []
    return [pid for pid, _ in ctx.index.search(user_id, "page", qvec, k, among=ids)]


def _flat_hits(hits: list[tuple[int, float]], k: int,
               short: set[int]) -> list[tuple[int, float]]:
    """The k best mid-term pages of the nearest pages `hits` (short-term rows are in the
    index too)."""
    return [h for h in hits if h[0] not in short][:k]
