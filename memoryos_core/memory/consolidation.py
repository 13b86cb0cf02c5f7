"""Consolidation: pending pages become chained pages of segments, one model call per batch."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..context import Context
from ..errors import ModelError
from ..llm.structured import call_structured
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import pages as pages_db
from ..storage.tables import segments as segments_db
from ..storage.tables import user_state as user_state_db
from ..storage.tables.segments import Segment
from ..text import first_sentences, jaccard, keywords, merge_keywords
from . import grounding
from .eviction import evict_overflow
from .prompts import consolidation_messages, consolidation_schema
from .reports import BatchReport, FiledSegment


@dataclass
class Topic:
    """A group of pages of one batch with its summary and keywords."""

    summary: str
    keywords: list[str]
    pages: list[int]  # positions in the batch, 0-based


@dataclass
class Plan:
    """How one batch is filed: continuity, new overview, topics."""

    continues: bool
    overview: str
    topics: list[Topic]
    mode: str
    notes: list[str] = field(default_factory=list)


def pending_pages(ctx: Context, user_id: str, limit: int | None = None) -> list[dict[str, Any]]:
    """Pages in mid-term memory that no segment holds yet, oldest first."""
    return pages_db.pending_pages(ctx.store, user_id, limit)


def consolidate(
    ctx: Context, user_id: str, force: bool = False,
    progress: Callable[[int, int, str], None] | None = None, waiting: int | None = None,
) -> list[BatchReport]:
    """File pending pages in batches; unless `force`, only full batches. Returns batch reports.

    `waiting`: the pending page count when the caller has just read it.
    """
    reports: list[BatchReport] = []
    batch_size = ctx.config.consolidation_batch
    if waiting is None:
        waiting = pages_db.pending_count(ctx.store, user_id)
    total = -(-waiting // batch_size) if force else waiting // batch_size
    if not total:
        return reports  # no batch to file (unless forced, only full ones): nothing to read
    while True:
        batch = pending_pages(ctx, user_id, batch_size)
        if not batch or (len(batch) < batch_size and not force):
            return reports
        report = _consolidate_batch(ctx, user_id, batch)
        reports.append(report)
        if progress:
            progress(len(reports), max(total, len(reports)), "consolidation")
        if not report["pages"]:
            return reports  # nothing could be filed (another worker took them): stop


def validate_plan(value: Any, n_pages: int, texts: list[str] | None = None) -> Plan:
    """Check a model's plan; repair page ownership so every page is in exactly one topic.

    With the pages' `texts`, a topic summary that echoes the prompt or names too little of its
    own pages is an error (the call is retried, then filed extractively); keywords not found in
    the pages are dropped, and an ungrounded overview is left out.
    """
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    topics_in = value.get("topics")
    if not isinstance(topics_in, list) or not topics_in:
        raise ValueError("'topics' must be a non-empty list")
    topics: list[Topic] = []
    seen: set[int] = set()
    notes = []
    for n, item in enumerate(topics_in[:2], start=1):
        if not isinstance(item, dict):
            raise ValueError(f"topics[{n}] is not an object")
        summary = " ".join(str(item.get("summary") or "").split())
        if not summary:
            raise ValueError(f"topics[{n}].summary is empty")
        kws = [str(k).strip().lower() for k in item.get("keywords") or [] if str(k).strip()]
        own = []
        for p in item.get("pages") or []:
            if isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= n_pages \
                    and p - 1 not in seen:
                own.append(p - 1)
                seen.add(p - 1)
        topics.append(Topic(summary[:400], kws[:6], own))
    missing = [i for i in range(n_pages) if i not in seen]
    if missing:
        notes.append(f"pages {[m + 1 for m in missing]} were not assigned; each given to the"
                     " topic of its nearest neighbour")
        for m in missing:  # a dialogue stays on its topic: join the closest assigned page's
            owner = min((t for t in topics if t.pages),
                        key=lambda t: min(abs(p - m) for p in t.pages), default=topics[0])
            owner.pages.append(m)
    topics = [t for t in topics if t.pages]
    for t in topics:
        t.pages.sort()
    overview = " ".join(str(value.get("overview") or "").split())[:600]
    if texts is not None:
        every = " ".join(texts)
        for n, t in enumerate(topics, start=1):
            own_text = " ".join(texts[i] for i in t.pages)
            grounding.check(t.summary, own_text, grounding.SUMMARY_GROUNDING,
                            f"topic {n} summary")
            t.keywords = [k for k in t.keywords if not grounding.echo(k)
                          and grounding.grounding(k, own_text) == 1.0]
        if overview and not grounding.is_true_to(overview, every, grounding.SUMMARY_GROUNDING):
            notes.append("the model's overview was not grounded in the pages; not stored")
            overview = ""
    return Plan(bool(value.get("continues_previous")), overview, topics, "llm", notes)


def extractive_plan(
    batch: list[dict[str, Any]], vectors: np.ndarray, previous: dict[str, Any] | None,
    previous_vec: np.ndarray | None, overview: str,
) -> Plan:
    """A plan without a chat model: split at the largest topic shift, summarise extractively."""
    continues = False
    if previous is not None and previous_vec is not None:
        gap = float(batch[0]["ts"]) - float(previous["ts"])
        continues = gap <= 3 * 3600 and float(previous_vec @ vectors[0]) >= 0.3
    groups = [list(range(len(batch)))]
    if len(batch) >= 4:
        sims = [float(vectors[i] @ vectors[i + 1]) for i in range(len(batch) - 1)]
        cut = int(np.argmin(sims)) + 1
        if min(sims) < 0.2 and 2 <= cut <= len(batch) - 2:
            groups = [list(range(cut)), list(range(cut, len(batch)))]
    topics = []
    for group in groups:
        summary, kws = extractive_summary([batch[i] for i in group], 6)
        topics.append(Topic(summary, kws, group))
    earlier = [keywords(overview, 6)] if continues else []
    chain_kws = merge_keywords(earlier + [t.keywords for t in topics], 8)
    new_overview = "Conversation about " + ", ".join(chain_kws) if chain_kws else overview
    return Plan(continues, new_overview, topics, "extractive")


def extractive_summary(pages: list[dict[str, Any]], limit: int) -> tuple[str, list[str]]:
    """A summary and up to `limit` keywords of some pages, without a chat model: their main
    words, then the first page's opening sentence."""
    text = " ".join(p["user_text"] + " " + p["assistant_text"] for p in pages)
    kws = keywords(text, limit)
    lead = first_sentences(pages[0]["user_text"] or pages[0]["assistant_text"]) if pages else ""
    return (f"About {', '.join(kws[:4])}: {lead}" if kws else lead) or "Small talk", kws


