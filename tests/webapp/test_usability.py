"""Usability found while hardening (issue 11): progress in exchanges, ETA, results, counts."""

from __future__ import annotations

import json

from .conftest import wait_job

TRANSCRIPT = "".join(f"User: I planted bean number {i}\nAssistant: Good luck with bean {i}.\n"
                     for i in range(9))


def test_engine_progress_labels_count_exchanges(engine):
    seen: list[str] = []
    engine.import_dialogue("u9", TRANSCRIPT, progress=lambda d, t, phase: seen.append(phase))
    assert "embedding (9 of 9 exchanges)" in seen
    assert any(p.startswith("consolidation (") and p.endswith(" batches)") for p in seen)
    assert seen[-1] == "done"


def test_job_shows_phase_counts_and_an_estimate(client, user, engine):
    job_id = engine.jobs.create(user, "import")
    engine.jobs.progress(job_id, 25, 100, "embedding (64 of 192 exchanges)")
    with engine.store.transaction() as conn:  # started 90 s ago, a quarter done
        conn.execute("UPDATE jobs SET created_at = updated_at - 90 WHERE id = ?", (job_id,))
    data = client.get(f"/jobs/{job_id}.json").json["job"]
    assert data["eta"] == "about 4 minutes left" and data["percent"] == 25
    page = client.get(f"/jobs/{job_id}", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "embedding (64 of 192 exchanges)" in page and "about 4 minutes left" in page
    assert "25 / 100" not in page


def test_job_estimate_reads_as_english_near_a_minute(client, user, engine):
    seen = {}
    for elapsed, percent in ((10, 50), (60, 50), (540, 90)):  # 10 s, 60 s, 60 s left
        job_id = engine.jobs.create(user, "import")
        engine.jobs.progress(job_id, percent, 100, "embedding")
        with engine.store.transaction() as conn:
            conn.execute("UPDATE jobs SET created_at = updated_at - ? WHERE id = ?",
                         (elapsed, job_id))
        page = client.get(f"/jobs/{job_id}", headers={"HX-Request": "true"}).get_data(
            as_text=True)
        seen[elapsed] = page
    assert "less than a minute left" in seen[10] and "about under" not in seen[10]
    assert "about 1 minute left" in seen[60] and "1 minutes" not in seen[60]
    assert "about 1 minute left" in seen[540]


def test_import_result_says_what_analysis_did(make_app, tmp_path):
    for setting, expected in (("inline", "hot segments analysed"), ("deferred", "deferred")):
        app = make_app(ENGINE_SETTINGS={"consolidation": "extractive", "analysis": "extractive",
                                        "short_term_capacity": 3, "consolidation_batch": 2,
                                        "import_analysis": setting,
                                        "heat_threshold": 0.5},
                       DATA_DIR=str(tmp_path / setting))
        client = app.test_client()
        client.post("/register", data={"username": f"kim-{setting}", "password": "correct horse",
                                       "confirm": "correct horse"})
        engine = app.extensions["memoryos"]
        user_id = app.extensions["memplay_users"].authenticate(f"kim-{setting}",
                                                               "correct horse").engine_id
        job_id = client.post("/import/run.json", data={"text": TRANSCRIPT}).json["job"]["id"]
        assert wait_job(engine, user_id, job_id)["status"] == "done"
        assert expected in client.get("/import").get_data(as_text=True), setting
        # both apps may use one database: the next app's setting runs its job
        app.extensions["memplay_workers"].stop()


def test_analysis_counts_refresh_when_the_job_ends(client, user, engine):
    for i in range(6):
        engine.add_exchange(user, f"note {i} about gardening", "ok", maintain=False)
    before = client.get("/analysis").get_data(as_text=True)
    assert 'id="analysis-pending"' in before
    job_id = client.post("/analysis/run.json").json["job"]["id"]
    wait_job(engine, user, job_id)
    frag = client.get(f"/jobs/{job_id}", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="analysis-pending" hx-swap-oob="true"' in frag
    assert "<strong>0</strong> pages waiting to be filed" in frag
    assert "<strong>0</strong> unanalysed pages" in frag


def test_import_page_explains_the_formats(client, user):
    page = client.get("/import").get_data(as_text=True)
    for name in ("user_input", "agent_response", "timestamp", "speaker_a", "dia_id",
                 "conversations.json", "User:"):
        assert name in page


def test_event_log_is_readable_not_raw_json(client, user, engine):
    engine.add_exchange(user, "hello there", "hi", maintain=False)
    page = client.get("/memory/events").get_data(as_text=True)
    assert "moved to mid term: <strong>none</strong>" in page
    assert "{&#34;exchange&#34;" not in page and '{"exchange"' not in page


def test_locomo_turn_ids_are_shown_on_pages(client, user, engine, locomo_file):
    report = engine.import_dialogue(user, locomo_file.read_bytes(), maintain=True)
    page_id = next(iter(report["refs"]))
    ref = report["refs"][page_id]
    body = client.get(f"/memory/pages/{page_id}").get_data(as_text=True)
    assert ref in body and ref.startswith("D1:")
    assert json.loads(client.get(f"/memory/pages/{page_id}.json").data)["page"]["source"] \
        == f"import:locomo {ref}"
