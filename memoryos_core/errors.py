"""Named errors of the engine; hosts map them to messages and status codes in one place."""

from __future__ import annotations

from typing import Any


class MemoryOSError(Exception):
    """Base class of every error the engine raises on purpose."""

    status = 500


class InvalidInput(MemoryOSError):
    """The caller gave something the engine cannot accept (nothing was written)."""

    status = 400


class ImportFormatError(InvalidInput):
    """A dialogue or export document is malformed; the message names the item and field."""


class NotFound(MemoryOSError):
    """A version, segment, page, job or trace does not exist for this user."""

    status = 404


class ModelError(MemoryOSError):
    """The chat model failed (network, provider error, empty reply); nothing was stored."""

    status = 502


class Stopped(MemoryOSError):
    """The user stopped the answer while it was being made; nothing was stored."""

    status = 499  # nginx's "client closed request": the asker ended it, nothing failed


class StructuredOutputError(ModelError):
    """The chat model kept returning output that does not validate against the schema."""


# -- the checks every host's input passes (they raise the errors above) ----------------

def check_user(user_id: Any) -> str:
    """A user id is an opaque non-empty string; it never becomes a path."""
    if not isinstance(user_id, str) or not user_id.strip() or len(user_id) > 200:
        raise InvalidInput("user id must be a non-empty string of at most 200 characters")
    return user_id


MAX_ID = 2**63 - 1  # SQLite's largest integer


def check_id(value: Any, what: str) -> int:
    """A record id or version number: an int SQLite can hold, else NotFound (never a crash)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        raise NotFound(f"{what} {str(value)[:40]} does not exist")
    return value
