"""Durable background jobs: rows in the store that any worker process of any host claims and runs.

A job is a kind plus a JSON payload. Each process that can run a kind registers a handler and
starts worker threads; a worker claims the oldest queued job (one running job per user and kind),
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

from .errors import MemoryOSError, NotFound
from .storage import BaseStore
from .storage import jobs_rows as rows

Progress = Callable[[int, int, str], None]
Handler = Callable[[str, dict[str, Any], Progress], Any]
log = logging.getLogger(__name__)
INTERNAL_ERROR = ("Something went wrong on the server; nothing was lost. The details are in the"
                  " server log")
MAX_ATTEMPTS = 3


class Jobs:
    """The job queue of one store, with this process's handlers and worker threads."""

    def __init__(self, store: BaseStore, stale_seconds: float = 30.0,
                 poll_seconds: float = 1.0) -> None:
        self.store = store
        self.stale_seconds = stale_seconds
        self.poll_seconds = poll_seconds
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._handlers: dict[str, Handler] = {}
        self._transient: set[str] = set()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._guard = threading.Lock()

    # -- the queue --------------------------------------------------------------------------

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
            waiting = rows.queued_job(conn, user_id, kind) if coalesce else None
            if waiting is not None:
                return waiting
            rows.insert_job(conn, job_id, user_id, kind, payload or {})
        self._wake.set()
        return job_id

    def get(self, user_id: str, job_id: str) -> dict[str, Any]:
        """One job of this user (NotFound for another user's job)."""
        job = rows.get_job(self.store, user_id, job_id)
        if job is None:
            raise NotFound("no such job")
        return job

    def latest(self, user_id: str, kind: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        """The user's newest jobs, optionally of one kind."""
        return rows.latest_jobs(self.store, user_id, kind, limit)

    def active_counts(self) -> list[tuple[str, str, int]]:
        """(kind, status, count) of every user's queued and running jobs (for metrics)."""
        return rows.active_counts(self.store)

    def progress(self, job_id: str, done: int, total: int, phase: str) -> None:
        """Record progress of a running job (also its heartbeat)."""
        rows.set_progress(self.store, job_id, done, total, phase)

    def create(self, user_id: str, kind: str) -> str:
        """A queued job row that no handler will run (progress is reported by the caller)."""
        job_id = uuid.uuid4().hex
        with self.store.transaction(user_id) as conn:
            rows.insert_job(conn, job_id, user_id, kind, {}, worker=rows.EXTERNAL)
        return job_id

    def finish(self, job_id: str, result: Any) -> None:
        """Mark a job done with its JSON-serialisable result."""
        rows.finish_job(self.store, job_id, result)

    def fail(self, job_id: str, error: str) -> None:
        """Mark a job failed with a message for the user."""
        rows.fail_job(self.store, job_id, error)

    # -- running ----------------------------------------------------------------------------

    def run_next(self) -> bool:
        """Claim and run one job of a registered kind; False when none was waiting."""
        stale_before = time.time() - self.stale_seconds
        job = rows.claim_next(self.store, sorted(self._handlers), self.worker_id, stale_before)
        if job is None:
            return False
        if int(job["attempts"]) > MAX_ATTEMPTS:
            self.fail(job["id"], f"This job was interrupted {MAX_ATTEMPTS} times; start it again.")
            return True
        self._run(job)
        return True

    def _run(self, job: dict[str, Any]) -> None:
        job_id, kind = job["id"], job["kind"]
        beating = threading.Event()

        def beat() -> None:  # tells other workers this one is alive between progress reports
            try:
                while not beating.wait(max(0.5, self.stale_seconds / 4)):
                    try:
                        if not rows.heartbeat(self.store, job_id, self.worker_id):
                            return
                    except Exception:  # a missed beat only risks a takeover; never stop the job
                        log.warning("job %s: heartbeat failed", job_id[:8], exc_info=True)
            finally:
                self.store.close()  # this thread's connection, if it opened one

        threading.Thread(target=beat, name=f"beat-{job_id[:8]}", daemon=True).start()
        try:
            result = self._handlers[kind](
                job["user_id"], job["payload"],
                lambda done, total, phase: self.progress(job_id, done, total, phase))
            if kind in self._transient:
                rows.delete_job(self.store, job_id)
            else:
                self.finish(job_id, result)
        except MemoryOSError as exc:
            self.fail(job_id, str(exc))
        except Exception:  # a job must never die silently; the details go to the log
            log.exception("job %s (%s) failed", job_id, kind)
            self.fail(job_id, f"{INTERNAL_ERROR} (job {job_id[:8]})")
        finally:
            beating.set()

    def start_workers(self, count: int = 1) -> None:
        """Run jobs in `count` daemon threads of this process (idempotent)."""
        with self._guard:
            alive = [t for t in self._threads if t.is_alive()]
            for n in range(len(alive), count):
                thread = threading.Thread(target=self._work, name=f"job-worker-{n}", daemon=True)
                thread.start()
                alive.append(thread)
            self._threads = alive

    def stop_workers(self, timeout: float = 10.0) -> None:
        """Ask the worker threads to stop after their current job."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []
        self._stop.clear()

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self.run_next()
            except Exception:  # e.g. the database restarting: wait and try again
                log.exception("job worker: claiming failed")
                busy = False
            if not busy:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()
