"""Forced analysis as a job; the result shows profile changes and facts."""

from __future__ import annotations

from .conftest import wait_job


def test_analysis_page_html_and_json(client, user):
    assert client.get("/analysis").status_code == 200
    data = client.get("/analysis.json").json
    assert data["ok"] and data["job"] is None and "unanalysed_pages" in data["pending"]


def test_analysis_run_job_and_show_changes(client, user, engine):
    for n in range(5):
        engine.add_exchange(user, f"I am a software engineer and I love Python, part {n}",
                            f"Python is great, part {n}")
    r = client.post("/analysis/run", headers={"HX-Request": "true"})
    assert r.status_code == 200 and b'class="job' in r.data
    job = wait_job(engine, user, engine.jobs.latest(user, "analysis", 1)[0]["id"])
    assert job["status"] == "done", job
    assert job["result"]["pages"] >= 1
    page = client.get("/analysis")
    assert b"Profile changes" in page.data and b"Facts added" in page.data
    data = client.get("/analysis.json").json
    assert data["job"]["status"] == "done" and "profile_changes" in data["job"]["result"]
    plain = client.post("/analysis/run")
    assert plain.status_code == 302 and plain.headers["Location"] == "/analysis"
