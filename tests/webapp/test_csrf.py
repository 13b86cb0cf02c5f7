"""CSRF is on for every POST outside the test config: a missing token fails, a valid one works."""

from __future__ import annotations

import re


def test_csrf_missing_token_fails_and_header_token_works(make_app, chat_model):
    app = make_app(WTF_CSRF_ENABLED=True)
    client = app.test_client()
    page = client.get("/register").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    no_token = client.post("/register", data={"username": "carol", "password": "long enough",
                                               "confirm": "long enough"})
    assert no_token.status_code == 400 and b"security token" in no_token.data
    ok = client.post("/register", data={"username": "carol", "password": "long enough",
                                         "confirm": "long enough", "csrf_token": token})
    assert ok.status_code == 302
    chat_page = client.get("/").get_data(as_text=True)
    meta = re.search(r'<meta name="csrf-token" content="([^"]+)"', chat_page).group(1)
    bare = client.post("/chat", data={"message": "hi"}, headers={"HX-Request": "true"})
    assert bare.status_code == 400
    assert client.post("/chat.json", data={"message": "hi"}).json["ok"] is False
    assert client.post("/logout").status_code == 400
    chat_model.enqueue("Hello!")
    sent = client.post("/chat", data={"message": "hi"},
                       headers={"HX-Request": "true", "X-CSRFToken": meta})
    assert sent.status_code == 200 and b"Hello!" in sent.data
