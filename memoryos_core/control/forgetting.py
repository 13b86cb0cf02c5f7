"""Forget one exchange (from memory, or from memory, every version and every file) and erase a
whole user.

One transformation serves the live memory and each stored version: it works on a memory
document (versions.export_document's shape), and the live memory is written back from it as a
restore does. What "quotes" the exchange: its exact texts, or a word of it that no other
exchange of that memory holds (so a password pasted once is found in a summary, a keyword
list, a chain overview, a fact, a trace or an event, while words the rest of the memory also
uses stay).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from ..context import Context
from ..errors import NotFound
from ..memory.consolidation import extractive_summary
from ..storage import erasure, every_table
from ..storage.tables import events as events_db
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import jobs as jobs_db
from ..storage.tables import snapshots as snapshots_db
from ..storage.tables import uploads as uploads_db
from ..text import STOP_WORDS, words
from ..transfer import versions

REDACTED = "…"
SEGMENT_KEYWORDS = 15  # as many as consolidation keeps for a segment (merge_keywords)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)  # text.words' pattern


@dataclass
class Quote:
    """What quoting a forgotten exchange looks like: its texts and its own words."""

    ids: set[int]
    texts: list[str]
    gone: set[str]

    def found_in(self, value: Any) -> bool:
        """True when any string inside `value` (a JSON text is read first) quotes it."""
        for text in _strings(value):
            if any(t in text for t in self.texts) or self.gone.intersection(words(text)):
                return True
        return False

    def redact(self, text: str) -> str:
        """The text with each of the exchange's own words replaced by an ellipsis."""
        if not self.gone:
            return text
        return _WORD.sub(lambda m: REDACTED if words(m.group())[0] in self.gone else m.group(),
                         text)


class Forgotten(TypedDict):
    """What forgetting one exchange took out."""

    forgotten: int
    everywhere: bool
    saved_as: int | None  # the version saved first (None with `everywhere`)
    exchanges_removed: list[int]
    facts_removed: list[int]
    profile_removed: list[str]
    segments_removed: list[int]
    traces_removed: int
    versions_rewritten: list[int]
    files_scrubbed: bool


class Erased(TypedDict):
    deleted: dict[str, int]  # rows deleted per table
    files_scrubbed: bool


