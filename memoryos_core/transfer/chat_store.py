"""Write a recognised chat export: batches of whole conversations, one transaction each.

The whole file is read once before anything is written, so a file found cut off or broken past
what the preview read stores nothing. A crash keeps whole conversations only and a second run
adds what is missing (the content keys say what is in); a question an older export left
unanswered is completed, not stored twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..context import Context
from ..memory import retrieval_text
from ..memory.admission import admit
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import unanswered as unanswered_db
from ..text import normalise
from . import versions
from .chat_import import (
    LISTED,
    Read,
    Tally,
    conversations,
    cuts,
    export_size,
    new_facts,
    read,
    source_of,
)
from .classify import MEMORY_FORMATS, Recognised

Progress = Callable[[int, int, str], None]
BATCH = 256  # exchanges embedded and written per transaction
EMBED_BATCH = 64


def _embed(ctx: Context, texts: list[str]) -> list[Any]:
    out: list[Any] = []
    for start in range(0, len(texts), EMBED_BATCH):
        out.extend(ctx.embedder.embed(texts[start:start + EMBED_BATCH]))
    return out


def _write(ctx: Context, user_id: str, fmt: str, batch: list[Read], ids: list[int],
           keys: dict[str, int]) -> None:
    """One transaction: the batch's new exchanges, and the answers to stored questions."""
    answers = [(new, exchange_id) for _, _, _, got in batch for new, exchange_id in got]
    # a conversation partly imported before (a newer export) continues there
    targets: list[int | str] = [(before and exchanges_db.conversation_by_source(
        ctx.store, user_id, source_of(fmt, conv))) or "new" for conv, _, before, _ in batch]
    texts = [t for (_, fresh, _, _), target in zip(batch, targets, strict=True)
             for t in retrieval_text.import_texts(
                 ctx.store, user_id, fresh, target if isinstance(target, int) else None)]
    texts += [retrieval_text.chat_text(ctx.store, user_id, new, exchange_id)
              for new, exchange_id in answers]
    vectors = iter(_embed(ctx, texts))
    with ctx.store.transaction(user_id) as conn:
        for (_, fresh, _, _), target in zip(batch, targets, strict=True):
            for new in fresh:
                exchange_id, _ = admit(conn, ctx.store, ctx.config, user_id,
                                       replace(new, conversation=target), next(vectors))
                target = target if isinstance(target, int) else exchange_id
                ids.append(exchange_id)
                keys[new.key] = exchange_id
        for new, exchange_id in answers:
            vec = next(vectors)
            if unanswered_db.complete(conn, user_id, exchange_id, new.assistant_text, new.key):
                ctx.store.put_vector(conn, user_id, "page", exchange_id, vec)
                keys[new.key] = exchange_id


def _facts(ctx: Context, user_id: str, rec: Recognised) -> tuple[int, int]:
    """The saved memories as imported facts: (imported, found)."""
    facts, found = new_facts(ctx, user_id, rec)
    if facts:
        vectors = _embed(ctx, [f.text for f in facts])
        now = time.time()
        with ctx.store.transaction(user_id) as conn:
            for fact, vec in zip(facts, vectors, strict=True):
                fact_id = facts_db.insert_imported_fact(
                    conn, user_id, fact.kind, fact.text, normalise(fact.text), fact.ts or now,
                    now, origin=fact.origin)
                ctx.store.put_vector(conn, user_id, "fact", fact_id, vec)
    return len(facts), found


def check_whole(ctx: Context, rec: Recognised, progress: Progress | None = None) -> None:
    """Read the whole export, writing nothing: a file cut off or broken anywhere raises its
    ImportFormatError here, before the first batch is stored (a preview reads 5 s at most)."""
    size = export_size(rec)
    seen = [0]
    talks = () if rec.format in MEMORY_FORMATS else conversations(rec, seen)  # facts only
    for n, _ in enumerate(talks, start=1):
        if progress and n % 200 == 0:
            progress(min(seen[0], size) // 1024, size // 1024, "checking")
    new_facts(ctx, None, rec)  # the saved memories are read whole too (no user: no lookup)


def run(ctx: Context, user_id: str, rec: Recognised, progress: Progress | None = None,
        ) -> dict[str, Any]:
    """Import the export: conversations in batches of whole ones, saved memories as facts."""
    check_whole(ctx, rec, progress)  # nothing stored of a file that turns out truncated or broken
    # the memory before, as a version to restore: every import can be undone, the first one
    # into an empty memory too (it is the one most likely to be wrong)
    saved = versions.snapshot(ctx, user_id, f"before import ({rec.label})")["version"]
    tally = Tally()
    size = export_size(rec)
    seen = [0]
    ids: list[int] = []
    keys: dict[str, int] = {}
    batch: list[Read] = []
    waiting = 0
    for got in read(ctx, user_id, rec, tally, seen):
        if got[1] or got[3]:
            batch.append(got)
            waiting += len(got[1]) + len(got[3])
        if waiting >= BATCH:
            _write(ctx, user_id, rec.format, batch, ids, keys)
            batch, waiting = [], 0
            if progress:
                progress(min(seen[0], size) // 1024, size // 1024, "reading")
    if batch:
        _write(ctx, user_id, rec.format, batch, ids, keys)
        if progress:
            progress(min(seen[0], size) // 1024, size // 1024, "reading")
    imported_facts, found = _facts(ctx, user_id, rec)
    with ctx.store.transaction(user_id) as conn:
        ctx.store.log_event(conn, user_id, "import", {
            "format": rec.format, "imported": len(ids), "skipped": len(tally.skipped),
            "conversations": tally.conversations, "abandoned": tally.abandoned,
            "completed": tally.completed, "facts": imported_facts, "saved_as": saved})
    if progress:
        progress(size, size, "stored")
    return {"format": rec.format, "total": tally.total, "imported": len(ids),
            "skipped": tally.skipped[:LISTED], "cut": cuts(tally.cut, keys),
            "max_text_chars": ctx.config.max_text_chars,
            "chosen": None, "exchange_ids": ids, "refs": {}, "saved_as": saved,
            **tally.counts(rec), "facts": {"found": found, "imported": imported_facts}}
