"""Reference import's SQL: what a user already holds, and the imported segments, pages and facts.

Chain links and the profile note are written with `snapshots.set_chain_links` and
`snapshots.insert_note`, the same statements a restore uses.
"""

from __future__ import annotations

import json

from .base import BaseStore
from .db import Connection


def known_fact_norms(store: BaseStore, user_id: str) -> set[tuple[str, str]]:
    """(kind, normalised text) of every fact of the user (to skip re-imports)."""
    return {(r["kind"], r["norm"]) for r in store.query(
        "SELECT kind, norm FROM facts WHERE user_id = ?", (user_id,))}


def insert_imported_segment(
    conn: Connection, user_id: str, summary: str, keywords: list[str], n_visit: int,
    l_interaction: int, last_visit: float, created_at: float, updated_at: float,
    analysed_at: float | None,
) -> int:
    """A segment with the reference session's counters and times; returns its id."""
    row = conn.execute(
        "INSERT INTO segments (user_id, summary, keywords, n_visit, l_interaction, last_visit,"
        " created_at, updated_at, analysed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, summary, json.dumps(keywords), n_visit, l_interaction, last_visit, created_at,
         updated_at, analysed_at)).fetchone()
    return int(row[0])


def insert_imported_page(
    conn: Connection, user_id: str, user_text: str, assistant_text: str, ts: float,
    segment_id: int, overview: str, keywords: list[str], analysed: bool, source: str,
    content_key: str, now: float,
) -> int:
    """A mid-term page filed in a segment (admitted and moved now); returns its id."""
    row = conn.execute(
        "INSERT INTO exchanges (user_id, user_text, assistant_text, ts, admitted_at, tier,"
        " segment_id, overview, keywords, analysed, source, content_key, moved_at) VALUES"
        " (?, ?, ?, ?, ?, 'mid', ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, user_text, assistant_text, ts, now, segment_id, overview, json.dumps(keywords),
         int(analysed), source, content_key, now)).fetchone()
    return int(row[0])


def insert_imported_fact(conn: Connection, user_id: str, kind: str, text: str, norm: str,
                         created_at: float, updated_at: float, origin: str = "") -> int:
    """A fact with no source pages, holding from when the reference stored it; returns its id.
    `origin`: where it was imported from ("imported from Claude memory"), shown with it."""
    row = conn.execute(
        "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at,"
        " valid_from, origin) VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?) RETURNING id",
        (user_id, kind, text, norm, created_at, updated_at, created_at, origin)).fetchone()
    return int(row[0])


def has_note(conn: Connection, user_id: str, text: str) -> bool:
    """Whether the user already holds a note with exactly this text."""
    return conn.execute("SELECT 1 FROM notes WHERE user_id = ? AND text = ?",
                        (user_id, text)).fetchone() is not None
