"""The database driver errors a host reports as one line (whichever backend is in use)."""

from __future__ import annotations

import sqlite3
import sys


def database_errors() -> tuple[type[Exception], ...]:
    """Exception classes of the loaded database drivers (sqlite3; psycopg once imported)."""
    found: list[type[Exception]] = [sqlite3.Error]
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        found.append(psycopg.Error)
    return tuple(found)
