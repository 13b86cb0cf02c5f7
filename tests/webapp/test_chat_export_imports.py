"""A Claude export through HTTP (issue 34): recognised in the preview, imported as a job,
titles on the conversations, saved memories on /memory and /profile."""

from __future__ import annotations

import io
import json

from tests.core import chat_export_fixtures as fx

from .conftest import wait_job


def test_claude_zip_preview_names_the_format_then_imports(client, user, engine, tmp_path):
    upload = {"upload": (io.BytesIO(fx.claude_zip()), "data-2025-10-06.zip"), "format": "auto"}
    r = client.post("/import/preview", data=upload, content_type="multipart/form-data",
                    headers={"HX-Request": "true"})
    assert r.status_code == 200, r.data
    page = r.data.decode()
    assert "Recognised: <strong>Claude.ai export</strong>" in page
    assert "&#39;chat_messages&#39; and &#39;uuid&#39;" in page or "'chat_messages'" in page
    assert "<strong>1</strong> message on abandoned branches" in page
    assert "<strong>3</strong> of 3 will become long-term facts" in page
    assert engine.state(user)["short_term"]["count"] == 0  # a preview writes nothing
    token = page.split('name="token" value="')[1][:32]
    client.post("/import/run", data={"token": token, "format": "auto"},
                headers={"HX-Request": "true"})
    job = wait_job(engine, user, engine.jobs.latest(user, "import", 1)[0]["id"])
    assert job["status"] == "done", job
    assert job["result"]["imported"] == 3 and job["result"]["facts"]["imported"] == 3
    shown = client.get("/import").data.decode()
    assert "Claude.ai export: 2 conversations, 1 message on abandoned branches left out" in shown
    memory = client.get("/memory").data.decode()
    assert "imported from Claude memory" in memory and "zorbellian" not in memory
    profile = client.get("/profile").data.decode()
    assert "Imported memories" in profile and "Prefers tea over coffee" in profile
    # the upload and the job's copy of it are gone: the abandoned reply is in no file of the
    # data folder, the -wal log included (the job that carried the upload emptied it)
    files = [p for p in (tmp_path / "data").rglob("*") if p.is_file()]
    assert [p.name for p in files if b"zorbellian" in p.read_bytes()] == []
    listing = client.get("/chat/conversations").data.decode()
    assert "Gear for a wet hike" in listing and "Tiny timer page" in listing
    assert "import:claude" in listing  # the source is shown with each


def test_unknown_upload_names_the_formats_read(client, user, engine):
    data = {"upload": (io.BytesIO(json.dumps([{"foo": 1}]).encode()), "x.json")}
    r = client.post("/import/preview.json", data=data, content_type="multipart/form-data")
    assert r.status_code == 400
    assert r.json["error"].startswith("unknown format") and "SillyTavern" in r.json["error"]


def test_saved_memories_alone_preview_offers_to_import_them(client, user, engine):
    data = {"upload": (io.BytesIO(json.dumps(fx.LETTA).encode()), "coach.af")}
    r = client.post("/import/preview", data=data, content_type="multipart/form-data",
                    headers={"HX-Request": "true"})
    page = r.data.decode()
    assert "Recognised: <strong>Letta agent file</strong>" in page
    assert "Import 2 saved memories" in page and "Goal: 10k race in June." in page
