"""Exports that keep every branch as a tree: Claude.ai, Open WebUI, LibreChat; the shown one read.

Rules and field names follow shared/formats/export_formats.md (sections 1, 2 and 3).
"""

from __future__ import annotations

import re
from typing import Any

from .chat_common import Conversation, Turn, arr, epoch_time, fail, iso_time, make_title, obj, text_of

CLAUDE_ROOT = "00000000-0000-4000-8000-000000000000"  # the root's parent: not in the export
LIBRECHAT_ROOT = "00000000-0000-0000-0000-000000000000"
_PLACEHOLDER = re.compile(r"```\s*This block is not supported on your current device yet\.?\s*```")
_ANT_THINKING = re.compile(r"<antThinking>.*?</antThinking>", re.S)
_ANT_ARTIFACT = re.compile(r"<antArtifact\b([^>]*)>(.*?)</antArtifact>", re.S)
_ATTR_TITLE = re.compile(r'title="([^"]*)"')
_DETAILS = re.compile(r"<details\b[^>]*>.*?</details>", re.S | re.I)


def _artifact(title: str, body: str) -> str:
    return f"[artifact: {title.strip() or 'untitled'}]\n{body.strip()}"


def _claude_legacy_text(text: str) -> str:
    """A 2024 message's text: hidden reasoning out, inline artifacts kept as text with title."""
    text = _ANT_THINKING.sub("", _PLACEHOLDER.sub("", text))

    def artifact(match: re.Match[str]) -> str:
        title = _ATTR_TITLE.search(match.group(1))
        return "\n\n" + _artifact(title.group(1) if title else "", match.group(2)) + "\n\n"

    return _ANT_ARTIFACT.sub(artifact, text).strip()


def claude_message_text(msg: dict[str, Any]) -> str:
    """The visible text of a Claude message: text blocks and artifacts, never thinking."""
    parts: list[str] = []
    for block in arr(msg.get("content")):
        block = obj(block)
        kind = block.get("type")
        if kind == "text" and text_of(block.get("text")).strip():
            parts.append(text_of(block.get("text")).strip())
        elif kind == "tool_use":
            args = obj(block.get("input"))
            body = text_of(args.get("content")) or text_of(args.get("new_str"))
            if body.strip() and (args.get("title") or args.get("type")):
                parts.append(_artifact(text_of(args.get("title")), body))
        # thinking (reasoning), tool_result and token_budget are not what was said
    # the flattened text may carry the thinking prose: never read it beside thinking blocks
    thought = any(obj(b).get("type") == "thinking" for b in arr(msg.get("content")))
    text = "\n\n".join(parts) or ("" if thought else _claude_legacy_text(text_of(msg.get("text"))))
    if not text:  # a large paste arrives as an attachment with the text extracted
        text = "\n\n".join(text_of(obj(a).get("extracted_content")).strip()
                           for a in arr(msg.get("attachments"))
                           if text_of(obj(a).get("extracted_content")).strip())
    if not text:
        names = [text_of(obj(f).get("file_name")) for f in arr(msg.get("files"))]
        text = " ".join(f"[file: {n}]" for n in names if n)
    return text.strip()


def _walk_up(start: str | None, parent_of: dict[str, str | None]) -> list[str]:
    """The ids from a leaf up to its root, reversed (root first); a cycle ends the walk."""
    path: list[str] = []
    seen: set[str] = set()
    node = start
    while node is not None and node in parent_of and node not in seen:
        seen.add(node)
        path.append(node)
        node = parent_of[node]
    return path[::-1]


def claude(conv: Any, where: str) -> Conversation:
    """One Claude conversation: the branch ending at the current leaf (else the last message)."""
    if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages"), list):
        fail("field 'chat_messages' must be a list")
    messages = [m for m in conv["chat_messages"] if isinstance(m, dict)
                and isinstance(m.get("uuid"), str)]
    by_id = {m["uuid"]: m for m in messages}
    tree = any("parent_message_uuid" in m for m in messages)
    if tree:
        # the sentinel, or a parent not in the export, is the root (the walk keeps going up to
        # the nearest ancestor there is)
        parent_of: dict[str, str | None] = {
            m["uuid"]: (text_of(m.get("parent_message_uuid")) or None) for m in messages}
        parent_of = {k: (v if v in by_id else None) for k, v in parent_of.items()}
        leaf = text_of(conv.get("current_leaf_message_uuid")) or (
            messages[-1]["uuid"] if messages else None)
        shown = _walk_up(leaf, parent_of)
    else:  # a legacy export: no links, the array order is the conversation
        shown = [m["uuid"] for m in messages]
    turns = []
    for mid in shown:
        msg = by_id[mid]
        role = {"human": "user", "assistant": "assistant"}.get(text_of(msg.get("sender")))
        if role is None:
            continue
        turns.append(Turn(role, claude_message_text(msg), iso_time(msg.get("created_at")), mid))
    on_path = set(shown)
    abandoned = sum(1 for m in messages if m["uuid"] not in on_path)
    title = text_of(conv.get("name")) or text_of(conv.get("summary"))
    return Conversation(text_of(conv.get("uuid")) or where, make_title(title, turns), turns,
                        where, abandoned)


