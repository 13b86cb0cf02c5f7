def test_chat_page_smoke(client, user):
    r = client.get("/")
    assert r.status_code == 200, r.data[:2000]
