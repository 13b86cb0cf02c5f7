"""The `facts` table: the user's and the assistant's facts, current and replaced (history)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import BaseStore, row_dict
from ..db import Connection
from . import Rows, insert_row, marks


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact row: its text, the pages it came from, and when it held (`valid_until` and
    `superseded_by` None while it is current)."""

    id: int
    user_id: str
    kind: str
    text: str
    norm: str
    sources: tuple[int, ...]
    created_at: float
    updated_at: float
    valid_from: float | None
    valid_until: float | None
    superseded_by: int | None
    by_user: bool  # written or corrected by the user (analysis leaves it as it is)
    origin: str  # where an imported fact came from ("imported from Claude memory"), else ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Fact:
        """The fact of a `SELECT *` row (sources decoded)."""
        return cls(id=int(row["id"]), user_id=str(row["user_id"]), kind=str(row["kind"]),
                   text=str(row["text"]), norm=str(row["norm"]),
                   sources=tuple(int(i) for i in json.loads(row["sources"] or "[]")),
                   created_at=float(row["created_at"]), updated_at=float(row["updated_at"]),
                   valid_from=_float(row["valid_from"]), valid_until=_float(row["valid_until"]),
                   superseded_by=None if row["superseded_by"] is None
                   else int(row["superseded_by"]),
                   by_user=bool(row.get("by_user")), origin=str(row.get("origin") or ""))


def fact_rows(store: BaseStore, user_id: str, kind: str) -> list[Fact]:
    """One fact list of the user ('user' or 'assistant'), current and replaced, oldest first."""
    return [Fact.from_row(r) for r in store.query(
        "SELECT * FROM facts WHERE user_id = ? AND kind = ? ORDER BY id", (user_id, kind))]


def facts_by_id(store: BaseStore, user_id: str, ids: list[int]) -> dict[int, dict[str, Any]]:
    """Some facts of the user by id (ids of other users are left out)."""
    if not ids:
        return {}
    # by primary key, the user checked per row (SQL's `user_id = ?` walks all the user's facts)
    return {r["id"]: r for r in store.query(
        f"SELECT * FROM facts WHERE id IN ({marks(ids)})", ids) if r["user_id"] == user_id}


def _replaced_by(ids: list[int]) -> str:
    """The user's facts that these facts replaced: SQL taking the ids, then the user."""
    return f"SELECT * FROM facts WHERE superseded_by IN ({marks(ids)}) AND user_id = ?"


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
        f"SELECT * FROM (SELECT 0 AS found_as, * FROM facts WHERE id IN ({marks(ids)})"
        f" UNION ALL SELECT 1, * FROM ({_replaced_by(ids)}) AS older) AS both_parts"
        " ORDER BY found_as, valid_until DESC, id", (*ids, *ids, user_id))
    parts: tuple[Rows, Rows] = ([], [])
    for r in rows:
        parts[r.pop("found_as")].append(r)
    return {r["id"]: r for r in parts[0] if r["user_id"] == user_id}, parts[1]


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


