"""The evaluation lab over the test client: runs as jobs, results, questions, downloads, errors."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from memoryos_core.hosts import cli

from .conftest import wait_job

CHAT = [{"user_input": "My sister Noor plays the cello.", "agent_response": "Lovely.",
         "timestamp": 1_700_000_000}]


@pytest.fixture
def locomo_doc(locomo_file):
    """The made-up LoCoMo conversations of tests/conftest.py."""
    return json.loads(locomo_file.read_text(encoding="utf-8"))


def _upload(doc, name="locomo.json", **fields):
    return {"upload": (io.BytesIO(json.dumps(doc).encode()), name), "budget": "80",
            "strategies": ["flat-hybrid", "recent"], **fields}


def _start(client, data):
    r = client.post("/lab/run.json", data=data, content_type="multipart/form-data")
    assert r.status_code == 200, r.data
    return r.json["job"]["id"]


def _export(engine, user):
    doc = engine.export(user)
    doc.pop("exported_at", None)
    return doc


def test_lab_run_finishes_and_shows_categories_questions_and_reasons(client, user, engine,
                                                                     locomo_doc):
    engine.import_dialogue(user, json.dumps(CHAT).encode(), fmt="playground")
    before = _export(engine, user)
    job_id = _start(client, _upload(locomo_doc))
    job = wait_job(engine, user, job_id, timeout=120)
    assert job["status"] == "done", job.get("error")
    page = client.get(f"/lab/runs/{job_id}").data.decode()
    assert "Evidence recall by category" in page and "multi-hop" in page
    assert "Recall chart" in page and "Tokens per question" in page
    assert re.search(r"ratio <strong>[\d.—]+</strong> over <strong>20</strong> questions", page)
    question = client.get(f"/lab/runs/{job_id}/questions/0").data.decode()
    assert "Gold evidence turns" in question and "D1:1" in question
    assert question.count("<h2 id=\"side-") == 2 and "flat-hybrid" in question
    assert "<mark>" in question or "missed" in question
    body = client.get(f"/lab/runs/{job_id}/questions/0.json").json["q"]
    for side in body["sides"]:
        assert all(g["reason"] for g in side["record"]["gold"])
        marked = {line["source"] for line in side["lines"] if line["evidence"]}
        held = {g["exchange"] for g in side["record"]["gold"] if g["in_context"]}
        assert held <= marked
    assert client.get(f"/lab/runs/{job_id}/questions/999").status_code == 404
    trace = client.get(f"/lab/runs/{job_id}/questions/0/trace").data.decode()
    assert "Why this context" in trace and "vector rank" in trace and "<mark>" in trace
    pages = client.get(f"/lab/runs/{job_id}/questions/0/trace.json").json["rec"]["trace"]["pages"]
    assert any(p["evidence"] for p in pages) and all("fused" in p for p in pages)
    # the lab's memory was its own: the user's memory is unchanged
    assert _export(engine, user) == before
    listing = client.get("/lab.json").json
    assert [r["id"] for r in listing["runs"]] == [job_id]
    assert listing["runs"][0]["summary"]["questions"] == 20


def test_lab_numbers_equal_the_cli_on_the_same_file(client, user, engine, embedder, tmp_path,
                                                    capsys, locomo_doc):
    doc = locomo_doc
    path = tmp_path / "same.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    job_id = _start(client, _upload(doc, "same.json"))
    assert wait_job(engine, user, job_id, timeout=120)["status"] == "done"
    lab = client.get(f"/lab/runs/{job_id}/records.json").json
    capsys.readouterr()
    assert cli.main(["-q", "--data-dir", str(tmp_path / "d"), "eval", str(path), "--budget",
                     "80", "--strategies", "flat-hybrid,recent", "--json"],
                    embedder=embedder) == 0
    mine = json.loads(capsys.readouterr().out)

    def same(result):  # everything but the times taken
        for r in result["records"]:
            r.get("trace", {}).pop("timings_ms", None)
        return [{k: v for k, v in r.items() if k != "context_ms"} for r in result["records"]]

    assert same(lab) == same(mine)
    for key in ("summary", "comparison", "settings"):
        if key == "summary":
            for s in lab[key]:
                lab[key][s].pop("context_p50_ms")
                mine[key][s].pop("context_p50_ms")
        assert lab[key] == mine[key]


def test_lab_downloads_csv_and_compares_two_runs(client, user, engine, locomo_doc):
    first = _start(client, _upload(locomo_doc))
    wait_job(engine, user, first, timeout=120)
    second = _start(client, _upload(locomo_doc, budget="400"))
    wait_job(engine, user, second, timeout=120)
    r = client.get(f"/lab/runs/{second}/records.csv")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(r.data.decode())))
    assert len(rows) == 60 and {r["strategy"] for r in rows} == {"memoryos", "flat-hybrid",
                                                                 "recent"}
    compare = client.get(f"/lab/compare.json?a={first}&b={second}").json["compare"]
    assert set(compare["deltas"]) == {"memoryos", "flat-hybrid", "recent"}
    assert compare["deltas"]["memoryos"]["overall"] >= 0  # more budget finds no less
    assert all(f["after"] > f["before"] for f in compare["better"])
    page = client.get(f"/lab/compare?a={first}&b={second}").data.decode()
    assert "Recall change per category" in page and "Product questions that flipped" in page


def test_lab_built_in_sample_runs(client, user, engine):
    r = client.post("/lab/run.json", data={"sample": "longmemeval", "budget": "1200",
                                           "strategies": ["flat"]})
    job = wait_job(engine, user, r.json["job"]["id"], timeout=120)
    assert job["status"] == "done", job.get("error")
    result = client.get(f"/lab/runs/{job['id']}.json").json["job"]["result"]
    assert result["format"] == "longmemeval" and len(result["by_type"]) == 3
    assert len({r["sample_id"] for r in result["records"]}) == 4  # one abstains: no recall


def test_lab_bad_input_gets_a_message_and_makes_no_run(client, user, engine, make_app,
                                                        locomo_doc):
    bad = [(b"{broken", "is not valid JSON"), (b'[{"a": 1}]', "neither LoCoMo"),
           (json.dumps([dict(locomo_doc[0], qa=[
               {"question": "What?", "category": 1}])]).encode(), "no question has evidence")]
    for content, message in bad:
        r = client.post("/lab/run.json", data={"upload": (io.BytesIO(content), "x.json"),
                                               "budget": "100"},
                        content_type="multipart/form-data")
        assert r.status_code == 400 and message in r.json["error"], r.json
        html = client.post("/lab/run", data={"upload": (io.BytesIO(content), "x.json"),
                                             "budget": "100"},
                           content_type="multipart/form-data")
        assert html.status_code == 400 and message in html.data.decode()
    assert client.post("/lab/run.json", data={"budget": "100"}).status_code == 400
    r = client.post("/lab/run.json", data={"sample": "locomo", "budget": "5"})
    assert r.status_code == 400 and "budget" in r.json["error"]
    assert engine.jobs.latest(user, "eval") == []
    small = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    small.post("/register", data={"username": "bo", "password": "long enough",
                                  "confirm": "long enough"})
    r = small.post("/lab/run.json", data={"upload": (io.BytesIO(b"x" * 4096), "big.json")},
                   content_type="multipart/form-data")
    assert r.status_code == 413 and "larger than" in r.json["error"]


def test_lab_runs_are_the_users_own_cancellable_deletable_and_go_with_the_account(
        make_app, auth, user, engine):
    app = make_app(JOB_WORKERS=0)  # nobody runs the job: it stays queued to be cancelled
    client = app.test_client()
    client.post("/login", data={"username": "alice", "password": "correct horse"})
    eng = app.extensions["memoryos"]
    job_id = _start(client, {"sample": "locomo", "budget": "1200"})
    assert "Cancel the run" in client.get(f"/lab/runs/{job_id}").data.decode()
    assert "payload" not in client.get(f"/lab/runs/{job_id}.json").json["job"]
    assert "payload" not in client.get("/lab.json").json["runs"][0]
    client.post(f"/lab/runs/{job_id}/cancel")
    assert eng.jobs.get(user, job_id)["error"] == "Cancelled."
    assert "Cancelled: the run stopped" in client.get(f"/lab/runs/{job_id}").data.decode()
    assert client.get("/lab.json").json["runs"][0]["status"] == "cancelled"
    other = app.test_client()
    other.post("/register", data={"username": "bob", "password": "correct horse",
                                  "confirm": "correct horse"})
    assert other.get(f"/lab/runs/{job_id}").status_code == 404
    assert other.post(f"/lab/runs/{job_id}/delete").status_code == 404
    assert other.get("/lab.json").json["runs"] == []
    client.post(f"/lab/runs/{job_id}/delete")
    assert eng.jobs.latest(user, "eval") == []
    kept = [_start(client, {"sample": "locomo", "budget": "1200"}) for _ in range(3)]
    r = client.post("/lab/run.json", data={"sample": "locomo", "budget": "1200"})
    assert r.status_code == 400 and "3 runs waiting or running" in r.json["error"]
    assert [j["id"] for j in eng.jobs.latest(user, "eval")] == kept[::-1]
    client.post("/account/delete", data={"password": "correct horse"})
    assert eng.jobs.latest(user, "eval") == []


def test_lab_answers_with_the_users_model_and_shows_f1(client, user, engine, locomo_doc,
                                                      chat_model):
    chat_model.default = lambda messages, schema: "I signed up for a pottery class on Tuesdays."
    job_id = _start(client, _upload(locomo_doc, strategies=["flat"], answer="y"))
    job = wait_job(engine, user, job_id, timeout=120)
    assert job["status"] == "done", job.get("error")
    page = client.get(f"/lab/runs/{job_id}").data.decode()
    assert '<th scope="col" class="num">F1</th>' in page
    q = client.get(f"/lab/runs/{job_id}/questions/0").data.decode()
    assert "Answer from this context" in q and "F1 1.00" in q
    rows = list(csv.DictReader(io.StringIO(
        client.get(f"/lab/runs/{job_id}/records.csv").data.decode())))
    assert {r["f1"] for r in rows if r["q"] == "0" and r["sample_id"] == "demo-ana"} == {"1.0"}


def test_lab_workers_of_their_own_run_the_evaluations(make_app, embedder):
    app = make_app(LAB_WORKERS=1)
    lab = app.extensions["memplay_lab_workers"]
    try:
        assert "eval" not in app.extensions["memoryos"].jobs.kinds()  # imports never wait
        client = app.test_client()
        client.post("/register", data={"username": "cy", "password": "correct horse",
                                       "confirm": "correct horse"})
        eng = app.extensions["memoryos"]
        job_id = _start(client, {"sample": "longmemeval", "budget": "1200"})
        job = wait_job(eng, "u1", job_id, timeout=120)
        assert job["status"] == "done" and job["worker"] == lab.jobs.worker_id
    finally:
        lab.stop()


def test_lab_wrong_file_returns_to_the_form_with_settings_kept_and_runs_told_apart(
        client, user, engine, locomo_doc):
    chatgpt = json.dumps([{"title": "t", "current_node": "n", "mapping": {}}]).encode()
    html = client.post("/lab/run", data={"upload": (io.BytesIO(chatgpt), "conversations.json"),
                                         "budget": "345", "limit": "7",
                                         "strategies": ["flat-hybrid"]},
                       content_type="multipart/form-data")
    page = html.data.decode()
    assert html.status_code == 400 and 'class="lab-form"' in page  # the form, not a bare 400
    assert 'value="345"' in page and 'value="7"' in page  # the settings kept
    errors = page.split('id="upload-errors"')[1].split("</div>")[0]
    assert "neither LoCoMo" in errors and not errors.split(">", 2)[2].startswith("conversations")
    assert engine.jobs.latest(user, "eval") == []
    first = _start(client, _upload(locomo_doc))
    second = _start(client, _upload(locomo_doc, budget="400"))
    for job_id in (first, second):
        wait_job(engine, user, job_id, timeout=120)
    listing = client.get("/lab").data.decode()
    assert "budget 80" in listing and "budget 400" in listing  # two runs of one file apart
    assert "400 tokens; memoryos, flat-hybrid, recent" in listing
    assert "<summary>Delete…</summary>" in listing  # a second step before anything goes
