"""Import a recognised chat export: stream its conversations, admit each one whole, in batches.

Memory stays flat on a large export: one element is parsed at a time and a batch of whole
conversations is embedded and written in one transaction, so a crash keeps whole
conversations only and a second run adds what is missing (the content keys say what is in).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from ..context import Context
from ..errors import ImportFormatError, InvalidInput
from ..memory.admission import NewExchange, admit, check_exchange
from ..storage import every_table
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..text import normalise
from . import chat_logs, chat_trees, saved_memories, versions
from .chat_common import Bad, Conversation, exchanges
from .classify import MEMORY_FORMATS, Recognised
from .fitting import fit_text
from .saved_memories import SavedFact
from .sniff import JsonArray, iter_jsonl

Progress = Callable[[int, int, str], None]
BATCH = 256  # exchanges embedded and written per transaction
EMBED_BATCH = 64
SAMPLE = 20
ELEMENT_READERS: dict[str, Callable[[Any, str], Conversation]] = {
    "claude": chat_trees.claude, "openwebui": chat_trees.openwebui,
    "librechat": chat_trees.librechat, "openai-jsonl": chat_logs.openai_chat,
    "sharegpt": chat_logs.sharegpt}
READ_ERRORS = (ImportFormatError, TypeError, KeyError, ValueError, AttributeError, IndexError)


def _guarded(read: Callable[[Any, str], Conversation], element: Any,
             where: str) -> Conversation | Bad:
    try:
        return read(element, where)
    except READ_ERRORS as exc:  # one bad conversation is reported, never stops the rest
        return Bad(where, str(exc) or type(exc).__name__)


def conversations(rec: Recognised, seen: list[int] | None = None) -> Iterator[Conversation | Bad]:
    """Every conversation of the export, parsed one at a time; `seen` gets characters read."""
    if rec.format == "sillytavern":
        with rec.container.open() as fp:
            yield _guarded(lambda lines, w: chat_logs.sillytavern(lines, w), iter_jsonl(fp),
                           "the chat")
        return
    if rec.shape == "object":
        yield _guarded(ELEMENT_READERS[rec.format], rec.doc, "the conversation")
        return
    with rec.container.open() as fp:
        if rec.shape == "jsonl":
            for n, line in iter_jsonl(fp):
                yield _guarded(ELEMENT_READERS[rec.format], line, f"line {n}")
            return
        if rec.format == "gemini":
            yield from chat_logs.gemini(JsonArray(fp))
            return
    read = ELEMENT_READERS[rec.format]
    done = 0
    for part, member in enumerate((rec.container.member, *rec.batches)):
        container = rec.container.with_member(member) if member else rec.container
        with container.open() as fp:
            array = JsonArray(fp)
            for n, element in enumerate(array):
                if seen is not None:
                    seen[0] = done + array.consumed
                yield _guarded(read, element, f"batch {part} conversation {n}" if rec.batches
                               else f"conversation {n}")
            done += array.consumed


def saved_facts(rec: Recognised) -> list[SavedFact]:
    """The saved memories of a memory file, or of a Claude ZIP's memories.json."""
    if rec.format == "letta":
        return list(saved_memories.letta(rec.doc))
    if rec.format == "openmemory":
        if rec.shape == "jsonl":
            with rec.container.open() as fp:
                return list(saved_memories.openmemory({}, (line for _, line in iter_jsonl(fp))))
        return list(saved_memories.openmemory(rec.doc))
    container = rec.container
    if rec.format == "claude":
        if rec.memories is None:
            return []
        container = container.with_member(rec.memories)
    with container.open() as fp:
        head = fp.read(64).lstrip()
    if head.startswith(b"{"):
        return []  # an OpenMemory file beside conversations is not Claude's memory
    with container.open() as fp:
        return list(saved_memories.claude_memories(JsonArray(fp)))


def _source(fmt: str, conv: Conversation) -> str:
    """The exchange's source: the format, the conversation's id and its title (kept, shown)."""
    return f"import:{fmt} {conv.source_id[:12]} · {conv.title}"[:120]


