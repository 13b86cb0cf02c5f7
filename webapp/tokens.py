"""MCP access tokens: named per user, shown once, stored only as a SHA-256 hash, revocable."""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .users import connect

PREFIX = "mos_"
SCHEMA = """
CREATE TABLE IF NOT EXISTS mcp_tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_used_at REAL,
    revoked_at REAL
);
CREATE INDEX IF NOT EXISTS mcp_tokens_user ON mcp_tokens(user_id, id);
"""


def digest(token: str) -> str:
    """The stored form of a token (tokens are 256-bit random, so a plain hash suffices)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenInfo:
    """A token as listed: never the token itself."""

    id: int
    name: str
    hint: str
    created_at: float
    last_used_at: float | None
    revoked_at: float | None

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "hint": self.hint,
                "created_at": self.created_at, "last_used_at": self.last_used_at,
                "revoked": self.revoked_at is not None}


class TokenStore:
    """Token records in the accounts database (its own table, created if missing)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with self._conn() as conn:
            conn.executescript(SCHEMA)

    def _conn(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def create(self, user_id: int, name: str) -> tuple[str, TokenInfo]:
        """A new token for the user: (the token, to show once; its record)."""
        token = PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        hint = f"{token[:8]}…{token[-4:]}"
        with self._conn() as conn:
            cur = conn.execute(
                "INSERT INTO mcp_tokens (user_id, name, token_hash, hint, created_at)"
                " VALUES (?, ?, ?, ?, ?)", (user_id, name, digest(token), hint, now))
        return token, TokenInfo(int(cur.lastrowid or 0), name, hint, now, None, None)

    def list(self, user_id: int) -> list[TokenInfo]:
        """The user's tokens, newest first, revoked ones included."""
        with self._conn() as conn:
            rows = conn.execute("SELECT id, name, hint, created_at, last_used_at, revoked_at"
                                " FROM mcp_tokens WHERE user_id = ? ORDER BY id DESC",
                                (user_id,)).fetchall()
        return [TokenInfo(**dict(r)) for r in rows]

    def revoke(self, user_id: int, token_id: int) -> bool:
        """Revoke one of the user's tokens; False when it is not theirs or already revoked."""
        with self._conn() as conn:
            cur = conn.execute("UPDATE mcp_tokens SET revoked_at = ? WHERE id = ? AND"
                               " user_id = ? AND revoked_at IS NULL",
                               (time.time(), token_id, user_id))
        return cur.rowcount == 1

    def user_for(self, token: str) -> int | None:
        """The account a live token belongs to (recording its use), else None."""
        if not token.startswith(PREFIX) or len(token) > 200:
            return None
        with self._conn() as conn:
            row = conn.execute("SELECT id, user_id FROM mcp_tokens WHERE token_hash = ? AND"
                               " revoked_at IS NULL", (digest(token),)).fetchone()
            if row is None:
                return None
            conn.execute("UPDATE mcp_tokens SET last_used_at = ? WHERE id = ?",
                         (time.time(), row["id"]))
        return int(row["user_id"])
