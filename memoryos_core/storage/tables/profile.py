"""The `profile` table: the user's profile dimensions (level, reason, evidence, signals)."""

from __future__ import annotations

import json
from typing import Any

from ..base import BaseStore
from ..db import Connection
from . import Rows

PROFILE_ROWS = "SELECT * FROM profile WHERE user_id = ? ORDER BY family, dimension"


def profile_rows(store: BaseStore, user_id: str) -> Rows:
    """The user's stored profile dimensions, by family then dimension."""
    rows: Rows = store.query(PROFILE_ROWS, (user_id,))
    return rows


def profile_entry(conn: Connection, user_id: str, dimension: str) -> dict[str, Any] | None:
    """One profile dimension (every column; evidence and signals decoded), or None."""
    row = conn.execute("SELECT * FROM profile WHERE user_id = ? AND dimension = ?",
                       (user_id, dimension)).fetchone()
    if row is None:
        return None
    out = {k: row[k] for k in row.keys()}
    return dict(out, evidence=json.loads(out["evidence"]), signals=json.loads(out["signals"]))


def profile_evidence(
    conn: Connection, user_id: str
) -> list[tuple[str, list[int], list[dict[str, Any]]]]:
    """(dimension, evidence page ids, signals) of each profile row of the user."""
    return [(str(r[0]), list(json.loads(r[1])), list(json.loads(r[2]))) for r in conn.execute(
        "SELECT dimension, evidence, signals FROM profile WHERE user_id = ? ORDER BY dimension",
        (user_id,)).fetchall()]


# -- writes (inside the caller's transaction) -------------------------------------------------


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


def set_profile_evidence(
    conn: Connection, user_id: str, dimension: str, evidence: list[int],
    signals: list[dict[str, Any]],
) -> None:
    """Replace the evidence page ids and signals of one profile dimension."""
    conn.execute("UPDATE profile SET evidence = ?, signals = ? WHERE user_id = ? AND"
                 " dimension = ?", (json.dumps(evidence), json.dumps(signals, ensure_ascii=False),
                                    user_id, dimension))


def save_profile(conn: Connection, user_id: str, dimension: str, family: str, level: str,
                 reason: str, now: float) -> None:
    """Set one profile dimension to the user's level and reason (marked as theirs)."""
    conn.execute(
        "INSERT INTO profile (user_id, dimension, family, level, reason, evidence, updated_at,"
        " by_user) VALUES (?, ?, ?, ?, ?, '[]', ?, 1) ON CONFLICT (user_id, dimension) DO UPDATE"
        " SET level = excluded.level, reason = excluded.reason, updated_at = excluded.updated_at,"
        " by_user = 1", (user_id, dimension, family, level, reason, now))


def delete_profile(conn: Connection, user_id: str, dimension: str) -> bool:
    """Delete one of the user's profile dimensions; False when none."""
    return bool(conn.execute("DELETE FROM profile WHERE user_id = ? AND dimension = ?",
                             (user_id, dimension)).rowcount)


PROFILE_COLUMNS = ("dimension", "family", "level", "reason", "evidence", "updated_at")


PROFILE_LATER = {"signals": "[]", "by_user": 0}  # columns newer documents hold: else the default


def restore_profile_dimension(conn: Connection, user_id: str, row: dict[str, Any]) -> None:
    """Write one profile dimension row of a document for the user."""
    columns = (*PROFILE_COLUMNS, *PROFILE_LATER)
    conn.execute(f"INSERT INTO profile (user_id, {', '.join(columns)}) VALUES"
                 f" (?{', ?' * len(columns)})",
                 (user_id, *[row[c] for c in PROFILE_COLUMNS],
                  *[row.get(c, default) for c, default in PROFILE_LATER.items()]))