def _checked(ctx: Context, fmt: str, conv: Conversation,
             cut: list[dict[str, Any]]) -> list[NewExchange]:
    """The conversation's exchanges, checked; a text over the limit is cut and listed."""
    out = []
    limit = ctx.config.max_text_chars
    for k, ex in enumerate(exchanges(conv)):
        # no time in the source: the conversation's id and the exchange's place are the key
        identity = "" if ex.ts is not None else f"untimed:{conv.source_id}#{k}"
        ts = ex.ts if ex.ts is not None else time.time() + k * 0.001
        (user, user_cut), (assistant, assistant_cut) = (fit_text(ex.user, limit),
                                                        fit_text(ex.assistant, limit))
        for side, whole, dropped in (("user", ex.user, user_cut),
                                     ("assistant", ex.assistant, assistant_cut)):
            if dropped:
                cut.append({"where": f"{conv.where} {ex.ref}".strip(), "ref": ex.ref,
                            "side": side, "chars": len(whole.strip()), "cut": dropped})
        try:
            out.append(check_exchange(ctx.config, user, assistant, ts, source=_source(fmt, conv),
                                      where=ex.where, identity=identity))
        except InvalidInput as exc:
            raise ImportFormatError(str(exc)) from None
    return out


class Tally:
    """What an import found, left out and would add, as the preview and report say."""

    def __init__(self) -> None:
        self.conversations = 0
        self.total = 0
        self.abandoned = 0
        self.skipped: list[dict[str, str]] = []
        self.cut: list[dict[str, Any]] = []
        self.sample: list[dict[str, Any]] = []

    def counts(self, rec: Recognised) -> dict[str, Any]:
        return {"recognised": {"format": rec.format, "label": rec.label, "why": rec.why},
                "conversations": self.conversations, "abandoned": self.abandoned}


def _read(ctx: Context, rec: Recognised, tally: Tally, known: set[str],
          seen: list[int]) -> Iterator[tuple[Conversation, list[NewExchange], bool]]:
    """The new exchanges of each readable conversation, and whether some of it was imported
    before; bad conversations and repeats tallied."""
    if rec.format in MEMORY_FORMATS:
        return
    for conv in conversations(rec, seen):
        if isinstance(conv, Bad):
            tally.skipped.append({"where": conv.where, "reason": conv.reason})
            continue
        try:
            found = _checked(ctx, rec.format, conv, tally.cut)
        except ImportFormatError as exc:
            tally.skipped.append({"where": conv.where, "reason": str(exc)})
            continue
        tally.conversations += 1
        tally.total += len(found)
        tally.abandoned += conv.abandoned
        fresh = []
        for new in found:
            if new.key in known:
                tally.skipped.append({"where": conv.where, "reason": "already imported"})
                continue
            known.add(new.key)
            fresh.append(new)
        yield conv, fresh, len(fresh) < len(found)


def _new_facts(ctx: Context, user_id: str | None, rec: Recognised) -> tuple[list[SavedFact], int]:
    try:
        facts = saved_facts(rec)
    except READ_ERRORS as exc:  # a shape no check foresaw: named, and nothing is written
        if isinstance(exc, ImportFormatError):
            raise
        raise ImportFormatError(f"the saved memories of this {rec.label} have a field of an"
                                f" unexpected type ({type(exc).__name__})") from None
    norms = facts_db.known_fact_norms(ctx.store, user_id) if user_id else set()
    fresh = {}
    for fact in facts:
        key = (fact.kind, normalise(fact.text))
        if key not in norms and key not in fresh:
            fresh[key] = fact
    return list(fresh.values()), len(facts)


def preview(ctx: Context, user_id: str, rec: Recognised, limit: int = SAMPLE) -> dict[str, Any]:
    """What importing the export would add, read through once, writing nothing."""
    tally = Tally()
    known = exchanges_db.content_keys(ctx.store, user_id)
    to_import = 0
    for conv, fresh, _ in _read(ctx, rec, tally, known, [0]):
        to_import += len(fresh)
        for new in fresh[: max(0, limit - len(tally.sample))]:
            tally.sample.append({"user": new.user_text[:300], "assistant": new.assistant_text[:300],
                                 "ts": new.ts, "where": f"{conv.title} ({conv.where})"})
    facts, found = _new_facts(ctx, user_id, rec)
    return {"format": rec.format, "total": tally.total, "to_import": to_import,
            "skipped": tally.skipped, "cut": tally.cut[:200], "sample": tally.sample,
            "replaces_memory": False, "chosen": None, "max_text_chars": ctx.config.max_text_chars,
            **tally.counts(rec), "facts": {"found": found, "new": len(facts),
                                           "sample": [f.text for f in facts[:10]]}}


