"""The web app's tables' SQL: users, chat endpoints, login failures, login sessions, MCP tokens."""

# Without a database URL they live in their own SQLite file next to the memory store (today's
# `users.sqlite3`, opened unchanged); with one, in the shared PostgreSQL database, over the
# engine's connections (memoryos_core/storage/pg_schema.py makes them).

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from memoryos_core.storage import BaseStore, Connection, open_store
from memoryos_core.storage.sqlite import SQLiteStore

ACCOUNTS_DB_NAME = "users.sqlite3"

# One script, every statement IF NOT EXISTS: files made before migrations open unchanged.
ACCOUNT_MIGRATIONS: tuple[str, ...] = (
    """
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
    CREATE TABLE IF NOT EXISTS mcp_tokens (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        hint TEXT NOT NULL,
        created_at REAL NOT NULL,
        last_used_at REAL,
        revoked_at REAL
    );
    CREATE INDEX IF NOT EXISTS mcp_tokens_user ON mcp_tokens(user_id, id);
    """,
    # 2: sessions end after an idle time too (PostgreSQL migration 6): when last used.
    """
    ALTER TABLE sessions ADD COLUMN last_seen_at REAL;
    UPDATE sessions SET last_seen_at = created_at;
    CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id);
    """,
    # 3: the chat model picked per conversation (PostgreSQL migration 13); conversation 0
    # holds the latest pick, which a new conversation starts with.
    """
    CREATE TABLE IF NOT EXISTS model_choices (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        conversation_id INTEGER NOT NULL,
        choice TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (user_id, conversation_id)
    );
    """,
)

Row = dict[str, Any]


class UsernameExists(Exception):
    """A new account's name is taken (names compare case-insensitively)."""


def open_accounts(data_dir: str | Path, url: str | None = None) -> BaseStore:
    """The accounts store: the PostgreSQL database for a URL, else users.sqlite3 in `data_dir`."""
    if url:
        return open_store(data_dir, url)  # the accounts tables are in its schema
    return SQLiteStore(data_dir, name=ACCOUNTS_DB_NAME, migrations=ACCOUNT_MIGRATIONS)


def write(store: BaseStore, scope: str) -> AbstractContextManager[Any]:
    """An accounts write transaction; on PostgreSQL it serialises only writers of `scope`."""
    return store.transaction(lock=f"accounts:{scope}")


def _unique_violations() -> tuple[type[Exception], ...]:
    found: list[type[Exception]] = [sqlite3.IntegrityError]
    try:  # psycopg is an optional extra
        from psycopg.errors import UniqueViolation
    except ImportError:
        pass
    else:
        found.append(UniqueViolation)
    return tuple(found)


# -- users ------------------------------------------------------------------------------------

def create_user(conn: Connection, username: str, password_hash: str, created_at: float) -> int:
    """A new account's id; UsernameExists when the name is taken."""
    try:
        row = conn.execute(
            "INSERT INTO users (username, password_hash, created_at) VALUES (?, ?, ?) RETURNING id",
            (username, password_hash, created_at)).fetchone()
    except _unique_violations():
        raise UsernameExists(username) from None
    return int(row[0])


def user_by_id(store: BaseStore, user_id: int) -> Row | None:
    """id, username and created_at of one account."""
    return store.query_one("SELECT id, username, created_at FROM users WHERE id = ?", (user_id,))


def user_by_name(store: BaseStore, username: str) -> Row | None:
    """One account with its password hash, the name compared case-insensitively."""
    return store.query_one("SELECT id, username, password_hash, created_at FROM users"
                           " WHERE lower(username) = lower(?)", (username,))


# -- login sessions ---------------------------------------------------------------------------

def add_session(conn: Connection, session_id: str, user_id: int, created_at: float) -> None:
    """Record a server-side login session (last used now)."""
    conn.execute("INSERT INTO sessions (id, user_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)",
                 (session_id, user_id, created_at, created_at))


