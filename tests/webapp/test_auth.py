"""Accounts: register, login, logout, safe next, rate limiting, cookies, anonymous access."""

from __future__ import annotations


def test_auth_anonymous_is_sent_to_login(client):
    r = client.get("/")
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    page = client.get("/login")
    assert page.status_code == 200 and b'href="/register"' in page.data


def test_auth_anonymous_json_gets_401(client):
    r = client.get("/memory.json")
    assert r.status_code == 401 and r.json["ok"] is False


def test_auth_register_login_logout(client, auth):
    r = auth.register()
    assert r.status_code == 302
    assert client.get("/").status_code == 200
    cookie = r.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    auth.logout()
    assert client.get("/").status_code == 302
    assert auth.login().status_code == 302
    assert client.get("/").status_code == 200


def test_auth_register_rejects_duplicate_and_bad_input(client, auth):
    auth.register()
    auth.logout()
    assert auth.register().status_code == 409
    r = client.post("/register", data={"username": "bob", "password": "short", "confirm": "short"})
    assert r.status_code == 400


def test_auth_wrong_password_is_rejected(client, auth):
    auth.register()
    auth.logout()
    r = auth.login(password="wrong password")
    assert r.status_code == 401 and b"wrong password" in r.data
    assert client.get("/").status_code == 302


def test_auth_login_rate_limited_after_five_failures(client, auth):
    auth.register()
    auth.logout()
    for _ in range(5):
        assert auth.login(password="nope nope").status_code == 401
    r = auth.login()  # even the right password waits
    assert r.status_code == 429 and b"Too many failed logins" in r.data
    other = auth.login(username="someone-else", password="nope nope")
    assert other.status_code == 401  # limited per username + address


def test_auth_next_redirect_is_safe(client, auth):
    auth.register()
    auth.logout()
    r = client.post("/login?next=/memory", data={"username": "alice", "password": "correct horse"})
    assert r.headers["Location"] == "/memory"
    auth.logout()
    for evil in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        r = client.post("/login", query_string={"next": evil},
                        data={"username": "alice", "password": "correct horse"})
        assert r.headers["Location"] == "/", evil
        auth.logout()
