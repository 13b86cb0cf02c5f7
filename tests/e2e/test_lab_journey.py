"""The evaluation lab in Chromium: a run from /lab to its results, a question with highlighted
evidence and a reason per miss, two runs compared, the records downloaded, axe on every lab page
(1280 and 390 px, light and dark), and the user's own memory unchanged by all of it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .a11y_support import SIZES, THEMES, Views, axe_violations, sideways_overflow
from .conftest import WAIT, LiveServer, screenshot, wait_job_done

pytestmark = pytest.mark.e2e

OWN = "User: My sister Noor plays the cello in Ghent.\nAssistant: How lovely!\n" \
      "User: I repaint the kitchen this weekend.\nAssistant: Good luck with it."


def _export(page: Page) -> dict[str, Any]:
    doc = page.request.get("/export.json").json()
    for key in ("exported_at", "ok"):
        doc.pop(key, None)
    return doc


def _start_run(page: Page, path: Any, budget: str) -> str:
    page.goto("/lab")
    page.get_by_label("LoCoMo or LongMemEval file (JSON)").set_input_files(str(path))
    page.get_by_label("Memory token budget").fill(budget)
    page.get_by_label("full", exact=True).uncheck()  # a lighter run: the window baseline left out
    page.get_by_role("button", name="Start the run").click()
    expect(page).to_have_url(re.compile(r"/lab/runs/[0-9a-f]{32}$"))
    seen = wait_job_done(page, "#lab-progress-box")
    assert seen[-1] == 100, seen
    expect(page.get_by_role("heading", name="Evidence recall by category")).to_be_visible()
    return page.url.rsplit("/", 1)[-1]


def test_lab_journey_run_question_compare_download_and_memory_unchanged(
        page: Page, user: str, live_server: LiveServer, locomo_session_file: Any,
        browser: Browser, tmp_path: Any) -> None:
    page.goto("/import")
    page.get_by_label("…or paste the dialogue").fill(OWN)
    page.get_by_label("Format").select_option("transcript")
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Import 2 exchanges").click()
    wait_job_done(page, "#import-job")
    before = _export(page)

    first = _start_run(page, locomo_session_file, "80")
    table = page.locator("table.lab-table")
    expect(table.get_by_role("columnheader", name="multi-hop")).to_be_visible()
    expect(table.get_by_role("rowheader", name="memoryos")).to_be_visible()
    expect(page.locator(".lab-chart .lab-bar-row").first).to_be_visible()
    expect(page.locator(".lab-ratio")).to_contain_text("questions at equal tokens")
    screenshot(page, "lab-run")

    with page.expect_download() as download:
        page.get_by_role("link", name="Download records (JSON)").click()
    saved = tmp_path / "records.json"
    download.value.save_as(saved)
    records = json.loads(saved.read_text())["records"]
    assert records and all(g["reason"] for r in records for g in r["gold"])

    # a question whose product context misses evidence: every miss has its reason
    missed = next(n for n, r in enumerate([r for r in records if r["strategy"] == "memoryos"])
                  if any(not g["in_context"] for g in r["gold"]))
    page.goto(f"/lab/runs/{first}/questions/{missed}")
    expect(page.get_by_role("heading", name="Gold evidence turns")).to_be_visible()
    product = page.locator(".lab-side").first
    misses = product.locator(".lab-reasons li.missed")
    expect(misses.first).to_be_visible()
    for n in range(misses.count()):
        assert len(misses.nth(n).inner_text().split(":", 1)[-1].strip()) > 10
    found = next(n for n, r in enumerate([r for r in records if r["strategy"] == "memoryos"])
                 if any(g["in_context"] and g["code"] != "short_term" for g in r["gold"]))
    page.goto(f"/lab/runs/{first}/questions/{found}")
    expect(page.locator(".lab-side").first.locator(".lab-context mark").first).to_be_visible()
    expect(page.locator(".lab-side")).to_have_count(2)
    screenshot(page, "lab-question")

    second = _start_run(page, locomo_session_file, "400")
    page.get_by_label("Compare with an earlier run").select_option(first)
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_role("heading", name="Recall change per category")).to_be_visible()
    expect(page.get_by_role("heading", name="Product questions that flipped")).to_be_visible()

    page.goto(f"/lab/runs/{first}/questions/{missed}")
    page.get_by_role("link", name="Open in the trace view").first.click()
    expect(page.get_by_role("heading", name="Pages")).to_be_visible()
    paths = ["/lab", f"/lab/runs/{second}", f"/lab/runs/{first}/questions/{missed}",
             f"/lab/runs/{first}/questions/{missed}/trace",
             f"/lab/compare?a={first}&b={second}"]
    views = Views(browser, live_server.url, user)
    try:
        problems = []
        for size in SIZES:
            for theme in THEMES:
                view = views.get(size, theme)
                for path in paths:
                    view.goto(path)
                    view.wait_for_load_state("load")
                    problems += [f"{size}/{theme} {path}: {v}" for v in axe_violations(view)]
                    if size == "phone" and sideways_overflow(view):
                        problems.append(f"{size}/{theme} {path}: scrolls sideways")
        assert problems == []
    finally:
        views.close()
    assert _export(page) == before  # the lab never touched the user's memory
    expect(page.locator(".topbar .who")).to_have_text(user, timeout=WAIT)
