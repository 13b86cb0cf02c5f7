"""What every chat-export reader makes: conversations of the shown branch's turns, as exchanges."""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, NoReturn

from ..errors import ImportFormatError

TITLE_CHARS = 70


@dataclass
class Turn:
    """One message of the branch the user saw."""

    role: str  # "user" or "assistant"
    text: str
    ts: float | None
    ref: str = ""


@dataclass
class Conversation:
    """A conversation read from an export: its shown branch and what was left out."""

    source_id: str
    title: str
    turns: list[Turn]
    where: str
    abandoned: int = 0  # messages on branches the user did not see last (edits, regenerations)
    dropped: list[str] = field(default_factory=list)  # why messages were left out (non-text)


@dataclass
class Exchange:
    """A user turn and the reply to it, with the conversation it belongs to."""

    user: str
    assistant: str
    ts: float | None
    where: str
    ref: str


@dataclass
class Bad:
    """A conversation that could not be read: reported and skipped, the rest goes on."""

    where: str
    reason: str


def obj(value: Any) -> dict[str, Any]:
    """The value when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def arr(value: Any) -> list[Any]:
    """The value when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def text_of(value: Any) -> str:
    """A text value, or ''."""
    return value if isinstance(value, str) else ""


_PRIVATE = re.compile("[\ue000-\uf8ff\x00]")


def clean(text: str) -> str:
    """Text fit for memory: private-use characters and NULs out (exports carry both)."""
    return _PRIVATE.sub("", text).replace("\r\n", "\n").strip()


def short_id(*parts: Any) -> str:
    """A stable short id for a conversation that names none itself."""
    return hashlib.sha1("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:12]


def make_title(title: str, turns: list[Turn]) -> str:
    """The conversation's title, else its first user text, cut to fit a list."""
    text = " ".join(title.split()) or next(
        (" ".join(t.text.split()) for t in turns if t.role == "user" and t.text), "untitled")
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


# -- times -----------------------------------------------------------------------------------

def iso_time(value: Any) -> float | None:
    """Seconds since the epoch of an ISO 8601 text ('Z' or an offset; no zone: UTC), or None."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def epoch_time(value: Any) -> float | None:
    """Epoch seconds or milliseconds (over 1e10 is milliseconds, as Open WebUI reads it)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    seconds = value / 1000 if value > 1e10 else float(value)
    return seconds if 0 < seconds < 253402300799 else None


# -- text from markup ------------------------------------------------------------------------

_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "ul", "ol",
           "table", "blockquote", "section", "hr"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCKS and tag != "li":  # an item's line ends where the next one starts
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """Readable text of an HTML fragment: blocks on their own lines, list items as '- '."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    text = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def unescape(text: str) -> str:
    """HTML entities turned into characters."""
    return html.unescape(text)


# -- turns into exchanges --------------------------------------------------------------------

def exchanges(conv: Conversation) -> list[Exchange]:
    """The shown branch as exchanges: each user turn with the replies that follow it."""
    out: list[Exchange] = []
    pending: Exchange | None = None
    replied = False  # the pending question got a reply, even an empty (failed) one
    for turn in conv.turns:
        text = clean(turn.text)
        if turn.role == "user" and text:
            if pending is not None and (pending.assistant or replied):
                out.append(pending)
                pending = None
            if pending is None:
                pending, replied = Exchange(text, "", turn.ts, conv.where, turn.ref), False
            else:  # two user turns in a row: one question, nothing lost
                pending.user += "\n\n" + text
        elif turn.role == "assistant":
            # an empty reply (a failed generation) still ends the question: the user's next
            # message is a new one, not more of the same
            replied = pending is not None
            if not text:
                continue
            if pending is None:
                pending = Exchange("", "", turn.ts, conv.where, turn.ref)
            pending.assistant = (pending.assistant + "\n\n" + text).strip()
    if pending is not None:
        out.append(pending)
    return out


def fail(message: str) -> NoReturn:
    """Stop reading one conversation with a reason the report shows."""
    raise ImportFormatError(message)
