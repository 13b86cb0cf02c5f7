"""Durable background jobs: rows in the store that any worker process of any host claims and runs.

A job is a kind plus a JSON payload. Each process that can run a kind registers a handler here
and starts worker threads (memoryos_core.runtime.workers: the host decides, the library never
starts a thread); a worker claims the oldest queued job (one running job per user and kind),
keeps a heartbeat while it runs, and records progress and the result in the row. A job whose
worker stopped (killed, restarted) goes silent and another worker takes it over and runs it again
from the start: handlers are idempotent (imports skip exchanges already stored).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from ..errors import MemoryOSError, NotFound
from ..storage import BaseStore
from ..storage.tables import jobs as jobs_db
from ..storage.tables import uploads as uploads_db

Progress = Callable[[int, int, str], None]
Handler = Callable[[str, dict[str, Any], Progress], Any]
log = logging.getLogger(__name__)
INTERNAL_ERROR = ("Something went wrong on the server; nothing was lost. The details are in the"
                  " server log")
MAX_ATTEMPTS = 3
CANCELLED = "Cancelled."  # the error of a cancelled job (its status is 'failed')


class JobCancelled(MemoryOSError):
    """The job was cancelled (or deleted) while it ran: its handler stops at the next progress."""


class Jobs:
    """The job queue of one store, with this process's handlers."""

    def __init__(self, store: BaseStore, stale_seconds: float = 30.0,
                 poll_seconds: float = 1.0) -> None:
        self.store = store
        self.stale_seconds = stale_seconds
        self.poll_seconds = poll_seconds
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._handlers: dict[str, Handler] = {}
        self._transient: set[str] = set()
        self.wake = threading.Event()  # set by submit: a local worker looks at once

    # -- the queue --------------------------------------------------------------------------

    def kinds(self) -> list[str]:
        """The kinds this process has handlers for."""
        return sorted(self._handlers)

    def handler(self, kind: str) -> Handler:
        """The handler registered for a kind."""
        return self._handlers[kind]

    def keeps(self, kind: str) -> bool:
        """Whether a finished job of this kind keeps its row (False: routine work)."""
        return kind not in self._transient

    def register(self, kind: str, handler: Handler, keep: bool = True) -> None:
        """Let this process run jobs of a kind: handler(user_id, payload, progress) -> result.

        With keep=False a job that succeeds leaves no row (routine work nobody looks at).
        """
        self._handlers[kind] = handler
        if not keep:
            self._transient.add(kind)

    def submit(self, user_id: str, kind: str, payload: dict[str, Any] | None = None,
               coalesce: bool = False) -> str:
        """Queue a job and wake a local worker; with `coalesce`, a queued one of the kind is reused."""
        job_id = uuid.uuid4().hex
        with self.store.transaction(user_id) as conn:
            waiting = jobs_db.queued_job(conn, user_id, kind) if coalesce else None
            if waiting is not None:
                return waiting
            jobs_db.insert_job(conn, job_id, user_id, kind, payload or {})
        self.wake.set()
        return job_id

    def get(self, user_id: str, job_id: str) -> dict[str, Any]:
        """One job of this user (NotFound for another user's job)."""
        job = jobs_db.get_job(self.store, user_id, job_id)
        if job is None:
            raise NotFound("no such job")
        return job

    def latest(self, user_id: str, kind: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        """The user's newest jobs, optionally of one kind."""
        return jobs_db.latest_jobs(self.store, user_id, kind, limit)

    def latest_fields(self, user_id: str, kind: str, limit: int,
                      paths: dict[str, str]) -> list[dict[str, Any]]:
        """The user's newest jobs of a kind with only some fields of their results."""
        return jobs_db.latest_job_fields(self.store, user_id, kind, limit, paths)

    def active_counts(self) -> list[tuple[str, str, int]]:
        """(kind, status, count) of every user's queued and running jobs (for metrics)."""
        return jobs_db.active_counts(self.store)

    def progress(self, job_id: str, done: int, total: int, phase: str) -> None:
        """Record progress of a running job (also its heartbeat); JobCancelled when the job was
        cancelled or deleted meanwhile, so the handler stops there."""
        if not jobs_db.set_progress(self.store, job_id, done, total, phase):
            raise JobCancelled(CANCELLED)

    def cancel(self, user_id: str, job_id: str) -> bool:
        """Cancel one of the user's jobs (NotFound for another user's); False when it had
        already ended. Its handler stops at its next progress report."""
        self.get(user_id, job_id)
        return jobs_db.cancel_job(self.store, user_id, job_id, CANCELLED)

    def delete(self, user_id: str, job_id: str) -> None:
        """Forget one of the user's jobs (NotFound for another user's); a running one stops."""
        self.get(user_id, job_id)
        jobs_db.cancel_job(self.store, user_id, job_id, CANCELLED)
        jobs_db.delete_job(self.store, job_id)

    def create(self, user_id: str, kind: str) -> str:
        """A queued job row that no handler will run (progress is reported by the caller)."""
        job_id = uuid.uuid4().hex
        with self.store.transaction(user_id) as conn:
            jobs_db.insert_job(conn, job_id, user_id, kind, {}, worker=jobs_db.EXTERNAL)
        return job_id

    def finish(self, job_id: str, result: Any) -> None:
        """Mark a job done with its JSON-serialisable result."""
        jobs_db.finish_job(self.store, job_id, result)

    def fail(self, job_id: str, error: str) -> None:
        """Mark a job failed with a message for the user."""
        jobs_db.fail_job(self.store, job_id, error)


UNITS = {"embedding": "exchanges", "reading": "KB", "consolidation": "batches", "analysis": "steps"}


def staged(progress: Progress | None,
           spans: dict[str, tuple[int, int]]) -> Progress | None:
    """Map per-phase progress onto one 0-100 scale, so a bar never runs backwards."""
    if progress is None:
        return None
    reported = [0]

    def report(done: int, total: int, phase: str) -> None:
        start, end = spans.get(phase, (reported[0], reported[0]))
        value = start + (end - start) * done // max(total, 1)
        reported[0] = max(reported[0], value)
        label = f"{phase} ({done} of {total} {UNITS[phase]})" if phase in UNITS else phase
        progress(reported[0], 100, label)

    return report


# -- uploads a host keeps between a preview and its run ---------------------------------------

def keep_upload(store: BaseStore, user_id: str, token: str, kind: str, data: bytes, keep: int,
                max_age: float) -> None:
    """Keep an upload under a token: the user's newest `keep` of a kind stay, and every
    upload older than `max_age` seconds goes."""
    uploads_db.sweep_uploads(store, time.time() - max_age)
    uploads_db.put_upload(store, token, user_id, kind, data, keep)


def kept_upload(store: BaseStore, user_id: str, token: str, kind: str,
                take: bool = False) -> bytes | None:
    """A kept upload of the user, or None; `take` claims it exactly once."""
    read = uploads_db.take_upload if take else uploads_db.get_upload
    return read(store, token, user_id, kind)
