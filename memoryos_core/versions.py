"""Versions: snapshots of a user's whole memory, restore, clear, diff, export documents."""

from __future__ import annotations

import base64
import json
import sqlite3
import time
import zlib
from typing import Any

import numpy as np

from .context import Context
from .errors import ImportFormatError, NotFound

EXPORT_FORMAT = "memoryos-export"
EXPORT_VERSION = 1
EXCHANGE_COLUMNS = ("id", "user_text", "assistant_text", "ts", "admitted_at", "tier",
                    "segment_id", "prev_id", "next_id", "overview", "keywords", "analysed",
                    "source", "content_key", "moved_at")
SEGMENT_COLUMNS = ("id", "summary", "keywords", "n_visit", "l_interaction", "last_visit",
                   "created_at", "updated_at", "analysed_at")
FACT_COLUMNS = ("id", "kind", "text", "norm", "sources", "created_at", "updated_at")
PROFILE_COLUMNS = ("dimension", "family", "level", "reason", "evidence", "updated_at")


def _b64(vec: np.ndarray | None) -> str | None:
    return None if vec is None else base64.b64encode(vec.astype(np.float32).tobytes()).decode()


def _unb64(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32)


def export_document(ctx: Context, user_id: str) -> dict[str, Any]:
    """The user's whole memory (rows, vectors, traces, chain state) as one JSON document."""
    store = ctx.store
    cols = ", ".join(EXCHANGE_COLUMNS)
    exchanges = store.query(f"SELECT {cols} FROM exchanges WHERE user_id = ? ORDER BY id",
                            (user_id,))
    segments = store.query(f"SELECT {', '.join(SEGMENT_COLUMNS)} FROM segments WHERE"
                           " user_id = ? ORDER BY id", (user_id,))
    facts = store.query(f"SELECT {', '.join(FACT_COLUMNS)} FROM facts WHERE user_id = ?"
                        " ORDER BY id", (user_id,))
    for rows, kind in ((exchanges, "page"), (segments, "segment"), (facts, "fact")):
        vecs = store.get_vectors(kind, [r["id"] for r in rows])
        for row in rows:
            row["vector"] = _b64(vecs.get(row["id"]))
    state = store.query_one("SELECT overview, last_page_id FROM user_state WHERE user_id = ?",
                            (user_id,))
    return {
        "format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": time.time(),
        "user_id": user_id, "embedder": ctx.embedder.name,
        "exchanges": exchanges, "segments": segments, "facts": facts,
        "profile": store.query(f"SELECT {', '.join(PROFILE_COLUMNS)} FROM profile WHERE"
                               " user_id = ? ORDER BY dimension", (user_id,)),
        "user_state": state or {"overview": "", "last_page_id": None},
        "traces": store.query("SELECT exchange_id, created_at, trace FROM traces WHERE"
                              " user_id = ? ORDER BY exchange_id", (user_id,)),
        "notes": store.query("SELECT kind, text, source, created_at FROM notes WHERE"
                             " user_id = ? ORDER BY id", (user_id,)),
    }


def counts(doc: dict[str, Any]) -> dict[str, int]:
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


def snapshot(ctx: Context, user_id: str, label: str) -> dict[str, Any]:
    """Store the current memory as the next version number; prune beyond retention.

    The memory is read inside the write transaction, so the version is exactly what was
    current; a caller's outer transaction (clear, restore) makes snapshot and change one step.
    """
    with ctx.store.transaction() as conn:
        doc = export_document(ctx, user_id)
        blob = zlib.compress(json.dumps(doc, ensure_ascii=False).encode(), 6)
        sizes = counts(doc)
        version = int(conn.execute("SELECT coalesce(max(version), 0) + 1 FROM snapshots WHERE"
                                   " user_id = ?", (user_id,)).fetchone()[0])
        now = time.time()
        conn.execute("INSERT INTO snapshots (user_id, version, label, created_at, counts, doc)"
                      " VALUES (?, ?, ?, ?, ?, ?)",
                      (user_id, version, label[:200], now, json.dumps(sizes), blob))
        conn.execute("DELETE FROM snapshots WHERE user_id = ? AND version <= ?",
                     (user_id, version - max(1, ctx.config.version_retention)))
        ctx.store.log_event(conn, user_id, "snapshot", {"version": version, "label": label})
    return {"version": version, "label": label, "created_at": now, "counts": sizes}


def list_versions(ctx: Context, user_id: str) -> list[dict[str, Any]]:
    """Versions newest first, without their documents."""
    return [{"version": r["version"], "label": r["label"], "created_at": r["created_at"],
             "counts": json.loads(r["counts"])}
            for r in ctx.store.query("SELECT version, label, created_at, counts FROM snapshots"
                                     " WHERE user_id = ? ORDER BY version DESC", (user_id,))]