def _embed(ctx: Context, texts: list[str]) -> list[Any]:
    out: list[Any] = []
    for start in range(0, len(texts), EMBED_BATCH):
        out.extend(ctx.embedder.embed(texts[start:start + EMBED_BATCH]))
    return out


def run(ctx: Context, user_id: str, rec: Recognised, progress: Progress | None = None,
        ) -> dict[str, Any]:
    """Import the export: conversations in batches of whole ones, saved memories as facts."""
    tally = Tally()
    known = exchanges_db.content_keys(ctx.store, user_id)
    size = max(1, rec.container.size + sum(rec.container.with_member(m).size
                                           for m in rec.batches))
    seen = [0]
    ids: list[int] = []
    saved: list[int | None] = [None]
    held = every_table.holds_memory(ctx.store, user_id)
    batch: list[tuple[Conversation, list[NewExchange], bool]] = []

    def snapshot_once() -> None:
        # the memory before, as a version to restore; into an empty memory, clear undoes it
        if held and saved[0] is None:
            saved[0] = versions.snapshot(ctx, user_id, f"before import ({rec.format})")["version"]

    def flush() -> None:
        pending = [(conv, new) for conv, fresh, _ in batch for new in fresh]
        vectors = _embed(ctx, [new.page_text for _, new in pending])
        with ctx.store.transaction(user_id) as conn:
            snapshot_once()
            step = iter(zip(pending, vectors, strict=True))
            for conv, fresh, before in batch:
                # a conversation partly imported before (a newer export) continues there
                target: int | str = (before and exchanges_db.conversation_by_source(
                    ctx.store, user_id, _source(rec.format, conv))) or "new"
                for _ in fresh:
                    (_, new), vec = next(step)
                    exchange_id, _ = admit(conn, ctx.store, ctx.config, user_id,
                                           replace(new, conversation=target), vec)
                    target = target if isinstance(target, int) else exchange_id
                    ids.append(exchange_id)
        batch.clear()
        if progress:
            progress(min(seen[0], size) // 1024, size // 1024, "reading")

    waiting = 0
    for conv, fresh, before in _read(ctx, rec, tally, known, seen):
        if fresh:
            batch.append((conv, fresh, before))
            waiting += len(fresh)
        if waiting >= BATCH:
            flush()
            waiting = 0
    if batch:
        flush()
    facts, found = _new_facts(ctx, user_id, rec)
    if facts:
        vectors = _embed(ctx, [f.text for f in facts])
        now = time.time()
        with ctx.store.transaction(user_id) as conn:
            snapshot_once()
            for fact, vec in zip(facts, vectors, strict=True):
                fact_id = facts_db.insert_imported_fact(
                    conn, user_id, fact.kind, fact.text, normalise(fact.text), fact.ts or now,
                    now, origin=fact.origin)
                ctx.store.put_vector(conn, user_id, "fact", fact_id, vec)
    with ctx.store.transaction(user_id) as conn:
        ctx.store.log_event(conn, user_id, "import", {
            "format": rec.format, "imported": len(ids), "skipped": len(tally.skipped),
            "conversations": tally.conversations, "abandoned": tally.abandoned,
            "facts": len(facts), "saved_as": saved[0]})
    if progress:
        progress(size, size, "stored")
    return {"format": rec.format, "total": tally.total, "imported": len(ids),
            "skipped": tally.skipped, "cut": tally.cut[:200],
            "max_text_chars": ctx.config.max_text_chars,
            "chosen": None, "exchange_ids": ids, "refs": {}, "saved_as": saved[0],
            **tally.counts(rec), "facts": {"found": found, "imported": len(facts)}}
