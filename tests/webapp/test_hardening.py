"""Hardening of the web app (issue 11): hostile input, sessions, headers, rate limit, imports."""

from __future__ import annotations

import pytest

BIG = 2**63
NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("url", ["/import/preview", "/import/preview.json", "/import/run.json"])
def test_deeply_nested_json_upload_is_a_clear_400(client, user, engine, url):
    r = client.post(url, data={"text": NESTED})
    assert r.status_code == 400
    assert b"nested too deeply" in r.data
    assert engine.jobs.latest(user, "import") == []


@pytest.mark.parametrize("method, url", [
    ("get", f"/memory/pages/{BIG}"), ("get", f"/memory/pages/{BIG}.json"),
    ("get", f"/memory/segments/{BIG}"), ("get", f"/memory/segments/{10**30}.json"),
    ("get", f"/chat/trace/{BIG}"), ("get", f"/chat/trace/{BIG}.json"),
    ("get", f"/versions/diff?a={BIG}&b=0"), ("get", f"/versions/diff.json?a=0&b={BIG}"),
    ("post", f"/versions/{BIG}/restore"), ("post", f"/versions/{BIG}/restore.json"),
])
def test_huge_ids_are_404_not_500(client, user, method, url):
    r = getattr(client, method)(url)
    assert r.status_code == 404, r.data[:300]


def test_session_cookie_is_dead_after_logout(client, auth):
    auth.register("carol")
    assert client.get("/memory.json").status_code == 200
    stolen = client.get_cookie("session").value
    auth.logout()
    client.set_cookie("session", stolen)  # the cookie from before the logout, replayed
    r = client.get("/memory.json")
    assert r.status_code == 401
    auth.login("carol")
    assert client.get("/memory.json").status_code == 200


def test_login_rate_limit_holds_under_parallel_attempts(make_app):
    import threading

    app = make_app(LOGIN_MAX_FAILURES=5)
    app.test_client().post("/register", data={"username": "dora", "password": "correct horse",
                                              "confirm": "correct horse"})
    statuses: list[int] = []
    barrier = threading.Barrier(20)

    def attempt() -> None:
        client = app.test_client()
        barrier.wait()
        statuses.append(client.post("/login", data={"username": "dora",
                                                    "password": "wrong guess"}).status_code)

    threads = [threading.Thread(target=attempt) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(statuses) == [401] * 5 + [429] * 15


@pytest.mark.parametrize("password", ["12345678", "password", "aaaaaaaa", "1q2w3e4r",
                                      "erin-the-great"])
def test_register_refuses_guessable_passwords(client, password):
    r = client.post("/register", data={"username": "erin-the", "password": password,
                                       "confirm": password})
    assert r.status_code == 400 and b"too easy to guess" in r.data
    assert client.get("/memory.json").status_code == 401


def test_security_headers_forbid_framing_and_sniffing(client, user):
    for url in ("/", "/versions/clear", "/login", "/memory.json"):
        r = client.get(url)
        assert r.headers["X-Frame-Options"] == "DENY", url
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp


def test_introspection_needs_login_except_health(client, auth):
    for url in ("/-/settings", "/-/settings.json", "/-/versions", "/-/versions.json"):
        r = client.get(url)
        assert r.status_code in (302, 401) and b"flask" not in r.data, url
    assert client.get("/-/health.json").json == {"ok": True}
    auth.register("frank")
    assert client.get("/-/versions.json").status_code == 404  # operators only (config OPERATORS)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "http://localhost:11434/v1",
                                 "http://10.1.2.3/v1", "http://169.254.169.254/latest",
                                 "http://[::1]:9/v1", "http://192.168.0.7:8080/v1"])
def test_private_endpoints_are_an_instance_opt_in(make_app, url):
    app = make_app(ALLOW_PRIVATE_ENDPOINTS=False)
    client = app.test_client()
    client.post("/register", data={"username": "gus", "password": "correct horse",
                                   "confirm": "correct horse"})
    r = client.post("/settings.json", data={"base_url": url, "model": "m"})
    assert r.status_code == 400 and "private or local address" in r.json["error"]
    r = client.post("/settings", data={"base_url": url, "model": "m"})
    assert r.status_code == 400 and b"private or local address" in r.data
    assert client.get("/settings.json").json["endpoint"]["configured"] is False
    allowed = make_app(ALLOW_PRIVATE_ENDPOINTS=True).test_client()
    allowed.post("/login", data={"username": "gus", "password": "correct horse"})
    assert allowed.post("/settings.json", data={"base_url": url, "model": "m"}).status_code == 200


