"""Import: preview, run as a job, result after reload; malformed, oversized, hostile input."""

from __future__ import annotations

import io
import json

from .conftest import wait_job

PLAYGROUND = json.dumps([
    {"user_input": "I adopted a cat named Miso", "agent_response": "Lovely name!",
     "timestamp": "2024-05-01 10:00:00"},
    {"user_input": "Miso likes tuna", "agent_response": "Classic cat.",
     "timestamp": "2024-05-01 10:05:00"},
    {"user_input": "", "agent_response": "", "timestamp": "2024-05-01 10:06:00"},
])


def test_import_page_html_and_json(client, user):
    assert client.get("/import").status_code == 200
    data = client.get("/import.json").json
    assert data == {"ok": True, "job": None}


def test_import_preview_then_job_then_reload(client, user, engine):
    r = client.post("/import/preview", data={"text": PLAYGROUND, "format": "auto"},
                    headers={"HX-Request": "true"})
    assert r.status_code == 200 and b"playground" in r.data and b"Miso" in r.data
    assert engine.state(user)["short_term"]["count"] == 0  # preview writes nothing
    token = r.data.split(b'name="token" value="')[1][:32].decode()
    run = client.post("/import/run", data={"token": token, "format": "auto"},
                      headers={"HX-Request": "true"})
    assert run.status_code == 200 and b'class="job' in run.data
    job_id = engine.jobs.latest(user, "import", 1)[0]["id"]
    job = wait_job(engine, user, job_id)
    assert job["status"] == "done", job
    page = client.get("/import")
    assert b"Imported <strong>2</strong>" in page.data and b"both texts are empty" in page.data
    data = client.get("/import.json").json
    assert data["job"]["result"]["imported"] == 2 and data["job"]["percent"] == 100
    assert client.get(f"/jobs/{job_id}").status_code == 200
    assert client.get(f"/jobs/{job_id}.json").json["job"]["status"] == "done"
    again = client.post("/import/run", data={"token": token})
    assert again.status_code == 400  # the preview token is used up


def test_import_upload_file_json_api(client, user, engine):
    data = {"upload": (io.BytesIO(PLAYGROUND.encode()), "dialogue.json"), "format": "playground"}
    r = client.post("/import/preview.json", data=data, content_type="multipart/form-data")
    assert r.json["ok"] and r.json["preview"]["to_import"] == 2
    data = {"upload": (io.BytesIO(PLAYGROUND.encode()), "dialogue.json")}
    run = client.post("/import/run.json", data=data, content_type="multipart/form-data")
    job = wait_job(engine, user, run.json["job"]["id"])
    assert job["result"]["imported"] == 2


def test_import_malformed_is_clear_error_and_writes_nothing(client, user, engine):
    bad = '[{"user_input": 5, "agent_response": "x"}]'
    r = client.post("/import/preview", data={"text": bad})
    assert r.status_code == 400 and b"user_input" in r.data
    r = client.post("/import/run.json", data={"text": "{not json"})
    assert r.status_code == 400 and "invalid JSON" in r.json["error"]
    assert engine.jobs.latest(user, "import") == []
    assert engine.state(user)["short_term"]["count"] == 0
    assert client.post("/import/preview.json", data={}).status_code == 400


def test_import_oversized_upload_is_413(make_app, auth):
    app = make_app(MAX_CONTENT_LENGTH=1024)
    client = app.test_client()
    client.post("/register", data={"username": "al", "password": "long enough",
                                   "confirm": "long enough"})
    r = client.post("/import/preview", data={"text": "User: hi\n" * 500})
    assert r.status_code == 413 and b"larger than" in r.data
    r = client.post("/import/preview.json", data={"text": "User: hi\n" * 500})
    assert r.status_code == 413 and r.json["ok"] is False


def test_import_script_tags_render_as_text(client, user, engine):
    hostile = ("User: <script>alert(1)</script>\nAssistant: <img src=x onerror=alert(2)> ok\n")
    r = client.post("/import/preview", data={"text": hostile, "format": "transcript"})
    assert r.status_code == 200
    assert b"<script>alert" not in r.data and b"<img src=x" not in r.data
    assert b"&lt;script&gt;" in r.data
    run = client.post("/import/run.json", data={"text": hostile, "format": "transcript"})
    wait_job(engine, user, run.json["job"]["id"])
    for url in ("/", "/memory"):
        body = client.get(url).data
        assert b"<script>alert" not in body and b"<img src=x" not in body


def test_import_stale_running_job_shows_interrupted(client, user, engine):
    job_id = engine.jobs.create(user, "import")
    engine.jobs.progress(job_id, 1, 10, "embedding")
    with engine.store.transaction() as conn:
        conn.execute("UPDATE jobs SET updated_at = updated_at - 3600,"
                     " heartbeat_at = heartbeat_at - 3600 WHERE id = ?", (job_id,))
    data = client.get(f"/jobs/{job_id}.json").json["job"]
    assert data["status"] == "interrupted" and data["active"] is False
    assert b"interrupted" in client.get("/import").data


def test_import_longmemeval_question_with_a_long_turn(client, user, engine, longmemeval_doc):
    """Format choice, question id and preview on the page; the cut turn listed to the end."""
    pasted = "I moved to Ghent. " + "Here is my whole rental contract, clause by clause. " * 1500
    longmemeval_doc[1]["haystack_sessions"][0][0]["content"] = pasted
    assert b'value="longmemeval"' in client.get("/import").data  # a format choice
    upload = {"upload": (io.BytesIO(json.dumps(longmemeval_doc).encode()), "lme.json"),
              "format": "longmemeval", "select": "lme-city"}
    r = client.post("/import/preview", data=upload, content_type="multipart/form-data",
                    headers={"HX-Request": "true"})
    assert r.status_code == 200, r.data
    assert b"longmemeval" in r.data and b"<code>lme-city</code> of 2" in r.data
    assert b"Import 2 exchanges" in r.data and b"Cut to 20,000 characters: 1 text" in r.data
    assert f"user text of {len(pasted.strip()):,} characters".encode() in r.data
    token = r.data.split(b'name="token" value="')[1][:32].decode()
    run = client.post("/import/run", data={"token": token, "format": "longmemeval",
                                           "select": "lme-city"}, headers={"HX-Request": "true"})
    assert run.status_code == 200
    job = wait_job(engine, user, engine.jobs.latest(user, "import", 1)[0]["id"])
    assert job["status"] == "done", job
    [cut] = job["result"]["cut"]
    assert (cut["where"], cut["ref"], cut["side"]) == ("session 1 turn 1", "D1:1,D1:2", "user")
    page = client.get("/import").data
    assert b"Imported <strong>2</strong>" in page and b"session 1 turn 1" in page
    assert f"<strong>{cut['cut']:,}</strong> not stored".encode() in page
    assert client.get("/import.json").json["job"]["result"]["cut"] == [cut]
    stored = [e["user"] for e in engine.state(user)["short_term"]["exchanges"]]
    assert stored[0].startswith("I moved to Ghent.") and stored[0].endswith("not stored]")
