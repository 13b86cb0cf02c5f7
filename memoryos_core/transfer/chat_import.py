"""Import a recognised chat export: stream its conversations, admit each one whole, in batches.

Memory stays flat on a large export: one element is parsed at a time and a batch of whole
conversations is embedded and written in one transaction, so a crash keeps whole
conversations only and a second run adds what is missing (the content keys say what is in).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from ..context import Context
from ..errors import ImportFormatError, InvalidInput
from ..memory.admission import NewExchange, check_exchange
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import unanswered as unanswered_db
from ..text import content_hash, normalise
from . import chat_logs, chat_trees, saved_memories
from .chat_common import Bad, Conversation, exchanges
from .classify import MEMORY_FORMATS, Recognised
from .fitting import fit_text
from .saved_memories import SavedFact
from .sniff import JsonArray, iter_jsonl

SAMPLE = 20
LISTED = 200  # conversations, skips and notes listed in a preview or report at most
PREVIEW_SECONDS = 5.0  # a preview reads for this long inside a request, then says it stopped
ELEMENT_READERS: dict[str, Callable[[Any, str], Conversation]] = {
    "chatgpt": chat_trees.chatgpt, "claude": chat_trees.claude, "openwebui": chat_trees.openwebui,
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
            for n, line in iter_jsonl(fp):  # n counts lines from 1
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
            for n, element in enumerate(array, start=1):
                if seen is not None:
                    seen[0] = done + array.consumed
                yield _guarded(read, element, f"batch {part + 1} conversation {n}"
                               if rec.batches else f"conversation {n}")
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


def source_of(fmt: str, conv: Conversation) -> str:
    """The exchange's source: the format, the conversation's id and its title (kept, shown)."""
    return f"import:{fmt} {conv.source_id[:12]} · {conv.title}"[:120]


def _neighbour_time(times: list[float | None], k: int) -> float | None:
    """The time of the nearest dated exchange before `k` (a millisecond later), else after."""
    before = [t for t in times[:k] if t is not None]
    if before:
        return before[-1] + 0.001
    after = [t for t in times[k + 1:] if t is not None]
    return after[0] - 0.001 if after else None


def _checked(ctx: Context, fmt: str, conv: Conversation, cut: list[dict[str, Any]],
             notes: list[dict[str, str]]) -> list[NewExchange]:
    """The conversation's exchanges, checked; a text over the limit is cut and listed."""
    out = []
    limit = ctx.config.max_text_chars
    found = exchanges(conv)
    times = [ex.ts for ex in found]
    for k, ex in enumerate(found):
        # no time in the source: the conversation's id and the exchange's place are the key
        identity = "" if ex.ts is not None else f"untimed:{conv.source_id}#{k}"
        ts = ex.ts if ex.ts is not None else time.time() + k * 0.001
        near = _neighbour_time(times, k)
        if ex.ts is None and near is not None:
            # one message whose time is unreadable in a dated conversation: placed beside its
            # neighbour, not at today's date, and said
            ts = near
            notes.append({"where": f"{conv.where} {ex.ref}".strip(),
                          "reason": "its time is missing or unreadable: placed beside the"
                                    " message next to it"})
        (user, user_cut), (assistant, assistant_cut) = (fit_text(ex.user, limit),
                                                        fit_text(ex.assistant, limit))
        try:
            new = check_exchange(ctx.config, user, assistant, ts, source=source_of(fmt, conv),
                                 where=ex.where, identity=identity)
        except InvalidInput as exc:
            raise ImportFormatError(str(exc)) from None
        out.append(new)
        for side, whole, dropped in (("user", ex.user, user_cut),
                                     ("assistant", ex.assistant, assistant_cut)):
            if dropped:  # the key finds the exchange id once it is stored
                cut.append({"where": f"{conv.where} {ex.ref}".strip(), "ref": ex.ref,
                            "side": side, "chars": len(whole.strip()), "cut": dropped,
                            "key": new.key})
    return out


