"""Accessibility: axe-core on every page (desktop and phone, light and dark), a phone layout
that never scrolls sideways, keyboard flow on the chat page, one announcement per answer.

One account is filled once for the module (import, analysis, chat turns, a version); each
(size, theme) reuses one logged-in browser context.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .a11y_support import (
    SIZES,
    THEMES,
    WATCH_LIVE_REGIONS,
    Seeded,
    Views,
    axe_violations,
    logged_out_paths,
    seed_user,
    sideways_overflow,
)
from .conftest import WAIT, LiveServer, new_username, screenshot

pytestmark = pytest.mark.e2e

VIEWS = [(size, theme) for size in SIZES for theme in THEMES]


@pytest.fixture(scope="module")
def seeded(browser: Browser, live_server: LiveServer, fake_openai: Any) -> Iterator[Seeded]:
    context = browser.new_context(base_url=live_server.url, viewport=SIZES["desktop"])
    context.set_default_timeout(WAIT)
    try:
        name = new_username("a11y")
        live_server.app.config["OPERATORS"] = [name]  # /-/versions is audited too
        yield seed_user(context.new_page(), name, fake_openai)
    finally:
        context.close()


@pytest.fixture(scope="module")
def views(browser: Browser, live_server: LiveServer, seeded: Seeded) -> Iterator[Views]:
    expect.set_options(timeout=WAIT)  # a shared, busy machine: as generous as the journeys
    opened = Views(browser, live_server.url, seeded.username)
    yield opened
    opened.close()


def visit(page: Page, path: str) -> None:
    page.goto(path)
    page.wait_for_load_state("load")


@pytest.mark.parametrize(("size", "theme"), VIEWS, ids=[f"{s}-{t}" for s, t in VIEWS])
def test_axe_every_page_has_no_violations(views: Views, seeded: Seeded, size: str,
                                          theme: str, fake_openai: Any) -> None:
    found: dict[str, list[str]] = {}
    for logged_in, paths in ((True, seeded.paths), (False, logged_out_paths())):
        page = views.get(size, theme, logged_in)
        for name, path in paths.items():
            visit(page, path)
            if problems := axe_violations(page):
                found[f"{name} ({path})"] = problems
        assert page.js_errors == [], page.js_errors  # type: ignore[attr-defined]
    # A state the pages only reach by acting: the import preview (an htmx fragment).
    page = views.get(size, theme)
    visit(page, "/import")
    page.get_by_label("…or paste the dialogue").fill("User: Hello there\nAssistant: Hi!")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#import-preview table")).to_be_visible()
    if problems := axe_violations(page):
        found["import preview"] = problems
    # Settings after Test connection (issue 45): the result and the list of models to pick.
    visit(page, "/settings")
    page.get_by_label("Base URL").fill(fake_openai.base_url)
    page.get_by_role("button", name="Test connection").click()
    expect(page.locator("#endpoint-test")).to_contain_text("Connected")
    expect(page.locator("select#model")).to_be_visible()
    if problems := axe_violations(page):
        found["settings, connection tested"] = problems
    report = "\n".join(f"{where}:\n  " + "\n  ".join(lines) for where, lines in found.items())
    assert not found, f"axe-core violations at {size}, {theme}:\n{report}"


@pytest.mark.parametrize("theme", THEMES)
def test_phone_no_page_scrolls_sideways(views: Views, seeded: Seeded, theme: str) -> None:
    page = views.get("phone", theme)
    width = SIZES["phone"]["width"]
    wide = {}
    for name, path in seeded.paths.items():
        visit(page, path)
        assert page.evaluate("window.innerWidth") == width
        if extra := sideways_overflow(page):
            wide[name] = f"{width + extra} px"
    visit(page, "/memory")
    screenshot(page, f"phone-memory-{theme}")
    assert not wide, f"pages wider than the {width} px viewport: {wide}"


def test_phone_layout_header_tables_chat_and_heat(views: Views, seeded: Seeded) -> None:
    page = views.get("phone", "light")
    visit(page, "/")
    header = page.locator("header.topbar")
    assert header.evaluate("h => getComputedStyle(h).position") not in ("sticky", "fixed")
    assert header.bounding_box()["height"] <= 110, header.bounding_box()  # type: ignore[index]
    # Every nav entry is on screen (the nav wraps; nothing hides in a sideways scroll).
    nav = page.get_by_role("navigation", name="Main")
    assert nav.evaluate("n => n.scrollWidth <= n.clientWidth"), "the nav scrolls sideways"
    links = nav.get_by_role("link").all()
    assert [a.inner_text() for a in links] == ["Chat", "Import", "Analysis", "Memory",
                                               "Profile", "Versions", "Lab", "Settings"]
    for link in links:
        box = link.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= SIZES["phone"]["width"], (
            link.inner_text(), box)
        assert link.evaluate(  # visible, not clipped or covered
            "a => { const r = a.getBoundingClientRect();"
            " return a.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }")
    # The message box is on the first screen: no page scroll needed to write.
    box = page.get_by_label("Message", exact=True)
    expect(box).to_be_focused()
    assert page.evaluate("window.scrollY") == 0
    rect = box.bounding_box()
    assert rect and rect["y"] >= 0 and rect["y"] + rect["height"] <= SIZES["phone"]["height"]
    send = page.get_by_role("button", name="Send")
    assert (send.bounding_box() or {"y": 1e9})["y"] < SIZES["phone"]["height"]
    screenshot(page, "phone-chat")

    visit(page, "/memory")
    expect(page.locator("svg.heat-chart")).to_be_hidden()  # 7 px labels: the table instead
    wrap = page.locator(".table-wrap").first
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth"), "the table fits: nothing to test"
    expect(wrap).to_have_attribute("tabindex", "0")  # keyboard users can scroll it
    expect(wrap).to_have_attribute("aria-label", re.compile("scrolls sideways"))
    assert sideways_overflow(page) == 0

    # Every focus stop shows in the viewport, not under a header (22 stops on /memory).
    page.evaluate("window.scrollTo(0, 0)")
    hidden = []
    for _ in range(40):
        page.keyboard.press("Tab")
        info = page.evaluate("""() => {
          const el = document.activeElement, r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return {tag: el.tagName, text: (el.textContent || '').trim().slice(0, 30),
                  body: el === document.body, seen: !!hit && (el.contains(hit) || hit.contains(el))};
        }""")
        if info["body"]:
            break
        if not info["seen"]:
            hidden.append(info)
    assert not hidden, f"focused but covered or off-screen: {hidden}"


def test_phone_row_actions_are_in_view_without_scrolling(views: Views) -> None:
    page = views.get("phone", "light")
    width = SIZES["phone"]["width"]
    visit(page, "/settings")
    page.get_by_label("Token name").fill("phone check")
    page.get_by_role("button", name="Create token").click()
    visit(page, "/settings")
    visit(page, "/versions")
    screenshot(page, "phone-versions")
    actions = [("/versions", page.get_by_role("button", name="Restore").first),
               ("/settings", page.get_by_role("button", name="Revoke token phone check"))]
    for path, button in actions:
        visit(page, path)
        # scrolled down to the row (only vertically: the table box stays at its left edge)
        button.evaluate("b => window.scrollTo(0, b.getBoundingClientRect().top"
                        " + window.scrollY - 200)")
        wrap = button.locator("xpath=ancestor::div[contains(@class, 'table-wrap')]")
        assert wrap.evaluate("w => w.scrollLeft") == 0
        expect(button).to_be_visible()
        box = button.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (path, box)
        assert button.evaluate(  # on top, not under a neighbouring cell
            "b => { const r = b.getBoundingClientRect();"
            " return b.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }")
    screenshot(page, "phone-settings")


@pytest.mark.parametrize("size", list(SIZES))
def test_keyboard_chat_message_box_within_two_tab_stops(views: Views, size: str) -> None:
    page = views.get(size, "light")
    visit(page, "/")
    stops = 0
    while page.evaluate("document.activeElement.id") != "message" and stops < 2:
        page.keyboard.press("Tab")
        stops += 1
    assert page.evaluate("document.activeElement.id") == "message", (
        f"after {stops} Tab stops focus is on {page.evaluate('document.activeElement.outerHTML')}")
    # The textarea's focus ring is drawn (3 px, the focus colour).
    outline = page.get_by_label("Message", exact=True).evaluate(
        "t => { const s = getComputedStyle(t); return [s.outlineStyle, s.outlineWidth]; }")
    assert outline[0] != "none" and float(outline[1].removesuffix("px")) >= 2, outline

    # Elsewhere, the first Tab stop is a visible skip link that lands in the main content.
    visit(page, "/memory")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to main content")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box and box["y"] >= 0 and box["width"] > 1
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('main') !== null")
    # On the chat page the skip link goes straight to the message box.
    visit(page, "/")
    page.get_by_role("link", name="Skip to the message box").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Message", exact=True)).to_be_focused()


def test_keyboard_focus_is_visible_on_every_stop(views: Views) -> None:
    page = views.get("desktop", "dark")
    visit(page, "/memory")
    screenshot(page, "memory-dark")
    missing = []
    for _ in range(60):
        page.keyboard.press("Tab")
        info = page.evaluate("""() => {
          const el = document.activeElement, s = getComputedStyle(el);
          return {body: el === document.body, html: el.outerHTML.slice(0, 80),
                  ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2};
        }""")
        if info["body"]:
            break
        if not info["ring"]:
            missing.append(info["html"])
    assert not missing, f"focus stops without a visible focus ring: {missing}"


def test_answer_links_have_distinct_names(views: Views, seeded: Seeded) -> None:
    page = views.get("desktop", "light")
    visit(page, "/")
    links = page.locator("#messages a.why")
    expect(links).to_have_count(len(seeded.chats))
    for text in seeded.chats:
        name = "Why this answer: " + " ".join(text.split()[:6])
        expect(page.get_by_role("link", name=name, exact=True)).to_have_count(1)
    expect(page.get_by_role("link", name="why?", exact=True)).to_have_count(0)


def test_streamed_answer_keeps_focus_and_is_announced_once(views: Views, fake_openai: Any
                                                           ) -> None:
    page = views.get("desktop", "light")
    visit(page, "/")
    expect(page.locator("#messages")).not_to_have_attribute("aria-live", re.compile("."))
    reply = "Your dog Biscuit walks with you every morning, rain or shine, says my memory."
    fake_openai.token_delay = 0.08
    fake_openai.enqueue(reply)
    page.evaluate(WATCH_LIVE_REGIONS)
    finished = page.locator("#messages article.exchange:not(.streaming)")
    before = finished.count()
    page.get_by_label("Message", exact=True).fill("Who walks with me every morning?")
    page.get_by_role("button", name="Send").click()  # the pointer path: focus was on Send
    streaming = page.locator("#messages article.streaming .assistant .text")
    expect(streaming).to_contain_text("Biscuit")  # tokens are arriving
    expect(page.get_by_label("Message", exact=True)).to_be_focused()
    assert page.evaluate("document.querySelector('#messages article.streaming')"
                         ".closest('[aria-live],[role=status],[role=log],[role=alert]')") is None
    expect(finished).to_have_count(before + 1)
    expect(page.get_by_label("Message", exact=True)).to_be_focused()
    expect(page.locator("#answer-status")).to_have_text(f"Assistant: {reply}")
    announced = page.evaluate("window.__announced")
    assert announced == [f"Assistant: {reply}"], announced


def test_job_page_poll_keeps_its_heading_levels(views: Views) -> None:
    page = views.get("desktop", "light")
    job = page.request.get("/analysis.json").json()["job"]
    visit(page, f"/jobs/{job['id']}")
    expect(page.get_by_role("heading", name="Profile changes", level=2)).to_be_visible()
    polled = page.request.get(f"/jobs/{job['id']}?h=2", headers={"HX-Request": "true"}).text()
    assert "<h2>Profile changes</h2>" in polled and "<h3>" not in polled
    inline = page.request.get(f"/jobs/{job['id']}", headers={"HX-Request": "true"}).text()
    assert "<h3>Profile changes</h3>" in inline  # under the h2 of /analysis
