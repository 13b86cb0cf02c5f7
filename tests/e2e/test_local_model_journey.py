"""The embedded local model (SmolLM2 via `memoryos serve-model`) answers a chat in the browser.

The model is served by memoryos_core.hosts.serve on 127.0.0.1 in a thread; the user points their
chat at it on the settings page, so the real `openai` client talks to the real model.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from memoryos_core.hosts.serve import make_server

from .conftest import screenshot, send_chat

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def local_model_url() -> Iterator[str]:
    """`serve_model`'s server (the embedded model) on a free port, in a background thread."""
    server = make_server(0, "127.0.0.1")
    host, port = server.server_address[:2]
    thread = threading.Thread(target=server.serve_forever, name="serve-model", daemon=True)
    thread.start()
    yield f"http://{host!s}:{port}/v1"
    server.shutdown()
    server.server_close()
    from memoryos_core.llm import local

    for llama in list(local._loaded.values()):  # noqa: SLF001 - free it now, not at exit
        llama.close()
    local._loaded.clear()  # noqa: SLF001


def test_local_model_answers_a_chat_message(page: Page, user, local_model_url, fake_openai
                                            ) -> None:
    page.get_by_role("navigation").get_by_role("link", name="Settings").click()
    expect(page.get_by_role("heading", name="Your chat model")).to_be_visible()
    page.get_by_label("Base URL").fill(local_model_url)
    page.get_by_label("Model name").fill("smollm2")
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".flash")).to_have_text("Settings saved.")
    screenshot(page, "settings")

    page.get_by_role("navigation").get_by_role("link", name="Chat").click()
    expect(page.locator(".model-name")).to_have_text("smollm2")
    expect(page.locator(".model-line")).to_contain_text("your endpoint")
    item = send_chat(page, "Hello! Please tell me a short fact about the sun.", timeout=240_000)
    answer = item.locator(".assistant .md").inner_text().strip()
    assert re.search(r"\w", answer), f"an empty answer: {answer!r}"
    expect(item.locator(".assistant .meta-model")).to_contain_text("smollm2")
    assert fake_openai.completions() == []  # the scripted endpoint was not asked
    screenshot(page, "chat-local-model")
