"""MCP access tokens: named per user, shown once, stored only as a SHA-256 hash, revocable."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

from memoryos_core.storage import BaseStore

from . import accounts

PREFIX = "mos_"


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
    """Token records in the accounts store (the UserStore's)."""

    def __init__(self, store: BaseStore) -> None:
        self.store = store

    def create(self, user_id: int, name: str) -> tuple[str, TokenInfo]:
        """A new token for the user: (the token, to show once; its record)."""
        token = PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        hint = f"{token[:8]}…{token[-4:]}"
        with accounts.write(self.store, f"user:{user_id}") as conn:
            token_id = accounts.add_token(conn, user_id, name, digest(token), hint, now)
        return token, TokenInfo(token_id, name, hint, now, None, None)

    def list(self, user_id: int) -> list[TokenInfo]:
        """The user's tokens, newest first, revoked ones included."""
        return [TokenInfo(**r) for r in accounts.token_rows(self.store, user_id)]

    def revoke(self, user_id: int, token_id: int) -> bool:
        """Revoke one of the user's tokens; False when it is not theirs or already revoked."""
        with accounts.write(self.store, f"user:{user_id}") as conn:
            return accounts.revoke_token(conn, user_id, token_id, time.time())

    def user_for(self, token: str) -> int | None:
        """The account a live token belongs to (recording its use), else None."""
        if not token.startswith(PREFIX) or len(token) > 200:
            return None
        hashed = digest(token)
        with accounts.write(self.store, f"token:{hashed}") as conn:
            row = accounts.live_token(conn, hashed)
            if row is None:
                return None
            accounts.touch_token(conn, row["id"], time.time())
        return int(row["user_id"])
