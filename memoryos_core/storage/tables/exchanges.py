"""The `exchanges` table (short-term exchanges and every exchange by id or conversation).

Admission, the short-term reads, the user's conversations, Regenerate and Edit, the app's
text cleaned out of answers, keyword lookups of the user's own search, re-embedding's read and
a version written back. Its mid-term tier, the pages, is `tables/pages.py`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import BaseStore, row_dict
from ..db import Connection
from ..fts_terms import fts_query
from . import Rows, insert_row, marks


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One exchanges row: a short-term exchange, or a mid-term page (`tier` 'mid') with its
    segment, its dialogue chain (prev_id, next_id), overview and keywords."""

    id: int
    user_id: str
    user_text: str
    assistant_text: str
    ts: float  # when it was said (dialogue time)
    admitted_at: float
    tier: str
    segment_id: int | None
    prev_id: int | None
    next_id: int | None
    overview: str
    keywords: tuple[str, ...]
    analysed: bool
    source: str
    content_key: str
    moved_at: float | None
    conversation_id: int | None
    answered_by: str  # who wrote the answer: model, embedded, app, unknown; '' imported/given
    number: int = 0  # the user's own count of their exchanges (1 for their first), in URLs

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Exchange:
        """The exchange of a `SELECT *` row (keywords decoded; other columns left out)."""
        moved = row["moved_at"]
        return cls(id=int(row["id"]), user_id=str(row["user_id"]),
                   user_text=str(row["user_text"]), assistant_text=str(row["assistant_text"]),
                   ts=float(row["ts"]), admitted_at=float(row["admitted_at"]),
                   tier=str(row["tier"]), segment_id=_int(row["segment_id"]),
                   prev_id=_int(row["prev_id"]), next_id=_int(row["next_id"]),
                   overview=str(row["overview"] or ""),
                   keywords=tuple(json.loads(row["keywords"] or "[]")),
                   analysed=bool(row["analysed"]), source=str(row["source"]),
                   content_key=str(row["content_key"]),
                   moved_at=None if moved is None else float(moved),
                   conversation_id=_int(row.get("conversation_id")),
                   answered_by=str(row.get("answered_by") or ""),
                   number=int(row.get("number") or 0))

# -- admission (inside the caller's transaction) -------------------------------------------


def insert_exchange(
    conn: Connection, user_id: str, user_text: str, assistant_text: str, ts: float,
    admitted_at: float, source: str, content_key: str, conversation: int | str = "current",
    answered_by: str = "",
) -> int:
    """Insert one short-term exchange; returns its id. `conversation`: its id, "new", or
    "current" (that of the user's newest short-term exchange of the same source, else new);
    an exchange that starts a conversation gives it its own id."""
    given = conversation if isinstance(conversation, int) else None
    # one statement either way; the conversation's first exchange takes one more
    row = conn.execute(
        "INSERT INTO exchanges (user_id, user_text, assistant_text, ts, admitted_at, tier,"
        " source, content_key, answered_by, conversation_id) VALUES (?, ?, ?, ?, ?, 'short', ?,"
        " ?, ?,"
        " coalesce(?, (SELECT c.conversation_id FROM exchanges c WHERE c.user_id = ?"
        " AND c.tier = 'short' AND c.source = ? ORDER BY c.ts DESC, c.id DESC LIMIT 1)))"
        " RETURNING id, conversation_id",
        (user_id, user_text, assistant_text, ts, admitted_at, source, content_key, answered_by,
         given,
         user_id, source if conversation == "current" else None),
    ).fetchone()
    if row[1] is None:
        conn.execute("UPDATE exchanges SET conversation_id = id WHERE id = ?", (row[0],))
    return int(row[0])


def overflow_to_mid_term(conn: Connection, user_id: str, capacity: int, now: float) -> list[int]:
    """Move the user's short-term exchanges beyond the newest `capacity` to pending mid-term
    pages (one statement); returns their ids, oldest first (dialogue time, then id)."""
    rows = conn.execute(
        "UPDATE exchanges SET tier = 'mid', moved_at = ? WHERE user_id = ? AND id IN"
        " (SELECT ranked.id FROM (SELECT id, row_number() OVER (ORDER BY ts DESC, id DESC) AS n"
        " FROM exchanges WHERE user_id = ? AND tier = 'short') AS ranked WHERE ranked.n > ?)"
        " RETURNING id, ts", (now, user_id, user_id, capacity)).fetchall()
    return [int(r[0]) for r in sorted(rows, key=lambda r: (float(r[1]), int(r[0])))]


