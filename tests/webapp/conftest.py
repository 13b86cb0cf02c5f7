"""Web fixtures: an app over a temporary data folder, the scripted model, the shared embedder."""

from __future__ import annotations

import time

import pytest

from webapp import create_app

ENGINE = {"consolidation": "extractive", "analysis": "extractive", "short_term_capacity": 3,
          "consolidation_batch": 2}


@pytest.fixture
def make_app(tmp_path, embedder, chat_model, database_url):
    """Build apps over one temporary data folder; keyword overrides go into the test config."""

    apps = []

    def make(**overrides):
        config = {"DATA_DIR": str(tmp_path / "data"), "CHAT_MODEL": chat_model,
                  "EMBEDDER": embedder, "ENGINE_SETTINGS": dict(ENGINE), "SECRET_KEY": "test",
                  "DATABASE_URL": database_url}
        config.update(overrides)
        apps.append(create_app(config))
        return apps[-1]

    yield make
    for made in apps:  # job workers stop with their test (the store goes away with it)
        made.extensions["memplay_workers"].stop()


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def engine(app):
    return app.extensions["memoryos"]


class AuthActions:
    """Register, log in and log out through the real forms."""

    def __init__(self, client):
        self.client = client

    def register(self, username="alice", password="correct horse"):
        return self.client.post("/register", data={"username": username, "password": password,
                                                   "confirm": password})

    def login(self, username="alice", password="correct horse"):
        return self.client.post("/login", data={"username": username, "password": password})

    def logout(self):
        return self.client.post("/logout")


@pytest.fixture
def auth(client):
    return AuthActions(client)


@pytest.fixture
def user(auth):
    """A registered, logged-in user 'alice' (engine id u1)."""
    auth.register()
    return "u1"


def wait_job(engine, user_id, job_id, timeout=60.0):
    """Poll a stored job until it is no longer queued or running (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = engine.jobs.get(user_id, job_id)
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s")


def chat(client, text):
    """Send one chat message as htmx does; returns the response."""
    return client.post("/chat", data={"message": text}, headers={"HX-Request": "true"})
