"""Journey 3: import a LoCoMo conversation by file upload; a malformed file imports nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import memory_counts, screenshot, wait_job_done

pytestmark = pytest.mark.e2e

SAMPLE = "demo-gina"  # the made-up LoCoMo fixture (tests/conftest.py)


def longer(path: Path, target: Path, copies: int = 12) -> Path:
    """The fixture with its sessions repeated (texts numbered): an import long enough to watch."""
    docs = json.loads(path.read_text())
    conv = next(d for d in docs if d["sample_id"] == SAMPLE)["conversation"]
    sessions = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)),
                      key=lambda k: int(k.split("_")[1]))
    number = len(sessions)
    for copy in range(1, copies):
        for key in sessions:
            number += 1
            conv[f"session_{number}"] = [
                {**t, "dia_id": f"D{number}:{i + 1}", "text": f"{t['text']} ({copy})"}
                for i, t in enumerate(conv[key])]
            conv[f"session_{number}_date_time"] = conv[f"{key}_date_time"].replace(
                "2023", str(2023 + copy))
    target.write_text(json.dumps(docs), encoding="utf-8")
    return target


def locomo_exchanges(path: Path) -> tuple[int, str, str]:
    """How many exchanges the sample holds for speaker_a, and two of its texts."""
    doc = next(d for d in json.loads(path.read_text()) if d["sample_id"] == SAMPLE)
    conv = doc["conversation"]
    turns = [t for k, v in conv.items() if re.fullmatch(r"session_\d+", k) for t in v]
    mine = [t for t in turns if t["speaker"] == conv["speaker_a"]]
    return len(mine), mine[0]["text"], mine[-1]["text"]


def test_import_locomo_file_with_progress_then_malformed_file(page: Page, user, tmp_path,
                                                              locomo_file: Path) -> None:
    locomo_file = longer(locomo_file, tmp_path / "longer.json")
    mine, first_text, last_text = locomo_exchanges(locomo_file)
    page.get_by_role("navigation").get_by_role("link", name="Import").click()
    expect(page.get_by_role("heading", name="Import a dialogue")).to_be_visible()
    expect(page.get_by_text("No import yet.")).to_be_visible()
    screenshot(page, "import")

    page.get_by_label("File", exact=True).set_input_files(str(locomo_file))
    page.get_by_label("Format").select_option("locomo")
    page.get_by_label("sample id").fill(SAMPLE)
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("#import-preview .preview")
    expect(preview).to_contain_text("locomo")
    expect(preview).to_contain_text("exchanges will be imported")
    to_import = int(preview.locator("strong").first.inner_text())
    assert mine <= to_import <= mine + 30, (to_import, mine)  # + sessions opened by the other
    expect(preview.locator("table")).to_contain_text(first_text[:40])
    assert memory_counts(page)["short_term"] == 0  # a preview writes nothing
    screenshot(page, "import-preview")

    preview.get_by_role("button", name=re.compile(r"^Import \d+ exchanges$")).click()
    seen = wait_job_done(page, "#import-job", timeout=240)
    # The bar restarts for each phase (embedding, consolidation, analysis); it must move
    # through intermediate values and end full.
    assert seen[-1] == 100, seen
    assert any(0 < v < 100 for v in seen), f"the progress bar never advanced: {seen}"
    job = page.locator("#import-job .job")
    expect(job.locator(".status")).to_have_text("done")
    expect(job).to_contain_text(f"Imported {to_import} of")
    expect(page.locator("#import-job .progress-fill")).to_have_attribute(
        "style", re.compile(r"width: 100%"))
    screenshot(page, "import-done")

    counts = memory_counts(page)
    assert counts["short_term"] == 7
    assert counts["pages"] == to_import - 7
    assert counts["segments"] >= 2
    page.goto("/memory")
    expect(page.get_by_role("meter", name="Short-term exchanges").locator(".num")
           ).to_have_text("7 / 7")
    segment_rows = page.locator("section.card").filter(
        has=page.get_by_role("heading", name=re.compile("Mid-term segments"))
    ).locator("tbody tr")
    expect(segment_rows.first).to_be_visible()
    assert segment_rows.count() == counts["segments"]
    expect(page.get_by_text(last_text[:60]).first).to_be_visible()  # newest: short-term
    segment_rows.first.get_by_role("link").first.click()
    expect(page.locator("article.page-item").first).to_be_visible()
    expect(page.locator("article.page-item").first).to_contain_text("locomo")

    # A malformed file: a clear error, and nothing is imported.
    before = memory_counts(page)
    bad = tmp_path / "broken-locomo.json"
    bad.write_text('[{"sample_id": "x", "conversation": {"speaker_a": "Ann", "session_1": [')
    page.goto("/import")
    expect(page.locator("#import-job .job .status")).to_have_text("done")  # the latest import
    page.get_by_label("File", exact=True).set_input_files(str(bad))
    page.get_by_role("button", name="Preview").click()
    error = page.locator("#import-preview .alert-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text(re.compile(r"JSON|json"))
    expect(page.locator("#import-preview button", has_text="Import")).to_have_count(0)
    screenshot(page, "import-error")

    wrong = tmp_path / "wrong-shape.json"  # valid JSON, not a conversation
    wrong.write_text(json.dumps([{"sample_id": "y", "conversation": {"speaker_a": "Ann"}}]))
    page.get_by_label("File", exact=True).set_input_files(str(wrong))
    page.get_by_label("Format").select_option("locomo")
    page.get_by_label("sample id").fill("")
    page.get_by_role("button", name="Preview").click()
    expect(error).to_contain_text("speaker_b")
    assert memory_counts(page) == before