# -- reads ----------------------------------------------------------------------------------


SHORT_TERM_ROWS = "SELECT * FROM exchanges WHERE user_id = ? AND tier = 'short' ORDER BY ts, id"


def short_term_rows(store: BaseStore, user_id: str) -> Rows:
    """The user's short-term exchanges, oldest first."""
    rows: Rows = store.query(SHORT_TERM_ROWS, (user_id,))
    return rows


def short_term_count(store: BaseStore, user_id: str) -> int:
    """How many exchanges the user has in short-term memory."""
    return int(store.scalar("SELECT count(*) FROM exchanges WHERE user_id = ? AND tier ="
                            " 'short'", (user_id,)) or 0)


def exchange_row(store: BaseStore, user_id: str, exchange_id: int) -> Exchange | None:
    """One exchange of the user, or None."""
    row = store.query_one(
        "SELECT * FROM exchanges WHERE id = ? AND user_id = ?", (exchange_id, user_id))
    return None if row is None else Exchange.from_row(row)


def exchanges_by_id(store: BaseStore, user_id: str, ids: list[int],
                    columns: str = "*", next_of: Sequence[int] = ()) -> dict[int, dict[str, Any]]:
    """Some exchanges of the user by id (ids of other users are left out); `columns`: the
    ones wanted, id and user_id among them (a retrieval reads ~100 rows, a third less so);
    `next_of`: ids among them whose chain links (next_id) come too, in the same statement
    (the pages that may continue a retrieval's best ones: one round trip, not two)."""
    if not ids:
        return {}
    # By primary key, the user checked per row: with `user_id = ?` in the SQL, SQLite (no
    # statistics) walks all the user's rows through the (user_id, content_key) index instead,
    # 45 ms for 120 ids at 100k pages rather than 1 ms.
    sql = f"SELECT {columns} FROM exchanges WHERE id IN ({marks(ids)})"
    if next_of:
        sql += (f" UNION ALL SELECT {columns} FROM exchanges WHERE id IN"
                f" (SELECT next_id FROM exchanges WHERE id IN ({marks(list(next_of))}))")
    return {r["id"]: r for r in store.query(sql, [*ids, *next_of])
            if r["user_id"] == user_id}


def recent_exchange_rows(store: BaseStore, user_id: str, limit: int) -> Rows:
    """The user's newest exchanges of any tier, newest first."""
    rows: Rows = store.query(
        "SELECT * FROM exchanges WHERE user_id = ? ORDER BY ts DESC, id DESC LIMIT ?",
        (user_id, limit))
    return rows


def content_keys(store: BaseStore, user_id: str) -> set[str]:
    """Content keys of every exchange of the user (to skip re-imports)."""
    return {r["content_key"] for r in store.query(
        "SELECT content_key FROM exchanges WHERE user_id = ?", (user_id,))}


def keyword_pages(store: BaseStore, user_id: str, words: list[str], limit: int) -> list[int]:
    """Ids of the user's exchanges of any tier holding any of `words`, best match first."""
    words = list(dict.fromkeys(w for w in words if w.strip()))
    if not words:
        return []
    if store.dialect == "postgresql":
        anyq = " || ".join("plainto_tsquery('english', ?)" for _ in words)
        return [int(r["id"]) for r in store.query(
            f"SELECT id FROM exchanges WHERE user_id = ? AND words @@ ({anyq})"
            f" ORDER BY ts_rank(words, ({anyq})) DESC, id LIMIT ?",
            (user_id, *words, *words, limit))]
    # dialect: sqlite (FTS5 MATCH and bm25; the words quoted, so no user text is FTS syntax)
    return [int(r["id"]) for r in store.query(
        "SELECT e.id FROM exchanges_fts f JOIN exchanges e ON e.id = f.rowid"
        " WHERE exchanges_fts MATCH ? AND e.user_id = ? ORDER BY bm25(exchanges_fts), e.id"
        " LIMIT ?", (fts_query(words), user_id, limit))]


# -- conversations: exchanges grouped by conversation_id -------------------------------------


# the exchanges stored before conversations existed and not grouped by the migration (a
# restored old version): listed together as conversation 0
UNGROUPED = 0


def _in(conversation: int) -> tuple[str, tuple[Any, ...]]:
    """The condition (and its parameters) for the exchanges of one conversation."""
    if conversation == UNGROUPED:
        return "conversation_id IS NULL", ()
    return "conversation_id = ?", (conversation,)


