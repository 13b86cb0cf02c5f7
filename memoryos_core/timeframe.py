"""The period a query names ("in May 2023", "on October 13, 2023", "yesterday"), if any.

Retrieval ranks the pages of that period as one more list: a named date is as strong a clue as
a distinctive keyword, and dialogue text rarely spells out the date it happened on (the page's
timestamp does). Days are UTC days, as the memory block's day headers; a named day also takes
the day before and after it, since the asker's calendar day may be another day in UTC.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

from .errors import InvalidInput

DAY = 86400.0
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)
# a month without a year only after "in"/"during" ("may" alone is mostly the verb)
_IN_MONTH = re.compile(rf"\b(?:in|during)\s+(?:early\s+|late\s+|mid-?)?{_MONTH}\b(?!,?\s+\d)",
                       re.IGNORECASE)
_RELATIVE = re.compile(r"\b(today|yesterday|(?:this|last)\s+(?:week|month))\b", re.IGNORECASE)


def named_period(text: str, now: float) -> tuple[float, float] | None:
    """(start, end) timestamps of the first period the text names, or None.

    Absolute dates first (a day, then a month of a year), then a month without a year (its
    latest occurrence not after `now`), then today / yesterday / this or last week or month.
    """
    for pattern, order in ((_MONTH_DAY_YEAR, "mdy"), (_DAY_MONTH_YEAR, "dmy")):
        match = pattern.search(text)
        if match:
            parts = dict(zip(order, match.groups(), strict=True))
            day = _date(int(parts["y"]), MONTHS.index(parts["m"].lower()) + 1, int(parts["d"]))
            if day is not None:
                return _around(day)
    match = _ISO_DAY.search(text)
    if match:
        day = _date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if day is not None:
            return _around(day)
    match = _MONTH_YEAR.search(text)
    if match:
        return _month(int(match.group(2)), MONTHS.index(match.group(1).lower()) + 1)
    today = dt.datetime.fromtimestamp(now, tz=dt.UTC).date()
    match = _IN_MONTH.search(text)
    if match:
        month = MONTHS.index(match.group(1).lower()) + 1
        return _month(today.year if month <= today.month else today.year - 1, month)
    match = _RELATIVE.search(text)
    if match:
        return _relative(" ".join(match.group(1).lower().split()), today)
    return None


def _date(year: int, month: int, day: int) -> dt.date | None:
    """The calendar day, or None when it does not exist (e.g. 31 June)."""
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _start(day: dt.date) -> float:
    """The UTC timestamp at the start of a day."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def _around(day: dt.date) -> tuple[float, float]:
    """A named day with the day before and the day after it."""
    return _start(day) - DAY, _start(day) + 2 * DAY


def _month(year: int, month: int) -> tuple[float, float]:
    """A whole calendar month."""
    first = dt.date(year, month, 1)
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return _start(first), _start(following)


def _relative(phrase: str, today: dt.date) -> tuple[float, float]:
    """today, yesterday, this/last week (weeks start on Monday), this/last month."""
    if phrase in ("today", "yesterday"):
        day = today if phrase == "today" else today - dt.timedelta(days=1)
        return _start(day), _start(day) + DAY
    if phrase.endswith("week"):
        monday = today - dt.timedelta(days=today.weekday())
        if phrase.startswith("last"):
            monday -= dt.timedelta(days=7)
        return _start(monday), _start(monday) + 7 * DAY
    if phrase.startswith("last"):
        return _month(today.year - (today.month == 1), (today.month - 2) % 12 + 1)
    return _month(today.year, today.month)


# -- the reference system's timestamps (its MCP tools and files) --------------------------

REF_TIME = "%Y-%m-%d %H:%M:%S"  # the reference's timestamp format (local time)


def format_ts(ts: float | None) -> str:
    """A float timestamp in the reference's 'YYYY-MM-DD HH:MM:SS' local-time format."""
    return time.strftime(REF_TIME, time.localtime(time.time() if ts is None else ts))


def parse_ts(value: Any, where: str = "timestamp") -> float | None:
    """'YYYY-MM-DD HH:MM:SS', ISO 8601 or seconds -> float seconds; None stays None."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return dt.datetime.strptime(text, REF_TIME).timestamp()
        except ValueError:
            pass
        try:
            return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    raise InvalidInput(f"{where} {value!r} is not a time: use 'YYYY-MM-DD HH:MM:SS' or ISO 8601")
