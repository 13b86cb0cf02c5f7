"""Long-term rows and the mid-term overview: profile, facts, user_state, always per user."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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

FACT_TIME = "f.valid_from, f.valid_until, f.superseded_by"


def facts_with_vectors(conn: Connection, user_id: str, kind: str) -> list[dict[str, Any]]:
    """Each of the user's facts of a kind (current and replaced) with its vector, by id: id,
    text, norm, sources, valid_from, valid_until, superseded_by, vec."""
    rows = conn.execute(f"SELECT f.id, f.text, f.norm, f.sources, {FACT_TIME}, v.vec FROM facts"
                        " f JOIN vectors v ON v.kind = 'fact' AND v.item_id = f.id WHERE"
                        " f.user_id = ? AND f.kind = ? ORDER BY f.id", (user_id, kind)).fetchall()
    return [{"id": int(r[0]), "text": str(r[1]), "norm": str(r[2]),
             "sources": list(json.loads(r[3])),
             "valid_from": None if r[4] is None else float(r[4]),
             "valid_until": None if r[5] is None else float(r[5]),
             "superseded_by": None if r[6] is None else int(r[6]),
             "vec": BaseStore.decode_vector(r[7])} for r in rows]


def insert_fact(
    conn: Connection, user_id: str, kind: str, text: str, norm: str, sources: list[int],
    now: float, valid_from: float,
) -> int:
    """A new current fact holding from `valid_from`; returns its id."""
    row = conn.execute(
        "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at,"
        " valid_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, kind, text, norm, json.dumps(sources), now, now, valid_from)).fetchone()
    return int(row[0])


def merge_fact_sources(
    conn: Connection, user_id: str, fact_id: int, sources: list[int], now: float,
    valid_from: float,
) -> None:
    """Replace a fact's source page ids and start, and mark it updated (a fact merged into
    it)."""
    conn.execute("UPDATE facts SET sources = ?, updated_at = ?, valid_from = ? WHERE id = ? AND"
                 " user_id = ?", (json.dumps(sources), now, valid_from, fact_id, user_id))


def supersede_fact(conn: Connection, user_id: str, old_id: int, new_id: int,
                   until: float) -> None:
    """Mark a fact replaced by a newer one at `until`: it stays, as history."""
    conn.execute("UPDATE facts SET valid_until = ?, superseded_by = ? WHERE id = ? AND"
                 " user_id = ?", (until, new_id, old_id, user_id))


def fact_sources(conn: Connection, user_id: str) -> list[tuple[int, list[int]]]:
    """(id, source page ids) of each fact of the user, by id."""
    return [(int(r[0]), list(json.loads(r[1]))) for r in conn.execute(
        "SELECT id, sources FROM facts WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()]


def set_fact_sources(conn: Connection, user_id: str, fact_id: int, sources: list[int]) -> None:
    """Replace a fact's source page ids, leaving its update time."""
    conn.execute("UPDATE facts SET sources = ? WHERE user_id = ? AND id = ?",
                 (json.dumps(sources), user_id, fact_id))


def fact_support(conn: Connection, user_id: str,
                 kind: str) -> list[tuple[int, int, float, float | None]]:
    """(id, number of source pages, update time, valid_until) of each fact of a kind."""
    return [(int(r[0]), len(json.loads(r[1])), float(r[2]),
             None if r[3] is None else float(r[3])) for r in conn.execute(
        "SELECT id, sources, updated_at, valid_until FROM facts WHERE user_id = ? AND kind = ?",
        (user_id, kind)).fetchall()]


def delete_facts(conn: Connection, user_id: str, fact_ids: Sequence[int]) -> None:
    """Delete facts of the user (their vectors go with them)."""
    if fact_ids:
        marks = ",".join("?" * len(fact_ids))
        conn.execute(f"DELETE FROM facts WHERE user_id = ? AND id IN ({marks})",
                     (user_id, *fact_ids))
