"""Rough edges a new user met (issue 48): ids and labels, accessible names, links that lead
somewhere, wording, and settings that would end a session in use."""

from __future__ import annotations

import re

import pytest

from .test_my_memory import _talk


def test_a_fact_and_its_correction_field_have_distinct_ids(client, user, engine):
    _talk(engine, user)
    html = client.get("/memory").data.decode()
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert ids and len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    fact = re.search(r'<li id="fact-(\d+)"', html).group(1)
    # the label names the field, which the #fact-N links do not land on
    assert f'<label for="fact-text-{fact}">' in html and f'<input id="fact-text-{fact}"' in html


def test_engine_settings_name_the_embedded_model_once(make_app):
    client = make_app(CHAT_MODEL=None, WARM_UP_MODEL=False).test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    html = client.get("/-/settings").data.decode()
    assert "embedded local model (SmolLM2-135M-Instruct)</strong>." in html
    assert "(embedded)" not in html


def test_a_quote_from_an_unstored_turn_links_to_no_page(app):
    # a temporary chat, or one with memory off, quotes its own unstored turns (negative ids)
    from flask import render_template
    quote = {"text": "My dog is called Bruno.", "page_id": -1}
    exchange = {"user": "What is my dog called?", "assistant": "Bruno.", "stored": False,
                "id": None, "tier": None, "evidence": quote}
    app.jinja_env.globals["page_no"] = lambda i: i + 100  # the user's number of exchange i
    with app.test_request_context():
        unstored = render_template("_exchange.html", exchange=exchange, controls=True)
        stored = render_template("_exchange.html", exchange={
            **exchange, "evidence": {**quote, "page_id": 7}}, controls=True)
    assert "From memory:" in unstored and "/memory/pages/" not in unstored
    assert 'href="/memory/pages/107"' in stored


def test_message_buttons_name_the_message_they_act_on(client, user, chat_model):
    chat_model.enqueue("Try a short walk first.")
    html = client.post("/chat", data={"message": "How should I start running again?"},
                       headers={"HX-Request": "true"}).data.decode()
    about = "How should I start running again?"
    for name in (f"Edit your message: {about}", f"Copy the answer to: {about}",
                 f"Regenerate the answer to: {about}", f"Why this answer: {about}"):
        assert f'aria-label="{name}"' in html, name


def test_an_idle_lifetime_under_a_minute_is_refused_at_start(make_app, monkeypatch):
    # the last use is written once a minute: 30 s would log out a user who clicks every 40 s
    monkeypatch.setenv("MEMPLAY_SESSION_IDLE_SECONDS", "30")
    with pytest.raises(RuntimeError, match="MEMPLAY_SESSION_IDLE_SECONDS must be at least 60"):
        make_app()
    monkeypatch.setenv("MEMPLAY_SESSION_IDLE_SECONDS", "60")
    assert make_app().test_client().get("/login").status_code == 200


def test_the_users_settings_name_the_embedded_model_once(make_app):
    client = make_app(CHAT_MODEL=None, WARM_UP_MODEL=False).test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    html = client.get("/settings").data.decode()
    assert "embedded local model (SmolLM2-135M-Instruct)</strong>." in html
    assert "(embedded)" not in html


def test_pages_and_traces_are_linked_by_the_users_own_numbers(client, auth, engine,
                                                               chat_model):
    # issue 48: exchange ids are global and sequential, so a new user's first page number
    # told how many exchanges others had stored; links and labels use the user's own numbers
    auth.register("alice")
    for n in range(40):
        engine.add_exchange("u1", f"Alice note {n}", "Noted.")
    alice_ids = {p["id"] for p in engine.recent_exchanges("u1", 50)}
    auth.logout()
    auth.register("bob")
    chat_model.enqueue("Hello Bob.")
    exchange = client.post("/chat", data={"message": "Hi, I am Bob."},
                           headers={"HX-Request": "true"}).data.decode()
    [mine] = engine.recent_exchanges("u2", 5)
    assert mine["id"] > 40  # inside, the global id stays
    assert 'href="/chat/trace/1"' in exchange
    assert f"/chat/trace/{mine['id']}" not in exchange
    assert client.get("/chat/trace/1").status_code == 200
    page = client.get("/memory/pages/1").data.decode()
    assert "Hi, I am Bob." in page and "<h1>Page 1 " in page
    memory = client.get("/memory").data.decode()
    assert 'href="/memory/pages/1">#1</a>' in memory
    assert not any(f"/memory/pages/{i}\"" in memory for i in alice_ids if i > 1)
    assert client.get("/memory/pages/2").status_code == 404  # bob has one page
    assert client.get(f"/memory/pages/{mine['id']}").status_code == 404  # no global ids
    chat_model.enqueue("Sure.")
    second = client.post("/chat.json", data={"message": "Can you help me?"}).json["exchange"]
    assert second["number"] == 2 and second["id"] > mine["id"]  # the URL's number beside the id
    client.post("/memory/pages/2/forget", data={})
    gone = client.post("/memory/pages/1/forget", data={})
    assert gone.status_code == 302 and "Exchange 1 is forgotten" in client.get("/memory").data.decode()
    assert engine.recent_exchanges("u2", 5) == []