def current_conversation(store: BaseStore, user_id: str, source: str = "chat") -> int | None:
    """The conversation a new exchange of `source` continues: that of the user's newest
    short-term exchange of that source (the rule insert_exchange applies), else None."""
    value = store.scalar("SELECT conversation_id FROM exchanges WHERE user_id = ? AND tier ="
                         " 'short' AND source = ? ORDER BY ts DESC, id DESC LIMIT 1",
                         (user_id, source))
    return None if value is None else int(value)


def conversation_by_source(store: BaseStore, user_id: str, source: str) -> int | None:
    """The conversation an earlier import of the same source conversation started, or None."""
    value = store.scalar("SELECT conversation_id FROM exchanges WHERE user_id = ? AND source = ?"
                         " AND conversation_id IS NOT NULL ORDER BY id LIMIT 1",
                         (user_id, source))
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class ConversationRow:
    """One conversation of a user as the listing reads it (UNGROUPED: the old exchanges)."""

    conversation: int
    started_at: float
    last_at: float
    count: int
    first_user: str  # the first exchange's texts and source: the conversation's title
    first_assistant: str
    source: str


def conversation_listing(store: BaseStore, user_id: str, limit: int) -> list[ConversationRow]:
    """The user's conversations, newest first: id, first exchange (title, source), first and
    last time, exchange count."""
    rows = store.query(
        "WITH g AS (SELECT coalesce(conversation_id, 0) AS conversation, min(id) AS first_id,"
        " min(ts) AS started_at, max(ts) AS last_at, count(*) AS n FROM exchanges"
        " WHERE user_id = ? GROUP BY coalesce(conversation_id, 0))"
        " SELECT g.conversation, g.started_at, g.last_at, g.n, f.user_text AS first_user,"
        " f.assistant_text AS first_assistant, f.source FROM g JOIN exchanges f"
        " ON f.id = g.first_id ORDER BY g.last_at DESC, g.conversation DESC LIMIT ?",
        (user_id, limit))
    return [ConversationRow(conversation=int(r["conversation"]),
                            started_at=float(r["started_at"]), last_at=float(r["last_at"]),
                            count=int(r["n"]), first_user=str(r["first_user"] or ""),
                            first_assistant=str(r["first_assistant"] or ""),
                            source=str(r["source"] or "")) for r in rows]


def exchanges_before(store: BaseStore, user_id: str, conversation: int,
                     before: tuple[float, int] | None, limit: int) -> list[Exchange]:
    """Up to `limit` exchanges of one conversation, newest first, older than `before`
    ((ts, id), exclusive; None: from the newest)."""
    where, params = _in(conversation)
    older = ""
    more: tuple[Any, ...] = ()
    if before is not None:
        older, more = " AND (ts < ? OR (ts = ? AND id < ?))", (before[0], before[0], before[1])
    return [Exchange.from_row(r) for r in store.query(
        f"SELECT * FROM exchanges WHERE user_id = ? AND {where}{older}"
        " ORDER BY ts DESC, id DESC LIMIT ?", (user_id, *params, *more, limit))]


def exchange_in_conversation(store: BaseStore, user_id: str, conversation: int,
                             exchange_id: int) -> dict[str, Any] | None:
    """One exchange of the user if it is in that conversation, else None."""
    where, params = _in(conversation)
    row: dict[str, Any] | None = store.query_one(
        f"SELECT id, ts FROM exchanges WHERE id = ? AND user_id = ? AND {where}",
        (exchange_id, user_id, *params))
    return row


def first_exchange(store: BaseStore, user_id: str, conversation: int) -> dict[str, Any] | None:
    """The oldest exchange of one conversation (its title and source), or None."""
    where, params = _in(conversation)
    row: dict[str, Any] | None = store.query_one(
        f"SELECT user_text, assistant_text, source FROM exchanges WHERE user_id = ? AND {where}"
        " ORDER BY id LIMIT 1", (user_id, *params))
    return row


def conversation_size(store: BaseStore, user_id: str, conversation: int) -> int:
    """How many exchanges one conversation holds."""
    where, params = _in(conversation)
    return int(store.scalar(f"SELECT count(*) FROM exchanges WHERE user_id = ? AND {where}",
                            (user_id, *params)) or 0)


# -- Regenerate and Edit (inside the caller's transaction) ------------------------------------


