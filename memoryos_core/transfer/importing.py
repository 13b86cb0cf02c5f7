"""Import a dialogue as one unit: parse, validate everything, then admit in one transaction.

A text over max_text_chars is cut with a visible note and listed in the report's `cut`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from ..context import Context
from ..errors import ImportFormatError, InvalidInput
from ..memory import retrieval_text
from ..memory.admission import NewExchange, admit, check_exchange
from ..memory.reports import AnalysisReport
from ..storage.tables import exchanges as exchanges_db
from . import chat_import, chat_store, importers, versions
from .fitting import fit_text
from .longmemeval import parse_longmemeval
from .sniff import MAX_EXPANDED_BYTES

Progress = Callable[[int, int, str], None]
EMBED_BATCH = 64



class Skipped(TypedDict):
    where: str
    reason: str


class CutText(TypedDict):
    """A side of an exchange shortened to the text limit."""

    exchange_id: NotRequired[int]  # once imported
    where: str
    ref: str
    side: str  # "user" or "assistant"
    chars: int  # its length
    cut: int  # characters left out


class Chosen(TypedDict):
    """The conversation of a many-conversation file that is imported, of how many."""

    field: str
    id: str | None
    of: int


class Sample(TypedDict):
    user: str
    assistant: str
    ts: float
    where: str


class Preview(TypedDict):
    """What an import would do (an export document: it replaces the whole memory)."""

    format: str
    total: int
    to_import: int
    skipped: list[Skipped]
    cut: list[CutText]
    sample: list[Sample]
    replaces_memory: bool
    export_counts: NotRequired[dict[str, int]]  # an export document's sizes
    chosen: NotRequired[Chosen | None]
    max_text_chars: NotRequired[int]
    recognised: NotRequired[dict[str, str]]  # a chat export: format, label, why
    conversations: NotRequired[int]
    abandoned: NotRequired[int]  # messages on branches the user did not see (left out)
    facts: NotRequired[dict[str, Any]]  # saved memories: found, new, sample
    listed: NotRequired[list[dict[str, Any]]]  # each conversation: title, exchanges, new
    notes: NotRequired[list[Skipped]]  # read, with a remark (a time borrowed)
    completed: NotRequired[int]  # stored questions a newer export answers
    partial: NotRequired[dict[str, int] | None]  # a large file: how far the preview read


class ImportOutcome(TypedDict):
    """What an import admitted, skipped and cut, as every host reports it."""

    format: str
    total: int
    imported: int
    skipped: list[Skipped]
    cut: list[CutText]
    max_text_chars: NotRequired[int]
    chosen: NotRequired[Chosen | None]
    saved_as: int | None
    counts: NotRequired[dict[str, int]]  # an export document's sizes
    consolidation_batches: NotRequired[int]  # the engine's: pages filed after the import
    analysis: NotRequired[AnalysisReport]
    analysis_deferred: NotRequired[bool]
    recognised: NotRequired[dict[str, str]]
    conversations: NotRequired[int]
    abandoned: NotRequired[int]
    facts: NotRequired[dict[str, Any]]  # saved memories: found, imported
    listed: NotRequired[list[dict[str, Any]]]
    notes: NotRequired[list[Skipped]]
    completed: NotRequired[int]


class ImportReport(ImportOutcome):
    """One import: what was admitted, skipped and cut (an export: the version saved)."""

    exchange_ids: NotRequired[list[int]]
    refs: NotRequired[dict[int, str]]  # exchange id: its place in the source


def parse(doc: Any, fmt: str, speaker: str | None = None, select: str | None = None) -> list[importers.Item]:
    """Items of a loaded document in the given (already detected) format."""
    if fmt == "playground":
        return importers.parse_playground(doc)
    if fmt == "locomo":
        return importers.parse_locomo(doc, speaker, select)
    if fmt == "longmemeval":
        return parse_longmemeval(doc, select)
    if fmt == "chatgpt":
        return importers.parse_chatgpt(doc)
    if fmt == "transcript":
        if not isinstance(doc, str):
            raise ImportFormatError("a transcript must be plain text")
        return importers.parse_transcript(doc)
    raise ImportFormatError(f"unknown format {fmt!r}; use one of {', '.join(importers.FORMATS)}")


def _chosen(doc: Any, fmt: str, select: str | None) -> Chosen | None:
    """Which item of a many-conversation file is imported (LoCoMo, LongMemEval), of how many."""
    if fmt not in ("locomo", "longmemeval") or not isinstance(doc, list):
        return None
    key = "sample_id" if fmt == "locomo" else "question_id"
    ids = [str(d.get(key)) for d in doc if isinstance(d, dict)]
    return {"field": key, "id": select or (ids[0] if ids else None), "of": len(ids)}


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
        items = parse(doc, fmt, speaker, select)
    except (TypeError, AttributeError, KeyError, ValueError):  # a shape no check foresaw
        raise ImportFormatError(f"the document is not a valid {fmt} dialogue: a field has an"
                                " unexpected type") from None
    known = set()
    if user_id is not None:
        known = exchanges_db.content_keys(ctx.store, user_id)
    base = time.time()
    limit = ctx.config.max_text_chars
    ready: list[tuple[NewExchange, importers.Item]] = []
    skipped = []
    cut: list[dict[str, Any]] = []  # "n" is the position in `ready`
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
        (user, user_cut), (assistant, assistant_cut) = (fit_text(item.user, limit),
                                                        fit_text(item.assistant, limit))
        try:
            new = check_exchange(ctx.config, user, assistant, ts,
                                 source=f"import:{fmt} {item.ref}"[:120].strip(),
                                 where=item.where, identity=identity)
        except InvalidInput as exc:
            raise ImportFormatError(str(exc)) from None
        if new.key in known:
            skipped.append({"where": item.where, "reason": "already imported"})
            continue
        known.add(new.key)
        for side, whole, dropped in (("user", item.user, user_cut),
                                     ("assistant", item.assistant, assistant_cut)):
            if dropped:
                cut.append({"n": len(ready), "where": item.where, "ref": item.ref, "side": side,
                            "chars": len(whole.strip()), "cut": dropped})
        ready.append((new, item))
    return {"format": fmt, "exchanges": ready, "skipped": skipped, "total": len(items),
            "cut": cut, "chosen": _chosen(doc, fmt, select)}


def _cut_text(c: dict[str, Any], exchange_id: int | None = None) -> CutText:
    """A planned cut as reported: without its position in the plan, with its exchange id."""
    if exchange_id is None:
        return CutText(where=c["where"], ref=c["ref"], side=c["side"], chars=c["chars"],
                       cut=c["cut"])
    return CutText(exchange_id=exchange_id, where=c["where"], ref=c["ref"], side=c["side"],
                   chars=c["chars"], cut=c["cut"])


def recognise(source: Any, fmt: str,
              limit: int = MAX_EXPANDED_BYTES) -> tuple[Any, Any]:
    """(the chat export recognised by content, or None; the source for the older readers)."""
    from .classify import CHAT_FORMATS, MEMORY_FORMATS, classify

    chat = CHAT_FORMATS + MEMORY_FORMATS
    if fmt not in ("auto", *chat):
        return None, _bytes(source)
    try:
        rec = classify(source, limit)
    except ImportFormatError:
        if isinstance(source, Path) and source.stat().st_size <= importers.MAX_DOCUMENT_BYTES:
            source = source.read_bytes()
        text = source.lstrip(b"\xef\xbb\xbf \t\r\n") if isinstance(source, bytes) else source
        if (isinstance(text, bytes | str) and text[:1] in ("[", "{", b"[", b"{")
                and len(text) <= importers.MAX_DOCUMENT_BYTES):
            importers.load_source(source)  # its clearer message for broken JSON, if it has one
        raise
    if fmt != "auto" and rec.format != fmt:
        raise ImportFormatError(f"the file is not {fmt}: {rec.why}")
    if rec.format == "legacy":
        if rec.container.member is not None:  # a ChatGPT export inside a ZIP
            with rec.container.open() as fp:
                return None, _capped(fp.read(importers.MAX_DOCUMENT_BYTES + 1))
        return None, _bytes(source)
    return rec, None


def _capped(data: bytes) -> bytes:
    if len(data) > importers.MAX_DOCUMENT_BYTES:
        raise ImportFormatError("the document is larger than 50 MB")
    return data


def _bytes(source: Any) -> Any:
    """A file path's bytes (older readers load the whole document); other sources as given."""
    if isinstance(source, Path):
        with source.open("rb") as fp:
            return _capped(fp.read(importers.MAX_DOCUMENT_BYTES + 1))
    return source