# -- Open WebUI ------------------------------------------------------------------------------

def _owu_text(msg: dict[str, Any]) -> str:
    """An Open WebUI message's visible text: output[] message items, else content without
    its <details> blocks (reasoning, tool calls, code runs)."""
    said = [text_of(obj(p).get("text")) for item in arr(msg.get("output"))
            if obj(item).get("type") == "message" for p in arr(obj(item).get("content"))
            if obj(p).get("type") in ("output_text", "text")]
    if any(s.strip() for s in said):
        return "\n\n".join(s.strip() for s in said if s.strip())
    content = msg.get("content")
    if isinstance(content, list):
        content = "\n\n".join(text_of(obj(p).get("text")) for p in content)
    return _DETAILS.sub("", text_of(content)).strip()


def _owu_current(chat: dict[str, Any], top: dict[str, Any], msgs: dict[str, Any]) -> str | None:
    """The shown leaf, as Open WebUI repairs a missing or dangling currentId."""
    history = obj(chat.get("history"))
    listed = [text_of(obj(m).get("id")) for m in arr(chat.get("messages"))]
    for cand in (history.get("currentId"), chat.get("currentId"),
                 chat.get("branchPointMessageId"), listed[-1] if listed else None,
                 top.get("current_message_id")):
        if isinstance(cand, str) and cand in msgs:
            node = cand
            seen = {node}
            while True:  # a current node with children: follow the last valid child
                kids = [k for k in arr(obj(msgs[node]).get("childrenIds"))
                        if isinstance(k, str) and k in msgs and k not in seen]
                if not kids:
                    return node
                node = kids[-1]
                seen.add(node)
    leaves = [k for k, m in msgs.items() if not arr(obj(m).get("childrenIds"))]
    return max(leaves, key=lambda k: epoch_time(obj(msgs[k]).get("timestamp")) or 0.0,
               default=None)


def openwebui(element: Any, where: str) -> Conversation:
    """One Open WebUI chat (a ChatResponse or a bare chat blob): currentId up the parentIds."""
    top = obj(element)
    chat = obj(top.get("chat")) if isinstance(top.get("chat"), dict) else top
    msgs = obj(obj(chat.get("history")).get("messages"))
    msgs = {k: v for k, v in msgs.items() if isinstance(v, dict)}
    if msgs:
        parent_of = {k: (text_of(v.get("parentId")) or None) for k, v in msgs.items()}
        shown = _walk_up(_owu_current(chat, top, msgs), parent_of)
        nodes = [msgs[k] for k in shown]
        abandoned = len(msgs) - len(shown)
    elif isinstance(chat.get("messages"), list):  # no tree: the flat current branch
        nodes, abandoned = [obj(m) for m in chat["messages"]], 0
    else:
        fail("neither 'history.messages' nor 'messages' holds the chat")
    turns = [Turn(text_of(m.get("role")), _owu_text(m), epoch_time(m.get("timestamp")),
                  text_of(m.get("id"))) for m in nodes]
    title = text_of(top.get("title")) or text_of(chat.get("title"))
    if title == "New Chat":
        title = ""
    return Conversation(text_of(top.get("id")) or text_of(chat.get("id")) or where,
                        make_title(title, turns), turns, where, abandoned)


# -- LibreChat -------------------------------------------------------------------------------

def _lc_flatten(nodes: list[Any], out: list[dict[str, Any]]) -> None:
    for node in nodes:
        if isinstance(node, dict):
            out.append(node)
            _lc_flatten(arr(node.get("children")), out)