def _consolidate_batch(ctx: Context, user_id: str, batch: list[dict[str, Any]]) -> BatchReport:
    state = user_state_db.user_state(ctx.store, user_id)
    overview = state["overview"] if state else ""
    previous = None
    if state and state["last_page_id"]:
        last = int(state["last_page_id"])  # the page as a row, like the batch's pages
        previous = exchanges_db.exchanges_by_id(ctx.store, user_id, [last]).get(last)
    ids = [int(p["id"]) for p in batch]
    stored = ctx.index.vectors_of(user_id, "page", ids + ([previous["id"]] if previous else []))
    vectors = np.vstack([stored[i] for i in ids])
    previous_vec = stored.get(previous["id"]) if previous else None
    plan = None
    fallback = None
    if ctx.mode("consolidation") == "llm":
        try:
            plan = call_structured(
                ctx.chat_model(), consolidation_messages(batch, previous, overview),
                consolidation_schema(len(batch)),
                lambda v: validate_plan(v, len(batch), [_page_text(p) for p in batch]),
                retries=ctx.config.structured_retries, max_tokens=400,
                on_call=ctx.recorder(user_id, "consolidation"),
            )
        except ModelError as exc:
            fallback = str(exc)
    if plan is not None and not plan.overview:
        plan.overview = overview  # the model's overview was rejected: keep the last good one
    if plan is None:
        plan = extractive_plan(batch, vectors, previous, previous_vec, overview)
        if fallback:
            ctx.store.add_usage(user_id, "consolidation", 0, 0, fallback=True)
    return _file_plan(ctx, user_id, batch, vectors, previous, plan, fallback)


def _page_text(page: dict[str, Any]) -> str:
    """Both sides of a page, the text a summary of it must be grounded in."""
    return f"{page['user_text']} {page['assistant_text']}"


def _best_segment(
    ctx: Context, user_id: str, topic: Topic, vec: np.ndarray
) -> tuple[Segment | None, float]:
    """The existing segment a topic joins (score >= theta), or None."""
    best, best_score = None, -1.0
    for seg_id, cos in ctx.index.search(user_id, "segment", vec, ctx.config.top_segments):
        seg = segments_db.segment(ctx.store, user_id, seg_id)
        if seg is None:
            continue
        size = pages_db.segment_size(ctx.store, user_id, seg_id)
        if size + len(topic.pages) > ctx.config.segment_max_pages:
            continue  # a full segment no longer takes pages: segments stay topics, not logs
        score = cos + jaccard(topic.keywords, list(seg.keywords))
        if score > best_score:
            best, best_score = seg, score
    if best is not None and best_score >= ctx.config.merge_threshold:
        return best, best_score
    return None, best_score


