"""The chat's conversations, modes, Stop and warm-up over the Flask test client (issue 31)."""

from __future__ import annotations

import json
import threading
import time

from memoryos_core.testing import ScriptedChatModel
from webapp import warmup
from webapp.chat import turns as chat_turns

from .conftest import chat


def _events(body: str) -> list[tuple[str, dict]]:
    out = []
    for chunk in body.strip().split("\n\n"):
        if chunk.startswith(":"):  # the heartbeat comment
            continue
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_chat_new_chat_starts_a_new_conversation_and_lists_the_old(client, user, engine):
    chat(client, "The first conversation")
    r = client.post("/chat/new")
    assert r.status_code == 302
    assert engine.short_term_fill(user)["count"] == 0
    page = client.get("/").data.decode()
    assert "The first conversation" in page  # in the list beside the chat
    assert 'id="empty-hint"' in page  # the conversation shown is the new, empty one
    listed = client.get("/chat/conversations.json").json["conversations"]
    assert [c["title"] for c in listed] == ["The first conversation"]
    one = client.get(f"/chat/conversations/{listed[0]['id']}")
    assert one.status_code == 200 and b"The first conversation" in one.data
    assert b'name="message"' not in one.data  # read-only


def test_chat_shows_the_last_30_and_loads_earlier(client, user, engine):
    ids = [engine.add_exchange(user, f"message number {n}", f"reply {n}",
                               timestamp=1_700_000_000 + n, maintain=False)
           for n in range(33)]
    page = client.get("/").data.decode()
    assert "message number 3<" in page and "message number 2<" not in page
    assert "Load earlier" in page
    more = client.get(f"/chat/conversations/{ids[0]}?before={ids[3]}&fragment=1")
    body = more.data.decode()
    assert "message number 0<" in body and "message number 2<" in body
    assert "message number 3<" not in body and "Load earlier" not in body


def test_chat_stream_temporary_returns_its_turn_and_stores_nothing(client, user, engine,
                                                                  chat_model):
    chat_model.enqueue("Temporary answer.")
    r = client.post("/chat/stream", data={"message": "secret", "mode": "temporary",
                                          "recent": json.dumps([["hi", "hello"]])})
    kind, done = _events(r.get_data(as_text=True))[-1]
    assert kind == "done" and done["exchange_id"] is None
    assert done["recent"] == ["secret", "Temporary answer."]
    assert "not stored" in done["html"] and "Why this answer" not in done["html"]
    assert engine.export(user)["exchanges"] == []


def test_chat_stream_edit_of_an_exchange_that_left_short_term_offers_the_page(
        client, user, engine):
    old = engine.add_exchange(user, "old one", "ok", maintain=False)
    engine.new_conversation(user)
    r = client.post("/chat/stream", data={"message": "edited", "replaces": str(old)})
    kind, error = _events(r.get_data(as_text=True))[-1]
    assert kind == "error" and error["status"] == 400
    assert "left short-term memory" in error["html"]
    assert f'href="/memory/pages/{old}"' in error["html"]


def test_chat_stop_stops_only_the_users_own_turn(app):
    started = threading.Event()

    def work(turn: chat_turns.Turn) -> None:
        started.set()
        turn.stop.wait(5)

    turn = chat_turns.begin(app, "u1", work)
    started.wait(5)
    assert chat_turns.stop(app, "u2", turn.id) is False and not turn.stop.is_set()
    assert chat_turns.stop(app, "u1", turn.id) is True and turn.stop.is_set()
    chat_turns.end(app, turn)
    assert chat_turns.stop(app, "u1", turn.id) is False


def test_chat_stop_route_answers_404_for_an_unknown_turn(client, user):
    assert client.post("/chat/stop", data={"turn": "nope"}).status_code == 404


def test_chat_embedded_model_warms_up_at_start_and_the_page_says_so(make_app):
    class Embedded(ScriptedChatModel):
        embedded = True
        loaded = threading.Event()
        release = threading.Event()  # the load ends when the test says: no race with register

        def warm_up(self) -> float:
            self.release.wait(10)
            self.loaded.set()
            return 0.3

    model = Embedded()
    app = make_app(CHAT_MODEL=model, WARM_UP_MODEL=True)
    client = app.test_client()
    client.post("/register", data={"username": "bob", "password": "correct horse",
                                   "confirm": "correct horse"})
    assert warmup.state(app)["state"] == "loading"
    assert b"still loading" in client.get("/").data
    model.release.set()
    assert model.loaded.wait(10)
    deadline = time.monotonic() + 5
    while warmup.state(app)["state"] == "loading" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.get("/chat/model-status.json").json["state"] == "ready"
    assert b"still loading" not in client.get("/").data


def test_chat_no_warm_up_in_testing_or_for_an_endpoint(app):
    assert warmup.state(app)["state"] == "off"


def test_chat_markdown_renders_on_the_page_view_and_earlier_answers_on_the_trace(
        client, user, engine, chat_model):
    chat_model.enqueue("- one\n- two\n\n```\ncode()\n```", "Second try.")
    chat(client, "List please")
    [exchange] = engine.recent_exchanges(user)
    page = client.get(f"/memory/pages/{exchange['id']}").data.decode()
    assert "<li>one</li>" in page and "<code>code()" in page
    r = client.post("/chat/stream", data={"message": "List please",
                                          "replaces": str(exchange["id"])})
    kind, done = _events(r.get_data(as_text=True))[-1]
    assert kind == "done"
    # the regenerated bubble counts the answer it replaced at once, not only after a reload
    assert "1 earlier answer in the trace" in done["html"]
    assert "1 earlier answer in the trace" in client.get("/").data.decode()
    trace = client.get(f"/chat/trace/{exchange['id']}").data.decode()
    assert "Earlier answers" in trace and "<li>one</li>" in trace


def test_a_retried_answers_why_shows_the_prompt_of_the_retry(make_app):
    # issue 48: "Why this answer" of a retried answer showed the first attempt's prompt
    class Small(ScriptedChatModel):
        embedded = True

    alike = "Here is one: why did the train stop? It was tired."
    model = Small([alike, alike, "A bus walks into a bar. It had no brakes."])
    client = make_app(CHAT_MODEL=model).test_client()
    client.post("/register", data={"username": "bob", "password": "correct horse",
                                   "confirm": "correct horse"})
    chat(client, "Tell me a joke about trains please.")
    answered = client.post("/chat.json", data={"message": "Tell me a joke about buses."}).json
    assert answered["exchange"]["answer_source"] == "retry", answered  # the first repeated
    page = client.get(f"/chat/trace/{answered['exchange']['id']}").data.decode()
    assert "The prompt of the retry" in page and "The first attempt's prompt" in page
    sent = page.split("The prompt of the retry")[1].split("The first attempt")[0]
    assert "joke about trains" not in sent  # the retry left the recent turns out
