"""Issue 45: with nothing configured, a model server on this machine is found, picked in the
chat, answers (streamed), is named under the answer; switching back to the embedded model works."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from webapp import create_app

from .conftest import ENGINE, PASSWORD, LiveServer, exchanges, new_username, screenshot, send_chat
from .fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e


@pytest.fixture
def personal(tmp_path: Any, embedder: Any) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    """A personal instance with no model configured, and a scripted server on a local port."""
    local = FakeOpenAI(model="local-llm").start()
    port = int(local.base_url.rsplit(":", 1)[1].split("/")[0])
    app = create_app({"ENV": "testing", "WTF_CSRF_ENABLED": True, "SECRET_KEY": "e2e-not-secret",
                      "DATA_DIR": str(tmp_path / "data"), "EMBEDDER": embedder,
                      "ENGINE_SETTINGS": dict(ENGINE), "PERSONAL": True,
                      "DISCOVER_PORTS": [port]})
    server = LiveServer(app).start()
    yield server, local
    server.stop()
    app.extensions["memplay_workers"].stop()
    local.stop()


def test_local_server_is_found_picked_named_and_left(page: Page, personal) -> None:
    server, local = personal
    name = new_username("picker")
    page.goto(f"{server.url}/register")
    page.get_by_label("Username", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Repeat password").fill(PASSWORD)
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".topbar .who")).to_have_text(name)
    page.goto(f"{server.url}/")

    picker = page.get_by_label("Model", exact=True)
    expect(picker.locator("optgroup[label='On this machine'] option")).to_have_text(
        [f"local-llm — port {local.base_url.rsplit(':', 1)[1].split('/')[0]} on this machine"])
    expect(page.locator(".model-name")).to_have_text("embedded local model (SmolLM2-135M-Instruct)")
    picker.focus()  # the keyboard path: focus lists the models again, arrows pick
    picker.select_option(label=picker.locator("option", has_text="local-llm").inner_text())
    expect(page.locator("#model-status")).to_have_text(
        "This conversation now uses local-llm (port "
        f"{local.base_url.rsplit(':', 1)[1].split('/')[0]} on this machine).")
    expect(page.locator(".model-name")).to_have_text("local-llm")

    local.token_delay = 0.05
    local.enqueue("Streamed from the server on this machine.")
    item = send_chat(page, "Which model is answering me now?")
    expect(item.locator(".assistant .md")).to_have_text("Streamed from the server on this machine.")
    expect(item.locator(".meta-model")).to_have_text("local-llm")
    sent = local.completions()
    assert len(sent) == 1 and sent[0]["body"]["model"] == "local-llm" and sent[0]["body"]["stream"]
    screenshot(page, "chat-model-picker")

    page.reload()  # the pick is the conversation's, kept on the server
    expect(page.get_by_label("Model", exact=True)).to_have_value(
        f"server|{local.base_url}|local-llm")
    page.get_by_label("Model", exact=True).select_option("embedded")
    expect(page.locator(".model-name")).to_have_text("embedded local model (SmolLM2-135M-Instruct)")
    item = send_chat(page, "Tell me a short joke about the sea.")  # the model's to answer
    expect(item.locator(".meta-model")).to_contain_text("SmolLM2-135M-Instruct")
    expect(exchanges(page)).to_have_count(2)
    assert len(local.completions()) == 1  # the embedded model answered, not the server
