"""Journey: a Claude.ai export ZIP (no extension, as the e-mail link gives it) is recognised by
its content, previewed with what is left out, imported; its saved memories show on Profile."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.core import chat_export_fixtures as fx

from .conftest import memory_counts, screenshot, wait_job_done

pytestmark = pytest.mark.e2e


def test_import_claude_zip_preview_says_what_it_recognised(page: Page, user, tmp_path) -> None:
    export = tmp_path / "data-2025-10-06-00-55-16"
    export.write_bytes(fx.claude_zip())
    page.get_by_role("navigation").get_by_role("link", name="Import").click()
    page.get_by_label("File", exact=True).set_input_files(str(export))
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("#import-preview .preview")
    expect(preview.locator(".recognised")).to_contain_text("Recognised: Claude.ai export")
    expect(preview.locator(".recognised")).to_contain_text("chat_messages")
    expect(preview).to_contain_text("1 message on abandoned branches")
    expect(preview).to_contain_text("3 of 3 will become long-term facts")
    # each conversation listed by its title, then the first exchanges
    expect(preview.locator("details.conversations table")).to_contain_text("Gear for a wet hike")
    sample = preview.locator("table").filter(has=page.get_by_role("columnheader", name="User"))
    expect(sample).to_contain_text("What should I pack for a drizzly day hike?")
    expect(preview).not_to_contain_text("zorbellian")  # the abandoned regeneration
    assert memory_counts(page)["short_term"] == 0  # a preview writes nothing
    screenshot(page, "import-claude-preview")

    preview.get_by_role("button", name=re.compile(r"^Import 3 exchanges$")).click()
    wait_job_done(page, "#import-job", timeout=240)
    expect(page.locator("#import-job .job")).to_contain_text("Imported 3 of 3 exchanges")
    expect(page.locator("#import-job .job")).to_contain_text("Claude.ai export: 2 conversations")
    page.get_by_role("navigation").get_by_role("link", name="Profile").click()
    imported = page.locator("#imported-memories")
    expect(imported).to_contain_text("Lives in Leeds with a whippet named Biscuit")
    expect(imported).to_contain_text("imported from Claude memory")
    screenshot(page, "import-claude-profile")
