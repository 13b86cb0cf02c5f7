"""MCP over Streamable HTTP at /mcp: a real HTTP server, the SDK's client, per-user tokens."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from werkzeug.serving import make_server

from webapp import create_app
from webapp.storage import accounts


@pytest.fixture
def server(tmp_path, embedder, chat_model):
    """The app on a real port (threaded werkzeug) answering chats with the scripted model."""
    app = create_app({"ENV": "testing", "TESTING": True, "WTF_CSRF_ENABLED": False,
                      "SECRET_KEY": "t", "DATA_DIR": str(tmp_path / "data"),
                      "EMBEDDER": embedder, "CHAT_MODEL": chat_model, "MAINTENANCE": "inline",
                      "ENGINE_SETTINGS": {"consolidation": "extractive",
                                          "analysis": "extractive"}})
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{http.server_port}", chat_model
    http.shutdown()
    http.server_close()


def account(app: Any, name: str) -> tuple[Any, str]:
    user = app.extensions["memplay_users"].create(name, "correct horse battery")
    token, _ = app.extensions["memplay_tokens"].create(user.id, f"{name}'s agent")
    return user, token


def connect(url: str, token: str | None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(streamable_http_client(url + "/mcp", http_client=httpx2.AsyncClient(
        headers=headers, timeout=60)))


def in_thread(fn: Any) -> Any:
    """anyio.run in a thread of its own: the browser tests leave an event loop in this one."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = anyio.run(fn)
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


def test_mcp_http_two_users_tokens_isolated(server):
    app, url, fake = server
    alice, alice_token = account(app, "alice")
    bob, bob_token = account(app, "bob")

    async def run() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with connect(url, alice_token) as client:
            seen["tools"] = {t.name for t in (await client.list_tools()).tools}
            await client.call_tool("add_memory", {
                "user_input": "My sister Ines lives in Lisbon.",
                "agent_response": "Lisbon is beautiful."})
            seen["alice"] = payload(await client.call_tool("retrieve_memory",
                                                           {"query": "Where does Ines live?"}))
            fake.enqueue("You told me Ines lives in Lisbon.")
            seen["chat"] = payload(await client.call_tool("chat", {
                "message": "Where does my sister live?"}))
        async with connect(url, bob_token) as client:
            seen["bob"] = payload(await client.call_tool("retrieve_memory",
                                                         {"query": "Where does Ines live?"}))
            seen["bob_state"] = payload(await client.call_tool("memory_state", {}))
            bad = await client.call_tool("restore_version", {"version": "seven"})
            seen["bad"] = bad.is_error, " ".join(c.text for c in bad.content)
        return seen

    seen = in_thread(run)
    assert {"add_memory", "retrieve_memory", "get_user_profile", "chat"} <= seen["tools"]
    assert [m["user_input"] for m in seen["alice"]["short_term_memory"]] == [
        "My sister Ines lives in Lisbon."]
    assert seen["chat"]["answer"] == "You told me Ines lives in Lisbon."
    assert seen["chat"]["model"] == "scripted"
    assert "Ines" in json.dumps(fake.calls[-1]["messages"])  # alice's memory was in the prompt
    assert seen["bob"]["short_term_memory"] == [] and seen["bob"]["retrieved_pages"] == []
    assert seen["bob_state"]["short_term"]["count"] == 0
    assert seen["bad"][0] and "version" in seen["bad"][1]
    engine = app.extensions["memoryos"]
    assert engine.state(alice.engine_id)["short_term"]["count"] == 2  # the add, then the chat
    assert engine.state(bob.engine_id)["short_term"]["count"] == 0


def test_mcp_http_refuses_missing_unknown_and_revoked_tokens(server):
    app, url, _ = server
    alice, token = account(app, "alice")
    app.extensions["memplay_tokens"].revoke(alice.id, 1)

    for bad in (None, token, "mos_not-a-real-token"):
        async def attempt(tok: str | None = bad) -> None:
            async with connect(url, tok) as client:
                await client.call_tool("add_memory", {"user_input": "x", "agent_response": "y"})

        with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in its own errors
            in_thread(attempt)
    response = httpx2.post(url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                           headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "this access token is unknown or was revoked"
    assert app.extensions["memoryos"].state(alice.engine_id)["short_term"]["count"] == 0


def test_settings_tokens_created_shown_once_listed_revoked(app, client, auth):
    auth.register("carol")
    page = client.post("/settings/tokens", data={"name": "laptop agent"})
    assert page.status_code == 201 and page.headers["Cache-Control"] == "no-store"
    token = re.search(r'value="(mos_[^"]+)"', page.get_data(as_text=True)).group(1)
    listing = client.get("/settings").get_data(as_text=True)
    assert "laptop agent" in listing and token not in listing and token[:8] in listing
    stored = app.extensions["memplay_tokens"]
    assert stored.user_for(token) is not None
    hashes = accounts.token_hashes(stored.store)
    assert token not in json.dumps(hashes)  # only the hash is kept
    tokens = client.get("/settings/tokens.json").get_json()["tokens"]
    assert [t["name"] for t in tokens] == ["laptop agent"]
    assert client.post(f"/settings/tokens/{tokens[0]['id']}/revoke").status_code == 302
    assert stored.user_for(token) is None
    assert client.post(f"/settings/tokens/{tokens[0]['id']}/revoke").status_code == 404
