"""Memory inspection pages and their JSON twins; profile; introspection."""

from __future__ import annotations

import pytest


@pytest.fixture
def filled(client, user, engine):
    """Five exchanges: three stay short-term, two move to mid-term and are filed."""
    for n in range(5):
        engine.add_exchange(user, f"I went hiking in the Alps, day {n}",
                            f"Sounds great, day {n} of hiking!")
    engine.force_analysis(user)
    return engine.state(user)


def test_memory_html_and_json(client, filled):
    page = client.get("/memory")
    assert page.status_code == 200
    assert b"heat-chart" in page.data and b"<svg" in page.data and b'role="meter"' in page.data
    data = client.get("/memory.json").json
    assert data["ok"] is True
    assert data["short_term"]["count"] == 3 and data["short_term"]["capacity"] == 3
    segs = data["mid_term"]["segments"]
    assert segs and all(k in segs[0] for k in ("heat", "n_visit", "l_interaction", "recency",
                                               "keywords", "summary", "last_visit", "page_count"))
    assert [s["heat"] for s in segs] == sorted((s["heat"] for s in segs), reverse=True)
    assert "user_facts" in data["long_term"]


def test_memory_accept_json_header_gets_json(client, filled):
    r = client.get("/memory", headers={"Accept": "application/json"})
    assert r.is_json and r.json["ok"] is True


def test_memory_segment_and_page_with_chain_links(client, filled):
    seg = filled["mid_term"]["segments"][0]
    r = client.get(f"/memory/segments/{seg['id']}")
    assert r.status_code == 200 and b"page " in r.data
    data = client.get(f"/memory/segments/{seg['id']}.json").json
    assert data["ok"] and data["segment"]["pages"]
    linked = next(p for s in filled["mid_term"]["segments"] for p in s["pages"]
                  if p["prev_id"] or p["next_id"])
    page = client.get(f"/memory/pages/{linked['id']}")
    assert page.status_code == 200
    other = linked["prev_id"] or linked["next_id"]
    assert f'href="/memory/pages/{other}"'.encode() in page.data
    assert client.get(f"/memory/pages/{linked['id']}.json").json["page"]["id"] == linked["id"]
    short = filled["short_term"]["exchanges"][0]["id"]
    assert client.get(f"/memory/pages/{short}.json").json["page"]["tier"] == "short"


def test_memory_unknown_ids_are_404(client, user):
    assert client.get("/memory/segments/12345").status_code == 404
    assert client.get("/memory/pages/12345.json").json["ok"] is False
    assert client.get("/no-such-page").status_code == 404


def test_memory_events_html_and_json(client, filled):
    assert client.get("/memory/events").status_code == 200
    kinds = {e["kind"] for e in client.get("/memory/events.json").json["events"]}
    assert "admission" in kinds and "analysis" in kinds


def test_profile_html_and_json(client, filled):
    data = client.get("/profile.json").json
    assert data["ok"] and [f["family"] for f in data["families"]] == [
        "psychological model", "AI alignment preferences", "content interests"]
    page = client.get("/profile")
    assert page.status_code == 200
    dims = [d for f in data["families"] for d in f["dimensions"]]
    if dims:  # the extractive analysis found something: evidence links to pages
        assert b'href="/memory/pages/' in page.data


def test_introspection_settings_html_and_json(client, user):
    r = client.get("/-/settings.json")
    assert r.json["ok"] and r.json["default_model"]["name"] == "scripted"
    names = {row["name"]: row for row in r.json["settings"]}
    assert names["consolidation"]["value"] == "extractive"
    assert names["consolidation"]["default"] == "auto"
    assert b"heat_<wbr>threshold" in client.get("/-/settings").data
    assert client.get("/-/versions").status_code == 404  # not an operator
    assert client.get("/-/health.json").json == {"ok": True}


SUBARU = "I drive a 2014 Subaru Outback."
TESLA = "I sold the Subaru, I drive a Tesla Model 3 now."


@pytest.mark.real_model  # "what car" passes fact_min_score (MiniLM's scale) by meaning only
def test_memory_shows_a_fact_history_and_the_trace_marks_it(client, user, engine, chat_model):
    """An imported chat says one car, then weeks later another: the memory page shows the new
    fact with the old one as its history; a question on the past gets it, marked superseded."""
    import json

    from .conftest import wait_job

    def turn(text, reply, when):
        return {"user_input": text, "agent_response": reply, "timestamp": when}

    turns = [turn(SUBARU, "Outbacks are sturdy.", "2024-05-01T10:00:00Z"),
             turn("My sister lives in Boston and teaches maths.", "Boston is lovely.",
                  "2024-05-01T10:05:00Z"),
             turn(TESLA, "Enjoy the quiet ride.", "2024-06-01T09:00:00Z"),
             *[turn(f"Thanks, talk soon ({n})!", "Bye for now.", f"2024-06-01T09:0{n + 1}:00Z")
               for n in range(3)]]
    run = client.post("/import/run.json", data={"text": json.dumps(turns)})
    assert wait_job(engine, user, run.json["job"]["id"])["status"] == "done"
    analysis = client.post("/analysis/run.json")
    assert wait_job(engine, user, analysis.json["job"]["id"])["status"] == "done"

    facts = client.get("/memory.json").json["long_term"]["user_facts"]
    tesla = next(f for f in facts if f["text"] == TESLA)
    assert tesla["valid_until"] is None
    assert [(h["text"], h["valid_until"]) for h in tesla["history"]] == [
        (SUBARU, tesla["valid_from"])]
    sister = next(f for f in facts if "Boston" in f["text"])
    assert sister["history"] == [] and sister["valid_until"] is None
    page = client.get("/memory").data.decode()
    assert "History: 1 earlier value" in page and SUBARU in page
    assert ('<time datetime="2024-05-01T10:00Z">2024-05-01 10:00 UTC</time> →'
            ' <time datetime="2024-06-01T09:00Z">2024-06-01 09:00 UTC</time>') in page

    chat_model.enqueue("Before the Tesla you drove a Subaru Outback.")
    asked = client.post("/chat.json", data={"message": "What car did I drive before?"})
    exchange_id = asked.json["exchange"]["id"]
    trace = client.get(f"/chat/trace/{exchange_id}.json").json["trace"]
    old = next(f for f in trace["facts"]["user"] if f["text"] == SUBARU)
    assert old["superseded"] and old["superseded_by"] == tesla["id"]
    assert b'superseded <time datetime="2024-06-01T09:00Z">2024-06-01 09:00 UTC</time>' in \
        client.get(f"/chat/trace/{exchange_id}").data
