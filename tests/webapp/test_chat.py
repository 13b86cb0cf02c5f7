"""Chat: htmx POST, JSON twin, streaming, safe rendering, model errors, the retrieval trace."""

from __future__ import annotations

import json

from memoryos_core import ModelError

from .conftest import chat


def test_chat_page_shows_model_and_form(client, user):
    r = client.get("/")
    assert r.status_code == 200
    assert b"scripted" in r.data and b'data-stream-url="/chat/stream"' in r.data
    assert b"htmx.min.js" in r.data and b"//cdn" not in r.data


def test_chat_post_renders_exchange_with_why_link(client, user, chat_model, engine):
    chat_model.enqueue("Hello **Alice**!")
    r = chat(client, "Hi, I am Alice")
    assert r.status_code == 200
    assert b"<strong>Alice</strong>" in r.data
    assert b'href="/chat/trace/' in r.data
    assert engine.state(user)["short_term"]["count"] == 1
    assert b"Hi, I am Alice" in client.get("/").data


def test_chat_json_twin(client, user, chat_model):
    chat_model.enqueue("Sure.")
    r = client.post("/chat.json", data={"message": "hello"})
    assert r.status_code == 200 and r.json["ok"] is True
    assert r.json["exchange"]["assistant"] == "Sure."


def test_chat_script_tags_render_as_text(client, user, chat_model):
    chat_model.enqueue('<script>alert(1)</script> <img src=x onerror="alert(2)">'
                       ' [x](javascript:alert(3))')
    r = chat(client, '<script>alert("u")</script><img src=x onerror=alert(4)>')
    body = r.data.decode()
    assert "<script>" not in body and "<img" not in body
    assert "href=\"javascript" not in body
    assert "&lt;script&gt;" in body
    page = client.get("/").data.decode()
    assert "<script>alert" not in page and "<img src=x" not in page


def test_chat_model_error_shows_message_and_stores_nothing(client, user, chat_model, engine):
    chat_model.enqueue(ModelError("provider is down"))
    r = chat(client, "Are you there?")
    assert r.status_code == 502
    assert b"provider is down" in r.data and b"alert-error" in r.data
    assert engine.state(user)["short_term"]["count"] == 0
    j = client.post("/chat.json", data={"message": "x"})  # default reply works again
    assert j.status_code == 200


def test_chat_model_error_json(client, user, chat_model):
    chat_model.enqueue(ModelError("quota exceeded"))
    r = client.post("/chat.json", data={"message": "hi"})
    assert r.status_code == 502 and r.json == {"ok": False, "error": "quota exceeded",
                                               "status": 502}


def test_chat_empty_message_is_bad_request(client, user):
    assert chat(client, "   ").status_code == 400


def _events(body: str) -> list[tuple[str, dict]]:
    out = []
    for chunk in body.strip().split("\n\n"):
        if chunk.startswith(":"):  # the heartbeat comment of an idle stream
            continue
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_chat_stream_sends_tokens_then_fragment(client, user, chat_model, engine):
    chat_model.enqueue("one two three")
    r = client.post("/chat/stream", data={"message": "count"})
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    events = _events(r.get_data(as_text=True))
    tokens = "".join(d["text"] for kind, d in events if kind == "token")
    assert tokens == "one two three"
    kind, done = events[-1]
    assert kind == "done" and "one two three" in done["html"]
    assert engine.trace(user, done["exchange_id"])["model"] == "scripted"


def test_chat_stream_error_event(client, user, chat_model, engine):
    chat_model.enqueue(ModelError("boom"))
    events = _events(client.post("/chat/stream", data={"message": "x"}).get_data(as_text=True))
    assert events[-1][0] == "error" and events[-1][1]["status"] == 502
    assert "boom" in events[-1][1]["html"]
    assert engine.state(user)["short_term"]["count"] == 0


def test_chat_trace_html_and_json(client, user, chat_model, engine):
    for n in range(6):
        chat_model.enqueue(f"answer {n} about gardening")
        chat(client, f"I love gardening with tomatoes, note {n}")
    chat_model.enqueue("You like tomatoes.")
    r = client.post("/chat.json", data={"message": "What do I grow in my garden?"})
    exchange_id = r.json["exchange"]["id"]
    page = client.get(f"/chat/trace/{exchange_id}")
    assert page.status_code == 200
    assert b"Context window" in page.data and b"ctx-bar" in page.data and b"scripted" in page.data
    data = client.get(f"/chat/trace/{exchange_id}.json").json
    assert data["ok"] is True and data["trace"]["model"] == "scripted"
    names = [p["name"] for p in data["trace"]["prompt_parts"]]
    assert "message" in names and "recent" in names
    assert data["prompt_total"] > 0
    assert any(p["selected"] for p in data["trace"]["pages"])
    assert b"searched:" in page.data and b"date rank" in page.data
    assert data["trace"]["period"] is None  # the question names no date


def test_chat_trace_shows_the_period_a_question_names(client, user, chat_model):
    chat_model.enqueue("Noted.")
    chat(client, "I planted tomatoes")
    chat_model.enqueue("You planted tomatoes.")
    r = client.post("/chat.json", data={"message": "What did I plant on 3 May 2024?"})
    page = client.get(f"/chat/trace/{r.json['exchange']['id']}")
    assert b"period named: 2024-05-02 to 2024-05-04" in page.data


def test_chat_trace_unknown_is_404(client, user):
    assert client.get("/chat/trace/999").status_code == 404
    r = client.get("/chat/trace/999.json")
    assert r.status_code == 404 and r.json["ok"] is False


def test_chat_trace_marks_a_shortened_recent_exchange_the_memory_showed(client, user, chat_model):
    steps = " ".join(f"Step {n}: whisk the sauce slowly over a low heat." for n in range(40))
    chat_model.enqueue("Lovely. " + steps)
    chat(client, steps + " By the way, my sister gave me a stand mixer for my birthday.")
    for n in range(2):  # long turns: the recent conversation (3 here) shows the first shortened
        chat_model.enqueue("Here is one. " + steps)
        chat(client, f"Give me dessert idea {n}")
    chat_model.enqueue("Your sister.")
    r = client.post("/chat.json", data={"message": "Who gave me the stand mixer for my birthday?"})
    exchange_id = r.json["exchange"]["id"]
    data = client.get(f"/chat/trace/{exchange_id}.json").json
    used = [p for p in data["trace"]["pages"] if p["selected"] and p.get("recent")]
    assert used and used[0]["user"].endswith("stand mixer for my birthday.")  # ranked first
    assert "my sister gave me a stand mixer" in data["trace"]["memory_block"]
    assert b'title="a recent exchange the recent conversation shows shortened' in \
        client.get(f"/chat/trace/{exchange_id}").data