def session_user(store: BaseStore, session_id: str, user_id: int) -> Row | None:
    """The account a session belongs to (id, username, created_at) with the session's
    started_at and last_seen_at."""
    return store.query_one(
        "SELECT u.id, u.username, u.created_at, s.created_at AS started_at,"
        " coalesce(s.last_seen_at, s.created_at) AS last_seen_at FROM sessions s JOIN users u"
        " ON u.id = s.user_id WHERE s.id = ? AND s.user_id = ?", (session_id, user_id))


def touch_session(conn: Connection, session_id: str, now: float) -> None:
    """Record a session's use (its idle time starts again)."""
    conn.execute("UPDATE sessions SET last_seen_at = ? WHERE id = ?", (now, session_id))


def delete_session(conn: Connection, session_id: str) -> None:
    """End one login session."""
    conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))


def end_user_sessions(conn: Connection, user_id: int) -> int:
    """End every login session of one account; how many there were."""
    return int(conn.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,)).rowcount)


def prune_sessions(conn: Connection, started_before: float, seen_before: float) -> None:
    """Forget the sessions of every account that passed their absolute or idle lifetime."""
    conn.execute("DELETE FROM sessions WHERE created_at < ? OR"
                 " coalesce(last_seen_at, created_at) < ?", (started_before, seen_before))


# -- login failures ---------------------------------------------------------------------------

def recent_failures(conn: Connection, key: str, since: float) -> int:
    """Failures recorded for a key after `since`."""
    row = conn.execute("SELECT count(*) FROM login_failures WHERE key = ? AND ts > ?",
                       (key, since)).fetchone()
    return int(row[0])


def add_failure(conn: Connection, key: str, ts: float) -> None:
    """Record one (reserved) failed login attempt."""
    conn.execute("INSERT INTO login_failures (key, ts) VALUES (?, ?)", (key, ts))


def prune_failures(conn: Connection, before: float) -> None:
    """Forget failures of every key older than `before`."""
    conn.execute("DELETE FROM login_failures WHERE ts < ?", (before,))


def clear_failures(conn: Connection, key: str) -> None:
    """Forget every failure of one key."""
    conn.execute("DELETE FROM login_failures WHERE key = ?", (key,))


# -- chat endpoints ---------------------------------------------------------------------------

def endpoint_row(store: BaseStore, user_id: int) -> Row | None:
    """base_url, model and api_key of the user's endpoint, if stored."""
    return store.query_one("SELECT base_url, model, api_key FROM endpoints WHERE user_id = ?",
                           (user_id,))


def save_endpoint(conn: Connection, user_id: int, base_url: str, model: str, api_key: str,
                  updated_at: float) -> None:
    """Insert or replace the user's endpoint."""
    conn.execute(
        "INSERT INTO endpoints (user_id, base_url, model, api_key, updated_at) VALUES"
        " (?, ?, ?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET base_url = excluded.base_url,"
        " model = excluded.model, api_key = excluded.api_key,"
        " updated_at = excluded.updated_at",
        (user_id, base_url, model, api_key, updated_at))


def stored_api_keys(store: BaseStore) -> list[Row]:
    """user_id and stored api_key of every endpoint that keeps a key."""
    return store.query("SELECT user_id, api_key FROM endpoints WHERE api_key <> ''"
                       " ORDER BY user_id")


def replace_api_key(conn: Connection, user_id: int, old: str, new: str) -> bool:
    """Store a key's new sealed form unless the user changed it meanwhile; False then."""
    cur = conn.execute("UPDATE endpoints SET api_key = ? WHERE user_id = ? AND api_key = ?",
                       (new, user_id, old))
    return bool(cur.rowcount == 1)


# -- chat model picked per conversation -------------------------------------------------------

def model_choice(store: BaseStore, user_id: int, conversation_id: int) -> str | None:
    """The model picked for the conversation (0: the latest pick), or None."""
    row = store.query_one("SELECT choice FROM model_choices WHERE user_id = ? AND"
                          " conversation_id = ?", (user_id, conversation_id))
    return None if row is None else str(row["choice"])


