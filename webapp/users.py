"""Accounts: users, their chat-model endpoints and login failures, in a separate SQLite file."""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask_login import UserMixin
from werkzeug.security import check_password_hash, generate_password_hash

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS endpoints (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    base_url TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    api_key TEXT NOT NULL DEFAULT '',
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS login_failures (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    ts REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_key ON login_failures(key, ts);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at REAL NOT NULL
);
"""


class UsernameTaken(Exception):
    """Registration with a name that exists."""


@dataclass
class User(UserMixin):
    """A logged-in account; `engine_id` is the opaque id the memory engine knows."""

    id: int
    username: str
    created_at: float
    session_id: str = ""  # the server-side login session this user object came from

    def get_id(self) -> str:
        """What the session cookie carries: account id and server-side session id."""
        return f"{self.id}:{self.session_id}"

    @property
    def engine_id(self) -> str:
        return f"u{self.id}"


@dataclass
class Endpoint:
    """A user's own chat-model endpoint (the API key never leaves the server)."""

    base_url: str = ""
    model: str = ""
    api_key: str = ""

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    def public(self) -> dict[str, Any]:
        """What may be shown: never the key itself."""
        return {"base_url": self.base_url, "model": self.model, "key_set": bool(self.api_key),
                "configured": self.configured}


@contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """One transaction on the accounts database, its connection closed after."""
    conn = sqlite3.connect(path, timeout=30)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    try:
        with conn:
            yield conn
    finally:
        conn.close()


class UserStore:
    """Account records over one SQLite file (a connection per call, so threads are safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._conn() as conn:
            conn.executescript(SCHEMA)

    def _conn(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    # -- accounts ----------------------------------------------------------------------------

    def create(self, username: str, password: str) -> User:
        now = time.time()
        try:
            with self._conn() as conn:
                cur = conn.execute(
                    "INSERT INTO users (username, password_hash, created_at) VALUES (?, ?, ?)",
                    (username, generate_password_hash(password), now))
        except sqlite3.IntegrityError:
            raise UsernameTaken(username) from None
        return User(int(cur.lastrowid or 0), username, now)

    def get(self, user_id: int) -> User | None:
        with self._conn() as conn:
            row = conn.execute("SELECT id, username, created_at FROM users WHERE id = ?",
                               (user_id,)).fetchone()
        return User(row["id"], row["username"], row["created_at"]) if row else None

    def authenticate(self, username: str, password: str) -> User | None:
        with self._conn() as conn:
            row = conn.execute("SELECT * FROM users WHERE username = ?", (username,)).fetchone()
        if row is None or not check_password_hash(row["password_hash"], password):
            return None
        return User(row["id"], row["username"], row["created_at"])

    # -- login sessions: a cookie is valid only while its server-side session exists ----------

    def start_session(self, user: User) -> User:
        """A new login session for the user; returns the user bound to it."""
        session_id = secrets.token_urlsafe(24)
        with self._conn() as conn:
            conn.execute("INSERT INTO sessions (id, user_id, created_at) VALUES (?, ?, ?)",
                         (session_id, user.id, time.time()))
        return User(user.id, user.username, user.created_at, session_id)

    def from_session(self, cookie_id: str) -> User | None:
        """The user of a live session ('<account>:<session>'), else None (logged out)."""
        account, _, session_id = cookie_id.partition(":")
        if not account.isdigit() or not session_id:
            return None
        with self._conn() as conn:
            row = conn.execute(
                "SELECT u.id, u.username, u.created_at FROM sessions s JOIN users u ON"
                " u.id = s.user_id WHERE s.id = ? AND s.user_id = ?",
                (session_id, int(account))).fetchone()
        return User(row["id"], row["username"], row["created_at"], session_id) if row else None

    def end_session(self, session_id: str) -> None:
        """Log one session out: its cookie stops working everywhere it was copied."""
        with self._conn() as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    # -- login rate limiting -----------------------------------------------------------------

    def reserve_attempt(self, key: str, window: float, limit: int) -> bool:
        """Count recent failures and record this attempt as one, atomically; False at the limit.

        A successful login then clears the key (and so the reserved attempt).
        """
        now = time.time()
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            count = conn.execute("SELECT count(*) FROM login_failures WHERE key = ? AND ts > ?",
                                 (key, now - window)).fetchone()[0]
            if count >= limit:
                return False
            conn.execute("INSERT INTO login_failures (key, ts) VALUES (?, ?)", (key, now))
            conn.execute("DELETE FROM login_failures WHERE ts < ?", (now - 2 * window,))
        return True

    def clear_failures(self, key: str) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM login_failures WHERE key = ?", (key,))

    # -- per-user chat endpoint --------------------------------------------------------------

    def endpoint(self, user_id: int) -> Endpoint:
        with self._conn() as conn:
            row = conn.execute("SELECT base_url, model, api_key FROM endpoints WHERE user_id = ?",
                               (user_id,)).fetchone()
        return Endpoint(row["base_url"], row["model"], row["api_key"]) if row else Endpoint()

    def save_endpoint(self, user_id: int, base_url: str, model: str,
                      api_key: str | None, clear_key: bool = False) -> None:
        """Store the endpoint; a blank `api_key` keeps the stored one unless `clear_key`."""
        old = self.endpoint(user_id)
        key = "" if clear_key else (api_key if api_key else old.api_key)
        with self._conn() as conn:
            conn.execute(
                "INSERT INTO endpoints (user_id, base_url, model, api_key, updated_at) VALUES"
                " (?, ?, ?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET base_url = excluded.base_url,"
                " model = excluded.model, api_key = excluded.api_key,"
                " updated_at = excluded.updated_at",
                (user_id, base_url, model, key, time.time()))
