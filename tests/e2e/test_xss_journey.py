"""Journey 6: `<script>` and `<img onerror>` in a message, an answer and an import render as text."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import exchanges, screenshot, send_chat, wait_job_done

pytestmark = pytest.mark.e2e

SCRIPT = "<script>window.__xss='script';alert('xss-script')</script>"
IMG = "<img src=x onerror=\"window.__xss='img';alert('xss-img')\">"
ANSWER = f"Here is what you sent: {IMG} and {SCRIPT} — shown as text."


def assert_inert(page: Page) -> None:
    """Nothing ran and nothing was injected (dialogs are checked by the `page` fixture)."""
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("img").count() == 0
    assert page.evaluate("document.querySelectorAll('script:not([src])').length") == 0


def test_xss_payloads_in_chat_and_import_render_as_text(page: Page, user, fake_openai) -> None:
    message = f"Hi {SCRIPT} and {IMG} bye"
    fake_openai.enqueue(ANSWER)
    page.goto("/")
    item = send_chat(page, message)
    expect(item.locator(".user .text")).to_have_text(message)
    expect(item.locator(".assistant .md")).to_contain_text(IMG)
    expect(item.locator(".assistant .md")).to_contain_text(SCRIPT)
    assert_inert(page)

    page.reload()  # the server-rendered history
    expect(exchanges(page).last.locator(".user .text")).to_have_text(message)
    expect(exchanges(page).last.locator(".assistant .md")).to_contain_text(IMG)
    assert_inert(page)
    screenshot(page, "xss-chat")

    exchanges(page).last.get_by_role("link", name=re.compile(r"^Why this answer: ")).click()
    expect(page.locator("q")).to_have_text(message)
    assert_inert(page)

    page.goto("/import")
    dialogue = (f"User: {SCRIPT} imported question\nAssistant: {IMG} imported answer\n"
                f"User: second {IMG}\nAssistant: second {SCRIPT}")
    page.get_by_label("…or paste the dialogue").fill(dialogue)
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("#import-preview .preview")
    expect(preview.locator("table")).to_contain_text(f"{SCRIPT} imported question")
    expect(preview.locator("table")).to_contain_text(f"{IMG} imported answer")
    assert_inert(page)
    preview.get_by_role("button", name="Import 2 exchanges").click()
    wait_job_done(page, "#import-job")
    assert_inert(page)

    page.goto("/memory")
    queue = page.locator("section.card").filter(
        has=page.get_by_role("heading", name="Short-term queue"))
    expect(queue).to_contain_text(f"{SCRIPT} imported question")
    expect(queue).to_contain_text(f"second {IMG}")
    assert_inert(page)
    screenshot(page, "xss-memory")

    queue.locator("li").filter(has_text="imported question").get_by_role("link").click()
    expect(page.locator(".bubble.user .text")).to_have_text(f"{SCRIPT} imported question")
    expect(page.locator(".bubble.assistant .text")).to_have_text(f"{IMG} imported answer")
    assert_inert(page)

    page.goto("/")
    expect(exchanges(page)).to_have_count(1)  # the chat; the import is a conversation of its own
    assert_inert(page)
    page.locator(".conversation-list a").filter(has_text="imported question").click()
    expect(exchanges(page)).to_have_count(2)
    expect(exchanges(page).last.locator(".user .text")).to_have_text(f"second {IMG}")
    expect(exchanges(page).last.locator(".assistant .md")).to_contain_text(f"second {SCRIPT}")
    assert_inert(page)