def merge_summary(old: str, new: str) -> str:
    """A segment summary that keeps its latest three distinct parts."""
    parts = [p for p in old.split(" · ") if p]
    if new not in parts:
        parts.append(new)
    return " · ".join(parts[-3:])


def _file_plan(
    ctx: Context, user_id: str, batch: list[dict[str, Any]], vectors: np.ndarray,
    previous: dict[str, Any] | None, plan: Plan, fallback: str | None,
) -> BatchReport:
    """Write the plan in one transaction: segments, page links, overview, then eviction."""
    topic_vecs = ctx.embedder.embed([f"{t.summary} {' '.join(t.keywords)}" for t in plan.topics])
    targets: list[tuple[Topic, Segment | None, str, list[str], Any, float]] = []
    joined: dict[int, int] = {}  # segment id -> position in targets
    for topic, vec in zip(plan.topics, topic_vecs, strict=True):
        seg, score = _best_segment(ctx, user_id, topic, vec)
        if seg is None:
            targets.append((topic, None, topic.summary, topic.keywords, vec, score))
            continue
        if seg.id in joined:  # both topics join one segment: one write holding both
            k = joined[seg.id]
            first, _, summary, kws, _, best = targets[k]
            merged = Topic(first.summary, first.keywords, sorted(first.pages + topic.pages))
            targets[k] = (merged, seg, merge_summary(summary, topic.summary),
                          merge_keywords([kws, topic.keywords], 15), None, max(best, score))
            continue
        joined[seg.id] = len(targets)
        summary = merge_summary(seg.summary, topic.summary)
        kws = merge_keywords([list(seg.keywords), topic.keywords], 15)
        targets.append((topic, seg, summary, kws, None, score))
    refresh = [i for i, t in enumerate(targets) if t[1] is not None]
    if refresh:
        fresh = ctx.embedder.embed([f"{targets[i][2]} {' '.join(targets[i][3])}" for i in refresh])
        for i, vec in zip(refresh, fresh, strict=True):
            targets[i] = (*targets[i][:4], vec, targets[i][5])

    now = time.time()
    filed_pages: list[int] = []
    filed: list[FiledSegment] = []
    with ctx.store.transaction(user_id) as conn:
        still = pages_db.still_pending(conn, user_id, [p["id"] for p in batch])
        prev_id = previous["id"] if previous is not None and plan.continues else None
        if prev_id is not None and batch[0]["id"] in still:
            pages_db.set_next_page(conn, user_id, prev_id, batch[0]["id"])
        chain = [p for p in batch if p["id"] in still]
        topic_of = {batch[i]["id"]: n for n, t in enumerate(plan.topics) for i in t.pages}
        for i, page in enumerate(chain):
            nxt = chain[i + 1]["id"] if i + 1 < len(chain) else None
            if i and topic_of.get(page["id"]) != topic_of.get(chain[i - 1]["id"]):
                prev_id = None  # a topic split ends the dialogue chain
            if nxt is not None and topic_of.get(nxt) != topic_of.get(page["id"]):
                nxt = None
            pages_db.link_page(conn, user_id, page["id"], prev_id, nxt, plan.overview,
                               keywords(page["user_text"] + " " + page["assistant_text"], 8))
            prev_id = page["id"]
        for topic, seg, summary, kws, vec, score in targets:
            owned = [batch[i]["id"] for i in topic.pages if batch[i]["id"] in still]
            if not owned:
                continue
            if seg is None:
                seg_id = segments_db.create_segment(conn, user_id, summary, kws, len(owned), now)
            else:
                seg_id = seg.id
                segments_db.grow_segment(conn, user_id, seg_id, summary, kws, len(owned), now)
            ctx.store.put_vector(conn, user_id, "segment", seg_id, vec)
            pages_db.assign_pages(conn, user_id, seg_id, owned)
            filed_pages.extend(owned)
            filed.append({"id": seg_id, "joined": seg is not None, "score": round(score, 4),
                          "pages": owned, "summary": summary})
        report: BatchReport = {"mode": plan.mode, "fallback": fallback, "notes": plan.notes,
                               "pages": filed_pages, "segments": filed}
        if chain:
            user_state_db.save_overview(conn, user_id, plan.overview, chain[-1]["id"], now)
            ctx.store.log_event(conn, user_id, "consolidation", cast(dict[str, Any], report))
        evicted = evict_overflow(ctx, conn, user_id, now)
    return {**report, "evicted": evicted}  # the event logs the batch; the report adds eviction
