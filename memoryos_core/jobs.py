"""Background jobs with stored progress, so any process can report them and reloads keep them."""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from .errors import MemoryOSError, NotFound
from .storage import SQLiteStore

Progress = Callable[[int, int, str], None]
log = logging.getLogger(__name__)
INTERNAL_ERROR = ("Something went wrong on the server; nothing was lost. The details are in the"
                  " server log")


class Jobs:
    """Job records in the engine's store, and a thread runner that keeps them up to date."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def create(self, user_id: str, kind: str) -> str:
        """A new queued job; returns its id."""
        job_id = uuid.uuid4().hex
        now = time.time()
        with self.store.transaction() as conn:
            conn.execute("INSERT INTO jobs (id, user_id, kind, status, created_at, updated_at)"
                         " VALUES (?, ?, ?, 'queued', ?, ?)", (job_id, user_id, kind, now, now))
        return job_id

    def progress(self, job_id: str, done: int, total: int, phase: str) -> None:
        """Record progress of a running job."""
        with self.store.transaction() as conn:
            conn.execute("UPDATE jobs SET status = 'running', done = ?, total = ?, phase = ?,"
                         " updated_at = ? WHERE id = ?", (done, total, phase, time.time(), job_id))

    def finish(self, job_id: str, result: Any) -> None:
        """Mark a job done with its JSON-serialisable result."""
        with self.store.transaction() as conn:
            conn.execute("UPDATE jobs SET status = 'done', result = ?, phase = 'done',"
                         " updated_at = ? WHERE id = ?",
                         (json.dumps(result, ensure_ascii=False, default=str), time.time(), job_id))

    def fail(self, job_id: str, error: str) -> None:
        """Mark a job failed with a message for the user."""
        with self.store.transaction() as conn:
            conn.execute("UPDATE jobs SET status = 'failed', error = ?, updated_at = ?"
                         " WHERE id = ?", (error, time.time(), job_id))

    def get(self, user_id: str, job_id: str) -> dict[str, Any]:
        """One job of this user (NotFound for another user's job)."""
        row = self.store.query_one("SELECT * FROM jobs WHERE id = ? AND user_id = ?",
                                   (job_id, user_id))
        if row is None:
            raise NotFound("no such job")
        row["result"] = json.loads(row["result"]) if row["result"] else None
        return row

    def latest(self, user_id: str, kind: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        """The user's newest jobs, optionally of one kind."""
        rows = self.store.query(
            "SELECT * FROM jobs WHERE user_id = ? AND (? IS NULL OR kind = ?)"
            " ORDER BY created_at DESC LIMIT ?", (user_id, kind, kind, limit))
        for row in rows:
            row["result"] = json.loads(row["result"]) if row["result"] else None
        return rows

    def start(self, user_id: str, kind: str, work: Callable[[Progress], Any]) -> str:
        """Run `work(progress)` in a daemon thread as a stored job; returns the job id."""
        job_id = self.create(user_id, kind)

        def run() -> None:
            try:
                result = work(lambda done, total, phase: self.progress(job_id, done, total, phase))
                self.finish(job_id, result)
            except MemoryOSError as exc:
                self.fail(job_id, str(exc))
            except Exception:  # a job must never die silently; the details go to the log
                log.exception("job %s (%s) failed", job_id, kind)
                self.fail(job_id, f"{INTERNAL_ERROR} (job {job_id[:8]})")

        threading.Thread(target=run, name=f"job-{kind}-{job_id[:8]}", daemon=True).start()
        return job_id
