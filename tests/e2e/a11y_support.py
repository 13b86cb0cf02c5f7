"""Helpers for the accessibility journeys: a user with memory in every tier, axe-core, views.

`seed_user` fills one account through the browser (a transcript import, a forced analysis,
chat turns through the scripted model, a saved version) so that every page has content to
check. `Views` keeps one logged-in browser context per (width, colour scheme).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import PASSWORD, WAIT, login, register, wait_job_done

SIZES = {"desktop": {"width": 1280, "height": 860}, "phone": {"width": 390, "height": 844}}
THEMES = ("light", "dark")

DIALOGUE = [
    ("I play the piano and listen to jazz music every evening.", "Jazz piano is lovely."),
    ("My favourite music is Miles Davis; I own all his records.", "Kind of Blue is a classic."),
    ("I sing in a choir and we rehearse songs every Tuesday.", "Choirs are great for the voice."),
    ("I am learning guitar chords for my band's next concert.", "Good luck with the concert!"),
    ("I compose short piano melodies and record them at home.", "Home recording is fun."),
    ("I went to a rock music festival and heard three bands play.", "Festivals are great."),
    ("My daughter takes violin lessons and we play music together.", "That is special."),
    ("I cooked a mushroom risotto yesterday.", "Risotto needs patience."),
    ("I will fly to Tokyo in October.", "Tokyo in autumn is beautiful."),
    ("I walk my dog Biscuit every morning.", "Biscuit must love that."),
    ("I read a novel by Ishiguro last week.", "His books are quiet and deep."),
    ("I am fixing the roof of my garden shed.", "Be careful on the ladder."),
]
CHATS = ["What music do I like to play in the evening?",
         "Remind me where I am flying in October, please."]
REPLIES = ["You play **jazz piano** every evening and sing in a choir "
           "([more](https://example.org/jazz)).",
           "You fly to *Tokyo* in October.\n\n- pack warm clothes\n- check the visa\n\n"
           "```\nflight --from home --to Tokyo --month October --seat window --meal vegetarian\n```"]


@dataclass
class Seeded:
    """The seeded account and the pages worth visiting, by name -> path."""

    username: str
    paths: dict[str, str] = field(default_factory=dict)
    chats: list[str] = field(default_factory=list)


def seed_user(page: Page, username: str, fake: Any) -> Seeded:
    """Register and fill every tier through the UI; return the pages to audit."""
    register(page, username)
    page.goto("/import")
    page.get_by_label("…or paste the dialogue").fill(
        "\n".join(f"User: {u}\nAssistant: {a}" for u, a in DIALOGUE))
    page.get_by_label("Format").select_option("transcript")
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name=f"Import {len(DIALOGUE)} exchanges").click()
    wait_job_done(page, "#import-job")
    page.goto("/analysis")
    page.get_by_role("button", name="Analyse now").click()
    wait_job_done(page, "#analysis-job")
    page.goto("/")
    fake.enqueue(*REPLIES)
    for text in CHATS:
        before = page.locator("#messages article.exchange:not(.streaming)").count()
        page.get_by_label("Message", exact=True).fill(text)
        page.get_by_label("Message", exact=True).press("Enter")
        expect(page.locator("#messages article.exchange:not(.streaming)")).to_have_count(
            before + 1, timeout=WAIT)
    page.goto("/versions")
    page.get_by_role("button", name="Save a version now").click()
    expect(page.locator("table.table tbody tr")).not_to_have_count(0)

    state = page.request.get("/memory.json").json()
    segments = state["mid_term"]["segments"]
    assert segments, "the import made no mid-term segments"
    segment = page.request.get(f"/memory/segments/{segments[0]['id']}.json").json()
    pages = segment["segment"]["pages"] if "segment" in segment else segment["pages"]
    chained = next((p for p in pages if p.get("prev_id") or p.get("next_id")), pages[0])
    # the page's URL has the user's own number of it (issue 48), which its segment links by
    page.goto(f"/memory/segments/{segments[0]['id']}")
    heads = page.locator("article.page-item .page-head > a")
    chained_url = heads.nth([p["id"] for p in pages].index(chained["id"])).get_attribute("href")
    job = page.request.get("/import.json").json()["job"]
    versions = page.request.get("/versions.json").json()["versions"]
    page.goto("/")
    why = page.locator("#messages a.why").last.get_attribute("href")
    assert why, "no answer links to its retrieval trace"
    paths = {
        "chat": "/", "import": "/import", "analysis": "/analysis", "memory": "/memory",
        "events": "/memory/events", "segment": f"/memory/segments/{segments[0]['id']}",
        "page": chained_url, "profile": "/profile",
        "versions": "/versions", "clear": "/versions/clear",
        "diff": f"/versions/diff?a={versions[-1]['version']}&b=0", "settings": "/settings",
        "restore": f"/versions/{versions[-1]['version']}/restore?undo=import",
        "engine-settings": "/-/settings", "instance": "/-/versions", "trace": why,
        "job": f"/jobs/{job['id']}", "not-found": "/memory/pages/99999999",
        "search": "/memory/search?q=morning+walk", "search-form": "/memory/search",
        "search-related": "/memory/search?q=jogging",  # found nowhere: neighbours listed apart
    }
    return Seeded(username=username, paths=discover(page, paths), chats=list(CHATS))


def pattern(path: str) -> str:
    """A page's kind: its path with ids and query values replaced."""
    kind = re.sub(r"/[0-9a-f]{32}\b", "/<job>", path.split("?")[0].split("#")[0])
    return re.sub(r"/\d+", "/<id>", kind)


