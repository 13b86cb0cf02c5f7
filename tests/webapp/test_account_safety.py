"""Account safety (issue 21, part 7): password policy, login work, sessions, modes, keys."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("password", ["qwerty12", "Password1!", "football1", "letmein2024",
                                      "hunter2hunter2"])
def test_register_refuses_common_passwords_with_a_clear_message(client, password):
    r = client.post("/register", data={"username": "nina", "password": password,
                                       "confirm": password})
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and "This password is too easy to guess" in page
    assert 'aria-invalid="true"' in page  # shown at the password field
    assert client.get("/memory.json").status_code == 401  # no account, no session


def test_register_accepts_a_few_unrelated_words(client):
    r = client.post("/register", data={"username": "nina", "password": "violet tram lantern",
                                       "confirm": "violet tram lantern"})
    assert r.status_code == 302 and client.get("/memory.json").status_code == 200


def test_login_checks_a_hash_for_unknown_names_too(client, auth, monkeypatch):
    import webapp.storage.users

    auth.register()
    auth.logout()
    checked: list[str] = []
    real = webapp.storage.users.check_password_hash

    def spy(pwhash: str, password: str) -> bool:
        checked.append(pwhash.split("$", 1)[0])
        return real(pwhash, password)

    monkeypatch.setattr(webapp.storage.users, "check_password_hash", spy)
    assert auth.login(password="wrong horse").status_code == 401
    assert auth.login(username="nobody-here", password="wrong horse").status_code == 401
    # both paths hashed the password with the same method (so with the same cost)
    assert len(checked) == 2 and checked[0] == checked[1] and checked[0].startswith("scrypt")
    assert b"Unknown username or wrong password." in auth.login(username="nobody-here").data
    assert auth.login().status_code == 302


def _age_sessions(app, started_by=0.0, seen_by=0.0):
    """Move every stored session's start and last use this many seconds into the past."""
    store = app.extensions["memplay_users"].store
    with store.transaction() as conn:
        conn.execute("UPDATE sessions SET created_at = created_at - ?,"
                     " last_seen_at = last_seen_at - ?", (started_by, seen_by))


def _session_count(app):
    return app.extensions["memplay_users"].store.scalar("SELECT count(*) FROM sessions")


def test_session_ends_on_the_server_after_its_idle_time(make_app):
    app = make_app(SESSION_IDLE_SECONDS=3600, SESSION_MAX_SECONDS=86400)
    client = app.test_client()
    client.post("/register", data={"username": "olga", "password": "correct horse",
                                   "confirm": "correct horse"})
    _age_sessions(app, started_by=3000, seen_by=3000)  # used 50 minutes ago: still alive
    assert client.get("/memory.json").status_code == 200
    last = app.extensions["memplay_users"].store.scalar("SELECT last_seen_at FROM sessions")
    import time

    assert time.time() - last < 60  # the use was recorded: the idle time starts again
    _age_sessions(app, seen_by=3601)
    assert client.get("/memory.json").status_code == 401
    assert _session_count(app) == 0  # ended on the server, not only refused
    assert client.get("/settings").status_code == 302  # the page asks to log in again


def test_session_ends_after_its_absolute_lifetime_even_in_use(make_app):
    app = make_app(SESSION_IDLE_SECONDS=3600, SESSION_MAX_SECONDS=86400)
    client = app.test_client()
    client.post("/register", data={"username": "olga", "password": "correct horse",
                                   "confirm": "correct horse"})
    _age_sessions(app, started_by=86401)  # started over a day ago, used a moment ago
    assert client.get("/memory.json").status_code == 401
    client.post("/login", data={"username": "olga", "password": "correct horse"})
    assert client.get("/memory.json").status_code == 200 and _session_count(app) == 1


def test_expired_sessions_of_others_are_swept_at_the_next_login(make_app):
    app = make_app(SESSION_IDLE_SECONDS=3600, SESSION_MAX_SECONDS=86400)
    for name in ("pia", "quinn"):
        app.test_client().post("/register", data={"username": name, "password": "correct horse",
                                                  "confirm": "correct horse"})
    _age_sessions(app, seen_by=7200)
    app.test_client().post("/login", data={"username": "pia", "password": "correct horse"})
    assert _session_count(app) == 1


def test_log_out_everywhere_ends_every_session_of_the_user_only(app):
    def logged_in(name):
        c = app.test_client()
        c.post("/login", data={"username": name, "password": "correct horse"})
        return c

    for name in ("rosa", "sam"):
        app.test_client().post("/register", data={"username": name, "password": "correct horse",
                                                  "confirm": "correct horse"})
    laptop, phone, other = logged_in("rosa"), logged_in("rosa"), logged_in("sam")
    stolen = phone.get_cookie("session").value
    page = laptop.get("/settings").get_data(as_text=True)
    assert "Log out everywhere" in page and 'action="/logout/everywhere"' in page
    r = laptop.post("/logout/everywhere")
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    assert laptop.get("/memory.json").status_code == 401
    assert phone.get("/memory.json").status_code == 401
    thief = app.test_client()
    thief.set_cookie("session", stolen)
    assert thief.get("/memory.json").status_code == 401
    assert other.get("/memory.json").status_code == 200  # another user's session lives on
    again = logged_in("rosa")
    assert again.post("/logout/everywhere.json").json == {"ok": True, "sessions_ended": 1}


def _loose_modes(root):
    """Paths under `root` (itself included) that anyone but their owner may read or enter."""
    import os
    import stat

    loose = []
    for folder, _dirs, files in os.walk(root):
        for path in [folder] + [os.path.join(folder, f) for f in files]:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            if mode & 0o077:
                loose.append(f"{os.path.relpath(path, root)} {oct(mode)}")
    return loose


