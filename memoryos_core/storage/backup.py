"""Consistent copies of live SQLite stores (the online backup API), verified by reopening them.

Copying a database file in WAL mode while it is written is not a backup: the newest commits
sit in the -wal file and a copy can tear between the two. SQLite's backup API reads one
snapshot inside a read transaction (in WAL mode writers go on meanwhile) and writes a
self-contained file. FAISS indexes are built from the vectors stored in SQLite, so the database
holds everything a store needs.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from .sqlite import DB_NAME

# tables whose row counts a backup reports (those a database has)
COUNTED = ("exchanges", "segments", "facts", "profile", "vectors", "snapshots", "jobs", "users",
           "sessions", "mcp_tokens")


def copy_database(source: Path, target: Path) -> dict[str, Any]:
    """Copy one SQLite database with the online backup API, then verify the copy.

    The copy is written next to `target` and renamed into place only once it passed
    `PRAGMA integrity_check`, so a target never holds a half-written file.
    """
    if not source.is_file():
        raise FileNotFoundError(2, "no such database", str(source))
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    # owner-only, like the store itself (SQLite keeps the mode of the file it opens)
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    # read-write open (only reads): a read-only one cannot make a WAL file's -shm if missing
    src = sqlite3.connect(source, timeout=60)
    try:
        src.execute("PRAGMA busy_timeout=60000")
        dst = sqlite3.connect(partial)
        try:
            # pages=-1: the whole database in one step, from one snapshot of the source
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=DELETE")  # a single self-contained file
        finally:
            dst.close()
    finally:
        src.close()
    report = verify_database(partial)
    if report["integrity"] != "ok":
        raise RuntimeError(f"the copy of {source} failed its integrity check:"
                           f" {report['integrity']}")
    os.replace(partial, target)
    report["path"] = str(target)
    return report


def verify_database(path: Path) -> dict[str, Any]:
    """Open a database file and run `PRAGMA integrity_check`; row counts of the known tables."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = [str(r[0]) for r in conn.execute("PRAGMA integrity_check").fetchall()]
        tables = {str(r[0]) for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        counts = {name: int(conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
                  for name in COUNTED if name in tables}
        version = None
        if "schema_migrations" in tables:
            version = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
    finally:
        conn.close()
    return {"integrity": "ok" if problems == ["ok"] else "; ".join(problems[:5]),
            "bytes": path.stat().st_size, "schema_version": version, "counts": counts}


def databases_in(folder: Path) -> list[Path]:
    """The SQLite database files of a data folder, relative to it (memory store, accounts)."""
    found = []
    for path in sorted(folder.rglob("*.sqlite3")):
        if path.is_file():
            found.append(path.relative_to(folder))
    return found


def memory_database(data_dir: Path) -> Path:
    """The memory store's database file in an engine data folder."""
    return Path(data_dir) / DB_NAME
