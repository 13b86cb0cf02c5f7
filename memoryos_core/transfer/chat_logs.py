"""Linear chat logs: SillyTavern .jsonl, Gemini Takeout My Activity, OpenAI chat JSONL, ShareGPT.

Rules and field names follow shared/formats/export_formats.md (sections 4, 5 and 6).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .chat_common import (
    Bad,
    Conversation,
    Turn,
    arr,
    fail,
    html_to_text,
    iso_time,
    make_title,
    obj,
    short_id,
    text_of,
)

GEMINI_GAP = 30 * 60  # a pause this long starts a new conversation (Takeout keeps no ids)
_BR = re.compile(r"<br\s*/?>", re.I)
_HUMANIZED = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s"
                        r"(?:\s*(\d{1,3})ms)?")
_CLOCK_FORMATS = ("%B %d, %Y %I:%M%p", "%B %d, %Y %I:%M %p", "%b %d, %Y %I:%M%p",
                  "%B %d, %Y %H:%M")


def _local(moment: dt.datetime) -> float:
    """A wall-clock time with no zone, read in this machine's local time zone."""
    return moment.astimezone().timestamp()


def sillytavern_time(value: Any) -> float | None:
    """send_date in any of SillyTavern's formats (all local time), or None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value / 1000 if value > 1e11 else float(value)  # legacy: Unix milliseconds
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return int(text) / 1000
    match = _HUMANIZED.fullmatch(text)
    if match:
        y, mo, d, h, mi, s, ms = match.groups()
        try:
            return _local(dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s),
                                      int(ms or 0) * 1000))
        except ValueError:
            return None
    for fmt in _CLOCK_FORMATS:
        try:
            return _local(dt.datetime.strptime(text.replace("\u202f", " "), fmt))
        except ValueError:
            continue
    return iso_time(text)


def _is_note(line: dict[str, Any]) -> bool:
    """A genuine system note (narrator, comment), not a hidden user or character turn."""
    return (line.get("is_system") is True and line.get("is_user") is not True
            and (bool(obj(line.get("extra")).get("type")) or line.get("name") == "System"))


def sillytavern(lines: Iterable[tuple[int, Any]], where: str) -> Conversation:
    """A SillyTavern chat file: one conversation, each message's shown swipe."""
    header: dict[str, Any] = {}
    turns: list[Turn] = []
    abandoned = 0
    last: float | None = None
    for n, line in lines:
        if not isinstance(line, dict):
            fail(f"line {n} is not an object")
        if n == 1 and "mes" not in line and ("user_name" in line or "character_name" in line
                                             or "chat_metadata" in line):
            header = line
            last = sillytavern_time(line.get("create_date"))
            continue
        if _is_note(line):
            continue
        swipes = [s for s in arr(line.get("swipes")) if isinstance(s, str)]
        text = text_of(line.get("mes"))
        swipe = line.get("swipe_id")
        if not text and isinstance(swipe, int) and 0 <= swipe < len(swipes):
            text = swipes[swipe]
        abandoned += max(0, len(swipes) - 1)
        ts = (sillytavern_time(line.get("send_date")) or iso_time(line.get("gen_started"))
              or last)
        last = ts
        turns.append(Turn("user" if line.get("is_user") is True else "assistant",
                          _BR.sub("\n", text), ts, f"line {n}"))
    who = text_of(header.get("character_name"))
    title = f"Chat with {who}" if who else ""
    return Conversation(short_id(who, header.get("create_date"), turns[0].text if turns else ""),
                        make_title(title, turns), turns, where, abandoned)


# -- Gemini Takeout: My Activity -------------------------------------------------------------

