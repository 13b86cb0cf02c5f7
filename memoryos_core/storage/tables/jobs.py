"""The `jobs` table: a durable queue any worker process of any host claims from."""

from __future__ import annotations

import json
import time
from typing import Any

from ..base import BaseStore, row_dict
from ..db import Connection


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    row["result"] = json.loads(row["result"]) if row.get("result") else None
    row.pop("payload", None)  # the work order is the worker's business, not the viewer's
    return row


EXTERNAL = "external"  # the worker name of a job its caller runs and reports itself


def insert_job(conn: Any, job_id: str, user_id: str, kind: str, payload: dict[str, Any],
               worker: str | None = None) -> None:
    """A new queued job (with a worker named: a job no queue worker may claim)."""
    now = time.time()
    conn.execute("INSERT INTO jobs (id, user_id, kind, status, created_at, updated_at, payload,"
                 " worker) VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)",
                 (job_id, user_id, kind, now, now, json.dumps(payload, ensure_ascii=False),
                  worker))


def queued_job(conn: Any, user_id: str, kind: str) -> str | None:
    """Id of this user's queued job of a kind, if one waits."""
    row = conn.execute("SELECT id FROM jobs WHERE user_id = ? AND kind = ? AND status = 'queued'"
                       " ORDER BY created_at LIMIT 1", (user_id, kind)).fetchone()
    return None if row is None else str(row[0])


def claim_next(store: BaseStore, kinds: list[str], worker: str, stale_before: float,
               ) -> dict[str, Any] | None:
    """Take the oldest queued job (or a running one whose worker went silent) of these kinds.

    One job of a kind runs per user at a time. PostgreSQL skips rows other workers hold
    (FOR UPDATE SKIP LOCKED); SQLite's immediate transaction admits one claimer at a time.
    """
    if not kinds:
        return None
    marks = ",".join("?" * len(kinds))
    lock = " FOR UPDATE SKIP LOCKED" if store.dialect == "postgresql" else ""
    now = time.time()
    # An idle poll only reads: SQLite would otherwise take its one write lock every second.
    if store.scalar(f"SELECT count(*) FROM jobs WHERE kind IN ({marks}) AND status IN"
                    f" ('queued', 'running') AND coalesce(worker, '') <> '{EXTERNAL}'",
                    kinds) == 0:
        return None
    with store.transaction(lock="job-queue") as conn:
        row = conn.execute(
            f"SELECT id FROM jobs AS j WHERE kind IN ({marks})"
            f" AND coalesce(worker, '') <> '{EXTERNAL}' AND (status = 'queued' OR"
            f" (status = 'running' AND coalesce(heartbeat_at, updated_at) < ?))"
            f" AND NOT EXISTS (SELECT 1 FROM jobs AS o WHERE o.user_id = j.user_id"
            f" AND o.kind = j.kind AND o.id <> j.id AND o.status = 'running'"
            f" AND coalesce(o.heartbeat_at, o.updated_at) >= ?)"
            f" ORDER BY created_at LIMIT 1{lock}",
            (*kinds, stale_before, stale_before)).fetchone()
        if row is None:
            return None
        claimed = conn.execute(
            "UPDATE jobs SET status = 'running', worker = ?, heartbeat_at = ?, updated_at = ?,"
            " attempts = attempts + 1 WHERE id = ? RETURNING *",
            (worker, now, now, row[0])).fetchone()
    job = row_dict(claimed)
    job["payload"] = json.loads(job["payload"] or "{}")
    return job


def heartbeat(store: BaseStore, job_id: str, worker: str) -> bool:
    """Tell others this worker still runs the job; False when another worker took it over."""
    with store.transaction(lock=f"job {job_id}") as conn:
        cur = conn.execute("UPDATE jobs SET heartbeat_at = ? WHERE id = ? AND worker = ?"
                           " AND status = 'running'", (time.time(), job_id, worker))
        return bool(cur.rowcount)


def set_progress(store: BaseStore, job_id: str, done: int, total: int, phase: str) -> bool:
    """Record progress of a running job; False when it is no longer queued or running
    (cancelled, deleted, or ended by another worker)."""
    now = time.time()
    with store.transaction(lock=f"job {job_id}") as conn:
        cur = conn.execute("UPDATE jobs SET status = 'running', done = ?, total = ?, phase = ?,"
                           " updated_at = ?, heartbeat_at = ? WHERE id = ?"
                           " AND status IN ('queued', 'running')",
                           (done, total, phase, now, now, job_id))
        return bool(cur.rowcount)


