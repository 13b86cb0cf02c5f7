"""The chat's model picker: this machine's model servers on a personal instance, the pick kept
per conversation, named on the answer and its trace; a shared instance never probes."""

from __future__ import annotations

import re
import socket
import threading

import pytest

from tests.e2e.fake_openai import FakeOpenAI
from webapp.local_models import discovery, personal

HTMX = {"HX-Request": "true"}


@pytest.fixture
def local_server():
    fake = FakeOpenAI(model="local-llm").start()
    yield fake
    fake.stop()


def picker_options(client, fresh=False):
    data = client.get("/chat/models.json" + ("?fresh=1" if fresh else "")).json
    return data["current"], {o["value"]: o for o in data["options"]}


def pick(client, value, mode="normal"):
    return client.post("/chat/model.json", data={"choice": value, "mode": mode})


def test_personal_is_loopback_bound_or_said():
    assert personal({"BIND": "127.0.0.1:8000"}) and personal({"BIND": "[::1]:8000"})
    assert personal({"BIND": "localhost:8000"}) and personal({"PERSONAL": True})
    assert not personal({"BIND": "0.0.0.0:8000"}) and not personal({})
    assert not personal({"BIND": "127.0.0.1:8000", "PERSONAL": False})


def test_picker_finds_a_local_server_and_the_pick_answers(make_app, chat_model, local_server):
    port = int(local_server.base_url.split(":")[2].split("/")[0])
    app = make_app(PERSONAL=True, DISCOVER_PORTS=[port, 9])
    client = app.test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    page = client.get("/").get_data(as_text=True)
    value = f"server|{local_server.base_url}|local-llm"
    assert '<label for="model-choice">Model</label>' in page
    assert f'<option value="{value}">local-llm — port {port} on this machine</option>' in page
    current, options = picker_options(client, fresh=True)
    assert current == "instance" and options[value]["group"] == "On this machine"
    assert pick(client, value).json == {"ok": True, "current": value, "name": "local-llm",
                                        "where": f"port {port} on this machine"}
    local_server.enqueue("Hello from the local server.")
    r = client.post("/chat", data={"message": "Which model are you?"}, headers=HTMX)
    assert "Hello from the local server." in r.get_data(as_text=True)
    assert '<span class="meta-model">local-llm</span>' in r.get_data(as_text=True)  # footer
    sent = local_server.completions()
    assert len(sent) == 1 and sent[0]["body"]["model"] == "local-llm"
    exchange = int(re.search(r'/chat/trace/(\d+)', r.get_data(as_text=True)).group(1))
    assert client.get(f"/chat/trace/{exchange}.json").json["trace"]["model"] == "local-llm"
    # the pick is kept on the server: a reload shows it, and the next turn uses it too
    assert f'<option value="{value}" selected>' in client.get("/").get_data(as_text=True)
    chat_model.calls.clear()
    assert pick(client, "instance").status_code == 200  # back in the same conversation
    client.post("/chat", data={"message": "And now?"}, headers=HTMX)
    assert len(local_server.completions()) == 1 and chat_model.calls


def test_pick_is_kept_per_conversation(make_app, local_server, chat_model):
    port = int(local_server.base_url.split(":")[2].split("/")[0])
    app = make_app(PERSONAL=True, DISCOVER_PORTS=[port])
    client = app.test_client()
    client.post("/register", data={"username": "bob", "password": "correct horse",
                                   "confirm": "correct horse"})
    local = f"server|{local_server.base_url}|local-llm"
    pick(client, local)
    client.post("/chat", data={"message": "First conversation."}, headers=HTMX)
    assert picker_options(client)[0] == local  # the new conversation kept its first pick
    pick(client, "instance", mode="temporary")  # a temporary chat's pick leaves it alone
    assert picker_options(client)[0] == local
    client.post("/chat/new")
    assert picker_options(client)[0] == "instance"  # a new one starts with the latest pick


def test_picked_server_gone_is_a_clear_error(make_app, local_server):
    port = int(local_server.base_url.split(":")[2].split("/")[0])
    app = make_app(PERSONAL=True, DISCOVER_PORTS=[port])
    client = app.test_client()
    client.post("/register", data={"username": "carol", "password": "correct horse",
                                   "confirm": "correct horse"})
    pick(client, f"server|{local_server.base_url}|local-llm")
    local_server.stop()
    discovery(app).servers(max_age=0)
    r = client.post("/chat", data={"message": "Still there?"}, headers=HTMX)
    assert r.status_code == 502 and "is not found on this machine any more" in r.get_data(
        as_text=True)
    assert "Picked earlier" in client.get("/").get_data(as_text=True)


def test_shared_instance_never_probes_and_refuses_loopback(make_app, local_server):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    accepted: list[object] = []

    def watch() -> None:
        try:
            accepted.append(listener.accept())
        except OSError:
            pass

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    port = listener.getsockname()[1]
    app = make_app(BIND="0.0.0.0:8000", PERSONAL="auto", ALLOW_PRIVATE_ENDPOINTS=False,
                   DISCOVER_PORTS=[port])
    client = app.test_client()
    client.post("/register", data={"username": "dave", "password": "correct horse",
                                   "confirm": "correct horse"})
    assert discovery(app) is None
    _, options = picker_options(client, fresh=True)
    assert all(o["group"] != "On this machine" for o in options.values())
    r = pick(client, f"server|{local_server.base_url}|local-llm")
    assert r.status_code == 400 and "not available here" in r.json["error"]
    saved = client.post("/settings", data={"base_url": local_server.base_url, "model": "m"})
    text = saved.get_data(as_text=True)
    assert saved.status_code == 400 and "private or local address (127.0.0.1)" in text
    assert "Other people use this server" in text
    tested = client.post("/settings/test.json", data={"base_url": local_server.base_url}).json
    assert tested["test"]["kind"] == "address" and "Other people use this server" in \
        tested["test"]["message"]
    watcher.join()
    listener.close()
    assert accepted == [] and local_server.requests == []
