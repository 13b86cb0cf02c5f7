"""Which export a file is, by its container and the parsed keys of its first element.

The order of the checks is the key-signature table of shared/formats/export_formats.md (0.3).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import ImportFormatError
from .chat_common import arr, obj
from .sniff import (
    MAX_EXPANDED_BYTES,
    Container,
    JsonArray,
    basename,
    first_lines,
    head_text,
    is_jsonl,
    load_object,
    open_container,
)

LABELS = {
    "claude": "Claude.ai export", "openwebui": "Open WebUI chat export",
    "librechat": "LibreChat conversation", "sillytavern": "SillyTavern chat (.jsonl)",
    "gemini": "Gemini Apps activity (Google Takeout)", "openai-jsonl": "OpenAI chat JSONL",
    "sharegpt": "ShareGPT conversations", "claude-memories": "Claude saved memories",
    "openmemory": "OpenMemory export", "letta": "Letta agent file",
    "chatgpt": "ChatGPT export",
}
CHAT_FORMATS = ("chatgpt", "claude", "openwebui", "librechat", "sillytavern", "gemini", "openai-jsonl",
                "sharegpt")
MEMORY_FORMATS = ("claude-memories", "openmemory", "letta")
READ = ("a Claude.ai export (the ZIP or its conversations.json), a ChatGPT conversations.json,"
        " an Open WebUI chat export, a LibreChat conversation (.json), a SillyTavern chat"
        " (.jsonl), Gemini Apps activity from Google Takeout (MyActivity.json), OpenAI chat"
        " JSONL, ShareGPT conversations, saved memories (Claude memories.json, an OpenMemory"
        " export, a Letta agent file), a Playground list, LoCoMo, LongMemEval, a"
        " User:/Assistant: transcript or a memoryos export")


@dataclass(frozen=True)
class Recognised:
    """What a file was recognised as, and why (the preview says both)."""

    format: str  # a key of LABELS, or "legacy" (the formats importers.detect names)
    why: str
    container: Container
    shape: str = "array"  # "array", "object", "jsonl"
    doc: Any = None  # a whole object already loaded (shape "object")
    memories: str | None = None  # a Claude ZIP's memories.json member, read too
    batches: tuple[str, ...] = ()  # a Claude ZIP's further conversations.json (batch-NNNN)

    @property
    def label(self) -> str:
        """The format's name as people know it."""
        return LABELS.get(self.format, self.format)