def discover(page: Page, paths: dict[str, str], limit: int = 40) -> dict[str, str]:
    """`paths` plus one page of every other kind linked from them (pages added later to the
    app are audited too): same-origin links, not JSON twins, not static files."""
    found = dict(paths)
    seen = {pattern(p) for p in paths.values()}
    for path in list(paths.values()):
        page.goto(path)
        hrefs = page.evaluate("""() => [...document.querySelectorAll('a[href]')]
            .filter(a => a.origin === location.origin).map(a => a.pathname + a.search)""")
        for href in hrefs:
            kind = pattern(href)
            if (kind in seen or ".json" in href or href.startswith("/static/")
                    or len(found) >= limit):
                continue
            seen.add(kind)
            found[kind] = href
    return found


def logged_out_paths() -> dict[str, str]:
    return {"login": "/login", "register": "/register"}


class Views:
    """One browser context per (size, theme), logged in as the seeded user once."""

    def __init__(self, browser: Browser, base_url: str, username: str) -> None:
        self.browser, self.base_url, self.username = browser, base_url, username
        self._open: dict[tuple[str, str, bool], tuple[BrowserContext, Page]] = {}

    def get(self, size: str, theme: str, logged_in: bool = True) -> Page:
        key = (size, theme, logged_in)
        if key not in self._open:
            context = self.browser.new_context(base_url=self.base_url, viewport=SIZES[size],
                                               color_scheme=theme)  # type: ignore[arg-type]
            context.set_default_timeout(WAIT)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.js_errors = errors  # type: ignore[attr-defined]
            if logged_in:
                login(page, self.username, PASSWORD)
                expect(page.locator(".topbar .who")).to_have_text(self.username)
            self._open[key] = (context, page)
        return self._open[key][1]

    def close(self) -> None:
        for context, _ in self._open.values():
            context.close()
        self._open.clear()


_axe = Axe()


def axe_violations(page: Page) -> list[str]:
    """axe-core's violations on the page as it is now: 'rule (impact): selector; …' lines."""
    result = _axe.run(page)
    lines = []
    for v in result.response["violations"]:
        targets = [" ".join(map(str, node["target"])) for node in v["nodes"]]
        shown = "; ".join(targets[:6]) + (f"; … {len(targets) - 6} more" if len(targets) > 6
                                          else "")
        lines.append(f"{v['id']} ({v.get('impact')}, {len(targets)} nodes): {shown}")
    return lines


def axe_in_every_view(page: Page, what: str) -> None:
    """axe and no sideways scroll on the page as it is now at 1280 and 390 px, light and dark."""
    # for a page reached by a POST, or a state a reload loses; the desktop light view after
    for size in ("desktop", "phone"):
        page.set_viewport_size(SIZES[size])
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
            assert axe_violations(page) == [], f"{what}: {size}, {theme}"
            assert sideways_overflow(page) == 0, f"{what} scrolls sideways: {size}"
    page.set_viewport_size(SIZES["desktop"])
    page.emulate_media(color_scheme="light")


def sideways_overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when it is not)."""
    return int(page.evaluate(
        "Math.max(0, document.documentElement.scrollWidth - window.innerWidth)"))


# Records what screen readers would be told: each time the text of a live region changes
# (aria-live, or a role that implies it), its new text; an inserted role=alert counts too.
WATCH_LIVE_REGIONS = """() => {
  window.__announced = [];
  const liveSel = '[aria-live]:not([aria-live="off"]),[role=status],[role=log],[role=alert]';
  const seen = new Map();
  const record = (region) => {
    const text = region.textContent.replace(/\\s+/g, ' ').trim();
    if (text && seen.get(region) !== text) { seen.set(region, text); window.__announced.push(text); }
    if (!text) seen.delete(region);
  };
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      const node = m.target.nodeType === 1 ? m.target : m.target.parentElement;
      const region = node && node.closest(liveSel);
      if (region && !region.classList.contains('htmx-indicator')) record(region);
      for (const added of m.addedNodes) {
        if (added.nodeType === 1 && added.matches(liveSel)) record(added);
      }
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""
