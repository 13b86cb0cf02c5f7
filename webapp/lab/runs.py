"""Evaluation runs of the lab: stored jobs of kind "eval", whose result holds the records."""

# A run is a job row of its user (so an erased account leaves none, like every job); its result
# keeps the summary as JSON and the records gzip-compressed (a LoCoMo conversation's records with
# their context lines are megabytes of repetitive text). Each run evaluates on a throwaway memory
# of its own (memoryos_core.evaluation): the user's memory is never read or changed.

from __future__ import annotations

import base64
import gzip
import json
import threading
from collections import OrderedDict
from typing import Any

from memoryos_core import InvalidInput
from memoryos_core.evaluation import harness
from memoryos_core.evaluation.answering import Answerer
from memoryos_core.runtime.jobs import CANCELLED

KIND = "eval"
ACTIVE_RUNS = 3  # queued or running runs a user may have: each holds its upload until it runs
_CACHE: OrderedDict[tuple[str, float], list[dict[str, Any]]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHED_RUNS = 4  # decoded record lists kept per process (a question page reads one run)


def shown(job: dict[str, Any]) -> dict[str, Any]:
    """A run as its pages show it: a cancelled one says so (the job row holds 'failed')."""
    job = {k: v for k, v in job.items() if k != "payload"}  # the upload stays server-side
    if job.get("status") == "failed" and job.get("error") == CANCELLED:
        job = dict(job, status="cancelled", error="Cancelled: the run stopped, nothing was kept.")
    return job


def pack(result: dict[str, Any]) -> dict[str, Any]:
    """A harness result as a job result: everything but the records, and those compressed."""
    out = {k: v for k, v in result.items() if k != "records"}
    raw = json.dumps(result["records"], ensure_ascii=False, default=str).encode("utf-8")
    out["records_gz"] = base64.b64encode(gzip.compress(raw, 6)).decode("ascii")
    out["record_count"] = len(result["records"])
    return out


def records(job: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished run's records (decoded once per process and run, then cached)."""
    result = job.get("result") or {}
    if "records_gz" not in result:
        return []
    key = (str(job["id"]), float(job["updated_at"]))
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    decoded: list[dict[str, Any]] = json.loads(gzip.decompress(
        base64.b64decode(result["records_gz"])))
    with _CACHE_LOCK:
        _CACHE[key] = decoded
        while len(_CACHE) > CACHED_RUNS:
            _CACHE.popitem(last=False)
    return decoded


def full_result(job: dict[str, Any]) -> dict[str, Any]:
    """A finished run's result with its records (the CLI's --json shape)."""
    result = {k: v for k, v in (job.get("result") or {}).items() if k != "records_gz"}
    result.pop("record_count", None)
    result["records"] = records(job)
    return result


def options(budget: int, strategies: list[str], categories: list[int] | None,
            stride: int = 1, limit: int | None = None) -> dict[str, Any]:
    """The harness's keyword arguments of a run, as stored in the job's payload."""
    return {"budget": budget, "strategies": strategies, "categories": categories,
            "stride": stride, "limit": limit}


def submit(engine: Any, user_id: str, data: bytes, name: str, opts: dict[str, Any]) -> str:
    """Check the file and settings (InvalidInput: no job is made), then queue the run."""
    waiting = [j for j in engine.jobs.latest(user_id, KIND, 50)
               if j["status"] in ("queued", "running")]
    if len(waiting) >= ACTIVE_RUNS:
        raise InvalidInput(f"You have {len(waiting)} runs waiting or running; let one finish or"
                           " cancel it before starting another.")
    harness.prepare(data, name, opts["budget"], harness.DEFAULT_WINDOW, opts["strategies"],
                    opts["categories"], opts["stride"], opts["limit"])
    job_id: str = engine.jobs.submit(user_id, KIND, {
        "source": base64.b64encode(data).decode("ascii"), "name": name, "options": opts})
    return job_id


def run_job(app: Any, user_id: str, payload: dict[str, Any], progress: Any) -> dict[str, Any]:
    """The stored run: any worker runs it; the job's progress stops it when cancelled."""
    engine = app.extensions["memoryos"]
    opts = dict(payload["options"])
    answerer = None
    if opts.pop("answer", False):  # the user's own endpoint, else the instance's model
        answerer = Answerer(engine.models.for_user(user_id))
    data = base64.b64decode(payload["source"])
    result = harness.run(data, payload["name"], engine.ctx.embedder, progress=progress,
                         answerer=answerer, **opts)
    return pack(result)


def register(app: Any, jobs: Any) -> None:
    """Let the workers of this job queue run evaluation jobs."""
    jobs.register(KIND, lambda user_id, payload, progress: run_job(app, user_id, payload,
                                                                    progress))
