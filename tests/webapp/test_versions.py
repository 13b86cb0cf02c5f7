"""Versions: list, snapshot, clear with confirmation, restore, diff."""

from __future__ import annotations


def test_versions_snapshot_clear_restore_diff(client, user, engine):
    engine.add_exchange(user, "My favourite colour is green", "Green it is.")
    assert client.get("/versions").status_code == 200
    snap = client.post("/versions/snapshot.json").json
    assert snap["ok"] and snap["version"]["version"] == 1
    assert client.get("/versions/clear").status_code == 200  # the confirmation step
    refused = client.post("/versions/clear", data={"confirm": "yes"})
    assert refused.status_code == 400
    assert engine.state(user)["short_term"]["count"] == 1
    done = client.post("/versions/clear", data={"confirm": "CLEAR"})
    assert done.status_code == 302
    assert engine.state(user)["short_term"]["count"] == 0
    listed = client.get("/versions.json").json["versions"]
    assert [v["version"] for v in listed] == [2, 1]
    assert b"Memory cleared" in client.get("/versions").data
    diff = client.get("/versions/diff.json?a=2&b=0").json
    assert diff["ok"] and diff["diff"]["exchanges"]["removed"]
    assert client.get("/versions/diff?a=1&b=2").status_code == 200
    restored = client.post("/versions/1/restore.json").json
    assert restored["ok"] and restored["result"]["restored"] == 1
    assert engine.state(user)["short_term"]["count"] == 1
    assert client.post("/versions/99/restore").status_code == 404
    assert client.get("/versions/diff.json?a=x").status_code == 400
