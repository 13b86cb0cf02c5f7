"""Dialogue formats: reference Playground, LoCoMo, ChatGPT export, plain transcript; detection.

LongMemEval question histories are read by longmemeval.py.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from ..errors import ImportFormatError

FORMATS = ("auto", "playground", "locomo", "longmemeval", "chatgpt", "transcript",
           "memoryos-export", "claude", "openwebui", "librechat", "sillytavern", "gemini",
           "openai-jsonl", "sharegpt", "claude-memories", "openmemory", "letta")
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024


@dataclass
class Item:
    """One exchange read from a document, with where it came from."""

    user: str
    assistant: str
    ts: float | None
    where: str
    ref: str = ""
    skip: str = ""  # why this item is not imported (listed in the report), or ""


def add_turn(current: Item | None, mine: bool, text: str, ts: float, where: str, ref: str,
             reply_joint: str) -> tuple[Item | None, Item]:
    """(the exchange a turn closes or None, the exchange it is part of): a person's messages
    before the other answers are one turn, as the chat exports read them ("hey" then "guess
    what, I got the job"), and so are the replies in a row (joined by `reply_joint`)."""
    if mine and (current is None or current.assistant):
        return current, Item(text, "", ts, where, ref)
    if current is None:  # the other speaks first
        current = Item("", "", ts, where, "")
    if mine:
        current.user = f"{current.user}\n{text}"
    else:
        current.assistant = f"{current.assistant}{reply_joint}{text}" if current.assistant \
            else text
    current.ref = ",".join(r for r in (current.ref, ref) if r)
    return None, current


def load_source(source: Any) -> Any:
    """Bytes or text become parsed JSON when they are JSON, else stay text."""
    if isinstance(source, bytes):
        if len(source) > MAX_DOCUMENT_BYTES:
            raise ImportFormatError("the document is larger than 50 MB")
        try:
            source = source.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ImportFormatError("the document is not UTF-8 text") from None
    if isinstance(source, str):
        if not source.strip():
            raise ImportFormatError("the document is empty")
        stripped = source.lstrip()
        if stripped[:1] in "[{":
            try:
                return json.loads(source)
            except json.JSONDecodeError as exc:
                if exc.pos >= len(source.rstrip()) or exc.msg.startswith("Unterminated"):
                    raise ImportFormatError(
                        f"invalid JSON: the file ends early (line {exc.lineno} column"
                        f" {exc.colno}), it looks cut off (truncated); nothing was"
                        " imported") from None
                raise ImportFormatError(f"invalid JSON at line {exc.lineno} column {exc.colno}:"
                                        f" {exc.msg}") from None
            except RecursionError:
                raise ImportFormatError("the JSON is nested too deeply (deeper than any export);"
                                " nothing was imported") from None
    return source


def detect(doc: Any) -> str:
    """Name the format of a loaded document."""
    if isinstance(doc, str):
        return "transcript"
    if isinstance(doc, dict):
        if doc.get("format") == "memoryos-export":
            return "memoryos-export"
        if "conversation" in doc:
            return "locomo"
        if "haystack_sessions" in doc:
            return "longmemeval"
        if "mapping" in doc:
            return "chatgpt"
    if isinstance(doc, list) and doc:
        first = doc[0]
        if isinstance(first, dict):
            if "user_input" in first or "agent_response" in first:
                return "playground"
            if "conversation" in first:
                return "locomo"
            if "haystack_sessions" in first:
                return "longmemeval"
            if "mapping" in first:
                return "chatgpt"
    from .classify import READ

    raise ImportFormatError(f"unknown format: this importer reads {READ}")


def parse_time(value: Any, where: str) -> float | None:
    """Seconds since the epoch from a number, ISO text or 'YYYY-MM-DD HH:MM:SS'."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ImportFormatError(f"{where}: timestamp must be a number or a date text")
    if isinstance(value, int | float):
        if not FIRST_TS <= value <= LAST_TS:  # also NaN and infinities
            raise ImportFormatError(f"{where}: timestamp {str(value)[:40]} is outside years"
                                    " 1-9999")
        return float(value)
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=dt.UTC)
            return moment.timestamp()
        except (ValueError, OverflowError):
            raise ImportFormatError(f"{where}: timestamp {value[:40]!r} is not a date") from None
    raise ImportFormatError(f"{where}: timestamp must be a number or a date text")


FIRST_TS, LAST_TS = -62135596800.0, 253402300799.0  # 0001-01-01 .. 9999-12-31 (UTC)


def text_field(value: Any, where: str) -> str:
    """A text field's value: text, or '' when absent; anything else is a clear error."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ImportFormatError(f"{where} must be text, not {type(value).__name__}")
    return value


def parse_playground(doc: Any) -> list[Item]:
    """The reference Playground's list of {user_input, agent_response, timestamp}."""
    if not isinstance(doc, list):
        raise ImportFormatError("a Playground import must be a JSON list")
    items = []
    for n, entry in enumerate(doc):
        where = f"item {n}"
        if not isinstance(entry, dict):
            raise ImportFormatError(f"{where} must be an object")
        user = text_field(entry.get("user_input"), f"{where}: field 'user_input'")
        assistant = text_field(entry.get("agent_response"), f"{where}: field 'agent_response'")
        items.append(Item(user, assistant, parse_time(entry.get("timestamp"), where), where))
    return items


_LOCOMO_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


def locomo_time(text: str, where: str) -> float:
    """'1:56 pm on 8 May, 2023' as seconds since the epoch (UTC)."""
    match = _LOCOMO_DATE.search(text) if isinstance(text, str) else None
    if not match:
        raise ImportFormatError(f"{where}: date {str(text)[:60]!r} is not like"
                                " '1:56 pm on 8 May, 2023'")
    hour, minute, half, day, month, year = match.groups()
    try:
        moment = dt.datetime.strptime(f"{day} {month[:3]} {year}", "%d %b %Y")
        hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
        return moment.replace(hour=hour_24, minute=int(minute), tzinfo=dt.UTC).timestamp()
    except (ValueError, OverflowError):
        raise ImportFormatError(f"{where}: {text[:60]!r} is not a valid date and time") from None


def locomo_sessions(conv: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]], str]]:
    """(number, turns, date text) of every session that holds turns, in order."""
    out = []
    for key, turns in conv.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match:
            continue
        if not isinstance(turns, list):
            raise ImportFormatError(f"{key} must be a list of turns, not {type(turns).__name__}")
        out.append((int(match.group(1)), turns, conv.get(f"{key}_date_time", "")))
    return sorted(out, key=lambda s: s[0])


