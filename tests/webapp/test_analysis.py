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


def test_analysis_profile_page_shows_signals_without_a_level(client, user, engine):
    from tests.core.test_profile_signals import HOBBIES, transcript

    # an empty profile says how it fills in, and links where to fill it now
    empty = client.get("/profile").get_data(as_text=True)
    assert "Nothing yet" in empty and 'href="/analysis"' in empty
    run = client.post("/import/run.json", data={"text": transcript(HOBBIES),
                                                "format": "transcript"})
    assert wait_job(engine, user, run.json["job"]["id"])["status"] == "done"
    assert client.post("/analysis/run", headers={"HX-Request": "true"}).status_code == 200
    job = wait_job(engine, user, engine.jobs.latest(user, "analysis", 1)[0]["id"])
    assert job["status"] == "done", job
    names = {c["dimension"] for c in job["result"]["profile_signals"]}
    assert "Sports Interest" in names and job["result"]["profile_changes"] == []
    assert b"Profile signals" in client.get("/analysis").data
    data = client.get("/profile.json").json
    dims = {d["dimension"]: d for f in data["families"] for d in f["dimensions"]}
    assert data["levels"] == 0 and data["signal_dimensions"] == len(dims) == data["count"]
    sports = dims["Sports Interest"]
    assert sports["level"] is None and sports["evidence"] == sorted(
        {s["page"] for s in sports["signals"]})
    html = client.get("/profile").get_data(as_text=True)
    row = html.split('data-dimension="Sports Interest"')[1].split("</tr>")[0]
    n, pages = len(sports["signals"]), len(sports["evidence"])
    assert f"{n} sentences in {pages} pages" in row and ">signals<" in row
    assert "half marathon" in row and row.count('href="/memory/pages/') >= 2 * pages
    assert not any(f"level-{lv}" in html for lv in ("high", "medium", "low"))