def _lc_text(msg: dict[str, Any]) -> str:
    if msg.get("error") is True:  # its text is the provider's error message, not a reply
        return ""
    parts = []
    for part in arr(msg.get("content")):
        part = obj(part)
        if part.get("type") == "text":
            value = part.get("text")
            parts.append(text_of(obj(value).get("value")) if isinstance(value, dict)
                         else text_of(value))
        # think, tool_call, image_file and error parts are not what was said
    said = "\n\n".join(p.strip() for p in parts if p.strip())
    return said or text_of(msg.get("text")).strip()


def librechat(doc: Any, where: str) -> Conversation:
    """A LibreChat conversation file: at each branch the newest sibling, as LibreChat shows."""
    doc = obj(doc)
    nodes: list[dict[str, Any]] = []
    _lc_flatten(arr(doc.get("messagesTree")) or arr(doc.get("messages")), nodes)
    nodes = [n for n in nodes if isinstance(n.get("messageId"), str)]
    if not nodes:
        fail("the conversation holds no messages")
    order = {n["messageId"]: i for i, n in enumerate(nodes)}
    by_id = {n["messageId"]: n for n in nodes}
    children: dict[str | None, list[str]] = {}
    for n in nodes:
        parent = text_of(n.get("parentMessageId"))
        parent_key = parent if parent in by_id and parent != LIBRECHAT_ROOT else None
        children.setdefault(parent_key, []).append(n["messageId"])

    def newest(ids: list[str]) -> str:
        return max(ids, key=lambda i: (iso_time(by_id[i].get("createdAt")) or 0.0, order[i]))

    shown: list[str] = []
    level = children.get(None, [])
    while level:
        pick = newest([i for i in level if i not in shown])
        shown.append(pick)
        level = [i for i in children.get(pick, []) if i not in shown]
    last_ts: float | None = None
    turns = []
    for mid in shown:
        msg = by_id[mid]
        ts = iso_time(msg.get("createdAt")) or last_ts  # absent: the parent's time
        last_ts = ts
        turns.append(Turn("user" if msg.get("isCreatedByUser") is True else "assistant",
                          _lc_text(msg), ts, mid))
    return Conversation(text_of(doc.get("conversationId")) or where,
                        make_title(text_of(doc.get("title")), turns), turns, where,
                        len(nodes) - len(shown))


# -- ChatGPT ---------------------------------------------------------------------------------

def _chatgpt_message(node: dict[str, Any]) -> tuple[str | None, str, Any]:
    """(role, visible text, create_time) of a ChatGPT mapping node (role None: not a turn)."""
    msg = obj(node.get("message"))
    role = text_of(obj(msg.get("author")).get("role"))
    if role not in ("user", "assistant") or obj(msg.get("metadata")).get(
            "is_visually_hidden_from_conversation"):
        return None, "", None
    parts = arr(obj(msg.get("content")).get("parts"))
    text = "\n".join(p for p in parts if isinstance(p, str))
    return role, text, msg.get("create_time")


def chatgpt(conv: Any, where: str) -> Conversation:
    """One ChatGPT conversation: the branch ending at `current_node` (else the newest leaf)."""
    if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
        fail("field 'mapping' must be an object")
    mapping = {k: v for k, v in conv["mapping"].items() if isinstance(v, dict)}
    parent_of: dict[str, str | None] = {k: text_of(v.get("parent")) or None
                                        for k, v in mapping.items()}
    parent_of = {k: (v if v in mapping else None) for k, v in parent_of.items()}
    leaf = text_of(conv.get("current_node"))
    if leaf not in mapping:  # no pointer: the newest message without children
        leaves = [k for k, v in mapping.items() if not arr(v.get("children"))]
        leaf = max(leaves, default=None, key=lambda k: epoch_time(
            _chatgpt_message(mapping[k])[2]) or 0.0) or ""
    shown = _walk_up(leaf or None, parent_of)
    turns = []
    for node_id in shown:
        role, text, when = _chatgpt_message(mapping[node_id])
        if role is not None:
            turns.append(Turn(role, text, epoch_time(when), node_id))
    on_path = set(shown)
    abandoned = sum(1 for k, v in mapping.items() if k not in on_path
                    and _chatgpt_message(v)[0] is not None and _chatgpt_message(v)[1].strip())
    source_id = text_of(conv.get("conversation_id")) or text_of(conv.get("id")) or where
    return Conversation(source_id, make_title(text_of(conv.get("title")), turns), turns, where,
                        abandoned)
