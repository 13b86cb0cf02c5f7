"""Reads of one user's segments, facts, profile, notes and chain state (inspection, retrieval)."""

from __future__ import annotations

from typing import Any

from .base import BaseStore

Rows = list[dict[str, Any]]


def _marks(ids: list[int]) -> str:
    return ",".join("?" * len(ids))


def segment_rows_with_counts(store: BaseStore, user_id: str, segment_id: int | None = None) -> Rows:
    """The user's segments (or one) with `page_count` and `unanalysed` page counts."""
    only = "" if segment_id is None else " AND s.id = ?"
    extra: tuple[int, ...] = () if segment_id is None else (segment_id,)
    rows: Rows = store.query(
        "SELECT s.*, (SELECT count(*) FROM exchanges e WHERE e.segment_id = s.id) AS"
        " page_count, (SELECT count(*) FROM exchanges e WHERE e.segment_id = s.id AND"
        " e.analysed = 0) AS unanalysed FROM segments s WHERE s.user_id = ?" + only,
        (user_id, *extra))
    for row in rows:  # counts are plain ints on every backend
        row["page_count"], row["unanalysed"] = int(row["page_count"]), int(row["unanalysed"])
    return rows


def segments_by_id(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, dict[str, Any]]:
    """Some segments of the user by id (ids of other users are left out)."""
    if not ids:
        return {}
    return {r["id"]: r for r in store.query(
        f"SELECT * FROM segments WHERE id IN ({_marks(ids)}) AND user_id = ?", (*ids, user_id))}


def fact_rows(store: BaseStore, user_id: str, kind: str) -> Rows:
    """One fact list of the user ('user' or 'assistant'), oldest first."""
    rows: Rows = store.query("SELECT * FROM facts WHERE user_id = ? AND kind = ? ORDER BY id",
                             (user_id, kind))
    return rows


def facts_by_id(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, dict[str, Any]]:
    """Some facts of the user by id (ids of other users are left out)."""
    if not ids:
        return {}
    # by primary key, the user checked per row (SQL's `user_id = ?` walks all the user's facts)
    return {r["id"]: r for r in store.query(
        f"SELECT * FROM facts WHERE id IN ({_marks(ids)})", ids) if r["user_id"] == user_id}


def _replaced_by(ids: list[int]) -> str:
    """The user's facts that these facts replaced: SQL taking the ids, then the user."""
    return f"SELECT * FROM facts WHERE superseded_by IN ({_marks(ids)}) AND user_id = ?"


def fact_predecessors(store: BaseStore, user_id: str, ids: list[int]) -> Rows:
    """The user's facts that these facts replaced (one step back), newest end first."""
    if not ids:
        return []
    rows: Rows = store.query(f"{_replaced_by(ids)} ORDER BY valid_until DESC, id",
                             (*ids, user_id))
    return rows


def facts_with_predecessors(store: BaseStore, user_id: str, ids: list[int],
                            ) -> tuple[dict[int, dict[str, Any]], Rows]:
    """`facts_by_id` and `fact_predecessors` of the same ids, read in one statement."""
    if not ids:
        return {}, []
    rows = store.query(
        f"SELECT * FROM (SELECT 0 AS found_as, * FROM facts WHERE id IN ({_marks(ids)})"
        f" UNION ALL SELECT 1, * FROM ({_replaced_by(ids)}) AS older) AS both_parts"
        " ORDER BY found_as, valid_until DESC, id", (*ids, *ids, user_id))
    parts: tuple[Rows, Rows] = ([], [])
    for r in rows:
        parts[r.pop("found_as")].append(r)
    return {r["id"]: r for r in parts[0] if r["user_id"] == user_id}, parts[1]


def profile_rows(store: BaseStore, user_id: str) -> Rows:
    """The user's stored profile dimensions, by family then dimension."""
    rows: Rows = store.query("SELECT * FROM profile WHERE user_id = ?"
                             " ORDER BY family, dimension", (user_id,))
    return rows


def note_rows(store: BaseStore, user_id: str) -> Rows:
    """The user's imported notes (kind, text, source, created_at), oldest first."""
    rows: Rows = store.query("SELECT kind, text, source, created_at FROM notes WHERE user_id = ?"
                             " ORDER BY id", (user_id,))
    return rows