def check(source: Any, fmt: str = "auto", speaker: str | None = None,
          select: str | None = None, expanded: int = MAX_EXPANDED_BYTES) -> str:
    """The format of a source, read no further than needed to know it (a chat export is
    read in the job; the older formats, at most 50 MB, are parsed whole)."""
    rec, source = recognise(source, fmt, expanded)
    if rec is not None:
        return str(rec.format)
    doc = importers.load_source(source)
    found = importers.detect(doc) if fmt == "auto" else fmt
    if found != "memoryos-export":
        try:
            parse(doc, found, speaker, select)
        except (TypeError, AttributeError, KeyError, ValueError):
            raise ImportFormatError(f"the document is not a valid {found} dialogue: a field"
                                    " has an unexpected type") from None
    return found


def preview(ctx: Context, user_id: str, source: Any, fmt: str = "auto",
            speaker: str | None = None, select: str | None = None,
            limit: int = 20, expanded: int = MAX_EXPANDED_BYTES,
            seconds: float = chat_import.PREVIEW_SECONDS) -> Preview:
    """What an import would do, with the first exchanges, writing nothing (a chat export is
    read for `seconds` at most, then the preview says how far it got)."""
    rec, source = recognise(source, fmt, expanded)
    if rec is not None:
        return chat_import.preview(ctx, user_id, rec, limit,  # type: ignore[return-value]
                                   seconds)
    plan = prepare(ctx, user_id, source, fmt, speaker, select)
    if plan["format"] == "memoryos-export":  # not an addition: the whole memory is replaced
        return {"format": plan["format"], "total": plan["total"], "to_import": plan["total"],
                "skipped": [], "cut": [], "sample": [], "replaces_memory": True,
                "export_counts": versions.counts(plan["document"])}
    return {
        "format": plan["format"], "total": plan["total"], "to_import": len(plan["exchanges"]),
        "replaces_memory": False, "chosen": plan["chosen"],
        "skipped": plan["skipped"], "max_text_chars": ctx.config.max_text_chars,
        "cut": [_cut_text(c) for c in plan["cut"]],
        "sample": [{"user": n.user_text[:300], "assistant": n.assistant_text[:300], "ts": n.ts,
                    "where": item.where} for n, item in plan["exchanges"][:limit]],
    }


