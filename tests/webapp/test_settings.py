"""Per-user endpoint settings: stored server-side, the API key never sent back."""

from __future__ import annotations

from memoryos_core.llm import OpenAIChatModel
from webapp.models import user_chat_model

SECRET = "sk-very-secret-key-123"


def test_settings_key_never_appears_in_any_response(app, client, user, chat_model):
    r = client.post("/settings", data={"base_url": "http://127.0.0.1:9/v1", "model": "tiny",
                                       "api_key": SECRET})
    assert r.status_code == 302
    bodies = []
    for url in ("/settings", "/settings.json", "/", "/-/settings", "/-/settings.json",
                "/memory.json", "/profile.json", "/versions.json", "/import", "/analysis"):
        resp = client.get(url)
        assert resp.status_code == 200, url
        bodies.append(resp.get_data(as_text=True) + str(resp.headers))
    assert all(SECRET not in b for b in bodies)
    page = client.get("/settings").get_data(as_text=True)
    assert "A key is set" in page and "tiny" in page
    assert client.get("/settings.json").json["endpoint"] == {
        "base_url": "http://127.0.0.1:9/v1", "model": "tiny", "key_set": True, "configured": True}
    with app.test_request_context():
        from webapp.storage.users import User

        model = user_chat_model(User(1, "alice", 0))
        assert isinstance(model, OpenAIChatModel) and model.name == "tiny"


def test_settings_blank_key_keeps_it_and_clear_forgets(client, user):
    client.post("/settings", data={"base_url": "http://h:1/v1", "model": "m", "api_key": SECRET})
    client.post("/settings", data={"base_url": "http://h:1/v1", "model": "m2", "api_key": ""})
    assert client.get("/settings.json").json["endpoint"]["key_set"] is True
    client.post("/settings", data={"base_url": "", "model": "", "clear_key": "y"})
    assert client.get("/settings.json").json["endpoint"] == {
        "base_url": "", "model": "", "key_set": False, "configured": False}


def test_settings_bad_input(client, user):
    r = client.post("/settings", data={"base_url": "not a url", "model": "m"})
    assert r.status_code == 400
    r = client.post("/settings.json", data={"base_url": "http://h:1/v1", "model": ""})
    assert r.status_code == 400 and r.json["ok"] is False


def test_settings_unreachable_endpoint_is_chat_error(client, user, engine):
    client.post("/settings", data={"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    r = client.post("/chat", data={"message": "hi"}, headers={"HX-Request": "true"})
    assert r.status_code == 502 and b"alert-error" in r.data
    assert engine.state(user)["short_term"]["count"] == 0