def parse_locomo(doc: Any, speaker: str | None, select: str | None = None) -> list[Item]:
    """A LoCoMo conversation: the chosen speaker is the user, the other the assistant; each
    side's consecutive turns are one exchange."""
    if isinstance(doc, list):
        wanted = [d for d in doc if isinstance(d, dict) and (select is None
                                                             or d.get("sample_id") == select)]
        if not wanted:
            raise ImportFormatError(f"no conversation {select!r} in this file")
        doc = wanted[0]
    conv = doc.get("conversation") if isinstance(doc, dict) else None
    if not isinstance(conv, dict):
        raise ImportFormatError("field 'conversation' must be an object")
    a, b = conv.get("speaker_a"), conv.get("speaker_b")
    if not isinstance(a, str) or not isinstance(b, str):
        raise ImportFormatError("conversation needs text fields 'speaker_a' and 'speaker_b'")
    me = speaker or a
    if me not in (a, b):
        raise ImportFormatError(f"speaker {me!r} is not in this conversation ({a}, {b})")
    items: list[Item] = []
    for number, turns, date_text in locomo_sessions(conv):
        start = locomo_time(date_text, f"session_{number}_date_time")
        current: Item | None = None  # the exchange being read: the user's turn, its reply
        for k, turn in enumerate(turns):
            where = f"session_{number}[{k}]"
            if not isinstance(turn, dict):
                raise ImportFormatError(f"{where} must be an object")
            text = text_field(turn.get("text"), f"{where}: field 'text'").strip()
            if turn.get("blip_caption"):
                text += f" [shares an image: {text_field(turn['blip_caption'], where)}]"
            ref = str(turn.get("dia_id", ""))
            ts = start + 60 * k  # keep turn order inside a session
            who = turn.get("speaker")
            if who not in (a, b):
                why = ("the turn names no speaker" if who is None else
                       f"speaker {str(who)[:60]!r} is neither {a} nor {b}")
                items.append(Item("", "", ts, where, ref, skip=why))
                continue
            if not text.strip():
                items.append(Item("", "", ts, where, ref, skip="the turn has no text"))
                continue
            closed, current = add_turn(current, who == me, text, ts, where, ref, " ")
            if closed is not None:
                items.append(closed)
        if current is not None:
            items.append(current)
    return items


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _key(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def parse_chatgpt(doc: Any) -> list[Item]:
    """A ChatGPT conversations.json: follow each conversation's current branch."""
    conversations = doc if isinstance(doc, list) else [doc]
    items: list[Item] = []
    for c, conv in enumerate(conversations):
        where = f"conversation {c}"
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            raise ImportFormatError(f"{where}: field 'mapping' must be an object")
        mapping = conv["mapping"]
        node_id = _key(conv.get("current_node")) or next(
            (k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")), None)
        path = []
        seen = set()
        while node_id and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            node = mapping[node_id]
            if not isinstance(node, dict):
                raise ImportFormatError(f"{where}: mapping[{node_id!r}] must be an object")
            path.append(node)
            node_id = _key(node.get("parent"))
        pending: Item | None = None
        for node in reversed(path):
            msg = node.get("message")
            if not isinstance(msg, dict):
                continue
            role = _obj(msg.get("author")).get("role")
            parts = _obj(msg.get("content")).get("parts")
            parts = parts if isinstance(parts, list) else []
            text = "\n".join(p for p in parts if isinstance(p, str)).strip()
            if not text or role not in ("user", "assistant"):
                continue
            ts = parse_time(msg.get("create_time"), f"{where}: message {msg.get('id')}")
            if role == "user":
                if pending is not None:
                    items.append(pending)
                pending = Item(text, "", ts, f"{where}: message {msg.get('id')}")
            elif pending is not None:
                pending.assistant = (pending.assistant + "\n" + text).strip()
            else:
                items.append(Item("", text, ts, f"{where}: message {msg.get('id')}"))
        if pending is not None:
            items.append(pending)
    return items


_SPEAKER = re.compile(r"^\s*(user|human|me|assistant|ai|bot)\s*:\s?(.*)$", re.I)


def parse_transcript(text: str) -> list[Item]:
    """Lines starting 'User:' / 'Assistant:'; other lines continue the previous message."""
    items: list[Item] = []
    current: Item | None = None
    role = None
    for n, line in enumerate(text.splitlines(), start=1):
        match = _SPEAKER.match(line)
        if match:
            role = "user" if match.group(1).lower() in ("user", "human", "me") else "assistant"
            if role == "user":
                if current is not None:
                    items.append(current)
                current = Item(match.group(2), "", None, f"line {n}")
            else:
                if current is None:
                    current = Item("", "", None, f"line {n}")
                current.assistant = (current.assistant + "\n" + match.group(2)).strip()
        elif current is not None and line.strip():
            if role == "user":
                current.user += "\n" + line
            else:
                current.assistant += "\n" + line
        elif line.strip():
            raise ImportFormatError(f"line {n}: a transcript line must start with 'User:' or"
                                    " 'Assistant:'")
    if current is not None:
        items.append(current)
    if not items:
        raise ImportFormatError("the transcript holds no 'User:' or 'Assistant:' lines")
    return items
