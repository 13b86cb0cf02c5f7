"""Versions: snapshots of a user's whole memory, restore, clear, diff, export documents."""

from __future__ import annotations

import base64
import json
import time
from typing import Any, TypedDict, cast

import numpy as np

from ..context import Context
from ..errors import ImportFormatError, NotFound
from ..memory import cleanup
from ..storage import every_table
from ..storage.db import Connection
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import notes as notes_db
from ..storage.tables import pages as pages_db
from ..storage.tables import profile as profile_db
from ..storage.tables import segments as segments_db
from ..storage.tables import snapshots as snapshots_db
from ..storage.tables import traces as traces_db
from ..storage.tables import user_state as user_state_db

EXPORT_FORMAT = "memoryos-export"
EXPORT_VERSION = 1


class UserStateRow(TypedDict):
    overview: str
    last_page_id: int | None


class ExportDocument(TypedDict):
    """The user's whole memory as one document; its rows are the stored columns as read
    (open records: their columns are the storage's, checked by `check_export` on import)."""

    format: str
    version: int
    exported_at: float
    user_id: str
    embedder: str
    exchanges: list[dict[str, Any]]
    segments: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    profile: list[dict[str, Any]]
    user_state: UserStateRow | dict[str, Any]
    traces: list[dict[str, Any]]  # exchange_id, created_at, trace (the stored JSON text)
    notes: list[dict[str, Any]]


Counts = dict[str, int]  # sizes per part (short_term, pages, segments, facts, profile)


class Version(TypedDict):
    """One stored version, without its document."""

    version: int
    label: str
    created_at: float
    counts: Counts


class Restored(TypedDict):
    restored: int
    saved_as: int  # the version the replaced memory was saved as
    counts: Counts


class Saved(TypedDict):
    """A memory replaced or emptied: the version it was saved as, and the sizes."""

    saved_as: int
    counts: Counts


class Item(TypedDict):
    id: Any  # a row id, or a profile dimension's name
    text: str


class ChangedItem(Item):
    fields: list[str]


class Changes(TypedDict):
    added: list[Item]
    removed: list[Item]
    changed: list[ChangedItem]


# "from" is a keyword: the functional form
Diff = TypedDict("Diff", {"from": int, "to": int, "exchanges": Changes, "segments": Changes,
                          "facts": Changes, "profile": Changes})


def _b64(vec: np.ndarray | None) -> str | None:
    return None if vec is None else base64.b64encode(vec.astype(np.float32).tobytes()).decode()


def _unb64(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32)


def export_document(ctx: Context, user_id: str) -> ExportDocument:
    """The user's whole memory (rows, vectors, traces, chain state) as one JSON document,
    built whole: JSON-ready as it leaves the engine (vectors as base64 text, a trace as the
    text it was stored as)."""
    memory = every_table.memory_rows(ctx.store, user_id)
    with_vectors = {part: _with_vectors(ctx, kind, memory[part]) for kind, part in
                    (("page", "exchanges"), ("segment", "segments"), ("fact", "facts"))}
    return {
        "format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": time.time(),
        "user_id": user_id, "embedder": ctx.embedder.name,
        "exchanges": with_vectors["exchanges"], "segments": with_vectors["segments"],
        "facts": with_vectors["facts"], "profile": memory["profile"],
        "user_state": memory["user_state"] or {"overview": "", "last_page_id": None},
        "traces": memory["traces"], "notes": memory["notes"],
    }


