"""Endpoint API keys at rest: Fernet under a key derived (HKDF-SHA256) from the secret key."""

# Rotation: the current SECRET_KEY encrypts; SECRET_KEY_FALLBACKS (the previous keys, which Flask
# also accepts for session cookies) still decrypt, and a key read through an old one is sealed
# again under the current one (`reseal`, or `flask --app webapp reseal-api-keys` for all).

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Any

import click
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

PREFIX = "fernet:"  # stored values without it are keys an older version kept in clear
INFO = b"memoryos-playground endpoint api key v1"  # this key is for nothing else


class KeyUnreadable(Exception):
    """A stored API key sealed under a secret key that is neither current nor a fallback."""


def derive(secret: str | bytes) -> Fernet:
    """The Fernet key for API keys, derived from one secret key."""
    raw = secret.encode("utf-8") if isinstance(secret, str) else secret
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(raw)
    return Fernet(base64.urlsafe_b64encode(key))


def fallback_list(value: object) -> list[str]:
    """SECRET_KEY_FALLBACKS as a list (one string from the environment is one key)."""
    if not value:
        return []
    if isinstance(value, str | bytes):
        return [value.decode() if isinstance(value, bytes) else value]
    return [str(v) for v in value]  # type: ignore[attr-defined]


class KeyBox:
    """Seal and open API keys with the current secret key and its fallbacks."""

    def __init__(self, secret: str | bytes, fallbacks: Iterable[str | bytes] = ()) -> None:
        self.current = derive(secret)
        self.every = MultiFernet([self.current, *(derive(f) for f in fallbacks)])

    def seal(self, plain: str) -> str:
        """The stored form of an API key ('' stays '')."""
        if not plain:
            return ""
        return PREFIX + self.current.encrypt(plain.encode("utf-8")).decode("ascii")

    def open(self, stored: str) -> tuple[str, bool]:
        """(the key, whether it should be sealed again: kept in clear or under an old key)."""
        if not stored:
            return "", False
        if not stored.startswith(PREFIX):
            return stored, True
        token = stored[len(PREFIX):].encode("ascii")
        try:
            return self.current.decrypt(token).decode("utf-8"), False
        except InvalidToken:
            pass
        try:
            return self.every.decrypt(token).decode("utf-8"), True
        except InvalidToken:
            raise KeyUnreadable from None


def init_app(app: Any, users: Any) -> None:
    """Give the account store its KeyBox; `flask --app webapp reseal-api-keys` re-encrypts."""
    app.config["SECRET_KEY_FALLBACKS"] = fallback_list(app.config.get("SECRET_KEY_FALLBACKS"))
    users.keybox = KeyBox(app.config["SECRET_KEY"] or "", app.config["SECRET_KEY_FALLBACKS"])

    @app.cli.command("reseal-api-keys")
    def reseal_api_keys() -> None:
        """Encrypt every stored endpoint API key under the current secret key."""
        counts = users.reseal_keys()
        click.echo(f"{counts['resealed']} API keys sealed again under the current secret key,"
                   f" {counts['current']} already were, {counts['unreadable']} unreadable"
                   " (sealed under a secret key that is neither current nor a fallback).")
