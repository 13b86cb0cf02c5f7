"""A second user sees and changes nothing of the first user's memory."""

from __future__ import annotations

from .conftest import wait_job


def test_isolation_second_user_gets_404(client, auth, engine, chat_model):
    auth.register("alice")
    for n in range(5):
        engine.add_exchange("u1", f"secret alpha {n}", f"noted alpha {n}")
    engine.force_analysis("u1")
    chat_model.enqueue("ok")
    exchange_id = client.post("/chat.json", data={"message": "alpha secret question"}).json[
        "exchange"]["id"]
    job_id = client.post("/analysis/run.json").json["job"]["id"]
    wait_job(engine, "u1", job_id)
    state = engine.state("u1")
    seg_id = state["mid_term"]["segments"][0]["id"]
    page_id = state["mid_term"]["segments"][0]["pages"][0]["id"]
    assert client.post("/versions/snapshot.json").status_code == 200
    versions_a = client.get("/versions.json").json["versions"]
    assert versions_a
    auth.logout()

    auth.register("bob")
    for url in (f"/memory/segments/{seg_id}", f"/memory/segments/{seg_id}.json",
                f"/memory/pages/{page_id}", f"/memory/pages/{page_id}.json",
                f"/chat/trace/{exchange_id}", f"/chat/trace/{exchange_id}.json",
                f"/jobs/{job_id}", f"/jobs/{job_id}.json"):
        assert client.get(url).status_code == 404, url
    mine = client.get("/memory.json").json
    assert "alpha" not in str(mine)
    assert mine["short_term"]["count"] == 0 and mine["mid_term"]["segments"] == []
    assert client.get("/versions.json").json["versions"] == []
    number = versions_a[0]["version"]
    assert client.post(f"/versions/{number}/restore.json").status_code == 404
    assert client.get(f"/versions/diff.json?a={number}&b=0").status_code == 404
    assert engine.state("u2")["short_term"]["count"] == 0
    assert engine.state("u1")["short_term"]["count"] > 0
