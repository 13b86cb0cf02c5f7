"""Durable jobs: rows any worker claims; a silent worker's job is taken over and finished."""

from __future__ import annotations

import threading
import time

import pytest

from memoryos_core.errors import InvalidInput, NotFound
from memoryos_core.runtime import JobWorkers
from memoryos_core.runtime.jobs import MAX_ATTEMPTS, Jobs
from memoryos_core.storage.tables import jobs as jobs_db


def wait(jobs: Jobs, user: str, job_id: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = jobs.get(user, job_id)
        if job["status"] in ("done", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} still {job['status']}")


def test_submitted_job_runs_in_a_worker_and_keeps_its_result(engine):
    jobs = engine.jobs
    jobs.register("sum", lambda user, payload, progress: {"total": sum(payload["numbers"])})
    job_id = jobs.submit("alice", "sum", {"numbers": [1, 2, 3]})
    assert jobs.get("alice", job_id)["status"] == "queued"
    workers = JobWorkers(jobs)
    workers.start(1)
    try:
        job = wait(jobs, "alice", job_id)
    finally:
        workers.stop()
    assert job["status"] == "done" and job["result"] == {"total": 6}
    assert "payload" not in job  # the work order is not shown to viewers
    with pytest.raises(NotFound):
        jobs.get("bob", job_id)  # another user's job does not exist for them


def test_a_job_whose_worker_went_silent_is_taken_over_and_finished(engine):
    """A worker killed mid-job leaves a running row; another process's worker finishes it."""
    runs = []

    def handler(user, payload, progress):
        runs.append(payload["n"])
        return {"n": payload["n"]}

    dead = Jobs(engine.store, stale_seconds=0.5)  # stands for a process that is killed -9
    dead.register("work", handler)
    job_id = dead.submit("alice", "work", {"n": 7})
    claimed = jobs_db.claim_next(engine.store, ["work"], dead.worker_id, time.time() - 0.5)
    assert claimed is not None and claimed["id"] == job_id  # claimed, then the process died
    alive = Jobs(engine.store, stale_seconds=0.5)
    alive.register("work", handler)
    assert JobWorkers(alive).run_next() is False  # still fresh: nobody steals a job that is alive
    time.sleep(0.7)
    assert JobWorkers(alive).run_next() is True
    job = alive.get("alice", job_id)
    assert job["status"] == "done" and job["result"] == {"n": 7} and job["attempts"] == 2
    assert job["worker"] == alive.worker_id and runs == [7]


def test_a_job_that_keeps_killing_its_worker_fails_with_a_message(engine):
    jobs = Jobs(engine.store, stale_seconds=0.01)
    jobs.register("crash", lambda user, payload, progress: None)
    job_id = jobs.submit("alice", "crash")
    for _ in range(MAX_ATTEMPTS):
        jobs_db.claim_next(engine.store, ["crash"], "gone", time.time() - 0.01)
        time.sleep(0.02)
    assert JobWorkers(jobs).run_next() is True
    job = jobs.get("alice", job_id)
    assert job["status"] == "failed" and "interrupted 3 times" in job["error"]


def test_one_running_job_per_user_and_kind_other_users_go_ahead(engine):
    jobs = Jobs(engine.store)
    started, release = threading.Event(), threading.Event()
    order = []

    def slow(user, payload, progress):
        order.append((user, payload["i"]))
        started.set()
        release.wait(10)
        return None

    jobs.register("slow", slow)
    first = jobs.submit("alice", "slow", {"i": 1})
    second = jobs.submit("alice", "slow", {"i": 2})
    other = jobs.submit("bob", "slow", {"i": 3})
    worker = threading.Thread(target=JobWorkers(jobs).run_next)
    worker.start()
    assert started.wait(10)
    # while alice's first job runs, a second worker skips her next job and takes bob's
    release.set()
    jobs_b = Jobs(engine.store)
    jobs_b.register("slow", lambda user, payload, progress: order.append((user, payload["i"])))
    worker.join(10)
    while JobWorkers(jobs_b).run_next():
        pass
    assert [jobs.get(u, j)["status"] for u, j in (("alice", first), ("alice", second),
                                                  ("bob", other))] == ["done"] * 3
    assert order[0] == ("alice", 1) and set(order[1:]) == {("alice", 2), ("bob", 3)}


def test_errors_become_messages_and_internal_details_stay_in_the_log(engine):
    jobs = Jobs(engine.store)

    def bad_input(user, payload, progress):
        raise InvalidInput("line 3: user text must be a string")

    def crash(user, payload, progress):
        raise ValueError("secret-internal-detail")

    jobs.register("bad", bad_input)
    jobs.register("crash", crash)
    bad, crashed = jobs.submit("alice", "bad"), jobs.submit("alice", "crash")
    while JobWorkers(jobs).run_next():
        pass
    assert jobs.get("alice", bad)["error"] == "line 3: user text must be a string"
    error = jobs.get("alice", crashed)["error"]
    assert "Something went wrong" in error and "secret" not in error


def test_coalesced_submissions_share_one_queued_job(engine):
    jobs = Jobs(engine.store)
    first = jobs.submit("alice", "analysis", coalesce=True)
    assert jobs.submit("alice", "analysis", coalesce=True) == first
    assert jobs.submit("bob", "analysis", coalesce=True) != first
