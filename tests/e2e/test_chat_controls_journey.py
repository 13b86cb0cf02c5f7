"""The chat people expect (issue 31), in Chromium, controls found by their accessible names:
Stop, Copy, Regenerate, Edit, New chat, Temporary chat, Memory off, "Memory updated"."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .a11y_support import axe_in_every_view
from .conftest import exchanges, memory_counts, screenshot, send_chat

pytestmark = pytest.mark.e2e
LONG = " ".join(f"word{n}" for n in range(60))


def wait_for(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_stop_reaches_the_endpoint_and_nothing_is_stored(page: Page, user, fake_openai) -> None:
    page.goto("/")
    fake_openai.token_delay = 0.25
    fake_openai.enqueue(LONG, LONG)
    box = page.get_by_label("Message", exact=True)
    box.fill("Tell me a long story")
    box.press("Enter")
    live = page.locator("#messages .exchange.streaming")
    expect(live.locator(".user .text")).to_have_text("Tell me a long story")  # at once
    expect(live.locator(".turn-status")).to_be_visible()
    expect(live.locator(".assistant .text")).to_contain_text("word2")
    page.get_by_role("button", name="Stop").click()
    expect(live.locator(".stopped-note")).to_have_text("Stopped — not stored.")
    wait_for(lambda: len(fake_openai.hangups) == 1)  # the endpoint saw the stream closed
    expect(page.get_by_role("button", name="Stop")).to_be_hidden()
    # Escape stops too
    box.fill("Another long one")
    box.press("Enter")
    expect(page.locator("#messages .exchange.streaming").last.locator(".assistant .text")
           ).to_contain_text("word2")
    page.keyboard.press("Escape")
    wait_for(lambda: len(fake_openai.hangups) == 2)
    time.sleep(1.0)  # anything still being made would be stored by now
    page.reload()
    expect(exchanges(page)).to_have_count(0)
    assert "word5" not in page.locator("#messages").inner_text()
    assert memory_counts(page)["short_term"] == 0


def test_markdown_renders_and_copy_puts_the_source_on_the_clipboard(page: Page, user,
                                                                   fake_openai) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    source = "Two steps:\n\n- boil water\n- add tea\n\n```\nprint('brewed')\n```"
    fake_openai.enqueue(source)
    page.goto("/")
    item = send_chat(page, "How do I make tea?")
    expect(item.locator(".md ul li")).to_have_count(2)
    expect(item.locator(".md pre code")).to_have_text("print('brewed')")
    expect(item.locator(".meta-speed")).to_have_text(re.compile(r"^[\d.]+ tokens/s$"))
    expect(item.locator(".meta-model")).to_have_text("fake-gpt")
    copy = item.get_by_role("button", name="Copy the answer to: How do I make tea?")
    copy.click()  # named for its answer (aria-label); the text says it worked, and is said
    expect(copy).to_have_text("Copied")
    expect(page.locator("#answer-status")).to_have_text("Copied the answer.")
    assert page.evaluate("navigator.clipboard.readText()") == source
    page.reload()  # the same bubble after a reload: label, figures, rendering
    again = exchanges(page).last
    expect(again.locator(".who").last).to_have_text("Assistant")
    expect(again.locator(".meta-speed")).to_have_text(re.compile(r"^[\d.]+ tokens/s$"))
    expect(again.locator(".md pre code")).to_have_text("print('brewed')")


def test_regenerate_replaces_the_answer_and_edit_replaces_the_message(page: Page, user,
                                                                     fake_openai) -> None:
    fake_openai.enqueue("Paris is lovely.", "First answer.", "Second answer.", "Edited answer.")
    page.goto("/")
    send_chat(page, "Where should I travel?")
    send_chat(page, "What about food?")
    last = exchanges(page).last
    expect(exchanges(page).first.get_by_role("button", name="Regenerate")).to_have_count(0)
    last.get_by_role("button", name="Regenerate").click()
    expect(exchanges(page).last.locator(".assistant .md")).to_have_text("Second answer.")
    expect(exchanges(page)).to_have_count(2)
    assert memory_counts(page)["short_term"] == 2  # one exchange, not two
    why = exchanges(page).last.locator("a.why").get_attribute("href")  # the user's number
    trace = page.request.get(f"{why}.json").json()["trace"]
    assert [p["answer"] for p in trace["previous_answers"]] == ["First answer."]

    exchanges(page).last.get_by_role("button", name="Edit").click()
    box = page.get_by_label("Message", exact=True)
    expect(box).to_have_value("What about food?")
    box.fill("What about wine?")
    box.press("Enter")
    expect(exchanges(page).last.locator(".user .text")).to_have_text("What about wine?")
    expect(exchanges(page).last.locator(".assistant .md")).to_have_text("Edited answer.")
    expect(exchanges(page)).to_have_count(2)
    page.reload()
    expect(exchanges(page)).to_have_count(2)
    expect(exchanges(page).last.locator(".user .text")).to_have_text("What about wine?")
    assert memory_counts(page)["short_term"] == 2


def test_memory_updated_shows_on_the_turn_an_exchange_moves(page: Page, user,
                                                            fake_openai) -> None:
    page.goto("/")
    for n in range(7):  # short_term_capacity is 7 in the browser tests
        item = send_chat(page, f"Fact number {n} about my garden")
        expect(item.locator(".memory-updated")).to_have_count(0)
    item = send_chat(page, "One more fact")
    note = item.locator(".memory-updated")
    expect(note).to_contain_text("Memory updated")
    link = note.get_by_role("link", name=re.compile("Fact number 0"))
    link.click()
    expect(page.get_by_text("Fact number 0 about my garden").first).to_be_visible()


PLANTED = ["tomatoes by the fence", "basil in a clay pot", "three apple trees", "garlic in rows",
           "sunflowers by the wall", "mint near the tap", "a row of leeks", "blue potatoes",
           "lavender along the path", "a fig tree", "red onions", "sweet peas on a frame",
           "rhubarb in the corner", "two pear trees", "chives in a box", "pumpkins on the heap",
           "carrots in the sand bed", "a walnut tree", "strawberries in pots", "runner beans"]


def test_memory_updated_names_a_fact_learned_and_forget_this_removes_it(page: Page, user,
                                                                        fake_openai) -> None:
    page.goto("/")
    for thing in PLANTED:  # a segment gets hot (pages, visits) and is analysed within these
        item = send_chat(page, f"I planted {thing} in my garden this spring.")
        forget = item.get_by_role("button", name=re.compile("^Forget this fact"))
        if forget.count():
            break
    else:
        pytest.fail("no turn learned a fact")
    note = item.locator(".memory-updated")
    expect(note).to_contain_text("learned")
    learned = note.locator("li", has=page.get_by_role(
        "button", name=re.compile("^Forget this fact"))).first
    link = learned.get_by_role("link").first
    anchor = (link.get_attribute("href") or "").split("#")[-1]
    assert anchor.startswith("fact-"), anchor
    text = link.inner_text().strip("“”")
    memory = page.request.get("/memory").text()  # the link's place holds the fact
    assert re.search(rf'<li id="{anchor}">\s*{re.escape(text)}', memory), anchor
    axe_in_every_view(page, "the chat with a Memory updated note")
    learned.get_by_role("button").click()  # one click: the fact goes, the chat comes back
    expect(page.locator(".flash")).to_contain_text("Fact deleted.")
    expect(page.get_by_label("Message", exact=True)).to_be_visible()
    page.goto("/memory")
    expect(page.locator(f"#{anchor}")).to_have_count(0)


def test_new_chat_keeps_the_earlier_conversation_listed_and_readable(page: Page, user,
                                                                      fake_openai) -> None:
    page.goto("/")
    send_chat(page, "My first conversation starts here")
    send_chat(page, "And it goes on")
    page.get_by_role("button", name="New chat").click()
    expect(exchanges(page)).to_have_count(0)
    assert memory_counts(page)["short_term"] == 0
    send_chat(page, "A second conversation")
    listed = page.locator(".conversation-list li")
    expect(listed).to_have_count(2)
    page.get_by_role("link", name="My first conversation starts here").click()
    expect(page.get_by_role("heading", name="My first conversation starts here")).to_be_visible()
    expect(exchanges(page)).to_have_count(2)
    expect(page.get_by_label("Message", exact=True)).to_have_count(0)  # read-only
    screenshot(page, "conversation")


def test_temporary_chat_leaves_no_byte_on_disk_and_is_not_exported(page: Page, user,
                                                                   fake_openai,
                                                                   live_server) -> None:
    marker = f"zebra{int(time.time() * 1000)}"
    page.goto("/")
    send_chat(page, "A stored hello")
    page.get_by_role("button", name="Temporary chat").click()
    expect(page.get_by_role("button", name="Temporary chat")).to_have_attribute(
        "aria-pressed", "true")
    expect(page.locator("#mode-line")).to_contain_text("nothing you write here is stored")
    fake_openai.enqueue(f"Noted {marker}.", "Still temporary.")
    item = send_chat(page, f"My secret code is {marker}")
    expect(item.locator(".meta")).to_contain_text("not stored")
    send_chat(page, "What did I just say?")
    last_prompt = str(fake_openai.completions()[-1]["body"]["messages"])
    assert marker in last_prompt  # the chat's own turns, kept by the page
    assert memory_counts(page)["short_term"] == 1
    export = page.request.get("/export.json").text()
    assert marker not in export
    for path in Path(live_server.app.config["DATA_DIR"]).rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), path
    page.reload()  # leaving ends it
    expect(exchanges(page)).to_have_count(0)
    page.get_by_role("button", name="Memory off").click()
    expect(page.locator("#mode-line")).to_contain_text("neither reads nor writes memory")
    fake_openai.enqueue("I have no memory here.")
    send_chat(page, "Do you know me?")
    prompt = str(fake_openai.completions()[-1]["body"]["messages"])
    assert "A stored hello" not in prompt
    assert memory_counts(page)["short_term"] == 1