def load_version(ctx: Context, user_id: str, version: int) -> dict[str, Any]:
    """The stored document of one version."""
    row = ctx.store.query_one("SELECT doc FROM snapshots WHERE user_id = ? AND version = ?",
                              (user_id, int(version)))
    if row is None:
        raise NotFound(f"version {version} does not exist")
    doc: dict[str, Any] = json.loads(zlib.decompress(row["doc"]))
    return doc


def delete_version(ctx: Context, user_id: str, version: int) -> None:
    """Delete one version."""
    with ctx.store.transaction() as conn:
        if conn.execute("DELETE FROM snapshots WHERE user_id = ? AND version = ?",
                        (user_id, int(version))).rowcount == 0:
            raise NotFound(f"version {version} does not exist")


def _wipe(conn: sqlite3.Connection, user_id: str) -> None:
    """Delete every memory row of a user (triggers remove vectors and FTS entries)."""
    conn.execute("DELETE FROM traces WHERE user_id = ?", (user_id,))
    conn.execute("DELETE FROM exchanges WHERE user_id = ?", (user_id,))
    conn.execute("DELETE FROM segments WHERE user_id = ?", (user_id,))
    conn.execute("DELETE FROM facts WHERE user_id = ?", (user_id,))
    conn.execute("DELETE FROM profile WHERE user_id = ?", (user_id,))
    conn.execute("DELETE FROM user_state WHERE user_id = ?", (user_id,))
    conn.execute("DELETE FROM notes WHERE user_id = ?", (user_id,))


def load_document(
    ctx: Context, conn: sqlite3.Connection, user_id: str, doc: dict[str, Any], keep_ids: bool
) -> None:
    """Write a memory document as the user's memory (ids kept, or remapped for another user)."""
    seg_map: dict[int, int | None] = {}
    for seg in doc["segments"]:
        values = [seg[c] for c in SEGMENT_COLUMNS[1:]]
        if keep_ids:
            conn.execute(f"INSERT INTO segments (id, user_id, {', '.join(SEGMENT_COLUMNS[1:])})"
                         f" VALUES (?, ?{', ?' * len(values)})", (seg["id"], user_id, *values))
            new_id = seg["id"]
        else:
            new_id = conn.execute(
                f"INSERT INTO segments (user_id, {', '.join(SEGMENT_COLUMNS[1:])})"
                f" VALUES (?{', ?' * len(values)})", (user_id, *values)).lastrowid
        seg_map[seg["id"]] = new_id
        if seg.get("vector"):
            ctx.store.put_vector(conn, user_id, "segment", int(new_id or 0), _unb64(seg["vector"]))
    ex_map: dict[Any, int | None] = {}
    for ex in doc["exchanges"]:
        row = dict(ex, segment_id=seg_map.get(ex["segment_id"]) if ex["segment_id"] else None)
        cols: tuple[str, ...] = EXCHANGE_COLUMNS if keep_ids else EXCHANGE_COLUMNS[1:]
        values = [row[c] for c in cols]
        new_id = conn.execute(f"INSERT INTO exchanges (user_id, {', '.join(cols)}) VALUES"
                              f" (?{', ?' * len(values)})", (user_id, *values)).lastrowid
        ex_map[ex["id"]] = new_id
        if ex.get("vector"):
            ctx.store.put_vector(conn, user_id, "page", int(new_id or 0), _unb64(ex["vector"]))
    if not keep_ids:  # chain links point at the new ids
        for old, new in ex_map.items():
            src = next(e for e in doc["exchanges"] if e["id"] == old)
            conn.execute("UPDATE exchanges SET prev_id = ?, next_id = ? WHERE id = ?",
                         (ex_map.get(src["prev_id"]), ex_map.get(src["next_id"]), new))
    for fact in doc["facts"]:
        sources = (json.loads(fact["sources"]) if isinstance(fact["sources"], str)
                   else fact["sources"])
        sources = sources if keep_ids else [ex_map.get(s, s) for s in sources]
        row = dict(fact, sources=json.dumps(sources))
        fcols: tuple[str, ...] = FACT_COLUMNS if keep_ids else FACT_COLUMNS[1:]
        new_id = conn.execute(f"INSERT INTO facts (user_id, {', '.join(fcols)}) VALUES"
                              f" (?{', ?' * len(fcols)})",
                              (user_id, *[row[c] for c in fcols])).lastrowid
        if fact.get("vector"):
            ctx.store.put_vector(conn, user_id, "fact", int(new_id or 0), _unb64(fact["vector"]))
    for dim in doc["profile"]:
        evidence = (json.loads(dim["evidence"]) if isinstance(dim["evidence"], str)
                    else dim["evidence"])
        evidence = evidence if keep_ids else [ex_map.get(e, e) for e in evidence]
        row = dict(dim, evidence=json.dumps(evidence))
        conn.execute(f"INSERT INTO profile (user_id, {', '.join(PROFILE_COLUMNS)}) VALUES"
                     f" (?{', ?' * len(PROFILE_COLUMNS)})",
                     (user_id, *[row[c] for c in PROFILE_COLUMNS]))
    st = doc.get("user_state") or {}
    last = st.get("last_page_id")
    conn.execute("INSERT INTO user_state (user_id, overview, last_page_id, updated_at)"
                 " VALUES (?, ?, ?, ?)", (user_id, st.get("overview") or "",
                                          last if keep_ids or last is None else ex_map.get(last),
                                          time.time()))
    for note in doc.get("notes", []):  # absent in documents older than notes
        conn.execute("INSERT INTO notes (user_id, kind, text, source, created_at) VALUES"
                     " (?, ?, ?, ?, ?)", (user_id, note["kind"], note["text"],
                                          note.get("source", ""), note["created_at"]))
    for tr in doc.get("traces", []):
        target = tr["exchange_id"] if keep_ids else ex_map.get(tr["exchange_id"])
        if target is not None:
            conn.execute("INSERT INTO traces (exchange_id, user_id, created_at, trace)"
                         " VALUES (?, ?, ?, ?)", (target, user_id, tr["created_at"], tr["trace"]))


