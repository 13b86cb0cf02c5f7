"""Cancelling a stored job: a queued one never runs, a running one stops at its next progress."""

from __future__ import annotations

import tempfile
import threading
import time

import pytest

from memoryos_core.errors import NotFound
from memoryos_core.evaluation import harness
from memoryos_core.runtime import JobWorkers
from memoryos_core.runtime.jobs import CANCELLED, JobCancelled


def test_jobs_cancel_stops_a_running_handler_at_its_next_progress(engine):
    started, steps = threading.Event(), []

    def slow(user_id, payload, progress):
        for n in range(400):
            progress(n, 400, "working")
            steps.append(n)
            started.set()
            time.sleep(0.01)
        return {"finished": True}

    engine.jobs.register("slow", slow)
    job_id = engine.jobs.submit("u1", "slow", {})
    worker = threading.Thread(target=JobWorkers(engine.jobs).run_next)
    worker.start()
    assert started.wait(10)
    with pytest.raises(NotFound):
        engine.jobs.cancel("someone-else", job_id)
    assert engine.jobs.cancel("u1", job_id) is True
    worker.join(10)
    job = engine.jobs.get("u1", job_id)
    assert (job["status"], job["error"], job["result"]) == ("failed", CANCELLED, None)
    assert len(steps) < 400  # it stopped early
    assert engine.jobs.cancel("u1", job_id) is False  # already over
    engine.jobs.delete("u1", job_id)
    with pytest.raises(NotFound):
        engine.jobs.get("u1", job_id)


def test_a_stopped_evaluation_leaves_no_temporary_memory(embedder, locomo_file, tmp_path,
                                                        monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    calls = []

    def stop_soon(done, total, phase):
        calls.append(phase)
        if phase.startswith("questions"):
            raise JobCancelled(CANCELLED)

    with pytest.raises(JobCancelled):
        harness.run(locomo_file.read_bytes(), "demo", embedder, progress=stop_soon)
    assert any(p.startswith("importing demo-ana") for p in calls)
    assert list(tmp_path.glob("memoryos-eval-*")) == []
