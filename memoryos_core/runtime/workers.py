"""The worker loop of the job queue: threads a host starts to claim and run stored jobs.

The library keeps the queue (memoryos_core.runtime.jobs: rows, handlers, submit); running it is the
host's choice (the web app starts `JOB_WORKERS` threads per process, a test runs one job).
A worker claims the oldest queued job of a kind this process handles, keeps a heartbeat while
the handler runs, and records the result; a job whose attempts ran out is failed with a note.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from ..errors import MemoryOSError
from ..storage import erasure
from ..storage.tables import jobs as jobs_db
from .jobs import INTERNAL_ERROR, MAX_ATTEMPTS, JobCancelled, Jobs

log = logging.getLogger(__name__)


CARRIED_DATA_CHARS = 1024  # a payload this large carried a file, not a work order


def _carried_data(job: dict[str, Any]) -> bool:
    """Whether the job's payload (cleared when it ends) carried a file's contents."""
    payload = job.get("payload") or {}
    return sum(len(v) for v in payload.values() if isinstance(v, str)) >= CARRIED_DATA_CHARS


class JobWorkers:
    """Worker threads of one process over one job queue."""

    def __init__(self, jobs: Jobs) -> None:
        self.jobs = jobs
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._guard = threading.Lock()

    def run_next(self) -> bool:
        """Claim and run one job of a registered kind; False when none was waiting."""
        jobs = self.jobs
        stale_before = time.time() - jobs.stale_seconds
        job = jobs_db.claim_next(jobs.store, jobs.kinds(), jobs.worker_id, stale_before)
        if job is None:
            return False
        if int(job["attempts"]) > MAX_ATTEMPTS:
            jobs.fail(job["id"], f"This job was interrupted {MAX_ATTEMPTS} times; start it again.")
            return True
        self._run(job)
        return True

    def _run(self, job: dict[str, Any]) -> None:
        jobs, job_id, kind = self.jobs, job["id"], job["kind"]
        beating = threading.Event()

        def beat() -> None:  # tells other workers this one is alive between progress reports
            try:
                while not beating.wait(max(0.5, jobs.stale_seconds / 4)):
                    try:
                        if not jobs_db.heartbeat(jobs.store, job_id, jobs.worker_id):
                            return
                    except Exception:  # a missed beat only risks a takeover; never stop the job
                        log.warning("job %s: heartbeat failed", job_id[:8], exc_info=True)
            finally:
                jobs.store.close()  # this thread's connection, if it opened one

        threading.Thread(target=beat, name=f"beat-{job_id[:8]}", daemon=True).start()
        try:
            # the handler gets the user id the job was submitted for, nothing derived from it
            result = jobs.handler(kind)(
                job["user_id"], job["payload"],
                lambda done, total, phase: jobs.progress(job_id, done, total, phase))
            if jobs.keeps(kind):
                jobs.finish(job_id, result)
            else:
                jobs_db.delete_job(jobs.store, job_id)
        except JobCancelled:
            log.info("job %s (%s) stopped: cancelled", job_id[:8], kind)  # its row says so
        except MemoryOSError as exc:
            jobs.fail(job_id, str(exc))
        except Exception:  # a job must never die silently; the details go to the log
            log.exception("job %s (%s) failed", job_id, kind)
            jobs.fail(job_id, f"{INTERNAL_ERROR} (job {job_id[:8]})")
        finally:
            beating.set()
            if _carried_data(job):  # an upload's bytes (abandoned branches too) leave the log
                erasure.empty_log(jobs.store)

    def start(self, count: int = 1) -> None:
        """Run jobs in `count` daemon threads of this process (idempotent)."""
        with self._guard:
            alive = [t for t in self._threads if t.is_alive()]
            for n in range(len(alive), count):
                thread = threading.Thread(target=self._work, name=f"job-worker-{n}", daemon=True)
                thread.start()
                alive.append(thread)
            self._threads = alive

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the worker threads to stop after their current job."""
        self._stop.set()
        self.jobs.wake.set()
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
                self._finish_scrub()
                self.jobs.wake.wait(self.jobs.poll_seconds)
                self.jobs.wake.clear()

    def _finish_scrub(self) -> None:
        # a forget or an erasure whose checkpoint a reader blocked: its old pages are still in
        # the database file until the checkpoint completes, so an idle worker retries it
        try:
            if erasure.pending():
                erasure.finish_pending()
        except Exception:  # e.g. the database restarting: the next idle poll retries
            log.exception("job worker: finishing a scrub failed")
