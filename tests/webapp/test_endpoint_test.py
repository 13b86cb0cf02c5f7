"""Settings' Test connection: the endpoint's models to pick, or why not in a sentence; no save."""

from __future__ import annotations

import pytest

from tests.core.test_discovery import MODELS, Canned, closed_port

HTMX = {"HX-Request": "true"}


@pytest.fixture
def servers():
    made: list[Canned] = []

    def serve(**kwargs):
        made.append(Canned(**kwargs))
        return made[-1]

    yield serve
    for server in made:
        server.close()


def ask(client, base_url, api_key="", model=""):
    r = client.post("/settings/test", data={"base_url": base_url, "api_key": api_key,
                                            "model": model}, headers=HTMX)
    assert r.status_code == 200
    return r.get_data(as_text=True)


def test_test_connection_lists_models_to_pick_and_saves_nothing(client, user, servers):
    server = servers(body=MODELS, key="sk-right")
    html = ask(client, server.base_url, "sk-right", model="llama3.2:3b")
    assert "Connected: the endpoint serves 2 models." in html and "nothing is saved yet" in html
    assert '<div id="model-field" hx-swap-oob="true">' in html  # the typed field becomes a list
    assert '<option value="llama3.2:3b" selected>' in html
    assert client.get("/settings.json").json["endpoint"]["configured"] is False
    data = client.post("/settings/test.json", data={"base_url": server.base_url,
                                                    "api_key": "sk-right"}).json
    assert data["ok"] is True and data["test"]["models"] == ["llama3.2:3b",
                                                             "nomic-embed-text:latest"]


def test_test_connection_uses_the_stored_key_for_the_stored_url(client, user, servers):
    server = servers(body=MODELS, key="sk-right")
    client.post("/settings", data={"base_url": server.base_url, "model": "m",
                                   "api_key": "sk-right"})
    assert "Connected" in ask(client, server.base_url)  # key left empty: the stored one
    other = servers(body=MODELS, key="sk-right")
    assert "refused the API key" in ask(client, other.base_url)  # never sent elsewhere


def test_test_connection_failures_are_sentences(client, user, servers):
    wrong = ask(client, servers(body=MODELS, key="sk-right").base_url, "sk-wrong")
    assert "The endpoint refused the API key (HTTP 401): check the key" in wrong
    missing = servers(status=404, body={"error": "no route"})
    path = ask(client, f"http://127.0.0.1:{missing.port}")
    assert "(HTTP 404): the base URL&#39;s path is probably wrong." in path
    assert f"try http://127.0.0.1:{missing.port}/v1" in path
    page = ask(client, servers(body=b"<!doctype html><title>Home</title>",
                                  content_type="text/html").base_url)
    assert "answered with a web page (HTML), not an OpenAI-compatible model list" in page
    port = closed_port()
    assert f"Nothing is listening at 127.0.0.1:{port} (connection refused)" in ask(
        client, f"http://127.0.0.1:{port}/v1")
    assert "Enter an http(s) URL." in ask(client, "not a url")
    assert "alert-error" in wrong and "model-field" not in wrong


def test_test_connection_without_script_renders_the_page(client, user, servers):
    server = servers(body=MODELS)
    r = client.post("/settings/test", data={"base_url": server.base_url, "api_key": "sk-x",
                                            "model": ""})
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "Connected" in html and '<select id="model" name="model">' in html
    assert "Type the API key again before saving" in html and "sk-x" not in html
