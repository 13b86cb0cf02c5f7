"""Versions' SQL: a user's memory rows as a document, stored snapshots, wipe and restore writes."""

from __future__ import annotations

import json
import zlib
from typing import Any

from .base import BaseStore
from .db import Connection

EXCHANGE_COLUMNS = ("id", "user_text", "assistant_text", "ts", "admitted_at", "tier",
                    "segment_id", "prev_id", "next_id", "overview", "keywords", "analysed",
                    "source", "content_key", "moved_at")
EXCHANGE_LATER = {"conversation_id": None}  # its conversation (migration 10): else ungrouped
SEGMENT_COLUMNS = ("id", "summary", "keywords", "n_visit", "l_interaction", "last_visit",
                   "created_at", "updated_at", "analysed_at")
FACT_COLUMNS = ("id", "kind", "text", "norm", "sources", "created_at", "updated_at")
# when a fact held and what replaced it (documents written before migration 7 lack them)
FACT_TIME_COLUMNS = ("valid_from", "valid_until", "superseded_by")
PROFILE_COLUMNS = ("dimension", "family", "level", "reason", "evidence", "updated_at")
PROFILE_LATER = {"signals": "[]", "by_user": 0}  # columns newer documents hold: else the default
# by_user: the user's correction (migration 9); origin: where an imported fact came from (11)
FACT_LATER: dict[str, Any] = {"by_user": 0, "origin": ""}
WIPED_TABLES = ("traces", "exchanges", "segments", "facts", "profile", "user_state", "notes")


def encode_document(doc: dict[str, Any]) -> bytes:
    """A memory document as the compressed blob a snapshot row stores."""
    return zlib.compress(json.dumps(doc, ensure_ascii=False).encode(), 6)


def decode_document(blob: bytes) -> dict[str, Any]:
    """The memory document inside a snapshot blob."""
    doc: dict[str, Any] = json.loads(zlib.decompress(blob))
    return doc


# -- the user's current memory, read as a document ------------------------------------------

def memory_rows(store: BaseStore, user_id: str) -> dict[str, Any]:
    """Every memory row of a user by part (exchanges, segments, facts, profile, traces, notes),
    ordered by id, and the user_state row (or None)."""
    return {
        "exchanges": store.query(f"SELECT {', '.join((*EXCHANGE_COLUMNS, *EXCHANGE_LATER))}"
                                 " FROM exchanges"
                                 " WHERE user_id = ? ORDER BY id", (user_id,)),
        "segments": store.query(f"SELECT {', '.join(SEGMENT_COLUMNS)} FROM segments"
                                " WHERE user_id = ? ORDER BY id", (user_id,)),
        "facts": store.query(f"SELECT {', '.join((*FACT_COLUMNS, *FACT_TIME_COLUMNS, *FACT_LATER))}"
                             " FROM facts"
                             " WHERE user_id = ? ORDER BY id", (user_id,)),
        "profile": store.query(f"SELECT {', '.join((*PROFILE_COLUMNS, *PROFILE_LATER))}"
                               " FROM profile"
                               " WHERE user_id = ? ORDER BY dimension", (user_id,)),
        "user_state": store.query_one("SELECT overview, last_page_id FROM user_state"
                                      " WHERE user_id = ?", (user_id,)),
        "traces": store.query("SELECT exchange_id, created_at, trace FROM traces"
                              " WHERE user_id = ? ORDER BY exchange_id", (user_id,)),
        "notes": store.query("SELECT kind, text, source, created_at FROM notes"
                             " WHERE user_id = ? ORDER BY id", (user_id,)),
    }


# -- stored versions ----------------------------------------------------------------------------

def next_version(conn: Connection, user_id: str) -> int:
    """The number the user's next snapshot gets (1 for the first)."""
    return int(conn.execute("SELECT coalesce(max(version), 0) + 1 FROM snapshots"
                            " WHERE user_id = ?", (user_id,)).fetchone()[0])


def insert_snapshot(conn: Connection, user_id: str, version: int, label: str, created_at: float,
                    counts: dict[str, int], doc: dict[str, Any]) -> None:
    """Store one version of the user's memory (its document compressed)."""
    conn.execute("INSERT INTO snapshots (user_id, version, label, created_at, counts, doc)"
                 " VALUES (?, ?, ?, ?, ?, ?)",
                 (user_id, version, label, created_at, json.dumps(counts), encode_document(doc)))


def prune_snapshots(conn: Connection, user_id: str, up_to_version: int) -> None:
    """Delete the user's versions numbered up to and including `up_to_version`."""
    conn.execute("DELETE FROM snapshots WHERE user_id = ? AND version <= ?",
                 (user_id, up_to_version))


def snapshot_list(store: BaseStore, user_id: str) -> list[dict[str, Any]]:
    """The user's versions newest first (version, label, created_at, counts), no documents."""
    rows = store.query("SELECT version, label, created_at, counts FROM snapshots"
                       " WHERE user_id = ? ORDER BY version DESC", (user_id,))
    return [dict(r, counts=json.loads(r["counts"])) for r in rows]


def snapshot_document(store: BaseStore, user_id: str, version: int) -> dict[str, Any] | None:
    """The stored document of one of the user's versions, or None when it does not exist."""
    row = store.query_one("SELECT doc FROM snapshots WHERE user_id = ? AND version = ?",
                          (user_id, version))
    return None if row is None else decode_document(row["doc"])


def delete_snapshot(conn: Connection, user_id: str, version: int) -> bool:
    """Delete one of the user's versions; False when there was none."""
    return bool(conn.execute("DELETE FROM snapshots WHERE user_id = ? AND version = ?",
                             (user_id, version)).rowcount)


