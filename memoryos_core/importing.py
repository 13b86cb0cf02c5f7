"""Import a dialogue as one unit: parse, validate everything, then admit in one transaction."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from . import importers, versions
from .admission import NewExchange, admit, check_exchange
from .context import Context
from .errors import ImportFormatError, InvalidInput
from .storage import exchanges as rows_db

Progress = Callable[[int, int, str], None]
EMBED_BATCH = 64


def prepare(
    ctx: Context, user_id: str | None, source: Any, fmt: str = "auto",
    speaker: str | None = None, select: str | None = None,
) -> dict[str, Any]:
    """Parse and validate without writing: the exchanges to admit and the items skipped."""
    if fmt not in importers.FORMATS:
        raise ImportFormatError(f"unknown format {fmt!r}; use one of"
                                f" {', '.join(importers.FORMATS)}")
    doc = importers.load_source(source)
    fmt = importers.detect(doc) if fmt == "auto" else fmt
    if fmt == "memoryos-export":
        versions.check_export(doc)
        return {"format": fmt, "document": doc, "exchanges": [], "skipped": [],
                "total": len(doc["exchanges"])}
    try:
        items = importers.parse(doc, fmt, speaker, select)
    except (TypeError, AttributeError, KeyError, ValueError):  # a shape no check foresaw
        raise ImportFormatError(f"the document is not a valid {fmt} dialogue: a field has an"
                                " unexpected type") from None
    known = set()
    if user_id is not None:
        known = rows_db.content_keys(ctx.store, user_id)
    base = time.time()
    ready: list[tuple[NewExchange, importers.Item]] = []
    skipped = []
    seen: dict[tuple[str, str], int] = {}
    for n, item in enumerate(items):
        if item.skip:
            skipped.append({"where": item.where, "reason": item.skip})
            continue
        if not item.user.strip() and not item.assistant.strip():
            skipped.append({"where": item.where, "reason": "both texts are empty"})
            continue
        identity = ""
        if item.ts is None:  # no time in the source: the n-th copy of these texts is the key
            pair = (item.user.strip(), item.assistant.strip())
            seen[pair] = seen.get(pair, 0) + 1
            identity = f"untimed#{seen[pair]}"
        ts = item.ts if item.ts is not None else base + n * 0.001
        try:
            new = check_exchange(ctx.config, item.user, item.assistant, ts,
                                 source=f"import:{fmt} {item.ref}"[:120].strip(),
                                 where=item.where, identity=identity)
        except InvalidInput as exc:
            raise ImportFormatError(str(exc)) from None
        if new.key in known:
            skipped.append({"where": item.where, "reason": "already imported"})
            continue
        known.add(new.key)
        ready.append((new, item))
    return {"format": fmt, "exchanges": ready, "skipped": skipped, "total": len(items)}


def preview(ctx: Context, user_id: str, source: Any, fmt: str = "auto",
            speaker: str | None = None, select: str | None = None,
            limit: int = 20) -> dict[str, Any]:
    """What an import would do, with the first exchanges, writing nothing."""
    plan = prepare(ctx, user_id, source, fmt, speaker, select)
    if plan["format"] == "memoryos-export":  # not an addition: the whole memory is replaced
        return {"format": plan["format"], "total": plan["total"], "to_import": plan["total"],
                "skipped": [], "sample": [], "replaces_memory": True,
                "export_counts": versions.counts(plan["document"])}
    return {
        "format": plan["format"], "total": plan["total"], "to_import": len(plan["exchanges"]),
        "replaces_memory": False,
        "skipped": plan["skipped"],
        "sample": [{"user": n.user_text[:300], "assistant": n.assistant_text[:300], "ts": n.ts,
                    "where": item.where} for n, item in plan["exchanges"][:limit]],
    }


def import_dialogue(
    ctx: Context, user_id: str, source: Any, fmt: str = "auto", speaker: str | None = None,
    progress: Progress | None = None, select: str | None = None,
) -> dict[str, Any]:
    """Admit every valid exchange of a document in one transaction; report what was skipped."""
    plan = prepare(ctx, user_id, source, fmt, speaker, select)
    if plan["format"] == "memoryos-export":
        result = versions.replace_with_export(ctx, user_id, plan["document"])
        return {"format": plan["format"], "total": plan["total"],
                "imported": plan["total"], "skipped": [], **result}
    ready = plan["exchanges"]
    total = len(ready)
    vectors: list[Any] = []
    for start in range(0, total, EMBED_BATCH):
        chunk = ready[start : start + EMBED_BATCH]
        vectors.extend(ctx.embedder.embed([n.page_text for n, _ in chunk]))
        if progress:
            progress(min(start + EMBED_BATCH, total), total, "embedding")
    ids: list[int] = []
    refs: dict[int, str] = {}
    with ctx.store.transaction(user_id) as conn:
        for (new, item), vec in zip(ready, vectors, strict=True):
            exchange_id, _ = admit(conn, ctx.store, ctx.config, user_id, new, vec)
            ids.append(exchange_id)
            if item.ref:
                refs[exchange_id] = item.ref
        ctx.store.log_event(conn, user_id, "import", {
            "format": plan["format"], "imported": total, "skipped": len(plan["skipped"])})
    if progress:
        progress(total, total, "stored")
    return {"format": plan["format"], "total": plan["total"], "imported": total,
            "skipped": plan["skipped"], "exchange_ids": ids, "refs": refs}
