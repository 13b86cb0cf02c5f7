"""The numbers the web shows and links exchanges by: each user's own (migration 13), never the
global ids, which told a new user how many exchanges others had stored."""

from __future__ import annotations

from collections.abc import Sequence

from ..base import BaseStore
from . import marks


def numbers_of(store: BaseStore, user_id: str, ids: Sequence[int]) -> dict[int, int]:
    """The user's number of each of these exchanges (ids of other users are left out)."""
    if not ids:
        return {}
    return {int(r["id"]): int(r["number"]) for r in store.query(
        f"SELECT id, number FROM exchanges WHERE id IN ({marks(ids)}) AND user_id = ?",
        (*ids, user_id)) if r["number"] is not None}


def id_of_number(store: BaseStore, user_id: str, number: int) -> int | None:
    """The id of the user's exchange with this number, or None."""
    rows = store.query("SELECT id FROM exchanges WHERE user_id = ? AND number = ?"
                       " ORDER BY id LIMIT 1", (user_id, number))
    return int(rows[0]["id"]) if rows else None
