"""Journey 5: clear, see empty memory, diff, restore "before clear", see everything back; undo
an import, the two forget buttons, copy a new MCP token."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .a11y_support import axe_in_every_view
from .conftest import exchanges, memory_counts, screenshot, send_chat, wait_job_done

pytestmark = pytest.mark.e2e

PAIRS = [(f"Note {n}: my plant number {n} is a {kind}.", f"Got it, plant {n} is a {kind}.")
         for n, kind in enumerate(["fern", "cactus", "orchid", "basil", "mint", "ivy",
                                   "bonsai", "tulip", "aloe", "lily"], start=1)]


def test_versions_clear_diff_restore(page: Page, user) -> None:
    page.goto("/import")
    page.get_by_label("…or paste the dialogue").fill(
        "\n".join(f"User: {u}\nAssistant: {a}" for u, a in PAIRS))
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name=f"Import {len(PAIRS)} exchanges").click()
    wait_job_done(page, "#import-job")
    page.goto("/")
    send_chat(page, "Remember that the orchid needs water on Fridays.")
    before = memory_counts(page)
    assert before["short_term"] == 7 and before["pages"] == len(PAIRS) + 1 - 7
    assert before["segments"] >= 1

    page.get_by_role("navigation").get_by_role("link", name="Versions").click()
    expect(page.get_by_role("heading", name=re.compile("^Versions"))).to_be_visible()
    page.get_by_role("link", name="Clear memory…").click()
    expect(page.get_by_role("heading", name="Clear all memory?")).to_be_visible()
    confirm = page.get_by_label("Type CLEAR to confirm")
    confirm.fill("clear")
    page.get_by_role("button", name="Clear memory").click()
    expect(page.get_by_text("Type CLEAR in capitals to confirm.")).to_be_visible()
    assert memory_counts(page) == before  # a refused confirmation clears nothing
    page.get_by_label("Type CLEAR to confirm").fill("CLEAR")
    page.get_by_role("button", name="Clear memory").click()
    flash = page.locator(".flash")
    expect(flash).to_contain_text("Memory cleared.")
    saved = int(re.search(r"version (\d+)", flash.inner_text()).group(1))  # type: ignore[union-attr]
    row = page.locator("tbody tr").filter(
        has=page.get_by_role("cell", name="before clear", exact=True))
    expect(row).to_have_count(1)
    expect(row.locator("td").first).to_have_text(str(saved))
    screenshot(page, "versions")

    assert set(memory_counts(page).values()) == {0}
    page.get_by_role("navigation").get_by_role("link", name="Memory").click()
    expect(page.get_by_role("meter", name="Short-term exchanges").locator(".num")
           ).to_have_text("0 / 7")
    expect(page.get_by_text("No segments yet")).to_be_visible()
    expect(page.get_by_text("orchid")).to_have_count(0)
    page.goto("/")
    expect(exchanges(page)).to_have_count(0)
    expect(page.locator("#empty-hint")).to_be_visible()

    page.goto("/versions")
    page.get_by_label("From").fill(str(saved))
    page.get_by_label("to", exact=True).fill("0")
    page.get_by_role("button", name="Diff").click()
    expect(page.get_by_role("heading", name=f"Version {saved} → current")).to_be_visible()
    exchanges_head = page.get_by_role("heading", name=re.compile(r"^Exchanges"))
    expect(exchanges_head).to_contain_text(f"−{len(PAIRS) + 1}")
    expect(page.locator("li.removed").filter(has_text="plant number 3 is a orchid")
           ).to_have_count(1)
    expect(page.locator("li.added")).to_have_count(0)
    screenshot(page, "diff")

    page.goto("/versions")
    row = page.locator("tbody tr").filter(
        has=page.get_by_role("cell", name="before clear", exact=True))
    row.get_by_role("button", name="Restore").click()
    expect(page.locator(".flash")).to_contain_text(f"Version {saved} restored.")
    assert memory_counts(page) == before
    page.goto("/memory")
    expect(page.get_by_text("the orchid needs water on Fridays")).to_be_visible()
    expect(page.get_by_role("meter", name="Short-term exchanges").locator(".num")
           ).to_have_text("7 / 7")
    page.goto("/")
    expect(exchanges(page).last.locator(".user .text")).to_have_text(
        "Remember that the orchid needs water on Fridays.")

    page.goto(f"/versions/diff?a={saved}&b=0")  # restored: identical to the saved version
    expect(page.locator("li.muted", has_text="no differences")).to_have_count(4)


def test_undo_an_import_two_forget_buttons_and_copy_the_token(page: Page, user) -> None:
    page.goto("/")
    send_chat(page, "Remember that my bicycle is a green Brompton.")
    before = memory_counts(page)
    page.goto("/import")
    page.get_by_label("…or paste the dialogue").fill(
        "\n".join(f"User: {u}\nAssistant: {a}" for u, a in PAIRS[:3]))
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Import 3 exchanges").click()
    wait_job_done(page, "#import-job")
    imported = memory_counts(page)
    assert imported["short_term"] == before["short_term"] + 3
    page.get_by_role("link", name="Undo this import…").click()
    expect(page.get_by_role("heading", name="Undo the import?")).to_be_visible()
    axe_in_every_view(page, "the undo confirmation")
    assert memory_counts(page) == imported  # asking undoes nothing yet
    page.get_by_role("button", name="Undo the import").click()
    expect(page.locator(".flash")).to_contain_text("Import undone")
    assert memory_counts(page) == before
    page.goto("/memory")
    expect(page.get_by_text("plant number 1 is a fern")).to_have_count(0)

    page.goto("/memory/search?q=Brompton")
    page.locator("main a[href^='/memory/pages/']").first.click()
    undoable = page.get_by_role("button", name="Forget this exchange (can be undone)")
    expect(undoable).to_be_visible()
    page.get_by_text("Forget everywhere, permanently…").click()  # the disclosure opens
    forever = page.get_by_role("button", name="Forget everywhere, permanently")
    expect(forever).to_be_visible()
    expect(page.get_by_text("This cannot be undone.")).to_be_visible()
    axe_in_every_view(page, "a page with its forget buttons")
    forever.click()  # the box is not ticked: the browser refuses, nothing is forgotten
    expect(page.get_by_role("heading", name=re.compile(r"^Page \d+"))).to_be_visible()
    assert memory_counts(page) == before
    undoable.click()
    expect(page.locator(".flash")).to_contain_text("is forgotten. The memory before is saved")

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("/settings")
    page.get_by_label("Token name").fill("my laptop")
    page.get_by_role("button", name="Create token").click()
    expect(page.get_by_role("heading", name="Token “my laptop” created")).to_be_visible()
    token = page.get_by_label("Access token").input_value()
    assert token.startswith("mos_")
    page.get_by_role("button", name="Copy token").click()
    expect(page.get_by_role("status")).to_have_text("Token copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == token
    page.get_by_role("button", name="Copy configuration").click()
    expect(page.get_by_role("status")).to_have_text(
        "Client configuration copied to the clipboard.")
    assert f'"Authorization": "Bearer {token}"' in page.evaluate("navigator.clipboard.readText()")
    axe_in_every_view(page, "the new token page")
