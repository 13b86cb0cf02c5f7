"""Times read in the reader's own zone, named (issue 47): the server writes UTC, app.js turns
each <time> into local time with the zone's name and keeps the UTC reading as its tooltip."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from .conftest import WAIT, LiveServer, new_username, register, wait_job_done

pytestmark = pytest.mark.e2e


def test_times_show_in_the_readers_zone_with_its_name(browser: Browser,
                                                       live_server: LiveServer,
                                                       fake_openai: Any) -> None:
    context = browser.new_context(base_url=live_server.url, timezone_id="Asia/Kolkata",
                                  locale="en-GB")
    context.set_default_timeout(WAIT)
    try:
        page = context.new_page()
        register(page, new_username("zone"))
        page.goto("/import")
        page.get_by_label("…or paste the dialogue").fill("User: Hello there\nAssistant: Hi!")
        page.get_by_role("button", name="Preview").click()
        page.get_by_role("button", name=re.compile("^Import 1 exchange")).click()
        wait_job_done(page, "#import-job")
        page.goto("/memory")
        stamp = page.locator("time[datetime]").first
        expect(stamp).to_have_attribute("data-local", "")
        utc = dt.datetime.strptime(stamp.get_attribute("datetime") or "", "%Y-%m-%dT%H:%MZ")
        local = utc + dt.timedelta(hours=5, minutes=30)  # India: UTC+5:30, no summer time
        assert stamp.inner_text() == f"{local:%Y-%m-%d %H:%M} GMT+5:30"  # ICU names the offset
        assert stamp.get_attribute("title") == f"{utc:%Y-%m-%d %H:%M} UTC"
    finally:
        context.close()
