"""Accounts: users, their chat-model endpoints, login failures and sessions (SQL in storage.accounts)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask_login import UserMixin
from werkzeug.security import check_password_hash, generate_password_hash

from memoryos_core.storage import accounts


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


class UserStore:
    """Account records in the accounts store (users.sqlite3 in the data folder, or PostgreSQL)."""

    def __init__(self, data_dir: str | Path, database_url: str | None = None) -> None:
        self.store = accounts.open_accounts(data_dir, database_url)

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
        row = accounts.user_by_name(self.store, username)
        if row is None or not check_password_hash(row["password_hash"], password):
            return None
        return User(row["id"], row["username"], row["created_at"])

    # -- login sessions: a cookie is valid only while its server-side session exists ----------

    def start_session(self, user: User) -> User:
        """A new login session for the user; returns the user bound to it."""
        session_id = secrets.token_urlsafe(24)
        with accounts.write(self.store, f"user:{user.id}") as conn:
            accounts.add_session(conn, session_id, user.id, time.time())
        return User(user.id, user.username, user.created_at, session_id)

    def from_session(self, cookie_id: str) -> User | None:
        """The user of a live session ('<account>:<session>'), else None (logged out)."""
        account, _, session_id = cookie_id.partition(":")
        if not account.isdigit() or not session_id:
            return None
        row = accounts.session_user(self.store, session_id, int(account))
        return User(row["id"], row["username"], row["created_at"], session_id) if row else None

    def end_session(self, session_id: str) -> None:
        """Log one session out: its cookie stops working everywhere it was copied."""
        with accounts.write(self.store, f"session:{session_id}") as conn:
            accounts.delete_session(conn, session_id)

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
        row = accounts.endpoint_row(self.store, user_id)
        return Endpoint(row["base_url"], row["model"], row["api_key"]) if row else Endpoint()

    def save_endpoint(self, user_id: int, base_url: str, model: str,
                      api_key: str | None, clear_key: bool = False) -> None:
        """Store the endpoint; a blank `api_key` keeps the stored one unless `clear_key`."""
        old = self.endpoint(user_id)
        key = "" if clear_key else (api_key if api_key else old.api_key)
        with accounts.write(self.store, f"user:{user_id}") as conn:
            accounts.save_endpoint(conn, user_id, base_url, model, key, time.time())
