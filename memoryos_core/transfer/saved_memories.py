"""Saved memories of other assistants as long-term facts: Claude, OpenMemory, Letta blocks.

Each fact keeps where it came from ("imported from Claude memory"); export_formats.md 1.1, 7a, 7b.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import ImportFormatError
from .chat_common import arr, clean, iso_time, obj, text_of

MAX_FACT_CHARS = 1000
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
# a line that is only bold (Claude writes "**Work context**" over a group of statements): a
# heading, not a statement about anyone
_BOLD = re.compile(r"(\*\*|__)(.+?)\1")
_BOLD_HEADING = re.compile(r"^(\*\*|__)[^*_]+\1\s*:?$")


@dataclass(frozen=True)
class SavedFact:
    """One remembered statement, whose it is (user or assistant) and where it came from."""

    kind: str  # "user" or "assistant"
    text: str
    ts: float | None
    origin: str  # "imported from …"


def statements(markdown: str) -> list[str]:
    """The statements of a memory text: one per line or bullet, headings left out."""
    out = []
    for line in markdown.replace("\r\n", "\n").split("\n"):
        line = clean(_BULLET.sub("", line))
        if (not line or line.startswith("#") or line.strip("-*_= ") == ""
                or _BOLD_HEADING.match(line)):
            continue
        out.append(_BOLD.sub(r"\2", line).strip("*_ ")[:MAX_FACT_CHARS])
    return [s for s in out if len(s) > 2]


def claude_memories(elements: Iterable[Any]) -> Iterator[SavedFact]:
    """Claude's memories.json: the memory of conversations and of each project."""
    for element in elements:
        element = obj(element)
        for text in statements(text_of(element.get("conversations_memory"))):
            yield SavedFact("user", text, None, "imported from Claude memory")
        projects = element.get("project_memories")
        items = projects.items() if isinstance(projects, dict) else (
            (text_of(obj(p).get("name")) or str(n), obj(p).get("memory") or p)
            for n, p in enumerate(arr(projects)))
        for name, memory in items:
            for text in statements(text_of(memory)):
                yield SavedFact("user", text, None, f"imported from Claude project memory"
                                f" ({str(name)[:60]})")


def openmemory(doc: Any, rows: Iterable[Any] | None = None) -> Iterator[SavedFact]:
    """An OpenMemory export (memories.json, or memories.jsonl lines): deleted ones left out."""
    apps = {text_of(obj(a).get("id")): text_of(obj(a).get("name")) for a in
            arr(obj(doc).get("apps"))}
    for memory in (rows if rows is not None else arr(obj(doc).get("memories"))):
        memory = obj(memory)
        state = text_of(memory.get("state")) or "active"
        text = clean(text_of(memory.get("content")))[:MAX_FACT_CHARS]
        if state == "deleted" or not text:
            continue
        app = text_of(memory.get("app")) or apps.get(text_of(memory.get("app_id")), "")
        origin = "imported from OpenMemory" + (f" ({app})" if app else "")
        if state != "active":
            origin += f", {state} there"
        yield SavedFact("user", text, iso_time(memory.get("created_at")), origin)


def letta(doc: Any) -> Iterator[SavedFact]:
    """A Letta agent file's core-memory blocks: 'human' and custom ones the user's, 'persona'
    the assistant's (v2: top-level blocks; v1: core_memory)."""
    doc = obj(doc)
    agents = arr(doc.get("agents")) or [doc]
    blocks = {text_of(obj(b).get("id")): obj(b) for b in arr(doc.get("blocks"))}
    found = False
    for agent in agents:
        agent = obj(agent)
        name = text_of(agent.get("name")) or "agent"
        own = [blocks[i] for i in arr(agent.get("block_ids")) if isinstance(i, str) and i in blocks]
        for block in own or [obj(b) for b in arr(agent.get("core_memory"))]:
            found = True
            label = text_of(block.get("label")) or "memory"
            kind = "assistant" if label == "persona" else "user"
            for text in statements(text_of(block.get("value"))):
                yield SavedFact(kind, text, iso_time(block.get("created_at")),
                                f"imported from Letta agent {name[:40]} ({label[:30]} block)")
    if not found:
        raise ImportFormatError("the agent file holds no memory blocks")
