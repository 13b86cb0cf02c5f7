"""Import a reference MemoryOS data folder into one user, validated whole, written at once.

Layout read: users/<id>/{short_term,mid_term,long_term_user}.json and
assistants/<id>/long_term_assistant.json. Short-term pairs become exchanges, mid-term sessions
become segments holding their pages (timestamps, chain links and overviews kept), knowledge
becomes facts, and the profile text is kept verbatim as a note, never parsed into levels.
The files are given as {relative path: bytes}, so a folder and an uploaded zip read the same.
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from ..context import Context
from ..errors import ImportFormatError, InvalidInput
from ..memory import retrieval_text
from ..memory.admission import NewExchange, admit, check_exchange
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import notes as notes_db
from ..storage.tables import pages as pages_db
from ..storage.tables import segments as segments_db
from ..text import normalise
from ..timeframe import parse_ts
from . import versions

Progress = Callable[[int, int, str], None]
FILE_LIMIT = 200 * 1024 * 1024
NAMES = ("short_term.json", "mid_term.json", "long_term_user.json", "long_term_assistant.json")


def read_folder(folder: str | Path) -> dict[str, bytes]:
    """The reference files under a data folder, by path relative to it."""
    root = Path(folder)
    if not root.is_dir():
        raise InvalidInput(f"{folder} is not a folder")
    files: dict[str, bytes] = {}
    for kind in ("users", "assistants"):
        for path in sorted((root / kind).glob("*/*.json")):
            if path.name in NAMES:
                if path.stat().st_size > FILE_LIMIT:
                    raise InvalidInput(f"{path} is larger than {FILE_LIMIT // 2**20} MB")
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def read_zip(data: bytes) -> dict[str, bytes]:
    """The reference files inside a zip of a data folder (any leading folder is ignored)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ImportFormatError("the upload is not a zip archive of a MemoryOS data folder") from None
    files: dict[str, bytes] = {}
    for info in archive.infolist():
        parts = info.filename.replace("\\", "/").split("/")
        for i in range(len(parts) - 2):
            if parts[i] in ("users", "assistants") and len(parts) - i == 3 and parts[-1] in NAMES:
                if info.file_size > FILE_LIMIT:
                    raise InvalidInput(f"{info.filename} is larger than {FILE_LIMIT // 2**20} MB")
                files["/".join(parts[i:])] = archive.read(info)
    return files


class FolderCounts(TypedDict):
    """What a reference data folder holds (or what of it was imported)."""

    short_term: int
    segments: int
    pages: int
    user_facts: int
    assistant_facts: int
    profile_note: bool


class FolderSample(TypedDict):
    user: str
    assistant: str
    ts: float


class FolderPreview(TypedDict):
    """What importing a reference data folder would bring in."""

    format: str
    user: str
    assistant: str | None
    counts: FolderCounts
    profile_note: str
    sample: list[FolderSample]


class FolderImport(TypedDict):
    """A reference data folder imported: what it held, what was new, what was skipped."""

    format: str
    user: str
    assistant: str | None
    imported: FolderCounts
    found: FolderCounts
    skipped: list[dict[str, str]]  # where, reason
    saved_as: int


@dataclass
class Plan:
    """Everything an import would write, validated, with nothing written yet."""

    ref_user: str
    assistant: str | None
    short: list[NewExchange] = field(default_factory=list)
    segments: list[dict[str, Any]] = field(default_factory=list)
    user_facts: list[tuple[str, float]] = field(default_factory=list)
    assistant_facts: list[tuple[str, float]] = field(default_factory=list)
    profile: str = ""
    skipped: list[dict[str, str]] = field(default_factory=list)

    def counts(self) -> FolderCounts:
        return {"short_term": len(self.short), "segments": len(self.segments),
                "pages": sum(len(s["pages"]) for s in self.segments),
                "user_facts": len(self.user_facts), "assistant_facts": len(self.assistant_facts),
                "profile_note": bool(self.profile)}


