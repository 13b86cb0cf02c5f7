"""Recognising an export by content (issue 34): containers, key order, streamed elements,
clear refusals, one bad conversation skipped, and `memoryos import` detecting the same way."""

from __future__ import annotations

import gzip
import io
import json
import zipfile

import pytest

from memoryos_core import ImportFormatError
from memoryos_core.transfer import sniff
from memoryos_core.transfer.classify import classify

from . import chat_export_fixtures as fx
from .test_cli import memoryos  # noqa: F401  (the fixture)


def jsonl(*lines: dict) -> bytes:
    return "\n".join(json.dumps(line) for line in lines).encode()


def test_keys_decide_never_a_substring_in_the_text():
    # a ChatGPT export whose message pastes Claude's keys is still ChatGPT
    pasted = '{"chat_messages": [], "uuid": "x", "sender": "human"}'
    chatgpt = [{"title": "t", "current_node": "n", "mapping": {"n": {"message": {
        "author": {"role": "user"}, "content": {"parts": [pasted]}}}}}]
    assert classify(json.dumps(chatgpt).encode()).format == "chatgpt"
    # and a Claude export whose text pastes a ChatGPT mapping is Claude
    claude = fx.claude_conversations()
    claude[0]["chat_messages"][0]["content"][0]["text"] = '{"mapping": {}, "current_node": 1}'
    assert classify(json.dumps(claude).encode()).format == "claude"


def test_container_sniffed_bom_no_extension_gzip_zip():
    data = b"\xef\xbb\xbf  \n" + json.dumps(fx.openwebui()).encode()
    assert classify(data).format == "openwebui"
    lines = jsonl({"id": "m1", "content": "Likes rye bread", "state": "active", "app": "x"})
    lines += b"\n" + jsonl({"id": "m2", "content": "Cycles to work", "state": "active"})
    assert classify(gzip.compress(lines)).format == "openmemory"
    rec = classify(fx.claude_zip())  # no .zip name anywhere: the bytes say ZIP
    assert rec.format == "claude" and rec.memories and "memories.json" in rec.why
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("backup/memories.json", json.dumps(fx.OPENMEMORY))
    assert classify(buf.getvalue()).format == "openmemory"  # same name, other content


def test_jsonl_order_sharegpt_then_sillytavern_then_openai_and_batch_refused():
    both = {"conversations": [{"from": "human", "value": "hi"}], "messages": [{"role": "user"}]}
    assert classify(jsonl(both, both)).format == "sharegpt"
    header = {"user_name": "R", "character_name": "Q", "messages": []}
    assert classify(jsonl(header, {"mes": "hi", "is_user": True})).format == "sillytavern"
    headless = {"name": "Q", "mes": "hi", "is_user": False}
    assert classify(jsonl(headless, headless)).format == "sillytavern"
    chat = {"messages": [{"role": "user", "content": "hi"}]}
    assert classify(jsonl(chat, chat)).format == "openai-jsonl"
    batch = {"custom_id": "r1", "method": "POST", "body": {"messages": []}}
    with pytest.raises(ImportFormatError, match="Batch input"):
        classify(jsonl(batch, batch))


def test_unknown_shapes_name_what_was_found_and_what_is_read(engine):
    for data, found in ((b'[{"foo": 1, "bar": 2}]', "bar, foo"), (b'{"x": []}', "keys x")):
        with pytest.raises(ImportFormatError) as err:
            engine.preview_import("u1", data)
        message = str(err.value)
        assert message.startswith("unknown format") and found in message
        for name in ("Claude.ai export", "Open WebUI", "LibreChat", "SillyTavern", "Gemini",
                     "OpenAI chat JSONL", "ShareGPT", "OpenMemory", "Letta"):
            assert name in message
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("notes/readme.txt", "hello")
    with pytest.raises(ImportFormatError, match="a ZIP archive holding readme.txt"):
        engine.preview_import("u1", buf.getvalue())
    assert engine.state("u1")["short_term"]["count"] == 0


def test_streamed_elements_cross_chunk_edges(monkeypatch):
    monkeypatch.setattr(sniff, "CHUNK", 7)  # every element is cut many times
    items = [{"t": "a ] b , [ c \" {", "n": i, "deep": {"x": [1, {"y": "}"}]}} for i in range(40)]
    text = json.dumps(items, ensure_ascii=False).replace("a ]", "ä ]")
    got = list(sniff.JsonArray(io.BytesIO(text.encode())))
    assert [g["n"] for g in got] == list(range(40)) and got[3]["t"].startswith("ä ]")
    with pytest.raises(ImportFormatError, match="invalid JSON"):
        list(sniff.JsonArray(io.BytesIO(b'[{"a": 1}, {"b": ]')))


def test_one_bad_conversation_is_reported_and_skipped(engine):
    convs = fx.claude_conversations()
    convs.insert(1, {"uuid": "broken", "chat_messages": "not a list"})
    report = engine.import_dialogue("u1", json.dumps(convs).encode())
    assert report["imported"] == 3 and report["conversations"] == 2
    assert report["skipped"] == [{"where": "conversation 2",  # counted from 1, as people do
                                  "reason": "field 'chat_messages' must be a list"}]


def test_claude_single_conversation_and_explicit_format_mismatch(engine):
    one = json.dumps(fx.claude_conversations()[0]).encode()
    assert engine.preview_import("u1", one)["format"] == "claude"
    with pytest.raises(ImportFormatError, match="not librechat"):
        engine.preview_import("u1", one, fmt="librechat")


def test_cli_import_detects_a_claude_zip_on_disk(memoryos, tmp_path):  # noqa: F811
    path = tmp_path / "data-export"  # the e-mail link's file: no extension
    path.write_bytes(fx.claude_zip())
    code, out, err = memoryos("import", "--dry-run", path)
    assert code == 0, err
    assert "format claude: 3 of 3 exchanges would be imported" in out
    assert "recognised Claude.ai export" in out and "1 message on abandoned branches" in out
    assert "saved memories: 3 of 3 would be added" in out
    code, out, err = memoryos("import", "--no-maintain", path)
    assert code == 0, err
    assert "imported 3 of 3 exchanges (format claude)" in out
    code, out, err = memoryos("import", "--no-maintain", path)
    assert "imported 0 of 3 exchanges" in out and "saved memories: 0 of 3" in out