def fact_sources(conn: Connection, user_id: str) -> list[tuple[int, list[int]]]:
    """(id, source page ids) of each fact of the user, by id."""
    return [(int(r[0]), list(json.loads(r[1]))) for r in conn.execute(
        "SELECT id, sources FROM facts WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()]


def fact_support(conn: Connection, user_id: str,
                 kind: str) -> list[tuple[int, int, float, float | None]]:
    """(id, number of source pages, update time, valid_until) of each fact of a kind."""
    return [(int(r[0]), len(json.loads(r[1])), float(r[2]),
             None if r[3] is None else float(r[3])) for r in conn.execute(
        "SELECT id, sources, updated_at, valid_until FROM facts WHERE user_id = ? AND kind = ?",
        (user_id, kind)).fetchall()]


def fact_successors(conn: Connection, user_id: str, kind: str) -> dict[int, int]:
    """Replaced fact id -> the id of the fact that replaced it, for one kind."""
    return {int(r[0]): int(r[1]) for r in conn.execute(
        "SELECT id, superseded_by FROM facts WHERE user_id = ? AND kind = ? AND"
        " superseded_by IS NOT NULL", (user_id, kind)).fetchall()}


def known_fact_norms(store: BaseStore, user_id: str) -> set[tuple[str, str]]:
    """(kind, normalised text) of every fact of the user (to skip re-imports)."""
    return {(r["kind"], r["norm"]) for r in store.query(
        "SELECT kind, norm FROM facts WHERE user_id = ?", (user_id,))}


def all_fact_rows(store: BaseStore) -> list[dict[str, Any]]:
    """id, user_id, text of every fact of every user."""
    return store.query("SELECT id, user_id, text FROM facts")


# -- analysis and eviction (inside the caller's transaction) ----------------------------------


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


def set_fact_sources(conn: Connection, user_id: str, fact_id: int, sources: list[int]) -> None:
    """Replace a fact's source page ids, leaving its update time."""
    conn.execute("UPDATE facts SET sources = ? WHERE user_id = ? AND id = ?",
                 (json.dumps(sources), user_id, fact_id))


def delete_facts(conn: Connection, user_id: str, fact_ids: Sequence[int]) -> None:
    """Delete facts of the user (their vectors go with them)."""
    if fact_ids:
        marks = ",".join("?" * len(fact_ids))
        conn.execute(f"DELETE FROM facts WHERE user_id = ? AND id IN ({marks})",
                     (user_id, *fact_ids))


# -- the user's corrections -------------------------------------------------------------------


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


# -- the app's own text taken out (memory/cleanup.py), imports, versions -----------------------


def _mine(user_id: str | None) -> tuple[str, tuple[str, ...]]:
    """The SQL condition and parameter for one user's rows (every user's: None)."""
    return ("", ()) if user_id is None else (" AND user_id = ?", (user_id,))


def all_facts(conn: Connection, user_id: str | None = None) -> list[dict[str, Any]]:
    """Each fact (of one user, or of every user) with its links and owner, by user then id."""
    where, mine = _mine(user_id)
    return [row_dict(r) for r in conn.execute(
        "SELECT id, user_id, kind, text, sources, valid_until, superseded_by, by_user FROM"
        f" facts WHERE 1 = 1{where} ORDER BY user_id, id", mine).fetchall()]


def relink_fact(conn: Connection, user_id: str, fact_id: int, valid_until: float | None,
                superseded_by: int | None) -> None:
    """Set until when a fact held and the fact that replaced it (None, None: current)."""
    conn.execute("UPDATE facts SET valid_until = ?, superseded_by = ? WHERE id = ? AND"
                 " user_id = ?", (valid_until, superseded_by, fact_id, user_id))


def insert_imported_fact(conn: Connection, user_id: str, kind: str, text: str, norm: str,
                         created_at: float, updated_at: float, origin: str = "") -> int:
    """A fact with no source pages, holding from when the reference stored it; returns its id.
    `origin`: where it was imported from ("imported from Claude memory"), shown with it."""
    row = conn.execute(
        "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at,"
        " valid_from, origin) VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?) RETURNING id",
        (user_id, kind, text, norm, created_at, updated_at, created_at, origin)).fetchone()
    return int(row[0])


FACT_COLUMNS = ("id", "kind", "text", "norm", "sources", "created_at", "updated_at")


# when a fact held and what replaced it (documents written before migration 7 lack them)
FACT_TIME_COLUMNS = ("valid_from", "valid_until", "superseded_by")


# by_user: the user's correction (migration 9); origin: where an imported fact came from (11)
FACT_LATER: dict[str, Any] = {"by_user": 0, "origin": ""}


def restore_fact(conn: Connection, user_id: str, row: dict[str, Any], keep_id: bool) -> int:
    """Write one fact row of a document for the user; its new id (the same when kept). Its
    successor is linked afterwards (set_fact_successor): it may come later in the document."""
    start = row.get("valid_from")
    row = dict(row, valid_from=row["created_at"] if start is None else start,
               valid_until=row.get("valid_until"),
               **{c: row.get(c, default) for c, default in FACT_LATER.items()})
    columns = ((FACT_COLUMNS if keep_id else FACT_COLUMNS[1:]) + ("valid_from", "valid_until")
               + tuple(FACT_LATER))
    return insert_row(conn, "facts", user_id, columns, row)


def set_fact_successor(conn: Connection, user_id: str, fact_id: int,
                       successor: int | None) -> None:
    """Point one of the user's facts at the fact that replaced it."""
    conn.execute("UPDATE facts SET superseded_by = ? WHERE id = ? AND user_id = ?",
                 (successor, fact_id, user_id))
