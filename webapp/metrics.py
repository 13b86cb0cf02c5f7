"""Prometheus metrics at /-/metrics (prometheus_client), served only with the bearer token."""

# Under gunicorn with several workers set PROMETHEUS_MULTIPROC_DIR to an empty folder (emptied at
# each start): every worker writes its counters and histograms there and a scrape, served by any
# worker, sums them all. Jobs and store size are read from the store at scrape time.

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric

bp = Blueprint("metrics", __name__, url_prefix="/-")

# seconds: a page view takes milliseconds, an answer from a remote model up to minutes
SLOW_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
REQUEST_SECONDS = Histogram(
    "memplay_http_request_duration_seconds",
    "Time to answer a request (to the first byte for streamed answers), by Flask route.",
    ["route", "method"], buckets=SLOW_BUCKETS)
REQUESTS = Counter("memplay_http_requests", "Requests answered, by Flask route and status.",
                   ["route", "method", "status"])
CHAT_TURNS = Counter("memplay_chat_turns", "Chat turns answered and stored.", ["mode"])
RETRIEVAL_SECONDS = Histogram(
    "memplay_retrieval_seconds", "Memory retrieval time of a chat turn (query embedding,"
    " vector and keyword search, memory block).",
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5))
ANSWER_SECONDS = Histogram("memplay_answer_seconds", "Chat-model time of a chat turn.",
                           buckets=SLOW_BUCKETS)
MODEL_ERRORS = Counter("memplay_model_errors",
                       "Chat turns that failed because the chat model failed.", ["mode"])
FALLBACKS = Counter("memplay_maintenance_fallbacks",
                    "Maintenance steps whose model reply was invalid, so the extractive"
                    " fallback was used.", ["step"])

UNMATCHED = "<unmatched>"  # requests no route matched (404s): one series, not one per path


def observe_turn(result: dict[str, Any], mode: str) -> None:
    """A stored chat turn: count it, and its retrieval and answer times from its trace."""
    CHAT_TURNS.labels(mode).inc()
    trace = result.get("trace") or {}
    total = (trace.get("timings_ms") or {}).get("total")
    if total is not None:
        RETRIEVAL_SECONDS.observe(float(total) / 1000)
    if trace.get("answer_ms") is not None:
        ANSWER_SECONDS.observe(float(trace["answer_ms"]) / 1000)


def model_error(mode: str) -> None:
    """A chat turn the chat model failed."""
    MODEL_ERRORS.labels(mode).inc()


def observe_maintenance(report: dict[str, Any]) -> None:
    """Count the fallbacks of one maintenance run (engine.maintain's report)."""
    batches = report.get("consolidation") or []
    used = sum(1 for b in batches if isinstance(b, dict) and b.get("fallback"))
    if used:
        FALLBACKS.labels("consolidation").inc(used)
    analysed = len((report.get("analysis") or {}).get("fallbacks") or [])
    if analysed:
        FALLBACKS.labels("analysis").inc(analysed)


class StoreCollector:
    """Gauges read at scrape time: jobs waiting and running, the store's size on disk."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def collect(self) -> Iterator[Metric]:
        eng = self.app.extensions["memoryos"]
        jobs = GaugeMetricFamily("memplay_jobs", "Stored jobs waiting (queued) or running, every"
                                 " user and host together.", labels=["kind", "status"])
        counts = {(kind, status): n for kind, status, n in eng.jobs.active_counts()}
        for kind in sorted({k for k, _ in counts} | {"maintain", "import", "analysis"}):
            for status in ("queued", "running"):
                jobs.add_metric([kind, status], counts.get((kind, status), 0))
        yield jobs
        size = GaugeMetricFamily("memplay_store_bytes", "Bytes on disk: the data folder"
                                 " (SQLite), or the database (PostgreSQL).")
        size.add_metric([], self._store_bytes(eng))
        yield size

    def _store_bytes(self, eng: Any) -> float:
        if self.app.config.get("DATABASE_URL"):
            return float(eng.store.size_bytes())
        total = 0
        for path in Path(self.app.config["DATA_DIR"]).rglob("*"):
            try:
                if path.is_file():
                    total += path.stat().st_size
            except OSError:  # a file removed while walking (a WAL checkpoint, an upload)
                continue
        return float(total)


def scrape(app: Flask) -> bytes:
    """The text exposition: this process's metrics, or every worker's in multiprocess mode."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)  # type: ignore[arg-type]  # process, gc and ours
    registry.register(StoreCollector(app))  # type: ignore[arg-type]
    return generate_latest(registry)


def authorized(token: str) -> bool:
    """True when the request carries `Authorization: Bearer <token>` (constant-time compare)."""
    given = request.headers.get("Authorization", "")
    scheme, _, value = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        value.strip().encode("utf-8"), token.encode("utf-8"))


@bp.get("/metrics")
def metrics() -> Any:
    """Prometheus text format; 404 without MEMPLAY_METRICS_TOKEN, 401 with a wrong token."""
    token = current_app.config.get("METRICS_TOKEN") or ""
    if not token:
        abort(404)
    if not authorized(str(token)):
        return Response("a valid 'Authorization: Bearer <MEMPLAY_METRICS_TOKEN>' header is"
                        " required\n", status=401, mimetype="text/plain",
                        headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    return Response(scrape(current_app), mimetype=None,
                    headers={"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"})


def init_app(app: Flask) -> None:
    """Time every request by its Flask route (the URL rule, never the raw path)."""
    app.register_blueprint(bp)

    @app.before_request
    def start_timer() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def record(response: Any) -> Any:
        started = g.pop("metrics_started", None)
        if started is not None:
            rule = request.url_rule
            route = rule.rule if rule is not None else UNMATCHED
            REQUEST_SECONDS.labels(route, request.method).observe(time.perf_counter() - started)
            REQUESTS.labels(route, request.method, str(response.status_code)).inc()
        return response
