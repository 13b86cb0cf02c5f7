"""Journey 1: register, log out, log in; a wrong password; a second user sees nothing of the first."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import (
    exchanges,
    login,
    logout,
    memory_counts,
    new_username,
    register,
    screenshot,
    send_chat,
)

pytestmark = pytest.mark.e2e


def test_auth_register_logout_login_and_isolation(page: Page, live_server) -> None:
    alice = new_username("alice")
    register(page, alice)
    expect(page.get_by_text("Welcome! Your memory starts empty.")).to_be_visible()
    expect(page.locator("#empty-hint")).to_be_visible()

    secret = "My locker code is 4417-ZEBRA and I keep it secret."
    item = send_chat(page, secret)
    expect(item.locator(".user .text")).to_have_text(secret)
    page_id = int((item.get_attribute("id") or "").removeprefix("exchange-"))

    logout(page)
    expect(page).to_have_url(re.compile(r"/login$"))
    page.goto("/memory")  # logged out: sent to the login page
    expect(page).to_have_url(re.compile(r"/login\?next="))

    login(page, alice, "not the password", goto=False)
    expect(page.get_by_text("Unknown username or wrong password.")).to_be_visible()
    expect(page.locator(".topbar .who")).to_have_count(0)

    login(page, alice, goto=False)
    expect(page.locator(".topbar .who")).to_have_text(alice)
    expect(page).to_have_url(re.compile(r"/memory$"))  # the safe `next` brought us back
    expect(page.get_by_text(secret)).to_be_visible()
    page.goto("/")
    expect(exchanges(page)).to_have_count(1)
    expect(exchanges(page).first.locator(".user .text")).to_have_text(secret)

    logout(page)
    bob = new_username("bob")
    register(page, bob)
    expect(page.locator("#empty-hint")).to_be_visible()
    expect(exchanges(page)).to_have_count(0)
    expect(page.get_by_text("4417-ZEBRA")).to_have_count(0)
    page.goto("/memory")
    expect(page.get_by_role("heading", name="Short-term queue")).to_be_visible()
    expect(page.get_by_text("4417-ZEBRA")).to_have_count(0)
    assert set(memory_counts(page).values()) == {0}
    page.goto(f"/memory/pages/{page_id}")  # alice's page, by its id
    expect(page.get_by_role("heading", name=re.compile("404"))).to_be_visible()
    expect(page.get_by_text("4417-ZEBRA")).to_have_count(0)
    page.goto(f"/chat/trace/{page_id}")
    expect(page.get_by_role("heading", name=re.compile("404"))).to_be_visible()
    screenshot(page, "error-404")
