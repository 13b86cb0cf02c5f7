"""ChatGPT exports read per conversation, a newer export completing a question, and Undo of
a first import (issue 47)."""

from __future__ import annotations

import json

import pytest

from memoryos_core.transfer import chat_import
from memoryos_core.transfer.classify import classify

from .test_import_chat_exports import rows

pytestmark = pytest.mark.sqlite_only
T0 = 1_709_290_000  # 2024-03-01


def node(node_id: str, role: str | None, text: str, parent: str | None, children: list[str],
         when: object = None) -> dict:
    message = None if role is None else {
        "id": node_id, "author": {"role": role}, "create_time": when,
        "content": {"content_type": "text", "parts": [text]}}
    return {"id": node_id, "parent": parent, "children": children, "message": message}


def chatgpt_conversation(cid: str, title: str, turns: list[tuple[str, str, object]],
                         abandoned: tuple[str, str] | None = None) -> dict:
    """A conversation whose shown branch is `turns` (role, text, time); an optional regenerated
    reply to the first question left on a side branch."""
    mapping = {"root": node("root", None, "", None, [])}
    parent = "root"
    for k, (role, text, when) in enumerate(turns):
        nid = f"{cid}-{k}"
        mapping[parent]["children"].append(nid)
        mapping[nid] = node(nid, role, text, parent, [], when)
        parent = nid
    if abandoned is not None:
        first = f"{cid}-0"
        mapping[first]["children"].insert(0, "old")
        mapping["old"] = node("old", abandoned[0], abandoned[1], first, [], T0 + 1)
    return {"id": cid, "conversation_id": cid, "title": title, "create_time": T0,
            "current_node": parent, "mapping": mapping}


def two_chats() -> list[dict]:
    return [
        chatgpt_conversation("c-bird", "Birdwatching plans 🐦", [
            ("user", "Where can I see puffins in May?", T0),
            ("assistant", "The Farne Islands are best in May.", T0 + 5)],
            abandoned=("assistant", "Try the zoo, there are penguins.")),
        chatgpt_conversation("c-kayak", "Second chat about kayaks", [
            ("user", "Is a sit-on-top kayak stable?", (T0 + 86400) * 1000 + 123),  # milliseconds
            ("assistant", "Yes, it is very stable for beginners.", T0 + 86405)]),
    ]


def test_two_chatgpt_conversations_keep_their_titles_counts_and_why(engine):
    doc = json.dumps(two_chats(), ensure_ascii=False).encode()
    preview = engine.preview_import("u1", doc)
    assert preview["recognised"]["label"] == "ChatGPT export"
    assert "'mapping'" in preview["recognised"]["why"]
    assert (preview["conversations"], preview["abandoned"], preview["to_import"]) == (2, 1, 2)
    assert [(c["title"], c["exchanges"]) for c in preview["listed"]] == [
        ("Birdwatching plans 🐦", 1), ("Second chat about kayaks", 1)]
    report = engine.import_dialogue("u1", doc)
    assert report["imported"] == 2 and report["skipped"] == []
    titles = sorted(c["title"] for c in engine.conversations("u1"))
    assert titles == ["Birdwatching plans 🐦", "Second chat about kayaks"]
    kayak = next(r for r in rows(engine) if r["user"].startswith("Is a sit-on-top"))
    assert kayak["timestamp"] == pytest.approx(T0 + 86400 + 0.123)  # read as milliseconds
    assert "penguins" not in json.dumps(rows(engine))  # the regenerated reply stays out


def test_one_bad_chatgpt_conversation_is_skipped_and_named(engine):
    chats = two_chats()
    bad = chatgpt_conversation("c-bad", "Broken", [("user", "When?", "yesterday-ish")])
    bad["mapping"] = ["not", "an", "object"]
    chats.insert(0, bad)  # first: the format is still recognised from the others
    preview = engine.preview_import("u1", json.dumps(chats).encode())
    assert preview["format"] == "chatgpt" and preview["conversations"] == 2
    assert "element 1" in preview["recognised"]["why"]
    assert preview["skipped"] == [{"where": "conversation 1",
                                   "reason": "field 'mapping' must be an object"}]
    assert engine.import_dialogue("u1", json.dumps(chats).encode())["imported"] == 2


