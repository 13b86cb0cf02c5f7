"""Journey 4: forced analysis finishes; the profile shows signals (no model: no level) with
evidence that opens pages."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import memory_counts, screenshot, wait_job_done

pytestmark = pytest.mark.e2e

# The oldest exchanges leave short-term memory, so they are the ones analysed: music first.
DIALOGUE = [
    ("I play the piano and listen to jazz music every evening.",
     "Jazz piano is a lovely evening ritual."),
    ("My favourite music is Miles Davis; I own all his records.",
     "Kind of Blue is a classic album."),
    ("I sing in a choir and we rehearse songs every Tuesday.",
     "Choir singing is great for the voice."),
    ("I am learning to play guitar chords for my band's next concert.",
     "Good luck with the concert!"),
    ("I compose short piano melodies and record them at home.",
     "Home recording is a fun way to make music."),
    ("I went to a rock music festival and heard three bands play.",
     "Festivals are a great way to hear live music."),
    ("My daughter takes violin lessons and we play music together.",
     "Playing music together is special."),
    ("I cooked a mushroom risotto yesterday.", "Risotto needs patience."),
    ("I will fly to Tokyo in October.", "Tokyo in autumn is beautiful."),
    ("I walk my dog Biscuit every morning.", "Biscuit must love that."),
    ("I read a novel by Ishiguro last week.", "His books are quiet and deep."),
    ("I am fixing the roof of my garden shed.", "Be careful on the ladder."),
]


def transcript(pairs: list[tuple[str, str]]) -> str:
    return "\n".join(f"User: {u}\nAssistant: {a}" for u, a in pairs)


def test_analysis_forced_profile_with_evidence_links(page: Page, user) -> None:
    page.goto("/import")
    page.get_by_label("…or paste the dialogue").fill(transcript(DIALOGUE))
    page.get_by_label("Format").select_option("transcript")
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name=f"Import {len(DIALOGUE)} exchanges").click()
    wait_job_done(page, "#import-job")
    assert memory_counts(page)["pages"] == len(DIALOGUE) - 7

    page.get_by_role("navigation").get_by_role("link", name="Analysis").click()
    expect(page.get_by_role("heading", name="Forced analysis")).to_be_visible()
    expect(page.get_by_text("No forced analysis yet.")).to_be_visible()
    unanalysed = page.locator("ul.stats li").filter(has_text="unanalysed pages")
    expect(unanalysed.locator("strong")).not_to_have_text("0")
    page.get_by_role("button", name="Analyse now").click()
    wait_job_done(page, "#analysis-job")
    job = page.locator("#analysis-job .job")
    expect(job).to_contain_text(re.compile(r"Analysed \d+ pages in \d+ segments"))
    found = job.locator("h3:has-text('Profile signals') + ul li")
    expect(found.filter(has_text="Music Interest")).to_have_count(1)
    screenshot(page, "analysis")
    page.reload()  # the stored job survives a reload
    expect(page.locator("#analysis-job .job .status")).to_have_text("done")
    expect(unanalysed.locator("strong")).to_have_text("0")

    page.get_by_role("navigation").get_by_role("link", name="Profile").click()
    expect(page.get_by_role("heading", name=re.compile("^Profile"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"[1-9]\d* dimensions stored"))).to_be_visible()
    expect(page.get_by_role("heading", name="AI alignment preferences", exact=True)).to_be_visible()
    interests = page.locator("section.card").filter(
        has=page.get_by_role("heading", name="Content interests"))
    music = interests.locator("tbody tr").filter(
        has=page.get_by_role("cell", name="Music Interest", exact=True))
    expect(music).to_have_count(1)
    expect(music.locator(".level")).to_have_text("signals")  # extractive: no level invented
    expect(music.locator(".signals li").first).to_contain_text(
        re.compile(r"music|piano|jazz|choir|guitar|violin|band|song", re.I))
    evidence = music.get_by_role("link", name=re.compile(r"^page \d+$"))
    expect(evidence.first).to_be_visible()
    screenshot(page, "profile")

    page_id = evidence.first.inner_text().removeprefix("page ")
    evidence.first.click()
    expect(page).to_have_url(re.compile(rf"/memory/pages/{page_id}$"))
    expect(page.get_by_role("heading", name=re.compile(rf"^Page {page_id}"))).to_be_visible()
    expect(page.locator(".bubble.user .text")).to_contain_text(
        re.compile(r"music|piano|jazz|choir|guitar|violin|band|song", re.I))
    used = page.locator("section.card").filter(
        has=page.get_by_role("heading", name="Used as evidence"))
    expect(used).to_contain_text(re.compile(r"Music Interest: \d+ sentences? in \d+ pages?"))
    expect(page.get_by_text("analysed", exact=False).first).to_be_visible()

    page.goto("/memory")  # facts drawn from first-person sentences, with their sources
    facts = page.locator("h3:has-text('User facts') + ul li")
    expect(facts.first.get_by_role("link", name=re.compile(r"^page \d+$")).first).to_be_visible()