@dataclass
class Removed:
    """What forgetting took out of one memory document."""

    exchanges: list[int] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    profile: list[str] = field(default_factory=list)
    segments: list[int] = field(default_factory=list)
    traces: int = 0


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a value; a string holding JSON is decoded first (escapes undone)."""
    if isinstance(value, str):
        if value[:1] in ("{", "["):
            try:
                yield from _strings(json.loads(value))
                return
            except ValueError:
                pass
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _ids(value: Any) -> list[Any]:
    """A JSON list (of ids, keywords, signals) as stored (text) or already decoded."""
    return list(json.loads(value) if isinstance(value, str) else value or [])


def quote_of(targets: list[dict[str, Any]], others: list[dict[str, Any]]) -> Quote:
    """How the target exchanges are quoted, given the exchanges that stay."""
    kept: set[str] = set()
    for row in others:
        kept.update(words(f"{row['user_text']} {row['assistant_text']}"))
    gone = {w for row in targets for w in words(f"{row['user_text']} {row['assistant_text']}")
            if len(w) >= 3 and w not in STOP_WORDS and w not in kept}
    texts = [t.strip() for row in targets for t in (row["user_text"], row["assistant_text"])
             if len(t.strip()) >= 8]
    return Quote({int(r["id"]) for r in targets}, texts, gone)


def forget_in_document(ctx: Context, doc: dict[str, Any], exchange_id: int,
                       content_key: str) -> tuple[Removed, Quote] | None:
    """Take an exchange (by id, or the same content under another id) out of a memory
    document, in place; None when the document does not hold it."""
    targets = [e for e in doc["exchanges"]
               if e["id"] == exchange_id or e["content_key"] == content_key]
    if not targets:
        return None
    ids = {int(e["id"]) for e in targets}
    others = [e for e in doc["exchanges"] if e["id"] not in ids]
    quote = quote_of(targets, others)
    removed = Removed(exchanges=sorted(ids))
    for target in targets:  # neighbours link past it (a target's own links are updated too)
        for row in doc["exchanges"]:
            if row["next_id"] == target["id"]:
                row["next_id"] = target["next_id"]
            if row["prev_id"] == target["id"]:
                row["prev_id"] = target["prev_id"]
    state = doc.get("user_state") or {}
    if state.get("last_page_id") in ids:
        state["last_page_id"] = next(t["prev_id"] for t in targets
                                     if t["id"] == state["last_page_id"])
    if state:
        state["overview"] = quote.redact(state.get("overview") or "")
    doc["exchanges"] = others
    for row in others:
        row["overview"] = quote.redact(row["overview"])
        row["keywords"] = json.dumps([k for k in _ids(row["keywords"]) if not quote.found_in(k)])
    _forget_in_segments(ctx, doc, targets, quote, removed)
    _forget_in_long_term(doc, quote, removed)
    traces = doc.get("traces", [])
    doc["traces"] = [t for t in traces if t["exchange_id"] not in ids
                     and not quote.found_in(t["trace"]) and not _trace_uses(t["trace"], ids)]
    removed.traces = len(traces) - len(doc["traces"])
    return removed, quote


def _trace_uses(trace: str, ids: set[int]) -> bool:
    """True when a stored trace lists one of the pages among those it considered."""
    # a scan of the raw JSON, not answer.types.read_trace: forgetting must find the page in a
    # trace of any version, a newer one included, rather than refuse it
    try:
        pages = json.loads(trace).get("pages") or []
    except (ValueError, AttributeError):
        return False
    return any(isinstance(p, dict) and p.get("id") in ids for p in pages)


def _forget_in_segments(ctx: Context, doc: dict[str, Any], targets: list[dict[str, Any]],
                        quote: Quote, removed: Removed) -> None:
    """Segments left empty go; a segment that held the exchange, or whose summary or keywords
    quote it, is summarised again from the pages it has left (extractively: forgetting asks
    no model), and its vector made again from the new text."""
    held = {t["segment_id"] for t in targets if t["segment_id"]}
    still = {e["segment_id"] for e in doc["exchanges"]}
    removed.segments = sorted(s for s in held if s not in still)
    doc["segments"] = [s for s in doc["segments"] if s["id"] not in removed.segments]
    changed = []
    for seg in doc["segments"]:
        summary, kws = seg["summary"], _ids(seg["keywords"])
        if seg["id"] in held or quote.found_in(summary) or any(quote.found_in(k) for k in kws):
            # a summary with the exchange's words masked ("About …, …: My … was …") says
            # nothing: the pages left say what the segment is about now
            left = sorted((e for e in doc["exchanges"] if e["segment_id"] == seg["id"]),
                          key=lambda e: (e.get("ts") or 0, e["id"]))
            summary, kws = extractive_summary(left, SEGMENT_KEYWORDS)
            # the pages left use none of the exchange's own words; a duplicate text would
            summary = quote.redact(summary)
            kws = [k for k in kws if not quote.found_in(k)]
        if summary != seg["summary"] or kws != _ids(seg["keywords"]):
            seg["summary"], seg["keywords"] = summary, json.dumps(kws)
            changed.append((seg, kws))
    if changed:
        vecs = ctx.embedder.embed([f"{s['summary']} {' '.join(k)}" for s, k in changed])
        for (seg, _), vec in zip(changed, vecs, strict=True):
            seg["vector"] = base64.b64encode(np.asarray(vec, dtype=np.float32).tobytes()).decode()


def _forget_in_long_term(doc: dict[str, Any], quote: Quote, removed: Removed) -> None:
    """Facts and profile rows lose the exchange as evidence; those that rested on it alone,
    or quote it, go (unless the user wrote them)."""
    kept = []
    for fact in doc["facts"]:
        sources = _ids(fact["sources"])
        left = [s for s in sources if s not in quote.ids]
        mine = bool(fact.get("by_user"))
        if not mine and ((len(left) < len(sources) and not left) or quote.found_in(fact["text"])):
            removed.facts.append(int(fact["id"]))
            continue
        fact["sources"] = json.dumps(left)
        kept.append(fact)
    for fact in kept:  # a fact replaced by a removed one holds again
        if fact.get("superseded_by") in removed.facts:
            fact["superseded_by"], fact["valid_until"] = None, None
    doc["facts"] = kept
    profile = []
    for dim in doc["profile"]:
        evidence = _ids(dim["evidence"])
        left = [e for e in evidence if e not in quote.ids]
        if not dim.get("by_user") and len(left) < len(evidence) and not left:
            removed.profile.append(str(dim["dimension"]))
            continue
        dim["evidence"] = json.dumps(left)
        if "signals" in dim:  # the user's sentences that named an interest, with their page
            said = [x for x in _ids(dim["signals"]) if isinstance(x, dict)
                    and x.get("page") not in quote.ids and not quote.found_in(x.get("text", ""))]
            dim["signals"] = json.dumps(said, ensure_ascii=False)
        if not dim.get("by_user"):
            dim["reason"] = quote.redact(dim["reason"])
        profile.append(dim)
    doc["profile"] = profile


def forget(ctx: Context, user_id: str, exchange_id: int, everywhere: bool) -> Forgotten:
    """Take one exchange out of the user's memory in one transaction.

    Without `everywhere` the memory before is saved as a version first (so it can be undone).
    With it, every stored version is rewritten without it, events, job results and kept
    uploads that quote it go, and the store's files are scrubbed (erasure.scrub).
    """
    row = exchanges_db.exchange_row(ctx.store, user_id, exchange_id)
    if row is None:
        raise NotFound(f"no page {exchange_id}")
    key = row.content_key
    saved = None
    rewritten: list[int] = []
    with ctx.store.transaction(user_id) as conn:
        if not everywhere:
            saved = versions.snapshot(ctx, user_id, f"before forgetting exchange {exchange_id}")
        doc = versions.working_document(ctx, user_id)
        done = forget_in_document(ctx, doc, exchange_id, key)
        if done is None:  # gone meanwhile
            raise NotFound(f"no page {exchange_id}")
        removed, quote = done
        every_table.wipe_memory(conn, user_id)
        versions.load_document(ctx, conn, user_id, doc, keep_ids=True)
        quotes = [quote]
        if everywhere:
            for version, old in snapshots_db.user_snapshot_documents(conn, user_id):
                result = forget_in_document(ctx, old, exchange_id, key)
                if result is not None:
                    snapshots_db.rewrite_snapshot(conn, user_id, version, versions.counts(old), old)
                    rewritten.append(version)
                    quotes.append(result[1])
            _forget_in_jobs(conn, user_id, quotes)
        events_db.delete_events(conn, user_id, [i for i, detail in events_db.user_events(conn, user_id)
                                              if any(q.found_in(detail) for q in quotes)])
        ctx.store.log_event(conn, user_id, "forget", {
            "exchange": exchange_id, "everywhere": everywhere,
            "saved_as": saved["version"] if saved else None, "facts_removed": len(removed.facts),
            "profile_removed": len(removed.profile), "segments_removed": len(removed.segments),
            "traces_removed": removed.traces, "versions_rewritten": len(rewritten)})
    ctx.index.forget(user_id)
    scrub = erasure.scrub(ctx.store) if everywhere else None
    return Forgotten(forgotten=exchange_id, everywhere=everywhere,
                     saved_as=saved["version"] if saved else None,
                     exchanges_removed=removed.exchanges, facts_removed=removed.facts,
                     profile_removed=removed.profile, segments_removed=removed.segments,
                     traces_removed=removed.traces, versions_rewritten=rewritten,
                     files_scrubbed=bool(scrub and scrub["scrubbed"]))


def _forget_in_jobs(conn: Any, user_id: str, quotes: list[Quote]) -> None:
    """Finished jobs' results and kept uploads that quote the exchange go."""
    for job_id, result in jobs_db.finished_job_results(conn, user_id):
        if any(q.found_in(result) for q in quotes):
            jobs_db.replace_job_result(conn, user_id, job_id, {
                "redacted": "this result quoted an exchange that was forgotten"})
    for token, data in uploads_db.user_uploads(conn, user_id):
        text = data.decode("utf-8", "replace")
        if any(q.found_in(text) for q in quotes):
            uploads_db.delete_upload(conn, user_id, token)


def erase_user(ctx: Context, user_id: str) -> Erased:
    """Delete every row of the user (memory, versions, events, jobs, uploads, usage, vectors)
    and scrub the store's files; other users' rows are untouched."""
    with ctx.store.transaction(user_id) as conn:
        deleted = every_table.delete_user_rows(conn, user_id)
    ctx.index.forget(user_id)
    scrub = erasure.scrub(ctx.store)
    return Erased(deleted=deleted, files_scrubbed=bool(scrub["scrubbed"]))