def test_an_unreadable_time_is_placed_beside_its_neighbour_and_said(engine):
    chat = chatgpt_conversation("c-t", "Times", [
        ("user", "First question about tents", T0), ("assistant", "Answer one.", T0 + 1),
        ("user", "Second question about stoves", "not a time"), ("assistant", "Two.", None)])
    report = engine.import_dialogue("u1", json.dumps([chat]).encode())
    assert report["imported"] == 2
    second = next(r for r in rows(engine) if r["user"].startswith("Second"))
    assert T0 < second["timestamp"] < T0 + 2  # in 2024 beside its neighbour, not today
    assert [n["where"] for n in report["notes"]] == ["conversation 1 c-t-2"]
    assert "unreadable" in report["notes"][0]["reason"]


def test_an_empty_failed_reply_keeps_two_questions_apart(engine):
    chat = chatgpt_conversation("c-e", "Failed", [
        ("user", "What is a bivvy bag?", T0), ("assistant", "", T0 + 1),
        ("user", "Hello? Are you there?", T0 + 60), ("assistant", "Yes: a bivvy is a sack.", T0 + 61)])
    engine.import_dialogue("u1", json.dumps([chat]).encode())
    assert sorted((r["user"], r["assistant"]) for r in rows(engine)) == [
        ("Hello? Are you there?", "Yes: a bivvy is a sack."), ("What is a bivvy bag?", "")]


def test_a_newer_export_completes_the_unanswered_question(engine):
    older = chatgpt_conversation("c-q", "Stoves", [
        ("user", "Which camping stove is lightest?", T0)])
    newer = chatgpt_conversation("c-q", "Stoves", [
        ("user", "Which camping stove is lightest?", T0),
        ("assistant", "A titanium alcohol stove, about 30 grams.", T0 + 4)])
    engine.import_dialogue("u1", json.dumps([older]).encode())
    preview = engine.preview_import("u1", json.dumps([newer]).encode())
    assert preview["to_import"] == 1 and preview["completed"] == 1
    report = engine.import_dialogue("u1", json.dumps([newer]).encode())
    assert report["completed"] == 1 and report["imported"] == 0
    assert [(r["user"], r["assistant"]) for r in rows(engine)] == [
        ("Which camping stove is lightest?", "A titanium alcohol stove, about 30 grams.")]
    assert "titanium" in json.dumps(engine.search("u1", "titanium"))  # its words are indexed
    # and the same newer export again adds nothing
    assert engine.import_dialogue("u1", json.dumps([newer]).encode())["imported"] == 0
    assert len(rows(engine)) == 1


def test_the_first_import_into_an_empty_memory_can_be_undone(engine):
    report = engine.import_dialogue("u1", json.dumps(two_chats()).encode())
    assert report["saved_as"] is not None
    engine.restore("u1", report["saved_as"])
    assert rows(engine) == [] and engine.conversations("u1") == []
    text = engine.import_dialogue("u1", "User: hi\nAssistant: hello")
    assert text["saved_as"] is not None  # the older readers too


def test_a_large_preview_stops_in_time_and_says_how_far_it_read(engine):
    chats = [chatgpt_conversation(f"c{n}", f"Chat {n}", [("user", f"Question {n}", T0 + n)])
             for n in range(30)]
    rec = classify(json.dumps(chats).encode())
    preview = chat_import.preview(engine.ctx, "u1", rec, seconds=0)
    assert preview["conversations"] < 30 and preview["partial"]["read"] > 0
    assert preview["partial"]["of"] >= preview["partial"]["read"]
    assert engine.preview_import("u1", json.dumps(chats).encode())["partial"] is None


def test_bold_headings_of_claude_memories_are_not_facts():
    from memoryos_core.transfer.saved_memories import statements

    text = ("**Work context**\n- Robin is a night-shift nurse in Leeds\n__Personal__:\n"
            "**Pets**: a whippet called Moss\n## Projects\n* Learning Portuguese")
    assert statements(text) == ["Robin is a night-shift nurse in Leeds",
                                "Pets: a whippet called Moss", "Learning Portuguese"]
