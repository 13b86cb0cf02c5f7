"""The `snapshots` table: stored versions of a user's memory (compressed documents)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..base import BaseStore
from ..db import Connection


def encode_document(doc: dict[str, Any]) -> bytes:
    """A memory document as the compressed blob a snapshot row stores."""
    return zlib.compress(json.dumps(doc, ensure_ascii=False).encode(), 6)


def decode_document(blob: bytes) -> dict[str, Any]:
    """The memory document inside a snapshot blob."""
    doc: dict[str, Any] = json.loads(zlib.decompress(blob))
    return doc


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


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One stored version of a user's memory, without its document."""

    version: int
    label: str
    created_at: float
    counts: dict[str, int]  # rows per part when it was saved

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredVersion:
        """The version of a row (counts decoded)."""
        return cls(version=int(row["version"]), label=str(row["label"]),
                   created_at=float(row["created_at"]), counts=json.loads(row["counts"]))


def snapshot_list(store: BaseStore, user_id: str) -> list[StoredVersion]:
    """The user's versions newest first, no documents."""
    return [StoredVersion.from_row(r) for r in store.query(
        "SELECT version, label, created_at, counts FROM snapshots"
        " WHERE user_id = ? ORDER BY version DESC", (user_id,))]


def snapshot_document(store: BaseStore, user_id: str, version: int) -> dict[str, Any] | None:
    """The stored document of one of the user's versions, or None when it does not exist."""
    row = store.query_one("SELECT doc FROM snapshots WHERE user_id = ? AND version = ?",
                          (user_id, version))
    return None if row is None else decode_document(row["doc"])


def delete_snapshot(conn: Connection, user_id: str, version: int) -> bool:
    """Delete one of the user's versions; False when there was none."""
    return bool(conn.execute("DELETE FROM snapshots WHERE user_id = ? AND version = ?",
                             (user_id, version)).rowcount)


# -- every user's versions (re-embedding) and one user's rewritten (erasure) ------------------


def all_snapshot_documents(store: BaseStore) -> list[tuple[int, dict[str, Any]]]:
    """(snapshot row id, document) of every stored version of every user (for re-embedding)."""
    return [(int(r["id"]), decode_document(r["doc"]))
            for r in store.query("SELECT id, doc FROM snapshots ORDER BY id")]


def replace_snapshot_document(conn: Connection, snapshot_id: int, doc: dict[str, Any]) -> None:
    """Overwrite the document of one stored version, by snapshot row id (for re-embedding)."""
    conn.execute("UPDATE snapshots SET doc = ? WHERE id = ?", (encode_document(doc), snapshot_id))


def user_snapshot_documents(conn: Connection, user_id: str) -> list[tuple[int, dict[str, Any]]]:
    """(version, document) of every stored version of the user, oldest first."""
    return [(int(r[0]), decode_document(r[1])) for r in conn.execute(
        "SELECT version, doc FROM snapshots WHERE user_id = ? ORDER BY version", (user_id,))]


def rewrite_snapshot(conn: Connection, user_id: str, version: int, counts: dict[str, int],
                     doc: dict[str, Any]) -> None:
    """Replace the document and counts of one of the user's versions."""
    conn.execute("UPDATE snapshots SET doc = ?, counts = ? WHERE user_id = ? AND version = ?",
                 (encode_document(doc), json.dumps(counts), user_id, version))