def cuts(cut: list[dict[str, Any]], ids: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The texts cut as reported: with the exchange id each went to, once stored."""
    out = []
    for c in cut[:LISTED]:
        shown = {k: v for k, v in c.items() if k != "key"}
        if ids is not None and c["key"] in ids:
            shown["exchange_id"] = ids[c["key"]]
        out.append(shown)
    return out


class Tally:
    """What an import found, left out and would add, as the preview and report say."""

    def __init__(self) -> None:
        self.conversations = 0
        self.total = 0
        self.abandoned = 0
        self.skipped: list[dict[str, str]] = []
        self.notes: list[dict[str, str]] = []  # read, with a remark (a time borrowed)
        self.cut: list[dict[str, Any]] = []
        self.sample: list[dict[str, Any]] = []
        self.listed: list[dict[str, Any]] = []  # each conversation: title, exchanges, new
        self.completed = 0  # unanswered questions a newer export answers

    def counts(self, rec: Recognised) -> dict[str, Any]:
        return {"recognised": {"format": rec.format, "label": rec.label, "why": rec.why},
                "conversations": self.conversations, "abandoned": self.abandoned,
                "listed": self.listed[:LISTED], "notes": self.notes[:LISTED],
                "completed": self.completed}


Read = tuple[Conversation, list[NewExchange], bool, list[tuple[NewExchange, int]]]


def _unanswered_key(new: NewExchange) -> str:
    """The key this exchange had when an older export held the question without its answer."""
    return content_hash(new.user_text, "", new.identity or f"{new.ts:.0f}")


def _read(ctx: Context, user_id: str, rec: Recognised, tally: Tally, known: set[str],
          seen: list[int]) -> Iterator[Read]:
    """The new exchanges of each readable conversation, whether some of it was imported
    before, and the stored questions it answers (exchange ids); bad ones and repeats tallied."""
    if rec.format in MEMORY_FORMATS:
        return
    for conv in conversations(rec, seen):
        if isinstance(conv, Bad):
            tally.skipped.append({"where": conv.where, "reason": conv.reason})
            continue
        try:
            found = _checked(ctx, rec.format, conv, tally.cut, tally.notes)
        except ImportFormatError as exc:
            tally.skipped.append({"where": conv.where, "reason": str(exc)})
            continue
        tally.conversations += 1
        tally.total += len(found)
        tally.abandoned += conv.abandoned
        fresh = []
        for new in found:  # the same exchange twice in one file is one exchange
            if new.key not in known:
                known.add(new.key)
                fresh.append(new)
        waiting = {_unanswered_key(n): n for n in fresh if n.assistant_text}
        stored = unanswered_db.by_keys(ctx.store, user_id, [k for k in waiting if k in known])
        answers = [(waiting[key], exchange_id) for key, exchange_id in stored.items()]
        answering = {id(new) for new, _ in answers}
        fresh = [new for new in fresh if id(new) not in answering]
        repeats = len(found) - len(fresh) - len(answers)
        tally.skipped.extend({"where": conv.where, "reason": "already imported"}
                             for _ in range(repeats))
        tally.completed += len(answers)
        if len(tally.listed) < LISTED:
            tally.listed.append({"title": conv.title, "where": conv.where,
                                 "exchanges": len(found), "new": len(fresh) + len(answers),
                                 "abandoned": conv.abandoned})
        yield conv, fresh, repeats > 0 or bool(answers), answers


def new_facts(ctx: Context, user_id: str | None,
              rec: Recognised) -> tuple[list[SavedFact], int]:
    """The saved memories not already known, and how many the file holds."""
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


def read(ctx: Context, user_id: str, rec: Recognised, tally: Tally,
         seen: list[int]) -> Iterator[Read]:
    """Every conversation's new exchanges, against what the user's memory already holds."""
    return _read(ctx, user_id, rec, tally, exchanges_db.content_keys(ctx.store, user_id), seen)


def preview(ctx: Context, user_id: str, rec: Recognised, limit: int = SAMPLE,
            seconds: float = PREVIEW_SECONDS) -> dict[str, Any]:
    """What importing the export would add, writing nothing; a large file is read for
    `seconds` at most (a request must not be held), and the preview says how far it got."""
    tally = Tally()
    to_import = 0
    seen = [0]
    stop = time.monotonic() + seconds
    partial = None
    size = export_size(rec)
    for conv, fresh, _, answers in read(ctx, user_id, rec, tally, seen):
        to_import += len(fresh) + len(answers)
        for new in fresh[: max(0, limit - len(tally.sample))]:
            tally.sample.append({"user": new.user_text[:300], "assistant": new.assistant_text[:300],
                                 "ts": new.ts, "where": f"{conv.title} ({conv.where})"})
        if time.monotonic() > stop:
            partial = {"read": seen[0], "of": size}
            break
    facts, found = new_facts(ctx, user_id, rec)
    return {"format": rec.format, "total": tally.total, "to_import": to_import,
            "skipped": tally.skipped[:LISTED], "cut": cuts(tally.cut), "sample": tally.sample,
            "replaces_memory": False, "chosen": None, "max_text_chars": ctx.config.max_text_chars,
            "partial": partial, **tally.counts(rec),
            "facts": {"found": found, "new": len(facts), "sample": [f.text for f in facts[:10]]}}


def export_size(rec: Recognised) -> int:
    """The characters the export holds, every batch together (for progress)."""
    return max(1, rec.container.size + sum(rec.container.with_member(m).size
                                           for m in rec.batches))
