"""Named errors of the engine; hosts map them to messages and status codes in one place."""

from __future__ import annotations


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


class StructuredOutputError(ModelError):
    """The chat model kept returning output that does not validate against the schema."""