def all_snapshot_documents(store: BaseStore) -> list[tuple[int, dict[str, Any]]]:
    """(snapshot row id, document) of every stored version of every user (for re-embedding)."""
    return [(int(r["id"]), decode_document(r["doc"]))
            for r in store.query("SELECT id, doc FROM snapshots ORDER BY id")]


def replace_snapshot_document(conn: Connection, snapshot_id: int, doc: dict[str, Any]) -> None:
    """Overwrite the document of one stored version, by snapshot row id (for re-embedding)."""
    conn.execute("UPDATE snapshots SET doc = ? WHERE id = ?", (encode_document(doc), snapshot_id))


# -- wipe and restore writes ----------------------------------------------------------------

def wipe_memory(conn: Connection, user_id: str) -> None:
    """Delete every memory row of a user (triggers remove vectors and FTS entries)."""
    for table in WIPED_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))


def _insert(conn: Connection, table: str, user_id: str, columns: tuple[str, ...],
            row: dict[str, Any]) -> int:
    marks = ", ?" * len(columns)
    sql = (f"INSERT INTO {table} (user_id, {', '.join(columns)}) VALUES (?{marks})"
           " RETURNING id")
    return int(conn.execute(sql, (user_id, *[row[c] for c in columns])).fetchone()[0])


# keep_id: a restore writes a version of this store back with the ids this store issued, so
# an identity sequence (PostgreSQL) is already past them.
def insert_segment(conn: Connection, user_id: str, row: dict[str, Any], keep_id: bool) -> int:
    """Write one segment row of a document for the user; its new id (the same when kept)."""
    return _insert(conn, "segments", user_id,
                   SEGMENT_COLUMNS if keep_id else SEGMENT_COLUMNS[1:], row)


def insert_exchange(conn: Connection, user_id: str, row: dict[str, Any], keep_id: bool) -> int:
    """Write one exchange row of a document for the user; its new id (the same when kept; a
    remapped conversation is set afterwards: set_conversation)."""
    row = dict(row, conversation_id=row.get("conversation_id") if keep_id else None)
    return _insert(conn, "exchanges", user_id,
                   (EXCHANGE_COLUMNS if keep_id else EXCHANGE_COLUMNS[1:]) + tuple(EXCHANGE_LATER),
                   row)


def insert_fact(conn: Connection, user_id: str, row: dict[str, Any], keep_id: bool) -> int:
    """Write one fact row of a document for the user; its new id (the same when kept). Its
    successor is linked afterwards (set_fact_successor): it may come later in the document."""
    start = row.get("valid_from")
    row = dict(row, valid_from=row["created_at"] if start is None else start,
               valid_until=row.get("valid_until"),
               **{c: row.get(c, default) for c, default in FACT_LATER.items()})
    columns = ((FACT_COLUMNS if keep_id else FACT_COLUMNS[1:]) + ("valid_from", "valid_until")
               + tuple(FACT_LATER))
    return _insert(conn, "facts", user_id, columns, row)


def set_fact_successor(conn: Connection, user_id: str, fact_id: int,
                       successor: int | None) -> None:
    """Point one of the user's facts at the fact that replaced it."""
    conn.execute("UPDATE facts SET superseded_by = ? WHERE id = ? AND user_id = ?",
                 (successor, fact_id, user_id))


def set_chain_links(conn: Connection, user_id: str, exchange_id: int, prev_id: int | None,
                    next_id: int | None) -> None:
    """Point one of the user's exchanges at its previous and next page."""
    conn.execute("UPDATE exchanges SET prev_id = ?, next_id = ? WHERE id = ? AND user_id = ?",
                 (prev_id, next_id, exchange_id, user_id))


def set_conversation(conn: Connection, user_id: str, exchange_id: int,
                     conversation_id: int | None) -> None:
    """Put one of the user's exchanges in a conversation (a remapped document's ids)."""
    conn.execute("UPDATE exchanges SET conversation_id = ? WHERE id = ? AND user_id = ?",
                 (conversation_id, exchange_id, user_id))


def insert_profile_dimension(conn: Connection, user_id: str, row: dict[str, Any]) -> None:
    """Write one profile dimension row of a document for the user."""
    columns = (*PROFILE_COLUMNS, *PROFILE_LATER)
    conn.execute(f"INSERT INTO profile (user_id, {', '.join(columns)}) VALUES"
                 f" (?{', ?' * len(columns)})",
                 (user_id, *[row[c] for c in PROFILE_COLUMNS],
                  *[row.get(c, default) for c, default in PROFILE_LATER.items()]))


def insert_user_state(conn: Connection, user_id: str, overview: str, last_page_id: int | None,
                      updated_at: float) -> None:
    """Write the user's chain state (overview and last page)."""
    conn.execute("INSERT INTO user_state (user_id, overview, last_page_id, updated_at)"
                 " VALUES (?, ?, ?, ?)", (user_id, overview, last_page_id, updated_at))


def insert_note(conn: Connection, user_id: str, kind: str, text: str, source: str,
                created_at: float) -> None:
    """Write one note for the user."""
    conn.execute("INSERT INTO notes (user_id, kind, text, source, created_at) VALUES"
                 " (?, ?, ?, ?, ?)", (user_id, kind, text, source, created_at))


def insert_trace(conn: Connection, user_id: str, exchange_id: int, created_at: float,
                 trace: str) -> None:
    """Write the retrieval trace of one of the user's exchanges."""
    conn.execute("INSERT INTO traces (exchange_id, user_id, created_at, trace)"
                 " VALUES (?, ?, ?, ?)", (exchange_id, user_id, created_at, trace))