def save_model_choice(conn: Connection, user_id: int, conversation_id: int, choice: str,
                      updated_at: float) -> None:
    """Insert or replace the model picked for the conversation."""
    conn.execute(
        "INSERT INTO model_choices (user_id, conversation_id, choice, updated_at) VALUES"
        " (?, ?, ?, ?) ON CONFLICT(user_id, conversation_id) DO UPDATE SET"
        " choice = excluded.choice, updated_at = excluded.updated_at",
        (user_id, conversation_id, choice, updated_at))


# -- MCP tokens -------------------------------------------------------------------------------

def add_token(conn: Connection, user_id: int, name: str, token_hash: str, hint: str,
              created_at: float) -> int:
    """A new token record's id."""
    row = conn.execute(
        "INSERT INTO mcp_tokens (user_id, name, token_hash, hint, created_at)"
        " VALUES (?, ?, ?, ?, ?) RETURNING id",
        (user_id, name, token_hash, hint, created_at)).fetchone()
    return int(row[0])


def token_rows(store: BaseStore, user_id: int) -> list[Row]:
    """The user's tokens (id, name, hint, times), newest first, revoked ones included."""
    return store.query("SELECT id, name, hint, created_at, last_used_at, revoked_at"
                       " FROM mcp_tokens WHERE user_id = ? ORDER BY id DESC", (user_id,))


def token_hashes(store: BaseStore) -> list[str]:
    """Every stored token hash (what the table keeps instead of tokens)."""
    return [r["token_hash"] for r in store.query("SELECT token_hash FROM mcp_tokens")]


def revoke_token(conn: Connection, user_id: int, token_id: int, now: float) -> bool:
    """Revoke one of the user's live tokens; False when none matched."""
    cur = conn.execute("UPDATE mcp_tokens SET revoked_at = ? WHERE id = ? AND"
                       " user_id = ? AND revoked_at IS NULL", (now, token_id, user_id))
    return bool(cur.rowcount == 1)


def live_token(conn: Connection, token_hash: str) -> Row | None:
    """id and user_id of the unrevoked token with this hash."""
    row = conn.execute("SELECT id, user_id FROM mcp_tokens WHERE token_hash = ? AND"
                       " revoked_at IS NULL", (token_hash,)).fetchone()
    return None if row is None else {"id": int(row["id"]), "user_id": int(row["user_id"])}


def touch_token(conn: Connection, token_id: int, now: float) -> None:
    """Record a token's use."""
    conn.execute("UPDATE mcp_tokens SET last_used_at = ? WHERE id = ?", (now, token_id))


# -- shared settings --------------------------------------------------------------------------

def shared_value(conn: Connection, key: str, candidate: str) -> str:
    """The value stored under `key` in store_meta, storing `candidate` first if there is none."""
    conn.execute("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                 (key, candidate))
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
    return str(row[0])


# -- deleting an account ----------------------------------------------------------------------

def delete_account(conn: Connection, user_id: int, username: str) -> dict[str, int]:
    """Delete an account with its sessions, MCP tokens, endpoint (and key) and the login
    failures recorded under its name; rows deleted per table."""
    done = {table: int(conn.execute(f"DELETE FROM {table} WHERE user_id = ?",
                                    (user_id,)).rowcount or 0)
            for table in ("sessions", "mcp_tokens", "endpoints")}
    # failure keys are '<name>|<address>' (the name lower-cased): the name goes with them
    done["login_failures"] = int(conn.execute(
        "DELETE FROM login_failures WHERE substr(key, 1, ?) = ?",
        (len(username) + 1, username.strip().lower() + "|")).rowcount or 0)
    done["users"] = int(conn.execute("DELETE FROM users WHERE id = ?", (user_id,)).rowcount or 0)
    return done


# dialect: sqlite (VACUUM, WAL checkpoint); PostgreSQL keeps dead tuples until its own VACUUM
def scrub(store: BaseStore) -> bool:
    """Leave no deleted account in the SQLite file: VACUUM, then the log emptied; True when it
    is (secure_delete zeroes freed space on every connection). A reader that holds the log
    makes it False after a few seconds; the job workers finish it (erasure.finish_pending)."""
    return store.scrub(fts=False)
