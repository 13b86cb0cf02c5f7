"""The user's corrections of long-term memory: facts and profile rows marked as theirs."""

from __future__ import annotations

from typing import Any

from .db import Connection


def update_fact(conn: Connection, user_id: str, fact_id: int, text: str, norm: str,
                now: float) -> bool:
    """Give one of the user's facts the user's text (marked as theirs); False when none."""
    return bool(conn.execute(
        "UPDATE facts SET text = ?, norm = ?, by_user = 1, updated_at = ? WHERE id = ? AND"
        " user_id = ?", (text, norm, now, fact_id, user_id)).rowcount)


def keep_as_history(conn: Connection, user_id: str, row: dict[str, Any], until: float) -> int:
    """A copy of a fact as it was before the user's correction, replaced by the corrected fact
    at `until` (the correction keeps the fact's id; its old text becomes its history)."""
    found = conn.execute(
        "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at,"
        " valid_from, valid_until, superseded_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id", (user_id, row["kind"], row["text"], row["norm"], row["sources"],
                          row["created_at"], row["updated_at"], row["valid_from"], until,
                          row["id"])).fetchone()
    return int(found[0])


def delete_fact(conn: Connection, user_id: str, fact_id: int) -> bool:
    """Delete one of the user's facts (its vector goes with it); False when none."""
    return bool(conn.execute("DELETE FROM facts WHERE id = ? AND user_id = ?",
                             (fact_id, user_id)).rowcount)


def user_fact_ids(conn: Connection, user_id: str) -> set[int]:
    """Ids of the facts the user wrote or corrected (analysis leaves them as they are)."""
    return {int(r[0]) for r in conn.execute(
        "SELECT id FROM facts WHERE user_id = ? AND by_user = 1", (user_id,))}


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
