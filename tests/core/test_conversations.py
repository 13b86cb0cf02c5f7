"""Conversations: exchanges grouped by the conversation that holds them; New chat; imports."""

from __future__ import annotations

import json

import pytest

from memoryos_core import NotFound
from memoryos_core.storage.migrations import MIGRATIONS


def conv_ids(engine, user="u1"):
    return [r["conversation_id"] for r in engine.store.query(
        "SELECT conversation_id FROM exchanges WHERE user_id = ? ORDER BY id", (user,))]


def test_conversation_exchanges_share_the_first_ones_id(engine):
    ids = [engine.add_exchange("u1", f"message {n}", f"answer {n}", maintain=False)
           for n in range(3)]
    assert conv_ids(engine) == [ids[0]] * 3
    assert engine.current_conversation("u1") == ids[0]
    [listed] = engine.conversations("u1")
    assert listed["id"] == ids[0] and listed["count"] == 3 and listed["current"] is True
    assert listed["title"] == "message 0" and listed["source"] == "chat"


def test_conversation_new_chat_moves_short_term_to_mid_term(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=5)
    first = [engine.add_exchange("u1", f"old {n}", f"reply {n}", maintain=False)
             for n in range(3)]
    moved = engine.new_conversation("u1")
    assert moved == first
    assert engine.short_term_fill("u1")["count"] == 0
    assert engine.current_conversation("u1") is None
    state = engine.state("u1")
    assert {p["id"] for p in state["mid_term"]["pending_pages"]} == set(first)
    second = engine.add_exchange("u1", "a new topic", "sure", maintain=False)
    assert engine.current_conversation("u1") == second
    listed = engine.conversations("u1")
    assert [c["id"] for c in listed] == [second, first[0]]
    assert [c["current"] for c in listed] == [True, False]
    old = engine.conversation("u1", first[0])
    assert [e["user"] for e in old["exchanges"]] == ["old 0", "old 1", "old 2"]
    assert old["current"] is False and old["earlier"] is False
    assert engine.events("u1")[1]["kind"] == "new conversation"


def test_conversation_pages_back_with_load_earlier(engine):
    ids = [engine.add_exchange("u1", f"m{n}", f"a{n}", timestamp=1_700_000_000 + n,
                               maintain=False) for n in range(7)]
    last = engine.conversation("u1", ids[0], limit=3)
    assert [e["id"] for e in last["exchanges"]] == ids[4:] and last["earlier"] is True
    before = engine.conversation("u1", ids[0], limit=3, before=ids[4])
    assert [e["id"] for e in before["exchanges"]] == ids[1:4] and before["earlier"] is True
    rest = engine.conversation("u1", ids[0], limit=3, before=ids[1])
    assert [e["id"] for e in rest["exchanges"]] == ids[:1] and rest["earlier"] is False
    assert rest["count"] == 7


def test_conversation_of_another_user_is_not_found(engine):
    mine = engine.add_exchange("u1", "private", "ok", maintain=False)
    with pytest.raises(NotFound):
        engine.conversation("u2", mine)
    assert engine.conversations("u2") == []
    with pytest.raises(NotFound):
        engine.conversation("u1", mine, before=10**9)


def test_conversation_an_import_is_one_conversation_with_its_source(engine):
    chat = engine.add_exchange("u1", "hello", "hi", maintain=False)
    doc = [{"user_input": f"imported {n}", "agent_response": f"yes {n}"} for n in range(4)]
    report = engine.import_dialogue("u1", json.dumps(doc), maintain=False)
    ids = report["exchange_ids"]
    assert conv_ids(engine)[1:] == [ids[0]] * 4
    by_id = {c["id"]: c for c in engine.conversations("u1")}
    assert by_id[ids[0]]["source"].startswith("import:") and by_id[ids[0]]["count"] == 4
    assert by_id[ids[0]]["title"] == "imported 0"
    assert by_id[chat]["source"] == "chat"
    # a chat message after the import continues the chat, not the import
    assert engine.add_exchange("u1", "back to chat", "ok", maintain=False) and \
        conv_ids(engine)[-1] == chat


def test_conversation_survives_export_and_import_into_another_user(engine):
    engine.add_exchange("u1", "one", "1", maintain=False)
    engine.new_conversation("u1")
    engine.add_exchange("u1", "two", "2", maintain=False)
    engine.add_exchange("u1", "three", "3", maintain=False)
    doc = engine.export("u1")
    assert all("conversation_id" in e for e in doc["exchanges"])
    engine.import_dialogue("u2", json.dumps(doc), maintain=False)
    counts = sorted((c["title"], c["count"]) for c in engine.conversations("u2"))
    assert counts == [("one", 1), ("two", 2)]
    version = engine.snapshot("u1")["version"]
    engine.clear("u1")
    engine.restore("u1", version)
    assert sorted((c["title"], c["count"]) for c in engine.conversations("u1")) == counts


def test_conversation_export_without_conversations_still_imports(engine):
    engine.add_exchange("u1", "legacy", "row", maintain=False)
    doc = engine.export("u1")
    for e in doc["exchanges"]:
        del e["conversation_id"]  # a document written before conversations
    engine.import_dialogue("u2", json.dumps(doc), maintain=False)
    [listed] = engine.conversations("u2")
    assert listed["id"] == 0 and listed["title"] == "legacy"
    assert engine.conversation("u2", 0)["exchanges"][0]["user"] == "legacy"


@pytest.mark.sqlite_only
def test_conversation_migration_groups_old_rows_by_user_and_kind_of_source(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:9]:
        conn.executescript(script)
    rows = [("u1", "chat"), ("u1", "import:locomo D1:1"), ("u1", "chat"),
            ("u1", "import:locomo D1:2"), ("u2", "chat")]
    for n, (user, source) in enumerate(rows):
        conn.execute("INSERT INTO exchanges (user_id, user_text, assistant_text, ts,"
                     " admitted_at, tier, source, content_key) VALUES (?, ?, 'a', ?, 0,"
                     " 'short', ?, ?)", (user, f"m{n}", n, source, f"k{n}"))
    conn.executescript(MIGRATIONS[9])
    got = conn.execute("SELECT conversation_id FROM exchanges ORDER BY id").fetchall()
    assert [r[0] for r in got] == [1, 2, 1, 2, 5]
    # the keyword index follows an update of the texts (Edit, Regenerate)
    conn.execute("UPDATE exchanges SET user_text = 'zebra crossing' WHERE id = 1")
    hits = conn.execute("SELECT rowid FROM exchanges_fts WHERE exchanges_fts MATCH 'zebra'")
    assert [r[0] for r in hits] == [1]
    assert conn.execute("SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH"
                        " 'm0'").fetchone()[0] == 0
    conn.close()
