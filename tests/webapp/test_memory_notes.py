"""The chat's "Memory updated" note: facts learned or replaced on a turn, linked to /memory,
with "Forget this" for a fact just learned; inline and background maintenance."""

from __future__ import annotations

import html
import re
import time

from webapp.chat import notes as memory_notes

from .conftest import ENGINE, chat

# extractive maintenance keeps the first first-person statement of each side as a fact
TURNS = ["I live in Paris with my sister Clara.", "I work as a night nurse at the clinic.",
         "I keep three hives of bees on the roof.", "I play the cello in an orchestra.",
         "I am learning Portuguese for a trip."]
HOT = {**ENGINE, "heat_threshold": 0.0}  # every segment with unanalysed pages is analysed


def _facts(engine, user):
    return {f["id"]: f["text"] for f in engine.state(user)["long_term"]["user_facts"]}


def _notes(page: str) -> str:
    found = re.search(r'<div class="memory-updated">(.*?)</div>', page, re.S)
    return found.group(1) if found else ""


def test_inline_turn_names_the_facts_it_learned_with_forget_this(make_app):
    app = make_app(ENGINE_SETTINGS=HOT)
    client, engine = app.test_client(), app.extensions["memoryos"]
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    notes = [_notes(chat(client, text).data.decode()) for text in TURNS]
    assert notes[:3] == ["", "", ""]  # short-term (3) is not full yet: nothing changed
    learned = _facts(engine, "u1")
    assert learned, "maintenance learned no fact"
    note = html.unescape(notes[4])  # the turn that filed a batch of two pages
    assert "<strong>Memory updated</strong>" in note and "since your last" not in note
    assert "moved to mid-term memory" in note and "filed into" in note
    for fact_id, text in learned.items():
        assert f'<a href="/memory#fact-{fact_id}">“{text}”</a>' in note
        assert f'action="/memory/facts/{fact_id}/delete"' in note
    assert f'aria-label="Forget this fact: “{learned[min(learned)]}”">Forget this</button>' in note
    assert 'name="next" value="chat"' in note
    assert f'id="fact-{min(learned)}"' in client.get("/memory").data.decode()  # the link's place

    gone = client.post(f"/memory/facts/{min(learned)}/delete", data={"next": "chat"})
    assert gone.status_code == 302 and gone.headers["Location"] == "/"
    assert min(learned) not in _facts(engine, "u1")
    assert "Fact deleted" in client.get("/").data.decode()
    assert client.post(f"/memory/facts/{max(learned)}/delete").headers["Location"] == "/memory"


def test_background_maintenance_is_named_by_the_next_answer(make_app):
    app = make_app(ENGINE_SETTINGS=HOT, MAINTENANCE="background")
    client, engine = app.test_client(), app.extensions["memoryos"]
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    notes = []
    for text in TURNS:
        notes.append(_notes(chat(client, text).data.decode()))
        deadline = time.monotonic() + 60
        while engine.jobs.active_counts() and time.monotonic() < deadline:
            time.sleep(0.05)  # the queued maintenance job runs in a worker thread
    learned = _facts(engine, "u1")
    assert learned
    assert "learned" not in notes[4]  # its own maintenance had not run when it answered
    later = html.unescape(_notes(chat(client, "I bake bread on Sundays.").data.decode()))
    assert "<strong>Memory updated since your last message</strong>" in later
    for fact_id, text in learned.items():
        assert f'<a href="/memory#fact-{fact_id}">“{text}”</a>' in later
    again = _notes(chat(client, "I collect old maps.").data.decode())
    assert not any(f"#fact-{fact_id}" in again for fact_id in learned)  # named once


def test_replaced_facts_and_profile_changes_are_named(app):
    report = {"consolidation": [], "analysis": {
        "segments": [4], "pages": 2, "facts_merged": 0, "fallbacks": [],
        "facts_added": [{"id": 9, "kind": "user", "text": "I live in Lisbon."},
                        {"id": 10, "kind": "user", "text": "I swim."}],
        "facts_superseded": [{"old": 3, "old_text": "I live in Paris.", "new": 9,
                              "new_text": "I live in Lisbon."}],
        "profile_changes": [{"dimension": "Travel", "from": None, "to": "high"}]}}
    with app.test_request_context():
        items = memory_notes.turn_notes(app.extensions["memoryos"], "u1",
                                        {"exchange_id": 1, "moved_to_mid_term": []},
                                        report, background=False)
    said = [(i["before"] + i["link"] + i["after"], i["url"], i["forget"]) for i in items]
    assert said == [("learned “I swim.”", "/memory#fact-10", 10),
                    ("“I live in Paris.” replaced by “I live in Lisbon.”", "/memory#fact-9", 9),
                    ("profile: Travel none → high", "/profile", None)]
    with app.test_request_context():  # a temporary turn (stored nowhere) changes nothing
        assert memory_notes.turn_notes(app.extensions["memoryos"], "u1",
                                       {"exchange_id": None}, report, background=False) == []


def _without_csrf(page: str) -> str:
    return re.sub(r'name="csrf_token" value="[^"]*"', "", page)


def test_the_notes_and_their_forget_buttons_are_there_after_a_reload(make_app):
    # issue 48: the notes and their Forget this were gone once the page was reloaded
    app = make_app(ENGINE_SETTINGS=HOT)
    client, engine = app.test_client(), app.extensions["memoryos"]
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    live = [_notes(chat(client, text).data.decode()) for text in TURNS]
    assert live[4]
    page = _without_csrf(client.get("/").data.decode())
    for note in filter(None, live):
        assert _without_csrf(note) in page
    learned = _facts(engine, "u1")
    gone = min(learned)
    client.post(f"/memory/facts/{gone}/delete", data={"next": "chat"})
    page = client.get("/").data.decode()
    assert f'<a href="/memory#fact-{gone}">' in page  # learned then: still said
    assert f'action="/memory/facts/{gone}/delete"' not in page  # but no longer offered
    assert f'action="/memory/facts/{max(learned)}/delete"' in page


def test_background_notes_are_there_after_a_reload(make_app):
    app = make_app(ENGINE_SETTINGS=HOT, MAINTENANCE="background")
    client, engine = app.test_client(), app.extensions["memoryos"]
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    live = []
    for text in [*TURNS, "I bake bread on Sundays."]:
        live.append(_notes(chat(client, text).data.decode()))
        deadline = time.monotonic() + 60
        while engine.jobs.active_counts() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert "since your last message" in live[-1]
    page = _without_csrf(client.get("/").data.decode())
    for note in filter(None, live):
        assert _without_csrf(note) in page
