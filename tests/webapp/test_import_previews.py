"""The import preview as a reader sees it (issue 47): a ChatGPT export's conversations with
titles and counts, a preview with nothing new keeps nothing, Discard, Undo after a first
import."""

from __future__ import annotations

import io
import json

from tests.core.test_import_chatgpt import two_chats

from .conftest import wait_job


def preview(client, data: bytes, name: str = "conversations.json"):
    return client.post("/import/preview", content_type="multipart/form-data",
                       data={"upload": (io.BytesIO(data), name), "format": "auto"},
                       headers={"HX-Request": "true"})


def kept(engine, user) -> int:
    return int(engine.store.scalar("SELECT count(*) FROM uploads WHERE user_id = ?", (user,)))


def test_chatgpt_preview_lists_each_conversation_then_the_list_shows_them(client, user, engine):
    data = json.dumps(two_chats(), ensure_ascii=False).encode()
    page = preview(client, data).data.decode()
    assert "Recognised: <strong>ChatGPT export</strong>" in page and "&#39;mapping&#39;" in page
    assert "2 conversations" in page
    assert "<strong>1</strong> message on abandoned branches" in page
    assert "Birdwatching plans 🐦" in page and "Second chat about kayaks" in page
    assert "can be undone" in page
    token = page.split('name="token" value="')[1][:32]
    client.post("/import/run", data={"token": token, "format": "auto"},
                headers={"HX-Request": "true"})
    job = wait_job(engine, user, engine.jobs.latest(user, "import", 1)[0]["id"])
    assert job["status"] == "done" and job["result"]["imported"] == 2
    listing = client.get("/chat/conversations").data.decode()
    assert "Birdwatching plans 🐦" in listing and "Second chat about kayaks" in listing
    # the first import into an empty memory is offered for undo too
    shown = client.get("/import").data.decode()
    assert "Undo this import…" in shown
    assert f"saved as version {job['result']['saved_as']}" in shown


def test_a_preview_with_nothing_new_keeps_nothing_and_a_preview_can_be_discarded(
        client, user, engine):
    data = json.dumps(two_chats()).encode()
    engine.import_dialogue(user, data)
    page = preview(client, data).data.decode()
    assert "Nothing new to import, so nothing was kept" in page and 'name="token"' not in page
    assert kept(engine, user) == 0
    chats = two_chats()
    chats[0]["mapping"]["c-bird-0"]["message"]["content"]["parts"] = ["Where are puffins now?"]
    page = preview(client, json.dumps(chats).encode()).data.decode()
    token = page.split('name="token" value="')[1][:32]
    assert kept(engine, user) == 1 and "Discard this preview" in page
    r = client.post("/import/discard", data={"token": token}, headers={"HX-Request": "true"})
    assert "uploaded file deleted" in r.data.decode() and kept(engine, user) == 0
    again = client.post("/import/run.json", data={"token": token, "format": "auto"})
    assert again.status_code == 400 and "expired" in again.json["error"]