def _gemini_entry(entry: Any) -> tuple[float, str, str, int] | None:
    """(time, prompt, shown reply, other drafts) of a prompt entry; None for events."""
    entry = obj(entry)
    title = text_of(entry.get("title"))
    if not title.startswith("Prompted "):
        return None  # 'Gave feedback', 'Used', 'Created': events, not turns
    ts = iso_time(entry.get("time"))
    if ts is None:
        fail(f"time {text_of(entry.get('time'))[:40]!r} is not a date")
    drafts = [text_of(obj(h).get("html")) or text_of(obj(h).get("content"))
              for h in arr(entry.get("safeHtmlItem"))]
    # several drafts: which was kept is not recorded; the last is taken as shown
    reply = html_to_text(drafts[-1]) if drafts else ""
    return float(ts or 0), title[len("Prompted "):].strip(), reply, max(0, len(drafts) - 1)


def gemini(entries: Iterable[Any]) -> Iterator[Conversation | Bad]:
    """Gemini Apps activity (newest first) rebuilt into conversations by time gaps."""
    prompts: list[tuple[float, str, str, int]] = []
    for n, entry in enumerate(entries):
        try:
            got = _gemini_entry(entry)
        except Exception as exc:  # noqa: BLE001  one bad entry is reported, never stops the rest
            yield Bad(f"entry {n}", str(exc))
            continue
        if got is not None:
            prompts.append(got)
    prompts.sort(key=lambda p: p[0])
    group: list[tuple[float, str, str, int]] = []
    for prompt in prompts + [(float("inf"), "", "", 0)]:
        if group and prompt[0] - group[-1][0] > GEMINI_GAP:
            turns = [t for ts, q, a, _ in group
                     for t in (Turn("user", q, ts), Turn("assistant", a, ts))]
            when = dt.datetime.fromtimestamp(group[0][0], dt.UTC).strftime("%Y-%m-%d %H:%M")
            yield Conversation(short_id("gemini", group[0][0]), make_title("", turns), turns,
                               f"conversation of {when} UTC", sum(g[3] for g in group))
            group = []
        group.append(prompt)


# -- OpenAI chat JSONL and ShareGPT ----------------------------------------------------------

def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(text_of(obj(p).get("text")) for p in content
                         if obj(p).get("type") in ("text", "input_text", "output_text"))
    return text_of(content)


def openai_chat(line: Any, where: str) -> Conversation:
    """One line of OpenAI chat-format JSONL: a whole conversation, no times, no branches."""
    messages = obj(line).get("messages")
    if not isinstance(messages, list):
        fail("field 'messages' must be a list")
    turns = []
    for k, msg in enumerate(messages):
        role = obj(msg).get("role")
        if role in ("user", "assistant"):  # system prompts repeat on every line; tools are calls
            turns.append(Turn(str(role), _content_text(obj(msg).get("content")), None, f"#{k}"))
        elif role not in ("system", "developer", "tool", "function"):
            fail(f"message {k} has an unknown role {str(role)[:30]!r}")
    return Conversation(short_id("openai", *(t.text for t in turns)), make_title("", turns),
                        turns, where)


SHAREGPT_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant",
                  "chatgpt": "assistant", "bard": "assistant", "model": "assistant"}
SHAREGPT_SKIPPED = ("system", "function_call", "observation", "tool")


def sharegpt(element: Any, where: str) -> Conversation:
    """A ShareGPT-style row: conversations [{from, value}]."""
    row = obj(element)
    messages = row.get("conversations")
    if not isinstance(messages, list):
        fail("field 'conversations' must be a list")
    turns = []
    for k, msg in enumerate(messages):
        who = text_of(obj(msg).get("from")).lower()
        if who in SHAREGPT_SKIPPED:
            continue
        if who not in SHAREGPT_ROLES:
            fail(f"turn {k} is from {who[:30]!r}, not human or gpt")
        value = text_of(obj(msg).get("value"))
        if re.search(r"<(p|div|br|li|pre)\b", value, re.I):  # scraped dumps carry HTML values
            value = html_to_text(value)
        turns.append(Turn(SHAREGPT_ROLES[who], value, None, f"#{k}"))
    ident = text_of(row.get("id")) or short_id("sharegpt", *(t.text for t in turns))
    return Conversation(ident, make_title("", turns), turns, where)