def restore(ctx: Context, user_id: str, version: int) -> dict[str, Any]:
    """Snapshot "before restore", then replace the memory with the version, in one transaction."""
    doc = load_version(ctx, user_id, version)
    with ctx.store.transaction() as conn:  # snapshot and wipe: one transaction, no gap
        before = snapshot(ctx, user_id, f"before restore of version {version}")
        _wipe(conn, user_id)
        load_document(ctx, conn, user_id, doc, keep_ids=True)
        ctx.store.log_event(conn, user_id, "restore", {"version": version,
                                                       "saved_as": before["version"]})
    return {"restored": version, "saved_as": before["version"], "counts": counts(doc)}


def clear(ctx: Context, user_id: str) -> dict[str, Any]:
    """Snapshot "before clear", then empty the user's memory."""
    with ctx.store.transaction() as conn:  # snapshot and wipe: one transaction, no gap
        before = snapshot(ctx, user_id, "before clear")
        _wipe(conn, user_id)
        ctx.store.log_event(conn, user_id, "clear", {"saved_as": before["version"]})
    return {"saved_as": before["version"], "counts": before["counts"]}


def replace_with_export(ctx: Context, user_id: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Make an export document (of any user) this user's memory; the old one is kept as a version."""
    check_export(doc)
    with ctx.store.transaction() as conn:
        before = snapshot(ctx, user_id, "before import of an export")
        _wipe(conn, user_id)
        load_document(ctx, conn, user_id, doc, keep_ids=False)
        ctx.store.log_event(conn, user_id, "import_export", {"saved_as": before["version"],
                                                            "counts": counts(doc)})
    return {"saved_as": before["version"], "counts": counts(doc)}


def check_export(doc: Any) -> None:
    """Reject an export document that is not ours or is missing parts, naming what is wrong."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise ImportFormatError("not a memoryos export document (field 'format')")
    if doc.get("version") != EXPORT_VERSION:
        raise ImportFormatError(f"export version {doc.get('version')!r} is not supported")
    required = {"exchanges": EXCHANGE_COLUMNS, "segments": SEGMENT_COLUMNS,
                "facts": FACT_COLUMNS, "profile": PROFILE_COLUMNS}
    for key, columns in required.items():
        items = doc.get(key)
        if not isinstance(items, list):
            raise ImportFormatError(f"export field '{key}' must be a list")
        for n, item in enumerate(items):
            missing = [c for c in columns if not isinstance(item, dict) or c not in item]
            if missing:
                raise ImportFormatError(f"{key}[{n}] lacks field '{missing[0]}'")


def diff(ctx: Context, user_id: str, a: int, b: int) -> dict[str, Any]:
    """Added, removed and changed items from version a to version b (0 means the current state)."""
    docs = [export_document(ctx, user_id) if v == 0 else load_version(ctx, user_id, v)
            for v in (a, b)]

    def compare(key: str, ident: str, fields: tuple[str, ...], label: str) -> dict[str, Any]:
        old = {r[ident]: r for r in docs[0][key]}
        new = {r[ident]: r for r in docs[1][key]}
        return {
            "added": [{"id": k, "text": str(new[k][label])[:200]} for k in new if k not in old],
            "removed": [{"id": k, "text": str(old[k][label])[:200]} for k in old if k not in new],
            "changed": [{"id": k, "fields": [f for f in fields if old[k][f] != new[k][f]],
                         "text": str(new[k][label])[:200]}
                        for k in new if k in old and any(old[k][f] != new[k][f] for f in fields)],
        }

    return {
        "from": a, "to": b,
        "exchanges": compare("exchanges", "id", ("tier", "segment_id", "analysed"), "user_text"),
        "segments": compare("segments", "id", ("summary", "keywords", "n_visit",
                                               "l_interaction"), "summary"),
        "facts": compare("facts", "id", ("text", "sources"), "text"),
        "profile": compare("profile", "dimension", ("level", "reason", "evidence"), "level"),
    }