def cancel_job(store: BaseStore, user_id: str, job_id: str, note: str) -> bool:
    """End one of the user's queued or running jobs as failed with `note` (the status column
    holds no 'cancelled'); False when it was not active."""
    with store.transaction(lock=f"job {job_id}") as conn:
        cur = conn.execute("UPDATE jobs SET status = 'failed', error = ?, updated_at = ?,"
                           " payload = '{}' WHERE id = ? AND user_id = ?"
                           " AND status IN ('queued', 'running')",
                           (note, time.time(), job_id, user_id))
        return bool(cur.rowcount)


def finish_job(store: BaseStore, job_id: str, result: Any) -> None:
    """Mark a job done with its JSON-serialisable result."""
    with store.transaction(lock=f"job {job_id}") as conn:
        conn.execute("UPDATE jobs SET status = 'done', result = ?, phase = 'done', updated_at = ?,"
                     " payload = '{}' WHERE id = ?",
                     (json.dumps(result, ensure_ascii=False, default=str), time.time(), job_id))


def delete_job(store: BaseStore, job_id: str) -> None:
    """Forget a finished job."""
    with store.transaction(lock=f"job {job_id}") as conn:
        conn.execute("DELETE FROM jobs WHERE id = ?", (job_id,))


def fail_job(store: BaseStore, job_id: str, error: str) -> None:
    """Mark a job failed with a message for the user."""
    with store.transaction(lock=f"job {job_id}") as conn:
        conn.execute("UPDATE jobs SET status = 'failed', error = ?, updated_at = ?, payload = '{}'"
                     " WHERE id = ?",
                     (error, time.time(), job_id))


def get_job(store: BaseStore, user_id: str, job_id: str) -> dict[str, Any] | None:
    """One job of this user, or None."""
    row = store.query_one("SELECT * FROM jobs WHERE id = ? AND user_id = ?", (job_id, user_id))
    return None if row is None else _decode(row)


def latest_jobs(store: BaseStore, user_id: str, kind: str | None, limit: int,
                ) -> list[dict[str, Any]]:
    """The user's newest jobs, optionally of one kind."""
    if kind is None:
        rows = store.query("SELECT * FROM jobs WHERE user_id = ? ORDER BY created_at DESC"
                           " LIMIT ?", (user_id, limit))
    else:
        rows = store.query("SELECT * FROM jobs WHERE user_id = ? AND kind = ?"
                           " ORDER BY created_at DESC LIMIT ?", (user_id, kind, limit))
    return [_decode(r) for r in rows]


JOB_COLUMNS = ("id, user_id, kind, status, done, total, phase, error, created_at, updated_at,"
               " heartbeat_at, worker, attempts")


def latest_job_fields(store: BaseStore, user_id: str, kind: str, limit: int,
                      paths: dict[str, str]) -> list[dict[str, Any]]:
    """The user's newest jobs of a kind with some fields of their results ({name: 'a.b.c'}),
    the results themselves left in the database (a run's holds its records)."""
    picks = []
    for name, path in paths.items():  # names and paths are the caller's constants
        if store.dialect == "postgresql":
            picks.append(f"(result::json #>> '{{{','.join(path.split('.'))}}}') AS {name}")
        else:
            picks.append(f"json_extract(result, '$.{path}') AS {name}")
    rows = store.query(f"SELECT {JOB_COLUMNS}, {', '.join(picks)} FROM jobs WHERE user_id = ?"
                       " AND kind = ? ORDER BY created_at DESC LIMIT ?", (user_id, kind, limit))
    return [dict(r, result=None) for r in rows]


def active_counts(store: BaseStore) -> list[tuple[str, str, int]]:
    """(kind, status, count) of the jobs waiting ('queued') or running, every user together."""
    return [(str(r["kind"]), str(r["status"]), int(r["n"])) for r in store.query(
        "SELECT kind, status, count(*) AS n FROM jobs WHERE status IN ('queued', 'running')"
        " GROUP BY kind, status ORDER BY kind, status")]


def finished_job_results(conn: Connection, user_id: str) -> list[tuple[str, str]]:
    """(id, result JSON) of the user's finished jobs that kept a result."""
    return [(str(r[0]), str(r[1])) for r in conn.execute(
        "SELECT id, result FROM jobs WHERE user_id = ? AND status IN ('done', 'failed')"
        " AND result IS NOT NULL ORDER BY created_at", (user_id,))]


def replace_job_result(conn: Connection, user_id: str, job_id: str, result: Any) -> None:
    """Overwrite the stored result of one of the user's jobs."""
    conn.execute("UPDATE jobs SET result = ? WHERE id = ? AND user_id = ?",
                 (json.dumps(result, ensure_ascii=False), job_id, user_id))