def _keys(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(sorted(value)[:12]) or "none (an empty object)"
    return _kind(value)


KINDS = {bool: "true or false", int: "a number", float: "a number", str: "a text",
         list: "a list", dict: "an object", type(None): "null"}


def _kind(value: Any) -> str:
    """What a JSON value is, in words ('a number', not 'int')."""
    return KINDS.get(type(value), type(value).__name__)


def unknown(found: str) -> ImportFormatError:
    """The clear error for a shape no reader knows, naming what was found and what is read."""
    return ImportFormatError(f"unknown format: {found}. This importer reads {READ}")


def _is_sharegpt(item: dict[str, Any]) -> bool:
    turns = arr(item.get("conversations"))
    return bool(turns) and all(isinstance(t, dict) and "from" in t and "value" in t
                               for t in turns[:3])


def _is_gemini(item: dict[str, Any]) -> bool:
    return ({"header", "title", "time"} <= item.keys()
            and (item.get("header") == "Gemini Apps" or "Gemini Apps" in arr(item.get("products"))))


def _element(first: Any, container: Container, where: str,
             which: str = "first element") -> Recognised | None:
    """The format of a list by one element's keys (None: a format importers.detect reads)."""
    if not isinstance(first, dict):
        raise unknown(f"{where} is a list whose {which} is {_kind(first)}, not a conversation")
    if isinstance(first.get("chat_messages"), list) and "uuid" in first:
        return Recognised("claude", f"{where}: its {which} has 'chat_messages' and 'uuid'",
                          container)
    if isinstance(first.get("mapping"), dict):
        return Recognised("chatgpt", f"{where}: its {which} has 'mapping' (and"
                          " 'current_node')", container)
    if isinstance(first.get("chat"), dict) and ("history" in first["chat"]
                                                 or "messages" in first["chat"]):
        return Recognised("openwebui", f"{where}: its {which} has 'chat' with"
                          " 'history'", container)
    history = obj(first.get("history"))
    if isinstance(history.get("messages"), dict) and "currentId" in history:
        return Recognised("openwebui", f"{where}: its {which} has 'history.messages' and"
                          " 'history.currentId' (a bare Open WebUI chat)", container)
    if _is_gemini(first):
        return Recognised("gemini", f"{where}: its {which} has 'header' \"Gemini Apps\","
                          " 'title' and 'time'", container)
    if _is_sharegpt(first):
        return Recognised("sharegpt", f"{where}: its {which} has 'conversations' of"
                          " {from, value}", container)
    if "conversations_memory" in first or "project_memories" in first:
        return Recognised("claude-memories", f"{where}: its {which} has"
                          " 'conversations_memory'", container)
    if isinstance(first.get("messages"), list) and all(
            isinstance(m, dict) and "role" in m for m in first["messages"][:3]):
        return Recognised("openai-jsonl", f"{where}: its {which} has 'messages' of"
                          " {role, content}", container)
    if {"user_input", "agent_response", "conversation", "haystack_sessions"} & first.keys():
        return None
    raise unknown(f"{where} is a list whose {which} has the keys {_keys(first)}")


def _object(doc: Any, container: Container, where: str) -> Recognised | None:
    """The format of a single JSON object by its keys (None: importers.detect reads it)."""
    if not isinstance(doc, dict):
        raise unknown(f"{where} is {_kind(doc)}")

    def found(fmt: str, why: str) -> Recognised:
        return Recognised(fmt, f"{where}: {why}", container, "object", doc)

    if isinstance(doc.get("agents"), list) and isinstance(doc.get("blocks"), list):
        return found("letta", "a top object with 'agents' and 'blocks' (agent file v2)")
    if {"agent_type", "core_memory", "messages"} <= doc.keys():
        return found("letta", "a top object with 'agent_type', 'core_memory' and 'messages'"
                     " (agent file v1)")
    if "conversationId" in doc and ("messages" in doc or "messagesTree" in doc):
        return found("librechat", "a top object with 'conversationId' and 'messages'")
    if {"export_meta", "memories"} <= doc.keys():
        return found("openmemory", "a top object with 'export_meta' and 'memories'")
    if "chunkedPrompt" in doc:
        raise ImportFormatError("this is a Google AI Studio prompt file; it is not read. " + READ)
    if isinstance(doc.get("chat_messages"), list) and "uuid" in doc:
        return found("claude", "a top object with 'chat_messages' and 'uuid' (one"
                     " conversation)")
    history = obj(doc.get("history")) or obj(obj(doc.get("chat")).get("history"))
    if isinstance(history.get("messages"), dict):
        return found("openwebui", "a top object with 'history.messages' (one chat)")
    if _is_sharegpt(doc):
        return found("sharegpt", "a top object with 'conversations' of {from, value}")
    if isinstance(doc.get("mapping"), dict):
        return found("chatgpt", "a top object with 'mapping' (one ChatGPT conversation)")
    if {"format", "conversation", "haystack_sessions"} & doc.keys():
        return None
    raise unknown(f"{where} is an object with the keys {_keys(doc)}")


def _jsonl(container: Container) -> Recognised:
    """The format of a JSONL file by its first line's keys."""
    first = json.loads(first_lines(container, 1)[0])
    keys = first.keys()
    if "mes" not in keys and keys & {"user_name", "character_name", "chat_metadata"}:
        return Recognised("sillytavern", "JSONL whose first line is a SillyTavern header"
                          " ('user_name', 'character_name')", container, "jsonl")
    if {"mes", "is_user"} <= keys:
        return Recognised("sillytavern", "JSONL whose lines have 'mes' and 'is_user'"
                          " (no header line)", container, "jsonl")
    if _is_sharegpt(first):
        return Recognised("sharegpt", "JSONL whose first line has 'conversations' of"
                          " {from, value}", container, "jsonl")
    if "custom_id" in keys and "body" in keys:
        raise ImportFormatError("this is an OpenAI Batch input: it holds requests, not"
                                " conversations, so nothing is imported")
    if isinstance(first.get("messages"), list):
        return Recognised("openai-jsonl", "JSONL whose lines have 'messages' of {role,"
                          " content}", container, "jsonl")
    if {"content", "state"} <= keys and "id" in keys:
        return Recognised("openmemory", "JSONL whose lines have 'id', 'content' and 'state'"
                          " (OpenMemory memories.jsonl)", container, "jsonl")
    raise unknown(f"a JSONL file whose first line has the keys {_keys(first)}")


LOOKED_AT = 5  # elements read to decide a list's format when the first ones are not recognised


def _list(container: Container, where: str) -> Recognised | None:
    """The format of a list by its first recognisable element: one bad conversation at the
    start does not make the whole file unknown (it is skipped and reported when read)."""
    refused: list[tuple[int, ImportFormatError]] = []
    with container.open() as fp:
        for n, element in enumerate(JsonArray(fp), start=1):
            if element in (None, {}, [], ""):
                continue
            which = "first element" if n == 1 else f"element {n}"
            try:
                got = _element(element, container, where, which)
            except ImportFormatError as exc:
                refused.append((n, exc))
                if len(refused) == LOOKED_AT:
                    break
                continue
            if got is not None and refused:
                skipped = ", ".join(str(k) for k, _ in refused)
                got = replace(got, why=f"{got.why} (element {skipped}, not recognised, will be"
                              " reported and skipped)")
            return got
    if refused:
        raise refused[0][1]
    raise ImportFormatError(f"{where} is an empty JSON list: there is nothing to import")


ZIP_SIBLINGS = ("users.json", "projects.json", "conversations.json", "memories.json")


def _zip(container: Container) -> Recognised:
    """The format of a ZIP archive by its members' names and their content's keys."""
    by_name: dict[str, list[str]] = {}
    for name in container.members:
        by_name.setdefault(basename(name), []).append(name)
    memories = by_name.get("memories.json", [None])[0]
    parts = sorted(by_name.get("conversations.json", []))
    for member in parts:
        inner = container.with_member(member)
        got = _list(inner, f"{member} in the ZIP")
        if got is None:
            return Recognised("legacy", f"{member} in the ZIP is a list the older readers read",
                              inner)
        if got.format == "claude":  # an export split in batches: every part is read
            extra = " and 'memories.json'" if memories else ""
            more = f"; {len(parts)} batches" if len(parts) > 1 else ""
            return Recognised("claude", got.why + extra + more, inner, memories=memories,
                              batches=tuple(p for p in parts if p != member))
        return got
    if memories is not None:
        inner = container.with_member(memories)
        head = head_text(inner, 256).lstrip()
        if head.startswith("{"):
            got = _object(load_object(inner), inner, f"{memories} in the ZIP")
            if got is None:
                raise unknown(f"{memories} in the ZIP")
            return got
        got = _list(inner, f"{memories} in the ZIP")
        if got is not None:
            return got
    if any(n.endswith(("short_term.json", "mid_term.json")) for n in by_name):
        raise ImportFormatError("this ZIP is a MemoryOS data folder: use 'Import a MemoryOS"
                                " data folder' (memoryos import-reference) instead")
    # other names (a whole Takeout holds every product's activity, in localized folders): the
    # first member whose content is a format we read
    known = ("myactivity.json", "memories.jsonl.gz")
    others = sorted(m for m in container.members if basename(m).endswith(
        (".json", ".jsonl", ".jsonl.gz", ".af")) and basename(m) not in ZIP_SIBLINGS)
    for member in sorted(others, key=lambda m: basename(m) not in known):
        try:
            got = classify_container(container.with_member(member), f"{member} in the ZIP")
        except ImportFormatError:
            continue
        if got.format != "legacy":
            return got
    shown = ", ".join(sorted(by_name)[:8]) or "nothing"
    raise unknown(f"a ZIP archive holding {shown}")


def classify_container(container: Container, where: str = "the file") -> Recognised:
    """Recognise a document (None-format 'legacy' for the formats importers.detect reads)."""
    if container.members and container.member is None:
        return _zip(container)
    head = head_text(container, 4096).lstrip()
    if head.startswith("<"):
        raise ImportFormatError("this looks like HTML (a Takeout MyActivity.html?): export"
                                " Gemini Apps activity as JSON instead. " + READ)
    if not head.startswith(("[", "{")):
        _refuse_scalar(head, where)
        return Recognised("legacy", f"{where} is plain text", container)
    if is_jsonl(container):
        return _jsonl(container)
    if head.startswith("["):
        got = _list(container, where)
        return got or Recognised("legacy", f"{where} is a list importers.detect reads",
                                 container)
    doc = load_object(container)
    return _object(doc, container, where) or Recognised("legacy", f"{where} is a document"
                                                        " importers.detect reads", container,
                                                        "object", doc)


def _refuse_scalar(head: str, where: str) -> None:
    """A JSON number, text, true/false or null is no export (not a transcript line either)."""
    text = head.strip()
    if len(text) >= 4000 or text[:1] not in '"-0123456789tfn':
        return
    try:
        value = json.loads(text)
    except ValueError:
        return
    raise ImportFormatError(f"{where} is {_kind(value)} in JSON ({text[:40]}), not a chat"
                            f" export: there is nothing to import. This importer reads {READ}")


def classify(source: bytes | str | Path, limit: int = MAX_EXPANDED_BYTES) -> Recognised:
    """Recognise an upload, a pasted text or a file by content, never by its name."""
    container = open_container(source, limit)
    if not container.members and container.size == 0:
        raise ImportFormatError("the document is empty")
    return classify_container(container)