def import_dialogue(
    ctx: Context, user_id: str, source: Any, fmt: str = "auto", speaker: str | None = None,
    progress: Progress | None = None, select: str | None = None,
    expanded: int = MAX_EXPANDED_BYTES,
) -> ImportReport:
    """Admit every valid exchange of a document in one transaction (a chat export: streamed in
    batches of whole conversations, chat_store.run); report what was skipped."""
    rec, source = recognise(source, fmt, expanded)
    if rec is not None:
        return chat_store.run(ctx, user_id, rec, progress)  # type: ignore[return-value]
    plan = prepare(ctx, user_id, source, fmt, speaker, select)
    if plan["format"] == "memoryos-export":
        result = versions.replace_with_export(ctx, user_id, plan["document"])
        return {"format": plan["format"], "total": plan["total"], "imported": plan["total"],
                "skipped": [], "cut": [], "saved_as": result["saved_as"],
                "counts": result["counts"]}
    ready = plan["exchanges"]
    total = len(ready)
    vectors: list[Any] = []
    # one new conversation: each page found with the reply before it in the import's sittings
    texts = retrieval_text.import_texts(ctx.store, user_id, [n for n, _ in ready])
    for start in range(0, total, EMBED_BATCH):
        vectors.extend(ctx.embedder.embed(texts[start : start + EMBED_BATCH]))
        if progress:
            progress(min(start + EMBED_BATCH, total), total, "embedding")
    ids: list[int] = []
    refs: dict[int, str] = {}
    saved = None
    with ctx.store.transaction(user_id) as conn:
        # the memory before, as a version to restore: every import can be undone, the first
        # one into an empty memory too
        if ready:
            saved = versions.snapshot(ctx, user_id, f"before import ({plan['format']},"
                                      f" {total} exchanges)")["version"]
        for (new, item), vec in zip(ready, vectors, strict=True):
            # the import is one conversation, started by its first exchange
            new = replace(new, conversation=ids[0] if ids else "new")
            exchange_id, _ = admit(conn, ctx.store, ctx.config, user_id, new, vec)
            ids.append(exchange_id)
            if item.ref:
                refs[exchange_id] = item.ref
        ctx.store.log_event(conn, user_id, "import", {
            "format": plan["format"], "imported": total, "skipped": len(plan["skipped"]),
            "cut": len(plan["cut"]), "saved_as": saved})
    if progress:
        progress(total, total, "stored")
    cut = [_cut_text(c, ids[c["n"]]) for c in plan["cut"]]
    return {"format": plan["format"], "total": plan["total"], "imported": total,
            "skipped": plan["skipped"], "cut": cut, "max_text_chars": ctx.config.max_text_chars,
            "chosen": plan["chosen"], "exchange_ids": ids, "refs": refs, "saved_as": saved}
