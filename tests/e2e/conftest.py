"""Browser fixtures: Debian's Chromium, the app as a real server, a scripted OpenAI endpoint.

One app server (werkzeug in a thread, real CSRF) and one fake chat endpoint serve the whole
session; every test registers its own user, so journeys never see each other's memory.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from werkzeug.serving import make_server

from webapp import create_app

from .fake_openai import FakeOpenAI

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic", "--disable-dev-shm-usage"]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-output" / "screenshots"
PASSWORD = "correct horse battery"
# Paper defaults for the short-term queue (7); small consolidation batches so segments form
# within a few turns; extractive maintenance (no model calls); short answers for the local model.
ENGINE = {"consolidation": "extractive", "analysis": "extractive", "short_term_capacity": 7,
          "consolidation_batch": 3, "answer_max_tokens": 32}
WAIT = 60_000  # ms: generous for a shared, noisy machine, but bounded


# -- browser ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    """Debian's Chromium, headless; a missing browser fails the run (never a skip)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the end-to-end tests need Debian's Chromium"
                    " (apt-get install -y chromium, or scripts/setup --test)", pytrace=False)
    return {"executable_path": str(CHROMIUM), "args": list(CHROMIUM_ARGS), "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any], live_server: LiveServer
                         ) -> dict[str, Any]:
    return {**browser_context_args, "base_url": live_server.url,
            "viewport": {"width": 1280, "height": 860}}


@pytest.fixture
def page(page: Page) -> Iterator[Page]:
    """The pytest-playwright page, recording dialogs (dismissed) and uncaught page errors."""
    page.dialogs = []  # type: ignore[attr-defined]
    page.js_errors = []  # type: ignore[attr-defined]

    def on_dialog(dialog: Any) -> None:
        page.dialogs.append(dialog.message)  # type: ignore[attr-defined]
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))  # type: ignore[attr-defined]
    page.set_default_timeout(WAIT)
    expect.set_options(timeout=WAIT)
    yield page
    assert page.dialogs == [], f"a dialog opened: {page.dialogs}"  # type: ignore[attr-defined]
    assert page.js_errors == [], f"JavaScript errors: {page.js_errors}"  # type: ignore[attr-defined]


# -- servers ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def fake_openai() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI().start()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def _reset_fake(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each journey starts with an empty script and a healthy endpoint."""
    if "fake_openai" in request.fixturenames or "live_server" in request.fixturenames:
        fake = request.getfixturevalue("fake_openai")
        fake.reset()
        yield
        fake.reset()
    else:
        yield


class LiveServer:
    """The app on 127.0.0.1 in a background thread."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="e2e-app",
                                        daemon=True)

    def start(self) -> LiveServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, embedder: Any,
                fake_openai: FakeOpenAI) -> Iterator[LiveServer]:
    """The real app (CSRF on) over a temporary data folder, answering through the fake."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    data = tmp_path_factory.mktemp("e2e-data")
    app = create_app({
        "ENV": "testing", "WTF_CSRF_ENABLED": True, "SECRET_KEY": "e2e-not-secret",
        "DATA_DIR": str(data), "EMBEDDER": embedder,
        "CHAT_BASE_URL": fake_openai.base_url, "CHAT_MODEL": "fake-gpt",
        "CHAT_API_KEY": "sk-e2e", "ENGINE_SETTINGS": dict(ENGINE),
        "LOGIN_MAX_FAILURES": 100,
    })
    server = LiveServer(app).start()
    yield server
    server.stop()


# -- user actions ----------------------------------------------------------------------------

_names = itertools.count(1)


def new_username(prefix: str) -> str:
    return f"{prefix}{next(_names)}_{int(time.time() * 1000) % 100000}"


def register(page: Page, username: str, password: str = PASSWORD) -> None:
    page.goto("/register")
    page.get_by_label("Username", exact=True).fill(username)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Repeat password").fill(password)
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".topbar .who")).to_have_text(username)


def login(page: Page, username: str, password: str = PASSWORD, goto: bool = True) -> None:
    """Fill the login form (on /login, or on the page already open when `goto` is false)."""
    if goto:
        page.goto("/login")
    page.get_by_label("Username", exact=True).fill(username)
    page.locator("input[name=password]").fill(password)
    page.get_by_role("button", name="Log in").click()


def logout(page: Page) -> None:
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()


@pytest.fixture
def user(page: Page, live_server: LiveServer, request: pytest.FixtureRequest) -> str:
    """A freshly registered, logged-in user for this journey."""
    name = new_username(request.node.name.removeprefix("test_")[:12].replace("[", "_"))
    register(page, name)
    return name


def exchanges(page: Page) -> Any:
    """The finished exchanges in the chat (not the one still streaming)."""
    return page.locator("#messages article.exchange:not(.streaming)")


def send_chat(page: Page, text: str, timeout: float = WAIT) -> Any:
    """Type a message, send it with Enter, wait for the answered exchange; return it."""
    # A click that changes page (Temporary chat, Memory off) returns before chat.js wires Enter.
    expect(page.locator("#chat-form[data-ready=true]")).to_have_count(1)
    before = exchanges(page).count()
    box = page.get_by_label("Message", exact=True)
    box.fill(text)
    box.press("Enter")
    expect(exchanges(page)).to_have_count(before + 1, timeout=timeout)
    latest = exchanges(page).last
    expect(latest.locator(".assistant .md")).not_to_be_empty()
    return latest


def memory_counts(page: Page) -> dict[str, int]:
    """What /memory.json says is stored, as counts (the same cookies as the page)."""
    response = page.request.get("/memory.json")
    assert response.ok, response.status
    state = response.json()
    assert state["ok"] is True
    return {
        "short_term": state["short_term"]["count"],
        "segments": state["mid_term"]["count"],
        "pages": state["mid_term"]["page_count"],
        "pending": len(state["mid_term"]["pending_pages"]),
        "user_facts": len(state["long_term"]["user_facts"]),
        "assistant_facts": len(state["long_term"]["assistant_facts"]),
        "profile": len(state["long_term"]["profile"]),
    }


def wait_job_done(page: Page, container: str, timeout: float = 120.0) -> list[int]:
    """Watch a job's progress bar until it is done; return the percentages seen on the way."""
    bar = page.locator(f"{container} .job .progress")
    expect(bar).to_be_visible()
    seen: list[int] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = page.locator(f"{container} .job .status").first.text_content(timeout=WAIT)
        value = bar.first.get_attribute("aria-valuenow", timeout=WAIT)
        if value is not None and (not seen or seen[-1] != int(value)):
            seen.append(int(value))
        if status not in ("queued", "running"):
            assert status == "done", f"the job ended as {status!r}: " + (
                page.locator(f"{container} .job").first.inner_text())
            return seen
        page.wait_for_timeout(200)
    raise AssertionError(f"the job did not finish in {timeout} s; progress seen {seen}")


def screenshot(page: Page, name: str) -> None:
    """A full-page screenshot for reviewers, under test-output/screenshots/ (git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
