"""LongMemEval question histories (haystack_sessions with haystack_dates) as one user's exchanges."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ..errors import ImportFormatError
from .importers import Item, add_turn, text_field

_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]+\))?\s*(\d{1,2}):(\d{2})\s*$")
EXCHANGE_STEP = 1.0  # seconds between exchanges of a session: order kept, shown minute unchanged


def is_question(value: Any) -> bool:
    """Whether a JSON value looks like one LongMemEval question object."""
    return isinstance(value, dict) and "haystack_sessions" in value


def lme_time(text: Any, where: str) -> float:
    """'2023/05/30 (Tue) 17:14' as seconds since the epoch (UTC)."""
    match = _DATE.match(text) if isinstance(text, str) else None
    if not match:
        raise ImportFormatError(f"{where}: date {str(text)[:60]!r} is not like"
                                " '2023/05/30 (Tue) 17:14'")
    year, month, day, hour, minute = (int(g) for g in match.groups())
    try:
        return dt.datetime(year, month, day, hour, minute, tzinfo=dt.UTC).timestamp()
    except (ValueError, OverflowError):
        raise ImportFormatError(f"{where}: {text[:60]!r} is not a valid date and time") from None


def choose(doc: Any, select: str | None) -> dict[str, Any]:
    """The question to import: the one whose question_id is `select`, else the first."""
    questions = doc if isinstance(doc, list) else [doc]
    if not questions:
        raise ImportFormatError("the file holds no LongMemEval question")
    for n, question in enumerate(questions):
        if not is_question(question):
            raise ImportFormatError(f"question {n} must be an object with 'haystack_sessions'")
    if select is None:
        return dict(questions[0])
    for question in questions:
        if str(question.get("question_id")) == select:
            return dict(question)
    raise ImportFormatError(f"no question {select!r} in this file")


def sessions(question: dict[str, Any]) -> list[tuple[int, list[Any], float]]:
    """(1-based number, turns, start time) of every session, in the file's order."""
    turns_lists = question.get("haystack_sessions")
    dates = question.get("haystack_dates")
    if not isinstance(turns_lists, list):
        raise ImportFormatError("field 'haystack_sessions' must be a list of sessions")
    if not isinstance(dates, list) or len(dates) != len(turns_lists):
        raise ImportFormatError("field 'haystack_dates' must be a list with one date per session"
                                f" ({len(turns_lists)} sessions)")
    out = []
    for n, (turns, date) in enumerate(zip(turns_lists, dates, strict=True), start=1):
        if not isinstance(turns, list):
            raise ImportFormatError(f"session {n} must be a list of turns,"
                                    f" not {type(turns).__name__}")
        out.append((n, turns, lme_time(date, f"haystack_dates[{n - 1}]")))
    return out


def parse_longmemeval(doc: Any, select: str | None = None) -> list[Item]:
    """One question's history: a user turn and the assistant turn after it make one exchange.

    A session opened by the assistant gives an exchange with an empty user side; user turns in a
    row join, and so do assistant turns in a row.
    Refs are 'D<session>:<turn>' (1-based, the file's order), so evidence turns map to exchanges.
    """
    items: list[Item] = []
    used: dict[float, int] = {}  # sessions dated the same minute follow each other, not interleave
    for number, turns, start in sessions(choose(doc, select)):
        offset = used.get(start, 0)
        session_items: list[Item] = []
        pending: Item | None = None
        for t, turn in enumerate(turns, start=1):
            where, ref = f"session {number} turn {t}", f"D{number}:{t}"
            if not isinstance(turn, dict):
                raise ImportFormatError(f"{where} must be an object")
            role = turn.get("role")
            text = text_field(turn.get("content"), f"{where}: field 'content'").strip()
            ts = start + EXCHANGE_STEP * (offset + len(session_items))
            if role not in ("user", "assistant"):
                session_items.append(Item("", "", ts, where, ref, skip=(
                    f"role {str(role)[:40]!r} is neither 'user' nor 'assistant'")))
                continue
            if not text:
                session_items.append(Item("", "", ts, where, ref, skip="the turn has no text"))
                continue
            closed, pending = add_turn(pending, role == "user", text, ts, where, ref, "\n\n")
            if closed is not None:
                session_items.append(closed)
                pending.ts = ts + EXCHANGE_STEP  # the exchange after the one it closed
        if pending is not None:
            session_items.append(pending)
        used[start] = offset + len(session_items)
        items += session_items
    return items