def _json(files: Mapping[str, bytes], name: str) -> Any:
    try:
        return json.loads(files[name].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ImportFormatError(f"{name} is not valid JSON: {exc}") from None


def _text(item: Any, key: str, where: str, required: bool = True) -> str:
    value = item.get(key) if isinstance(item, dict) else None
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ImportFormatError(f"{where} lacks the text field '{key}'")
    return value


def _ts(item: dict[str, Any], key: str, where: str, default: float) -> float:
    try:
        return parse_ts(item.get(key), f"{where}.{key}") or default
    except InvalidInput as exc:
        raise ImportFormatError(str(exc)) from None


def _choose(files: Mapping[str, bytes], kind: str, wanted: str | None) -> str | None:
    ids = sorted({p.split("/")[1] for p in files if p.startswith(kind + "/")})
    if wanted is not None:
        if wanted not in ids:
            raise ImportFormatError(f"no {kind}/{wanted}/ in the data folder (found:"
                                    f" {', '.join(ids) or 'none'})")
        return wanted
    if len(ids) > 1:
        raise ImportFormatError(f"the data folder holds several {kind} ({', '.join(ids)});"
                                " choose one")
    return ids[0] if ids else None


def _knowledge(items: Any, where: str, now: float) -> list[tuple[str, float]]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise ImportFormatError(f"{where} must be a list")
    out = []
    for n, item in enumerate(items):
        text = _text(item, "knowledge", f"{where}[{n}]").strip()
        if text and text.lower() not in ("none", "- none", "- none."):
            out.append((text, _ts(item, "timestamp", f"{where}[{n}]", now)))
    return out


def plan(ctx: Context, files: Mapping[str, bytes], ref_user: str | None = None,
         assistant: str | None = None) -> Plan:
    """Parse and validate every file; any fault raises ImportFormatError naming file and item."""
    chosen = _choose(files, "users", ref_user)
    if chosen is None:
        raise ImportFormatError("no users/<id>/ folder with short_term.json, mid_term.json or"
                                " long_term_user.json: not a MemoryOS data folder")
    result = Plan(chosen, _choose(files, "assistants", assistant))
    base, now = f"users/{chosen}/", time.time()
    if base + "short_term.json" in files:
        items = _json(files, base + "short_term.json")
        if not isinstance(items, list):
            raise ImportFormatError(f"{base}short_term.json must be a list of QA pairs")
        for n, item in enumerate(items):
            where = f"{base}short_term.json[{n}]"
            result.short.append(_exchange(ctx, item, where, now + n * 0.001))
    if base + "mid_term.json" in files:
        doc = _json(files, base + "mid_term.json")
        sessions = doc.get("sessions") if isinstance(doc, dict) else None
        if not isinstance(sessions, dict):
            raise ImportFormatError(f"{base}mid_term.json lacks the object 'sessions'")
        for sid, sess in sessions.items():
            where = f"{base}mid_term.json sessions[{sid!r}]"
            details = sess.get("details") if isinstance(sess, dict) else None
            if not isinstance(details, list):
                raise ImportFormatError(f"{where} lacks the list 'details'")
            created = _ts(sess, "timestamp", where, now)
            pages = []
            for n, page in enumerate(details):
                pw = f"{where}.details[{n}]"
                new = _exchange(ctx, page, pw, created + n * 0.001)
                kws = page.get("page_keywords") or []
                pages.append({"exchange": new, "ref": page.get("page_id"),
                              "prev": page.get("pre_page"), "next": page.get("next_page"),
                              "overview": _text(page, "meta_info", pw, required=False),
                              "keywords": [str(k) for k in kws] if isinstance(kws, list) else [],
                              "analysed": bool(page.get("analyzed"))})
            kws = sess.get("summary_keywords") or []
            result.segments.append({
                "summary": _text(sess, "summary", where),
                "keywords": [str(k) for k in kws] if isinstance(kws, list) else [],
                "n_visit": int(sess.get("N_visit") or 0),
                "l_interaction": int(sess.get("L_interaction") or len(pages)),
                "created_at": created, "last_visit": _ts(sess, "last_visit_time", where, created),
                "pages": pages})
    if base + "long_term_user.json" in files:
        doc = _json(files, base + "long_term_user.json")
        if not isinstance(doc, dict):
            raise ImportFormatError(f"{base}long_term_user.json must be an object")
        result.user_facts = _knowledge(doc.get("knowledge_base"),
                                       f"{base}long_term_user.json knowledge_base", now)
        profiles = doc.get("user_profiles") or {}
        entry = profiles.get(chosen) if isinstance(profiles, dict) else None
        text = entry.get("data") if isinstance(entry, dict) else None
        if isinstance(text, str) and text.strip() and text.strip().lower() != "none":
            result.profile = text.strip()
    if result.assistant is not None:
        name = f"assistants/{result.assistant}/long_term_assistant.json"
        if name in files:
            doc = _json(files, name)
            if not isinstance(doc, dict):
                raise ImportFormatError(f"{name} must be an object")
            result.assistant_facts = _knowledge(doc.get("assistant_knowledge"),
                                                f"{name} assistant_knowledge", now)
    return result


def _exchange(ctx: Context, item: Any, where: str, default_ts: float) -> NewExchange:
    user, assistant = _text(item, "user_input", where), _text(item, "agent_response", where)
    try:
        return check_exchange(ctx.config, user, assistant, _ts(item, "timestamp", where,
                                                               default_ts),
                              source="import:memoryos-reference", where=where)
    except InvalidInput as exc:
        raise ImportFormatError(str(exc)) from None


def preview(ctx: Context, files: Mapping[str, bytes], ref_user: str | None = None,
            assistant: str | None = None) -> FolderPreview:
    """What the import would bring in (counts and a sample), writing nothing."""
    p = plan(ctx, files, ref_user, assistant)
    pages = [pg["exchange"] for s in p.segments for pg in s["pages"]]
    return {"format": "memoryos-reference", "user": p.ref_user, "assistant": p.assistant,
            "counts": p.counts(), "profile_note": p.profile[:500],
            "sample": [{"user": e.user_text[:300], "assistant": e.assistant_text[:300],
                        "ts": e.ts} for e in (pages + p.short)[:10]]}


def _batched(ctx: Context, texts: list[str], progress: Progress | None, total: int,
             done: list[int]) -> list[Any]:
    out: list[Any] = []
    for start in range(0, len(texts), 64):
        out.extend(ctx.embedder.embed(texts[start:start + 64]))
        done[0] += len(texts[start:start + 64])
        if progress:
            progress(done[0], total, "embedding")
    return out


def run(ctx: Context, user_id: str, files: Mapping[str, bytes], ref_user: str | None = None,
        assistant: str | None = None, progress: Progress | None = None) -> FolderImport:
    """Import a planned folder in one transaction (after a snapshot); re-imports are skipped."""
    p = plan(ctx, files, ref_user, assistant)
    found = p.counts()
    known = exchanges_db.content_keys(ctx.store, user_id)
    norms = facts_db.known_fact_norms(ctx.store, user_id)
    skipped: list[dict[str, str]] = []
    for seg in p.segments:
        fresh = [pg for pg in seg["pages"] if pg["exchange"].key not in known]
        skipped += [{"where": "mid-term page", "reason": "already imported"}] * (
            len(seg["pages"]) - len(fresh))
        seg["pages"] = fresh
        known.update(pg["exchange"].key for pg in fresh)
    segments = [s for s in p.segments if s["pages"]]
    short = [e for e in p.short if e.key not in known]
    skipped += [{"where": "short-term pair", "reason": "already imported"}] * (
        len(p.short) - len(short))
    facts = [(kind, text, ts) for kind, items in (("user", p.user_facts),
                                                  ("assistant", p.assistant_facts))
             for text, ts in items if (kind, normalise(text)) not in norms]
    facts = list({(k, normalise(t)): (k, t, ts) for k, t, ts in facts}.values())
    # mid-term pages join no conversation, the short-term pairs the current one (admit)
    page_texts = retrieval_text.import_texts(
        ctx.store, user_id, [pg["exchange"] for s in segments for pg in s["pages"]])
    short_texts = [retrieval_text.chat_text(ctx.store, user_id, e) for e in short[:1]] \
        + retrieval_text.import_texts(ctx.store, user_id, short)[1:]
    texts = ([f"{s['summary']} {' '.join(s['keywords'])}" for s in segments]
             + page_texts + short_texts + [t for _, t, _ in facts])
    done = [0]
    vecs = iter(_batched(ctx, texts, progress, len(texts), done))
    seg_vecs = [next(vecs) for _ in segments]
    page_vecs = [[next(vecs) for _ in s["pages"]] for s in segments]
    short_vecs = [next(vecs) for _ in short]
    fact_vecs = [next(vecs) for _ in facts]
    now = time.time()
    with ctx.store.transaction(user_id) as conn:  # the snapshot joins it: one step, no gap
        saved = versions.snapshot(ctx, user_id, "before MemoryOS data folder import")
        refs: dict[str, int] = {}
        links: list[tuple[int, Any, Any]] = []
        for seg, svec, pvecs in zip(segments, seg_vecs, page_vecs, strict=True):
            analysed = all(pg["analysed"] for pg in seg["pages"])
            seg_id = segments_db.insert_imported_segment(
                conn, user_id, seg["summary"], seg["keywords"], seg["n_visit"],
                seg["l_interaction"], seg["last_visit"], seg["created_at"], now,
                now if analysed else None)
            ctx.store.put_vector(conn, user_id, "segment", seg_id, svec)
            for pg, vec in zip(seg["pages"], pvecs, strict=True):
                ex: NewExchange = pg["exchange"]
                page_id = pages_db.insert_imported_page(
                    conn, user_id, ex.user_text, ex.assistant_text, ex.ts, seg_id,
                    pg["overview"], pg["keywords"], pg["analysed"], ex.source, ex.key, now)
                ctx.store.put_vector(conn, user_id, "page", page_id, vec)
                if isinstance(pg["ref"], str):
                    refs[pg["ref"]] = page_id
                links.append((page_id, pg["prev"], pg["next"]))
        for page_id, prev, nxt in links:
            pages_db.set_chain_links(conn, user_id, page_id,
                                      refs.get(prev) if isinstance(prev, str) else None,
                                      refs.get(nxt) if isinstance(nxt, str) else None)
        for ex, vec in zip(short, short_vecs, strict=True):
            admit(conn, ctx.store, ctx.config, user_id, ex, vec)
        for (kind, text, ts), vec in zip(facts, fact_vecs, strict=True):
            fact_id = facts_db.insert_imported_fact(conn, user_id, kind, text,
                                                          normalise(text), ts, now)
            ctx.store.put_vector(conn, user_id, "fact", fact_id, vec)
        note = bool(p.profile) and not notes_db.has_note(conn, user_id, p.profile)
        if note:
            notes_db.insert_note(conn, user_id, "reference_profile", p.profile,
                                  f"users/{p.ref_user}", now)
        counts: FolderCounts = {"short_term": len(short), "segments": len(segments),
                  "pages": sum(len(s["pages"]) for s in segments),
                  "user_facts": sum(1 for f in facts if f[0] == "user"),
                  "assistant_facts": sum(1 for f in facts if f[0] == "assistant"),
                  "profile_note": bool(note)}
        ctx.store.log_event(conn, user_id, "import", {"format": "memoryos-reference",
                                                      "counts": counts})
    if progress:
        progress(len(texts), len(texts), "stored")
    return {"format": "memoryos-reference", "user": p.ref_user, "assistant": p.assistant,
            "imported": counts, "found": found, "skipped": skipped,
            "saved_as": saved["version"]}