@pytest.mark.sqlite_only
def test_every_file_the_app_writes_is_private(make_app, tmp_path, chat_model, backend):
    import os

    from .conftest import wait_job

    app = make_app()
    client = app.test_client()
    client.post("/register", data={"username": "tess", "password": "correct horse",
                                   "confirm": "correct horse"})
    chat_model.enqueue("Hello Tess.")
    assert client.post("/chat.json", data={"message": "I keep bees"}).status_code == 200
    transcript = "User: my hives are on the roof\nAssistant: Nice.\n" * 3
    token = client.post("/import/preview.json", data={"text": transcript}).json["token"]
    job = client.post("/import/run.json", data={"token": token}).json["job"]
    assert wait_job(app.extensions["memoryos"], "u1", job["id"])["status"] == "done"
    data = tmp_path / "data"
    names = {os.path.relpath(os.path.join(d, f), data) for d, _, fs in os.walk(data) for f in fs}
    assert {"users.sqlite3", "memory/memory.sqlite3", "memory/memory.sqlite3-wal",
            "users.sqlite3-wal"} <= names, names
    assert _loose_modes(data) == []
    # a production start keeps its random secret key in the data folder, 0600 too
    make_app(ENV="production", SECRET_KEY=None, DATA_DIR=str(tmp_path / "prod"))
    assert (tmp_path / "prod" / "secret_key").is_file() and _loose_modes(tmp_path / "prod") == []


@pytest.mark.sqlite_only
def test_files_made_open_by_older_versions_are_tightened(make_app, tmp_path, backend):
    first = make_app()
    first.test_client().post("/register", data={"username": "uma", "password": "correct horse",
                                                "confirm": "correct horse"})
    data = tmp_path / "data"
    for path in (data, data / "memory", data / "users.sqlite3", data / "memory" / "memory.sqlite3"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    make_app()  # the next start
    assert _loose_modes(data) == []


API_KEY = "sk-live-7f3a9c1e5b2d4a6f8e0c"


def _files_holding(root, needle: bytes):
    import os

    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                if needle in handle.read():
                    found.append(os.path.relpath(path, root))
    return found


def _stored_key(app):
    return app.extensions["memplay_users"].store.scalar("SELECT api_key FROM endpoints")


def _model_key(app, user_id=1):
    from webapp.models import account_chat_model

    return account_chat_model(app, user_id)._client.api_key


def test_api_key_is_encrypted_at_rest_and_survives_a_secret_key_rotation(make_app, tmp_path,
                                                                         backend):
    from webapp.keybox import KeyBox

    app = make_app(SECRET_KEY="first secret")
    client = app.test_client()
    client.post("/register", data={"username": "vera", "password": "correct horse",
                                   "confirm": "correct horse"})
    r = client.post("/settings", data={"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                       "api_key": API_KEY})
    assert r.status_code == 302
    stored = _stored_key(app)
    assert stored.startswith("fernet:") and API_KEY not in stored
    if backend == "sqlite":  # the database files, their WAL included, never hold it in clear
        assert _files_holding(tmp_path / "data", API_KEY.encode()) == []
    assert _model_key(app) == API_KEY

    # rotation: a new secret key, the old one listed as a fallback
    rotated = make_app(SECRET_KEY="second secret", SECRET_KEY_FALLBACKS=["first secret"])
    assert _model_key(rotated) == API_KEY
    resealed = _stored_key(rotated)  # read once: sealed again under the new key
    assert resealed != stored and KeyBox("second secret").open(resealed) == (API_KEY, False)
    other = rotated.test_client()
    other.post("/login", data={"username": "vera", "password": "correct horse"})
    assert other.get("/settings.json").json["endpoint"]["key_set"] is True

    # once the old key is dropped the new one alone still reads it
    assert _model_key(make_app(SECRET_KEY="second secret")) == API_KEY
    # a server with neither secret cannot read it, and says so
    lost = make_app(SECRET_KEY="third secret").test_client()
    lost.post("/login", data={"username": "vera", "password": "correct horse"})
    assert lost.get("/settings.json").json["endpoint"]["key_set"] is False
    assert "can no longer be decrypted" in lost.get("/settings").get_data(as_text=True)


def test_keys_kept_in_clear_by_older_versions_are_sealed(make_app, backend):
    app = make_app(SECRET_KEY="first secret")
    client = app.test_client()
    client.post("/register", data={"username": "walt", "password": "correct horse",
                                   "confirm": "correct horse"})
    client.post("/settings", data={"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    store = app.extensions["memplay_users"].store
    with store.transaction() as conn:  # what an older version stored
        conn.execute("UPDATE endpoints SET api_key = ?", (API_KEY,))
    rotated = make_app(SECRET_KEY="second secret", SECRET_KEY_FALLBACKS=["first secret"])
    result = rotated.test_cli_runner().invoke(args=["reseal-api-keys"])
    assert result.exit_code == 0 and "1 API keys sealed again" in result.output
    assert _stored_key(rotated).startswith("fernet:") and API_KEY not in _stored_key(rotated)
    assert _model_key(rotated) == API_KEY


@pytest.mark.parametrize("url", ["http://metadata.google.internal/v1",
                                 "https://no-such-endpoint.invalid/v1"])
def test_settings_refuse_an_endpoint_whose_name_does_not_resolve(make_app, url):
    client = make_app(ALLOW_PRIVATE_ENDPOINTS=False).test_client()
    client.post("/register", data={"username": "xena", "password": "correct horse",
                                   "confirm": "correct horse"})
    r = client.post("/settings.json", data={"base_url": url, "model": "m"})
    assert r.status_code == 400 and ("does not resolve" in r.json["error"]
                                     or "private or local" in r.json["error"])
    assert client.get("/settings.json").json["endpoint"]["configured"] is False
