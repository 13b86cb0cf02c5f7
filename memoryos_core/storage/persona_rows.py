"""Long-term rows and the mid-term overview: profile, facts, user_state, always per user."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import BaseStore
from .db import Connection

# -- user_state: the running overview and the last filed page ---------------------------------


def user_state(store: BaseStore, user_id: str) -> dict[str, Any] | None:
    """The user's state row (overview, last_page_id, updated_at), or None."""
    return store.query_one(
        "SELECT * FROM user_state WHERE user_id = ?", (user_id,))


def save_overview(
    conn: Connection, user_id: str, overview: str, last_page_id: int, now: float
) -> None:
    """Store the overview and the last filed page (insert or update the state row)."""
    conn.execute(
        "INSERT INTO user_state (user_id, overview, last_page_id, updated_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET overview ="
        " excluded.overview, last_page_id = excluded.last_page_id,"
        " updated_at = excluded.updated_at",
        (user_id, overview, last_page_id, now))


# -- profile ----------------------------------------------------------------------------------

def profile_entry(conn: Connection, user_id: str, dimension: str) -> dict[str, Any] | None:
    """One profile dimension (every column; evidence and signals decoded), or None."""
    row = conn.execute("SELECT * FROM profile WHERE user_id = ? AND dimension = ?",
                       (user_id, dimension)).fetchone()
    if row is None:
        return None
    out = {k: row[k] for k in row.keys()}
    return dict(out, evidence=json.loads(out["evidence"]), signals=json.loads(out["signals"]))


def save_profile_entry(
    conn: Connection, user_id: str, dimension: str, family: str, level: str | None, reason: str,
    evidence: list[int], signals: list[dict[str, Any]], now: float,
) -> None:
    """Insert or update one profile dimension (the family of an existing row stays); level
    None: signals only, no level decided."""
    conn.execute(
        "INSERT INTO profile (user_id, dimension, family, level, reason, evidence, signals,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, dimension) DO"
        " UPDATE SET level = excluded.level, reason = excluded.reason, evidence ="
        " excluded.evidence, signals = excluded.signals, updated_at = excluded.updated_at",
        (user_id, dimension, family, level, reason, json.dumps(evidence),
         json.dumps(signals, ensure_ascii=False), now))


def profile_evidence(
    conn: Connection, user_id: str
) -> list[tuple[str, list[int], list[dict[str, Any]]]]:
    """(dimension, evidence page ids, signals) of each profile row of the user."""
    return [(str(r[0]), list(json.loads(r[1])), list(json.loads(r[2]))) for r in conn.execute(
        "SELECT dimension, evidence, signals FROM profile WHERE user_id = ? ORDER BY dimension",
        (user_id,)).fetchall()]


def set_profile_evidence(
    conn: Connection, user_id: str, dimension: str, evidence: list[int],
    signals: list[dict[str, Any]],
) -> None:
    """Replace the evidence page ids and signals of one profile dimension."""
    conn.execute("UPDATE profile SET evidence = ?, signals = ? WHERE user_id = ? AND"
                 " dimension = ?", (json.dumps(evidence), json.dumps(signals, ensure_ascii=False),
                                    user_id, dimension))


# -- facts ------------------------------------------------------------------------------------

def fact_by_norm(
    conn: Connection, user_id: str, kind: str, norm: str
) -> tuple[int, list[int]] | None:
    """(id, source page ids) of the user's fact of this kind with this normalised text."""
    row = conn.execute("SELECT id, sources FROM facts WHERE user_id = ? AND kind = ? AND"
                       " norm = ? ORDER BY id", (user_id, kind, norm)).fetchone()
    return None if row is None else (int(row[0]), list(json.loads(row[1])))


def facts_with_vectors(
    conn: Connection, user_id: str, kind: str
) -> list[tuple[int, list[int], np.ndarray]]:
    """(id, source page ids, vector) of each of the user's facts of a kind, by id."""
    rows = conn.execute("SELECT f.id, f.sources, v.vec FROM facts f JOIN vectors v ON"
                        " v.kind = 'fact' AND v.item_id = f.id WHERE f.user_id = ? AND"
                        " f.kind = ? ORDER BY f.id", (user_id, kind)).fetchall()
    return [(int(r[0]), list(json.loads(r[1])), BaseStore.decode_vector(r[2]))
            for r in rows]


def insert_fact(
    conn: Connection, user_id: str, kind: str, text: str, norm: str, sources: list[int],
    now: float,
) -> int:
    """A new fact; returns its id."""
    row = conn.execute(
        "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, kind, text, norm, json.dumps(sources), now, now)).fetchone()
    return int(row[0])


def merge_fact_sources(
    conn: Connection, user_id: str, fact_id: int, sources: list[int], now: float
) -> None:
    """Replace a fact's source page ids and mark it updated (a fact merged into it)."""
    conn.execute("UPDATE facts SET sources = ?, updated_at = ? WHERE id = ? AND user_id = ?",
                 (json.dumps(sources), now, fact_id, user_id))


def fact_sources(conn: Connection, user_id: str) -> list[tuple[int, list[int]]]:
    """(id, source page ids) of each fact of the user, by id."""
    return [(int(r[0]), list(json.loads(r[1]))) for r in conn.execute(
        "SELECT id, sources FROM facts WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()]


def set_fact_sources(conn: Connection, user_id: str, fact_id: int, sources: list[int]) -> None:
    """Replace a fact's source page ids, leaving its update time."""
    conn.execute("UPDATE facts SET sources = ? WHERE user_id = ? AND id = ?",
                 (json.dumps(sources), user_id, fact_id))


def fact_count(conn: Connection, user_id: str, kind: str) -> int:
    """How many facts of a kind the user has."""
    row = conn.execute("SELECT count(*) FROM facts WHERE user_id = ? AND kind = ?",
                       (user_id, kind)).fetchone()
    return int(row[0])


def fact_support(conn: Connection, user_id: str, kind: str) -> list[tuple[int, int, float]]:
    """(id, number of source pages, update time) of each fact of a kind of the user."""
    return [(int(r[0]), len(json.loads(r[1])), float(r[2])) for r in conn.execute(
        "SELECT id, sources, updated_at FROM facts WHERE user_id = ? AND kind = ?",
        (user_id, kind)).fetchall()]


def delete_facts(conn: Connection, user_id: str, fact_ids: Sequence[int]) -> None:
    """Delete facts of the user (their vectors go with them)."""
    if fact_ids:
        marks = ",".join("?" * len(fact_ids))
        conn.execute(f"DELETE FROM facts WHERE user_id = ? AND id IN ({marks})",
                     (user_id, *fact_ids))
