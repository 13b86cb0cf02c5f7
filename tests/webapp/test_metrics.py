"""/-/metrics: Prometheus text behind a bearer token; request, chat, job and store figures."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from memoryos_core import ModelError
from memoryos_core.testing import ScriptedChatModel

from .conftest import chat

TOKEN = "scrape-me-7f3a"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def samples(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of one scrape by (name, sorted labels)."""
    r = client.get("/-/metrics", headers=AUTH)
    assert r.status_code == 200, r.data
    assert r.headers["Content-Type"].startswith("text/plain; version=")
    out = {}
    for family in text_string_to_metric_families(r.get_data(as_text=True)):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(scrape, name, **labels) -> float:
    return scrape.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_404_without_a_configured_token(client):
    assert client.get("/-/metrics").status_code == 404
    assert client.get("/-/metrics", headers=AUTH).status_code == 404


def test_metrics_refuse_a_missing_or_wrong_token(make_app):
    client = make_app(METRICS_TOKEN=TOKEN).test_client()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"},
                    {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": TOKEN}):
        r = client.get("/-/metrics", headers=headers)
        assert r.status_code == 401, headers
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
        assert b"memplay_" not in r.data
    assert client.get("/-/metrics", headers=AUTH).status_code == 200


def test_metrics_move_after_a_chat_turn(make_app, chat_model):
    app = make_app(METRICS_TOKEN=TOKEN)
    client = app.test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    before = samples(client)
    chat_model.enqueue("Your marathon is in October.")
    assert chat(client, "When is my marathon?").status_code == 200
    client.get("/jobs/" + "0" * 32 + ".json")  # a 404 through a route with a parameter
    client.get("/no/such/page/12345")
    after = samples(client)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("memplay_chat_turns_total", mode="plain") == 1
    assert moved("memplay_retrieval_seconds_count") == 1
    assert moved("memplay_answer_seconds_count") == 1
    assert moved("memplay_retrieval_seconds_sum") > 0
    assert moved("memplay_http_request_duration_seconds_count", route="/chat", method="POST") == 1
    assert moved("memplay_http_requests_total", route="/chat", method="POST", status="200") == 1
    # labelled by the Flask URL rule, never by the raw path
    rule = "/jobs/<string(length=32):job_id>.json"
    assert moved("memplay_http_requests_total", route=rule, method="GET", status="404") == 1
    assert moved("memplay_http_requests_total", route="<unmatched>", method="GET",
                 status="404") == 1
    assert not any("12345" in dict(labels).get("route", "") or "0000" in
                   dict(labels).get("route", "") for _, labels in after)


def test_metrics_count_model_errors(make_app, chat_model):
    client = make_app(METRICS_TOKEN=TOKEN).test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    before = samples(client)
    chat_model.enqueue(ModelError("provider is down"))
    assert chat(client, "Are you there?").status_code == 502
    chat_model.enqueue(ModelError("boom"))
    client.post("/chat/stream", data={"message": "x"}).get_data()
    after = samples(client)
    for mode in ("plain", "stream"):
        assert value(after, "memplay_model_errors_total", mode=mode) - \
            value(before, "memplay_model_errors_total", mode=mode) == 1
    assert value(after, "memplay_chat_turns_total", mode="plain") == \
        value(before, "memplay_chat_turns_total", mode="plain")


def test_metrics_count_maintenance_fallbacks(make_app, embedder):
    def reply(messages, schema):  # answers chat turns, never a valid consolidation plan
        return "not json at all" if schema else "Noted."

    model = ScriptedChatModel(default=reply)
    app = make_app(METRICS_TOKEN=TOKEN, CHAT_MODEL=model, ENGINE_SETTINGS={
        "consolidation": "llm", "analysis": "extractive", "short_term_capacity": 2,
        "consolidation_batch": 2})
    client = app.test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    before = samples(client)
    for n in range(4):  # two pages overflow into one consolidation batch
        assert chat(client, f"I grow tomatoes on the balcony, note {n}").status_code == 200
    after = samples(client)
    assert value(after, "memplay_maintenance_fallbacks_total", step="consolidation") - \
        value(before, "memplay_maintenance_fallbacks_total", step="consolidation") >= 1
    assert app.extensions["memoryos"].state("u1")["mid_term"]["segments"]  # filed anyway


def test_metrics_jobs_and_store_size(make_app, tmp_path):
    app = make_app(METRICS_TOKEN=TOKEN)
    client = app.test_client()
    eng = app.extensions["memoryos"]
    eng.jobs.create("u1", "import")  # a job its caller runs: it waits until reported
    eng.jobs.create("u2", "import")
    scrape = samples(client)
    assert value(scrape, "memplay_jobs", kind="import", status="queued") == 2
    assert value(scrape, "memplay_jobs", kind="import", status="running") == 0
    assert value(scrape, "memplay_jobs", kind="maintain", status="queued") == 0
    size = value(scrape, "memplay_store_bytes")
    if app.config["DATABASE_URL"]:
        assert size > 1_000_000  # an empty PostgreSQL database is already megabytes
    else:
        data = Path(app.config["DATA_DIR"])
        assert size >= (data / "memory" / "memory.sqlite3").stat().st_size + \
            (data / "users.sqlite3").stat().st_size > 0


MULTIPROC_WORKER = """
import sys
from webapp import metrics
metrics.observe_turn({"trace": {"timings_ms": {"total": 12.0}, "answer_ms": 300.0}}, "plain")
metrics.REQUEST_SECONDS.labels("/chat", "POST").observe(0.2)
"""


def test_metrics_multiprocess_mode_sums_every_worker(tmp_path, embedder):
    """Under gunicorn each worker writes its own files; a scrape in any worker sums them."""
    folder = tmp_path / "prom"
    folder.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    root = Path(__file__).resolve().parents[2]
    for _ in range(2):  # two worker processes, each one chat turn
        subprocess.run([sys.executable, "-c", MULTIPROC_WORKER], env=env, cwd=root, check=True,
                       timeout=120)
    assert len(list(folder.glob("*.db"))) >= 2
    scraper = textwrap.dedent(f"""
        from webapp import create_app
        from memoryos_core.testing import ScriptedChatModel
        from memoryos_core.llm.embedder import SentenceTransformerEmbedder
        app = create_app({{"DATA_DIR": {str(tmp_path / 'data')!r}, "METRICS_TOKEN": "t",
                           "CHAT_MODEL": ScriptedChatModel(default="ok"), "SECRET_KEY": "x",
                           "JOB_WORKERS": 0}})
        r = app.test_client().get("/-/metrics", headers={{"Authorization": "Bearer t"}})
        print(r.status_code)
        print(r.get_data(as_text=True))
    """)
    done = subprocess.run([sys.executable, "-c", scraper], env=env, cwd=root, check=True,
                          timeout=300, capture_output=True, text=True)
    status, text = done.stdout.split("\n", 1)
    assert status == "200"
    scrape = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            scrape[(s.name, tuple(sorted(s.labels.items())))] = s.value
    assert value(scrape, "memplay_chat_turns_total", mode="plain") == 2
    assert value(scrape, "memplay_answer_seconds_count") == 2
    assert value(scrape, "memplay_answer_seconds_sum") == 0.6
    assert value(scrape, "memplay_http_request_duration_seconds_count", route="/chat",
                 method="POST") == 2
    assert value(scrape, "memplay_store_bytes") > 0
