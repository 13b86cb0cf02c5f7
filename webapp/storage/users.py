"""Accounts: users, their chat-model endpoints, login failures and sessions (SQL in accounts)."""

from __future__ import annotations

import functools
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask_login import UserMixin
from werkzeug.security import check_password_hash, generate_password_hash

from ..keybox import KeyBox, KeyUnreadable
from . import accounts

SESSION_TOUCH_SECONDS = 60  # a session's last use is recorded at most this often


@functools.cache
def _dummy_hash() -> str:
    """A hash made like every stored one (werkzeug's default method), of a random password."""
    return generate_password_hash(secrets.token_urlsafe(16))


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
    key_lost: bool = False  # a key was stored under a secret key this server no longer has

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    def public(self) -> dict[str, Any]:
        """What may be shown: never the key itself."""
        return {"base_url": self.base_url, "model": self.model, "key_set": bool(self.api_key),
                "configured": self.configured}


class UserStore:
    """Account records in the accounts store (users.sqlite3 in the data folder, or PostgreSQL)."""

    def __init__(self, data_dir: str | Path, database_url: str | None = None,
                 session_idle_seconds: float = 86400, session_max_seconds: float = 1209600
                 ) -> None:
        # a session's last use is written once a minute (a write per request would cost every
        # page a write lock): an idle lifetime shorter than that would end sessions in use
        if float(session_idle_seconds) < SESSION_TOUCH_SECONDS:
            raise RuntimeError(
                f"MEMPLAY_SESSION_IDLE_SECONDS must be at least {SESSION_TOUCH_SECONDS} (a"
                f" session's last use is recorded once a minute), not {session_idle_seconds}")
        self.store = accounts.open_accounts(data_dir, database_url)
        self.session_idle_seconds = session_idle_seconds
        self.session_max_seconds = session_max_seconds
        self.keybox: KeyBox = KeyBox(secrets.token_bytes(32))  # create_app sets the real one

    # -- accounts ----------------------------------------------------------------------------

    def create(self, username: str, password: str) -> User:
        now = time.time()
        try:
            with accounts.write(self.store, "users") as conn:
                user_id = accounts.create_user(conn, username, generate_password_hash(password),
                                               now)
        except accounts.UsernameExists:
            raise UsernameTaken(username) from None
        return User(user_id, username, now)

    def get(self, user_id: int) -> User | None:
        row = accounts.user_by_id(self.store, user_id)
        return User(row["id"], row["username"], row["created_at"]) if row else None

    def authenticate(self, username: str, password: str) -> User | None:
        """The account for a name and password, else None.

        An unknown name checks the password against a dummy hash of the same method, so that a
        login takes as long for a name that does not exist as for a wrong password (no name
        enumeration by timing).
        """
        row = accounts.user_by_name(self.store, username)
        stored = row["password_hash"] if row is not None else _dummy_hash()
        if not check_password_hash(stored, password) or row is None:
            return None
        return User(row["id"], row["username"], row["created_at"])

    # -- login sessions: a cookie is valid only while its server-side session exists ----------

    def start_session(self, user: User) -> User:
        """A new login session for the user; returns the user bound to it.

        Sessions of every account past their lifetime are forgotten here (no sweeper needed).
        """
        session_id = secrets.token_urlsafe(24)
        now = time.time()
        with accounts.write(self.store, f"user:{user.id}") as conn:
            accounts.prune_sessions(conn, now - self.session_max_seconds,
                                    now - self.session_idle_seconds)
            accounts.add_session(conn, session_id, user.id, now)
        return User(user.id, user.username, user.created_at, session_id)

    def from_session(self, cookie_id: str) -> User | None:
        """The user of a live session ('<account>:<session>'), else None (logged out).

        A session idle for `session_idle_seconds` or older than `session_max_seconds` ends
        here, on the server, whatever the cookie says. Its last use is written at most once a
        minute (not a write per request).
        """
        account, _, session_id = cookie_id.partition(":")
        if not account.isdigit() or not session_id:
            return None
        row = accounts.session_user(self.store, session_id, int(account))
        if row is None:
            return None
        now = time.time()
        if (now - row["started_at"] > self.session_max_seconds
                or now - row["last_seen_at"] > self.session_idle_seconds):
            self.end_session(session_id)
            return None
        if now - row["last_seen_at"] > SESSION_TOUCH_SECONDS:
            with accounts.write(self.store, f"session:{session_id}") as conn:
                accounts.touch_session(conn, session_id, now)
        return User(row["id"], row["username"], row["created_at"], session_id)

    def end_session(self, session_id: str) -> None:
        """Log one session out: its cookie stops working everywhere it was copied."""
        with accounts.write(self.store, f"session:{session_id}") as conn:
            accounts.delete_session(conn, session_id)

    def end_all_sessions(self, user_id: int) -> int:
        """Log the account out everywhere (every browser, every copied cookie); how many."""
        with accounts.write(self.store, f"user:{user_id}") as conn:
            return accounts.end_user_sessions(conn, user_id)

    # -- login rate limiting -----------------------------------------------------------------

    def reserve_attempt(self, key: str, window: float, limit: int) -> bool:
        """Count recent failures and record this attempt as one, atomically; False at the limit.

        A successful login then clears the key (and so the reserved attempt).
        """
        now = time.time()
        with accounts.write(self.store, f"login:{key}") as conn:
            if accounts.recent_failures(conn, key, now - window) >= limit:
                return False
            accounts.add_failure(conn, key, now)
            accounts.prune_failures(conn, now - 2 * window)
        return True

    def clear_failures(self, key: str) -> None:
        with accounts.write(self.store, f"login:{key}") as conn:
            accounts.clear_failures(conn, key)

    # -- per-user chat endpoint --------------------------------------------------------------

    def endpoint(self, user_id: int) -> Endpoint:
        """The user's endpoint with its key decrypted (sealed again if under an old secret)."""
        row = accounts.endpoint_row(self.store, user_id)
        if not row:
            return Endpoint()
        try:
            key = self._open(user_id, row["api_key"])
        except KeyUnreadable:
            return Endpoint(row["base_url"], row["model"], "", key_lost=True)
        return Endpoint(row["base_url"], row["model"], key)

    def _open(self, user_id: int, stored: str) -> str:
        plain, stale = self.keybox.open(stored)
        if stale:
            with accounts.write(self.store, f"user:{user_id}") as conn:
                accounts.replace_api_key(conn, user_id, stored, self.keybox.seal(plain))
        return plain

    def reseal_keys(self) -> dict[str, int]:
        """Seal every stored API key under the current secret key (after a rotation)."""
        counts = {"resealed": 0, "current": 0, "unreadable": 0}
        for row in accounts.stored_api_keys(self.store):
            try:
                plain, stale = self.keybox.open(row["api_key"])
            except KeyUnreadable:
                counts["unreadable"] += 1
                continue
            if stale:
                with accounts.write(self.store, f"user:{row['user_id']}") as conn:
                    accounts.replace_api_key(conn, row["user_id"], row["api_key"],
                                             self.keybox.seal(plain))
            counts["resealed" if stale else "current"] += 1
        return counts

    def save_endpoint(self, user_id: int, base_url: str, model: str,
                      api_key: str | None, clear_key: bool = False) -> None:
        """Store the endpoint (the key sealed); a blank `api_key` keeps the stored one unless
        `clear_key`."""
        old = self.endpoint(user_id)
        key = "" if clear_key else (api_key if api_key else old.api_key)
        with accounts.write(self.store, f"user:{user_id}") as conn:
            accounts.save_endpoint(conn, user_id, base_url, model, self.keybox.seal(key),
                                   time.time())

    # -- the chat model picked per conversation ------------------------------------------------

    def model_choice(self, user_id: int, conversation_id: int | None) -> str | None:
        """The model picked for the conversation, else the latest pick (None: never picked)."""
        if conversation_id:
            choice = accounts.model_choice(self.store, user_id, conversation_id)
            if choice is not None:
                return choice
        return accounts.model_choice(self.store, user_id, 0)

    def choose_model(self, user_id: int, conversation_id: int | None, choice: str) -> None:
        """Remember the pick for the conversation and as the latest (a new one starts with it)."""
        with accounts.write(self.store, f"user:{user_id}") as conn:
            for conversation in dict.fromkeys((conversation_id or 0, 0)):
                accounts.save_model_choice(conn, user_id, conversation, choice, time.time())

    # -- deleting an account -----------------------------------------------------------------

    def delete_account(self, user: User) -> dict[str, Any]:
        """Delete the account, its sessions, tokens, endpoint and key, then scrub the accounts
        file so that none of it stays on disk (SQLite; PostgreSQL keeps dead tuples until its own
        VACUUM)."""
        with accounts.write(self.store, f"user:{user.id}") as conn:
            deleted = accounts.delete_account(conn, user.id, user.username)
        scrubbed = accounts.scrub(self.store) if self.store.dialect == "sqlite" else None
        return {"deleted": deleted, "files_scrubbed": bool(scrubbed)}