def short_term_texts(conn: Connection, user_id: str, exchange_id: int) -> dict[str, Any] | None:
    """The texts of one of the user's short-term exchanges and its trace, or None when it is
    not (or no longer) in short-term memory."""
    row = conn.execute(
        "SELECT e.user_text, e.assistant_text, t.trace FROM exchanges e LEFT JOIN traces t"
        " ON t.exchange_id = e.id WHERE e.id = ? AND e.user_id = ? AND e.tier = 'short'",
        (exchange_id, user_id)).fetchone()
    if row is None:
        return None
    return {"user_text": row[0], "assistant_text": row[1], "trace": row[2]}


def replace_texts(conn: Connection, user_id: str, exchange_id: int, user_text: str,
                  assistant_text: str, content_key: str, answered_by: str = "") -> None:
    """New texts for a short-term exchange and who wrote the answer (its keyword index entry
    follows: a trigger on SQLite, the generated column on PostgreSQL)."""
    conn.execute("UPDATE exchanges SET user_text = ?, assistant_text = ?, content_key = ?,"
                 " answered_by = ? WHERE id = ? AND user_id = ? AND tier = 'short'",
                 (user_text, assistant_text, content_key, answered_by, exchange_id, user_id))


# -- the app's own text taken out of stored answers (memory/cleanup.py) ----------------------


EVIDENCE_MARK = "%(What I remember:%"


def _mine(user_id: str | None) -> tuple[str, tuple[str, ...]]:
    """The SQL condition and parameter for one user's rows (every user's: None)."""
    return ("", ()) if user_id is None else (" AND user_id = ?", (user_id,))


def pages_with_evidence(conn: Connection, user_id: str | None = None) -> list[dict[str, Any]]:
    """id, user_id, user_text, assistant_text of each exchange (of one user, or of every user)
    whose answer holds an appended evidence line."""
    where, mine = _mine(user_id)
    return [row_dict(r) for r in conn.execute(
        "SELECT id, user_id, user_text, assistant_text FROM exchanges WHERE assistant_text LIKE"
        f" ?{where} ORDER BY id", (EVIDENCE_MARK, *mine)).fetchall()]


def user_texts(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    """The user side of some exchanges (the callers pass a user's own ids)."""
    out: dict[int, str] = {}
    wanted = sorted({int(i) for i in ids})
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for r in conn.execute(f"SELECT id, user_text FROM exchanges WHERE id IN ({marks})",
                              chunk).fetchall():
            out[int(r[0])] = str(r[1])
    return out


def answer_writers(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    """Who wrote the answer of some exchanges (`answered_by`; '' imported or given)."""
    out: dict[int, str] = {}
    wanted = sorted({int(i) for i in ids})
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for r in conn.execute(f"SELECT id, answered_by FROM exchanges WHERE id IN ({marks})",
                              chunk).fetchall():
            out[int(r[0])] = str(r[1] or "")
    return out


def set_answer(conn: Connection, user_id: str, page_id: int, old: str, new: str) -> bool:
    """Give one exchange a new answer text, when it still holds `old` (the keyword index
    follows: SQLite's update trigger of migration 10, PostgreSQL's generated tsvector)."""
    return bool(conn.execute("UPDATE exchanges SET assistant_text = ? WHERE id = ? AND"
                             " user_id = ? AND assistant_text = ?",
                             (new, page_id, user_id, old)).rowcount)


# -- a version written back (transfer/versions.py) -------------------------------------------


EXCHANGE_COLUMNS = ("id", "user_text", "assistant_text", "ts", "admitted_at", "tier",
                    "segment_id", "prev_id", "next_id", "overview", "keywords", "analysed",
                    "source", "content_key", "moved_at")


# its conversation (migration 10): else ungrouped; its number among the user's (migration
# 13): else the next one
EXCHANGE_LATER = {"conversation_id": None, "number": None}


def restore_exchange(conn: Connection, user_id: str, row: dict[str, Any], keep_id: bool) -> int:
    """Write one exchange row of a document for the user; its new id (the same when kept; a
    remapped conversation is set afterwards: set_conversation)."""
    row = dict(row, conversation_id=row.get("conversation_id") if keep_id else None,
               number=row.get("number") if keep_id else None)
    return insert_row(conn, "exchanges", user_id,
                   (EXCHANGE_COLUMNS if keep_id else EXCHANGE_COLUMNS[1:]) + tuple(EXCHANGE_LATER),
                   row)


def set_conversation(conn: Connection, user_id: str, exchange_id: int,
                     conversation_id: int | None) -> None:
    """Put one of the user's exchanges in a conversation (a remapped document's ids)."""
    conn.execute("UPDATE exchanges SET conversation_id = ? WHERE id = ? AND user_id = ?",
                 (conversation_id, exchange_id, user_id))
