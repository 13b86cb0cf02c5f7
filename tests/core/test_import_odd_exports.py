"""Exports in their less common shapes (issue 34): split Claude batches, a whole Takeout, a
flat LibreChat list, a headerless group chat, empty messages kept as tree links."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from . import chat_export_fixtures as fx
from .test_import_chat_exports import rows, utc

pytestmark = pytest.mark.sqlite_only


def zipped(members: dict[str, object]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, doc in members.items():
            zf.writestr(name, json.dumps(doc))
    return buf.getvalue()


def test_claude_export_in_batches_reads_every_part(engine):
    first, second = fx.claude_conversations()
    data = zipped({"data-batch-0000/conversations.json": [first],
                   "data-batch-0001/conversations.json": [second],
                   "data-batch-0000/users.json": []})
    preview = engine.preview_import("u1", data)
    assert preview["format"] == "claude" and preview["conversations"] == 2
    assert "2 batches" in preview["recognised"]["why"]
    assert engine.import_dialogue("u1", data)["imported"] == 3


def test_a_whole_takeout_finds_the_gemini_activity_among_others(engine):
    search = [{"header": "Search", "title": "Searched for kites", "time": "2025-04-06T10:00:00Z",
               "products": ["Search"]}]
    data = zipped({"Takeout/My Activity/Search/MyActivity.json": search,
                   "Takeout/My Activity/Gemini Apps/MyActivity.json": fx.gemini()})
    report = engine.import_dialogue("u1", data)
    assert report["format"] == "gemini" and report["imported"] == 3
    # localized folder and file names: the content still says Gemini
    data = zipped({"Takeout/Meine Aktivitäten/Suche/MeineAktivitäten.json": search,
                   "Takeout/Meine Aktivitäten/Gemini-Apps/MeineAktivitäten.json": fx.gemini()})
    assert engine.preview_import("u2", data)["format"] == "gemini"
    assert not any("kites" in r["user"] for r in rows(engine))


def test_librechat_flat_list_with_two_roots_and_old_text_parts(engine):
    tree = fx.librechat()
    flat: list[dict] = []

    def walk(nodes):
        for node in nodes:
            flat.append({k: v for k, v in node.items() if k != "children"})
            walk(node.get("children", []))

    walk(tree.pop("messagesTree"))
    # the first question edited: a second, newer root holds the branch shown
    flat.append({"messageId": "r2", "parentMessageId": "00000000-0000-0000-0000-000000000000",
                 "isCreatedByUser": True, "text": "Name my fern, please.",
                 "createdAt": "2025-05-11T08:00:00.000Z"})
    flat.append({"messageId": "r2a", "parentMessageId": "r2", "isCreatedByUser": False,
                 "content": [{"type": "text", "text": {"value": "Frond Solo.", "annotations": []}}]})
    tree.update(recursive=False, messages=flat)
    report = engine.import_dialogue("u1", json.dumps(tree).encode())
    assert report["abandoned"] == 6 and report["imported"] == 1
    (only,) = rows(engine)
    assert (only["user"], only["assistant"]) == ("Name my fern, please.", "Frond Solo.")
    # no time on the reply: it takes its parent's
    assert only["timestamp"] == utc("2025-05-11T08:00:00Z")


def test_sillytavern_group_chat_without_header(engine):
    lines = [{"name": "Ada", "is_user": True, "send_date": "2024-7-12@01h31m37s",
              "mes": "Who wants tea?", "is_group": True},
             {"name": "Bo", "is_user": False, "send_date": "2024-7-12@01h32m00s",
              "mes": "Me, with lemon."}]
    data = "\n".join(json.dumps(x) for x in lines).encode()
    report = engine.import_dialogue("u1", data)
    assert report["format"] == "sillytavern" and report["imported"] == 1


def test_claude_empty_message_keeps_the_tree_link(engine):
    conv = fx.claude_conversations()[0]
    conv["chat_messages"][2]["content"] = [{"type": "tool_use", "name": "web_search",
                                            "input": {"query": "rain"}}]
    conv["chat_messages"][2]["text"] = ("```\nThis block is not supported on your current device"
                                        " yet.\n```")
    report = engine.import_dialogue("u1", json.dumps([conv]).encode())
    texts = {(r["user"], r["assistant"]) for r in rows(engine)}
    # the reply had no words (it failed): it still ended the first question, so the next one
    # is an exchange of its own, not joined to it (issue 47)
    assert texts == {("What should I pack for a drizzly day hike?", ""),
                     ("Here is my current list, anything missing?", "")}
    assert report["abandoned"] == 1


def test_openwebui_content_as_parts_and_messages_list_without_history(engine):
    chat = {"id": "c9", "title": "Parts", "chat": {"messages": [
        {"id": "x1", "role": "user", "content": [{"type": "text", "text": "Is basil perennial?"}],
         "timestamp": 1740900000},
        {"id": "x2", "role": "assistant", "content": "Usually grown as an annual.",
         "timestamp": 1740900005}]}}
    report = engine.import_dialogue("u1", json.dumps([chat]).encode())
    assert report["format"] == "openwebui" and report["imported"] == 1
    (only,) = rows(engine)
    assert only["user"] == "Is basil perennial?" and only["timestamp"] == 1740900000.0


def test_a_newer_export_continues_the_same_conversation(engine):
    convs = fx.claude_conversations()[1:]
    engine.import_dialogue("u1", json.dumps(convs).encode())
    convs[0]["chat_messages"] += [
        {"uuid": "u3", "sender": "human", "text": "Now count down from ten.",
         "created_at": "2024-06-02T09:00:00.000000Z"},
        {"uuid": "u4", "sender": "assistant", "text": "Set n=10.",
         "created_at": "2024-06-02T09:00:05.000000Z"}]
    report = engine.import_dialogue("u1", json.dumps(convs).encode())
    assert report["imported"] == 1 and len(report["skipped"]) == 1
    (conv,) = engine.conversations("u1")
    assert conv["title"] == "Tiny timer page" and conv["count"] == 2


def test_progress_by_bytes_read_private_use_and_nul_characters_out(engine):
    convs = fx.claude_conversations()
    convs[1]["chat_messages"][0]["text"] = "Make me a one-line \ue200countdown\x00 in JS"
    seen: list[tuple[int, int, str]] = []
    engine.import_dialogue("u1", json.dumps(convs).encode(),
                           progress=lambda done, total, phase: seen.append((done, total, phase)))
    assert any(phase.startswith("reading (") and phase.endswith(" KB)") for _, _, phase in seen)
    assert seen[-1] == (100, 100, "done")
    assert "Make me a one-line countdown in JS" in {r["user"] for r in rows(engine)}


def test_librechat_error_reply_is_not_memory(engine):
    doc = fx.librechat()
    m6 = doc["messagesTree"][0]["children"][0]["children"][1]["children"][1]
    m6.update(error=True, content=[], text="Error: 429 rate limited")
    engine.import_dialogue("u1", json.dumps(doc).encode())
    assert not any("429" in r["assistant"] for r in rows(engine))


def test_claude_thinking_only_message_never_falls_back_to_its_flat_text(engine):
    conv = fx.claude_conversations()[0]
    conv["chat_messages"][2]["content"] = [{"type": "thinking", "thinking": "Mumblethink."}]
    conv["chat_messages"][2]["text"] = "Mumblethink. Pack a shell jacket."
    engine.import_dialogue("u1", json.dumps([conv]).encode())
    assert not any("Mumblethink" in r["assistant"] + r["user"] for r in rows(engine))
