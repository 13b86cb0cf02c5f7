"""Journeys 2 and 7: ten chat turns fill the memory tiers; a failing model endpoint stores nothing."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import exchanges, memory_counts, screenshot, send_chat

pytestmark = pytest.mark.e2e

TOPICS = [
    "I started learning the cello last spring.",
    "My cello teacher is called Ingrid and she is strict.",
    "I practise scales on the cello every morning before work.",
    "My sister Noor lives in Lisbon and paints murals.",
    "I am planning a trip to Lisbon to visit Noor in June.",
    "I bake sourdough bread every Sunday.",
    "My sourdough starter is named Gerald.",
    "At work I maintain a payroll system written in COBOL.",
    "I want to run a half marathon next autumn.",
    "What do you remember about my cello lessons?",
]


def gauge(page: Page, label: str):
    return page.get_by_role("meter", name=label)


def test_chat_ten_turns_fill_memory_and_explain_answers(page: Page, user, fake_openai) -> None:
    page.goto("/")
    expect(page.locator(".model-name")).to_have_text("fake-gpt")
    expect(gauge(page, "Exchanges").locator(".num")).to_have_text("0 / 7")
    fake_openai.enqueue(*[f"Answer {n}: thanks for telling me." for n in range(1, 10)],
                        "You take **cello** lessons with Ingrid and practise scales daily.")
    for n, text in enumerate(TOPICS, start=1):
        item = send_chat(page, text)
        expect(item.locator(".user .text")).to_have_text(text)
        expect(exchanges(page)).to_have_count(n)
    last = exchanges(page).last
    expect(last.locator(".assistant .md strong")).to_have_text("cello")  # Markdown rendered
    assert len(fake_openai.completions()) == 10
    assert all(r["body"].get("stream") for r in fake_openai.completions())  # the SSE path
    assert fake_openai.completions()[-1]["body"]["model"] == "fake-gpt"

    # the gauge follows the chat live (out-of-band part of each answer)
    expect(gauge(page, "Exchanges").locator(".num")).to_have_text("7 / 7")
    page.reload()  # the server-rendered gauge: short-term memory is at capacity
    expect(gauge(page, "Exchanges")).to_have_attribute("aria-valuenow", "7")
    expect(gauge(page, "Exchanges").locator(".num")).to_have_text("7 / 7")
    expect(exchanges(page)).to_have_count(10)  # the chat shows recent history, all tiers
    screenshot(page, "chat")

    page.get_by_role("navigation").get_by_role("link", name="Memory").click()
    expect(page).to_have_url(re.compile(r"/memory$"))
    expect(gauge(page, "Short-term exchanges").locator(".num")).to_have_text("7 / 7")
    segments = page.locator("table.table").first.locator("tbody tr")
    expect(segments.first).to_be_visible()
    counts = memory_counts(page)
    assert counts["short_term"] == 7 and counts["segments"] >= 1
    assert counts["pages"] == 3 and counts["pending"] <= 1  # 10 turns - 7 kept short-term
    expect(page.locator("svg.heat-chart rect").first).to_be_visible()
    screenshot(page, "memory")
    segments.first.locator("a").first.click()
    expect(page.get_by_role("heading", name=re.compile(r"^Segment \d+"))).to_be_visible()
    expect(page.locator("article.page-item").first).to_be_visible()
    oldest = re.compile("|".join(re.escape(t) for t in TOPICS[:3]))  # moved out of short-term
    expect(page.locator("article.page-item .text").first).to_have_text(oldest)
    screenshot(page, "segment")

    page.goto("/")
    exchanges(page).last.get_by_role("link", name=re.compile(r"^Why this answer: ")).click()
    expect(page.get_by_role("heading", name=re.compile("Why this answer"))).to_be_visible()
    expect(page.get_by_text(TOPICS[-1]).first).to_be_visible()
    pages_card = page.locator("section.card").filter(
        has=page.get_by_role("heading", name="Pages", exact=True))
    used = pages_card.locator("tbody tr").filter(has_text=re.compile(r"yes$"))
    expect(used.first).to_be_visible()
    expect(pages_card).to_contain_text("cello")
    expect(page.locator(".ctx-bar .ctx-part").first).to_be_visible()
    expect(page.get_by_text("built-in method")).to_have_count(0)  # prompt parts show counts
    screenshot(page, "trace")
    link = used.first.get_by_role("link")
    page_id = link.inner_text()
    link.click()
    expect(page.get_by_role("heading", name=re.compile(rf"^Page {page_id}"))).to_be_visible()


def test_chat_failing_model_shows_error_and_stores_nothing(page: Page, user, fake_openai
                                                          ) -> None:
    page.goto("/")
    send_chat(page, "Hello there, I like chess.")
    before = memory_counts(page)
    assert before["short_term"] == 1

    fake_openai.fail_with(500)
    message = "Please remember that my bike is green."
    box = page.get_by_label("Message", exact=True)
    box.fill(message)
    box.press("Enter")
    error = page.locator("#messages .alert-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Chat model failed")
    expect(error).to_contain_text("500")
    expect(box).to_have_value(message)  # the text is given back to retry
    expect(exchanges(page)).to_have_count(1)
    assert len(fake_openai.completions()) >= 1
    screenshot(page, "chat-model-error")

    assert memory_counts(page) == before
    page.reload()
    expect(exchanges(page)).to_have_count(1)
    expect(page.get_by_text("my bike is green")).to_have_count(0)
    page.goto("/memory")
    expect(page.get_by_text("my bike is green")).to_have_count(0)

    fake_openai.reset()  # the endpoint recovers: the same message now goes through
    page.goto("/")
    send_chat(page, message)
    assert memory_counts(page)["short_term"] == 2