def _with_vectors(ctx: Context, kind: str, part: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of one part, each with its vector (base64 text; None for a missing one)."""
    vecs = ctx.store.get_vectors(kind, [r["id"] for r in part])
    return [{**row, "vector": _b64(vecs.get(row["id"]))} for row in part]


def working_document(ctx: Context, user_id: str) -> dict[str, Any]:
    """The export document as an open dict, for the code that stores or rewrites it."""
    return cast(dict[str, Any], export_document(ctx, user_id))


def counts(doc: ExportDocument | dict[str, Any]) -> Counts:
    """Sizes of a memory document, as versions list them."""
    ex = doc["exchanges"]
    return {
        "short_term": sum(1 for e in ex if e["tier"] == "short"),
        "pages": sum(1 for e in ex if e["tier"] == "mid"),
        "segments": len(doc["segments"]),
        "user_facts": sum(1 for f in doc["facts"] if f["kind"] == "user"),
        "assistant_facts": sum(1 for f in doc["facts"] if f["kind"] == "assistant"),
        "profile": len(doc["profile"]),
    }


def snapshot(ctx: Context, user_id: str, label: str) -> Version:
    """Store the current memory as the next version number; prune beyond retention.

    The memory is read inside the write transaction, so the version is exactly what was
    current; a caller's outer transaction (clear, restore) makes snapshot and change one step.
    """
    with ctx.store.transaction(user_id) as conn:
        doc = working_document(ctx, user_id)
        sizes = counts(doc)
        version = snapshots_db.next_version(conn, user_id)
        now = time.time()
        snapshots_db.insert_snapshot(conn, user_id, version, label[:200], now, sizes, doc)
        snapshots_db.prune_snapshots(conn, user_id, version - max(1, ctx.config.version_retention))
        ctx.store.log_event(conn, user_id, "snapshot", {"version": version, "label": label})
    return {"version": version, "label": label, "created_at": now, "counts": sizes}


def list_versions(ctx: Context, user_id: str) -> list[Version]:
    """Versions newest first, without their documents."""
    return [{"version": v.version, "label": v.label, "created_at": v.created_at,
             "counts": v.counts} for v in snapshots_db.snapshot_list(ctx.store, user_id)]


def load_version(ctx: Context, user_id: str, version: int) -> dict[str, Any]:
    """The stored document of one version."""
    doc = snapshots_db.snapshot_document(ctx.store, user_id, int(version))
    if doc is None:
        raise NotFound(f"version {version} does not exist")
    return doc


def delete_version(ctx: Context, user_id: str, version: int) -> None:
    """Delete one version."""
    with ctx.store.transaction(user_id) as conn:
        if not snapshots_db.delete_snapshot(conn, user_id, int(version)):
            raise NotFound(f"version {version} does not exist")


def load_document(
    ctx: Context, conn: Connection, user_id: str, doc: dict[str, Any], keep_ids: bool
) -> None:
    """Write a memory document as the user's memory (ids kept, or remapped for another user)."""
    seg_map: dict[int, int] = {}
    for seg in doc["segments"]:
        new_id = segments_db.restore_segment(conn, user_id, seg, keep_ids)
        seg_map[seg["id"]] = new_id
        if seg.get("vector"):
            ctx.store.put_vector(conn, user_id, "segment", new_id, _unb64(seg["vector"]))
    ex_map: dict[Any, int] = {}
    for ex in doc["exchanges"]:
        row = dict(ex, segment_id=seg_map.get(ex["segment_id"]) if ex["segment_id"] else None)
        new_id = exchanges_db.restore_exchange(conn, user_id, row, keep_ids)
        ex_map[ex["id"]] = new_id
        if ex.get("vector"):
            ctx.store.put_vector(conn, user_id, "page", new_id, _unb64(ex["vector"]))
    if not keep_ids:  # chain links and conversations point at the new ids
        for old, new in ex_map.items():
            src = next(e for e in doc["exchanges"] if e["id"] == old)
            pages_db.set_chain_links(conn, user_id, new, ex_map.get(src["prev_id"]),
                                 ex_map.get(src["next_id"]))
            if src.get("conversation_id") in ex_map:
                exchanges_db.set_conversation(conn, user_id, new, ex_map[src["conversation_id"]])
    fact_map: dict[Any, int] = {}
    for fact in doc["facts"]:
        sources = (json.loads(fact["sources"]) if isinstance(fact["sources"], str)
                   else fact["sources"])
        sources = sources if keep_ids else [ex_map.get(s, s) for s in sources]
        fact_id = facts_db.restore_fact(conn, user_id, dict(fact, sources=json.dumps(sources)), keep_ids)
        fact_map[fact["id"]] = fact_id
        if fact.get("vector"):
            ctx.store.put_vector(conn, user_id, "fact", fact_id, _unb64(fact["vector"]))
    for fact in doc["facts"]:  # a replaced fact points at its successor, inserted by now
        if fact.get("superseded_by") in fact_map:
            facts_db.set_fact_successor(conn, user_id, fact_map[fact["id"]],
                                    fact_map[fact["superseded_by"]])
    for dim in doc["profile"]:
        evidence = (json.loads(dim["evidence"]) if isinstance(dim["evidence"], str)
                    else dim["evidence"])
        evidence = evidence if keep_ids else [ex_map.get(e, e) for e in evidence]
        said = dim.get("signals", "[]")  # absent in documents older than signals
        said = json.loads(said) if isinstance(said, str) else said
        said = said if keep_ids else [dict(s, page=ex_map.get(s["page"], s["page"]))
                                      for s in said]
        profile_db.restore_profile_dimension(conn, user_id, dict(
            dim, evidence=json.dumps(evidence), signals=json.dumps(said, ensure_ascii=False)))
    st = doc.get("user_state") or {}
    last = st.get("last_page_id")
    user_state_db.restore_user_state(conn, user_id, st.get("overview") or "",
                           last if keep_ids or last is None else ex_map.get(last), time.time())
    for note in doc.get("notes", []):  # absent in documents older than notes
        notes_db.insert_note(conn, user_id, note["kind"], note["text"], note.get("source", ""),
                         note["created_at"])
    for tr in doc.get("traces", []):
        target = tr["exchange_id"] if keep_ids else ex_map.get(tr["exchange_id"])
        if target is not None:
            traces_db.insert_trace(conn, user_id, target, tr["created_at"], tr["trace"])


def restore(ctx: Context, user_id: str, version: int) -> Restored:
    """Snapshot "before restore", then replace the memory with the version, in one transaction."""
    doc = load_version(ctx, user_id, version)
    with ctx.store.transaction(user_id) as conn:  # snapshot and wipe: one transaction, no gap
        before = snapshot(ctx, user_id, f"before restore of version {version}")
        every_table.wipe_memory(conn, user_id)
        load_document(ctx, conn, user_id, doc, keep_ids=True)
        # a version of an earlier release may hold the app's text: cleaned as at opening
        cleanup.clean_rows(ctx.store, ctx.embedder, conn, user_id)
        ctx.store.log_event(conn, user_id, "restore", {"version": version,
                                                       "saved_as": before["version"]})
    ctx.index.forget(user_id)  # the vector cache files held the replaced memory's vectors
    return {"restored": version, "saved_as": before["version"], "counts": counts(doc)}


def clear(ctx: Context, user_id: str) -> Saved:
    """Snapshot "before clear", then empty the user's memory."""
    with ctx.store.transaction(user_id) as conn:  # snapshot and wipe: one transaction, no gap
        before = snapshot(ctx, user_id, "before clear")
        every_table.wipe_memory(conn, user_id)
        ctx.store.log_event(conn, user_id, "clear", {"saved_as": before["version"]})
    ctx.index.forget(user_id)  # the vector cache files held the cleared vectors
    return {"saved_as": before["version"], "counts": before["counts"]}


def replace_with_export(ctx: Context, user_id: str, doc: dict[str, Any]) -> Saved:
    """Make an export document (of any user) this user's memory; the old one is kept as a version."""
    check_export(doc)
    with ctx.store.transaction(user_id) as conn:
        before = snapshot(ctx, user_id, "before import of an export")
        every_table.wipe_memory(conn, user_id)
        load_document(ctx, conn, user_id, doc, keep_ids=False)
        ctx.store.log_event(conn, user_id, "import_export", {"saved_as": before["version"],
                                                            "counts": counts(doc)})
    ctx.index.forget(user_id)  # the vector cache files held the replaced memory's vectors
    return {"saved_as": before["version"], "counts": counts(doc)}


def check_export(doc: Any) -> None:
    """Reject an export document that is not ours or is missing parts, naming what is wrong."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise ImportFormatError("not a memoryos export document (field 'format')")
    if doc.get("version") != EXPORT_VERSION:
        raise ImportFormatError(f"export version {doc.get('version')!r} is not supported")
    required = {"exchanges": exchanges_db.EXCHANGE_COLUMNS, "segments": segments_db.SEGMENT_COLUMNS,
                "facts": facts_db.FACT_COLUMNS, "profile": profile_db.PROFILE_COLUMNS}
    for key, columns in required.items():
        items = doc.get(key)
        if not isinstance(items, list):
            raise ImportFormatError(f"export field '{key}' must be a list")
        for n, item in enumerate(items):
            missing = [c for c in columns if not isinstance(item, dict) or c not in item]
            if missing:
                raise ImportFormatError(f"{key}[{n}] lacks field '{missing[0]}'")


def diff(ctx: Context, user_id: str, a: int, b: int) -> Diff:
    """Added, removed and changed items from version a to version b (0 means the current state)."""
    docs = [working_document(ctx, user_id) if v == 0 else load_version(ctx, user_id, v)
            for v in (a, b)]

    def compare(key: str, ident: str, fields: tuple[str, ...], label: str) -> Changes:
        old = {r[ident]: r for r in docs[0][key]}
        new = {r[ident]: r for r in docs[1][key]}
        return {
            "added": [{"id": k, "text": str(new[k][label])[:200]} for k in new if k not in old],
            "removed": [{"id": k, "text": str(old[k][label])[:200]} for k in old if k not in new],
            "changed": [{"id": k, "fields": [f for f in fields if old[k].get(f) != new[k].get(f)],
                         "text": str(new[k][label])[:200]}
                        for k in new if k in old
                        and any(old[k].get(f) != new[k].get(f) for f in fields)],
        }

    return {
        "from": a, "to": b,
        "exchanges": compare("exchanges", "id", ("tier", "segment_id", "analysed"), "user_text"),
        "segments": compare("segments", "id", ("summary", "keywords", "n_visit",
                                               "l_interaction"), "summary"),
        "facts": compare("facts", "id", ("text", "sources", "valid_until"), "text"),
        "profile": compare("profile", "dimension", ("level", "reason", "evidence"), "level"),
    }
