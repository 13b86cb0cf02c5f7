"""What both backends share: the connection shape storage code writes against, and lock keys."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any, Protocol


class Row(Protocol):
    """A result row readable by position and by column name (sqlite3.Row's shape)."""

    def __getitem__(self, key: int | str) -> Any: ...

    def keys(self) -> list[str]: ...


class Cursor(Protocol):
    """What `Connection.execute` returns."""

    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """A DB-API connection with sqlite3's `execute` shortcut and `?` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...


def dialect(conn: Any) -> str:
    """'sqlite' or 'postgresql' for a connection handed out by a store."""
    return str(getattr(conn, "dialect", "sqlite"))


def lock_key(*parts: str) -> int:
    """A signed 64-bit key for a user-scoped lock (PostgreSQL advisory locks, byte ranges)."""
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def to_pyformat(sql: str) -> str:
    """Turn `?` placeholders into `%s` outside string literals; a literal % becomes %%."""
    out: list[str] = []
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted
            out.append(ch)
        elif ch == "%":
            out.append("%%")
        elif ch == "?" and not quoted:
            out.append("%s")
        else:
            out.append(ch)
    return "".join(out)


def is_database_url(value: str | None) -> bool:
    """True for a PostgreSQL URL (postgres:// or postgresql://)."""
    return bool(value) and str(value).split("://", 1)[0] in {"postgres", "postgresql"}