def test_private_endpoint_stored_before_is_refused_at_chat(make_app, engine):
    open_app = make_app(ALLOW_PRIVATE_ENDPOINTS=True)
    client = open_app.test_client()
    client.post("/register", data={"username": "hal", "password": "correct horse",
                                   "confirm": "correct horse"})
    client.post("/settings", data={"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    closed = make_app(ALLOW_PRIVATE_ENDPOINTS=False).test_client()
    closed.post("/login", data={"username": "hal", "password": "correct horse"})
    r = closed.post("/chat.json", data={"message": "hello"})
    assert r.status_code == 400 and "private or local address" in r.json["error"]


def test_resetting_to_default_model_forgets_the_key(client, user):
    client.post("/settings", data={"base_url": "http://h:1/v1", "model": "m", "api_key": "sk-1"})
    assert client.get("/settings.json").json["endpoint"]["key_set"] is True
    client.post("/settings", data={"base_url": "", "model": ""})
    assert client.get("/settings.json").json["endpoint"]["key_set"] is False


TRANSCRIPT = "User: I grow chillies\nAssistant: Hot ones?\nUser: Habaneros\nAssistant: Brave.\n"


def _preview_token(client, text=TRANSCRIPT):
    r = client.post("/import/preview.json", data={"text": text})
    assert r.status_code == 200, r.data
    return r.json["token"]


def test_one_preview_token_runs_one_import_even_in_parallel(app, client, user, engine):
    import threading

    from .conftest import wait_job

    token = _preview_token(client)
    cookie = client.get_cookie("session").value
    statuses: list[int] = []
    barrier = threading.Barrier(3)

    def run() -> None:
        other = app.test_client()
        other.set_cookie("session", cookie)
        barrier.wait()
        statuses.append(other.post("/import/run.json", data={"token": token}).status_code)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(statuses) == [200, 400, 400]
    jobs = engine.jobs.latest(user, "import")
    assert len(jobs) == 1 and wait_job(engine, user, jobs[0]["id"])["status"] == "done"
    # the same transcript again: its preview finds nothing new and keeps no upload to run
    seen = client.post("/import/preview.json", data={"text": TRANSCRIPT}).json
    assert seen["preview"]["to_import"] == 0 and seen["token"] is None
    # and run directly, nothing new is stored
    again = client.post("/import/run.json", data={"text": TRANSCRIPT})
    assert wait_job(engine, user, again.json["job"]["id"])["result"]["imported"] == 0
    assert engine.short_term_fill(user)["count"] == 2


def test_preview_uploads_do_not_pile_up(app, client, user, engine):
    def kept(user_id):
        return engine.store.scalar("SELECT count(*) FROM uploads WHERE user_id = ?", (user_id,))

    for _ in range(6):
        _preview_token(client)
    assert kept(user) == 3  # the newest previews only, in the store (not on a host's disk)
    with engine.store.transaction() as conn:  # another user's preview from long ago
        conn.execute("INSERT INTO uploads (token, user_id, kind, created_at, data)"
                     " VALUES (?, 'u9', 'dialogue', 0, ?)", ("0" * 32, b"User: stale\n"))
    token = _preview_token(client)
    assert kept("u9") == 0  # swept: past its time limit
    client.post("/import/run.json", data={"token": token})
    assert kept(user) == 2  # the run took its upload away


def test_silent_stream_ends_with_an_error_event_and_stores_nothing(make_app, chat_model):
    import time as _time

    def slow(messages, schema):
        _time.sleep(2.5)
        return "far too late"

    app = make_app(STREAM_TIMEOUT_SECONDS=1)
    client = app.test_client()
    client.post("/register", data={"username": "ivy", "password": "correct horse",
                                   "confirm": "correct horse"})
    chat_model.enqueue(slow)
    r = client.post("/chat/stream", data={"message": "hello?"})
    body = r.get_data(as_text=True)
    assert "event: error" in body and "sent nothing for too long" in body
    _time.sleep(3)  # the model answers after all: the abandoned answer is not stored
    engine = app.extensions["memoryos"]
    assert engine.short_term_fill("u1")["count"] == 0


def test_unexpected_errors_never_show_their_text(client, user, engine, chat_model):
    from .conftest import wait_job

    chat_model.enqueue(RuntimeError("secret-internal-detail"))
    body = client.post("/chat/stream", data={"message": "hello"}).get_data(as_text=True)
    assert "event: error" in body and "Something went wrong" in body
    assert "secret-internal-detail" not in body and "RuntimeError" not in body

    def boom(progress):
        raise ValueError("secret-job-detail")

    engine.jobs.register("boom", lambda user_id, payload, progress: boom(progress))
    job_id = engine.jobs.submit(user, "boom")
    job = wait_job(engine, user, job_id)
    assert job["status"] == "failed" and "Something went wrong" in job["error"]
    assert "secret-job-detail" not in job["error"] and "ValueError" not in job["error"]
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "secret-job-detail" not in page


def test_export_preview_says_it_replaces_the_memory(client, user, engine):
    for i in range(5):
        engine.add_exchange(user, f"export me {i}", "ok")
    import json as _json

    text = _json.dumps(engine.export(user))
    data = client.post("/import/preview.json", data={"text": text}).json["preview"]
    assert data["replaces_memory"] is True and data["to_import"] == 5
    assert data["export_counts"]["short_term"] == 3 and data["export_counts"]["pages"] == 2
    page = client.post("/import/preview", data={"text": text}).get_data(as_text=True)
    assert "replaces your whole memory" in page and "saved as a version first" in page
    assert "Import 0 exchanges" not in page and "Replace my memory with this export" in page


def test_background_maintainer_files_pages_after_chat(make_app, chat_model):
    import time as _time

    app = make_app(MAINTENANCE="background")
    client = app.test_client()
    client.post("/register", data={"username": "jo", "password": "correct horse",
                                   "confirm": "correct horse"})
    engine = app.extensions["memoryos"]
    for i in range(7):  # capacity 3, batch 2: four pages overflow and wait for maintenance
        chat_model.enqueue(f"answer {i}")
        assert client.post("/chat.json", data={"message": f"my hobby number {i}"}).json["ok"]
    deadline = _time.monotonic() + 60
    while _time.monotonic() < deadline:
        mid = engine.state("u1")["mid_term"]
        if mid["page_count"] == 4 and not mid["pending_pages"]:
            break
        _time.sleep(0.1)
    mid = engine.state("u1")["mid_term"]
    assert mid["page_count"] == 4 and mid["pending_pages"] == [] and mid["count"] >= 1
    assert app.extensions["memplay_maintainer"].inline is False
