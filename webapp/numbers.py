"""The numbers the web shows and links exchanges by: each user's own, 1 for their first.

The engine's ids are global and sequential, so a URL with one told a new user how many
exchanges others had stored before (issue 48); pages and traces are addressed by the user's
number instead (`/memory/pages/3`), translated back at the view.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g
from flask_login import current_user

from .extensions import engine, uid

CACHE = "exchange_numbers"


def page_no(exchange_id: Any) -> int:
    """The logged-in user's number of one of their exchanges (0, a link to nowhere, when it
    is none of theirs: forgotten, or another's)."""
    if not isinstance(exchange_id, int) or exchange_id <= 0 or not current_user.is_authenticated:
        return 0
    cache: dict[int, int] = g.setdefault(CACHE, {})
    if exchange_id not in cache:
        cache.update(engine().exchange_numbers(uid(), [exchange_id]))
        cache.setdefault(exchange_id, 0)
    return cache[exchange_id]


def known(exchange_ids: list[int]) -> None:
    """Look up many numbers at once, before a page with many links is drawn."""
    cache: dict[int, int] = g.setdefault(CACHE, {})
    wanted = [i for i in exchange_ids if isinstance(i, int) and i > 0 and i not in cache]
    if wanted:
        cache.update(engine().exchange_numbers(uid(), wanted))


def exchange_of(number: int) -> int:
    """The id of the logged-in user's exchange with this number (NotFound: a 404)."""
    return engine().exchange_of_number(uid(), number)


def init_app(app: Flask) -> None:
    app.jinja_env.globals["page_no"] = page_no
