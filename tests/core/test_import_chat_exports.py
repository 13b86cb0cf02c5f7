"""Chat exports of other assistants (issue 34): only the shown branch enters memory, at its
original time, under its title; a second import adds nothing; saved memories become facts."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from . import chat_export_fixtures as fx

pytestmark = pytest.mark.sqlite_only  # the data folder itself is read (grep for left-out words)


def utc(text: str) -> float:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def local(*parts: int) -> float:
    return dt.datetime(*parts).astimezone().timestamp()  # type: ignore[misc]


def rows(engine, user="u1") -> list[dict]:
    """Every stored exchange of a user (short-term, pending and filed pages)."""
    state = engine.state(user)
    out = state["short_term"]["exchanges"] + state["mid_term"]["pending_pages"]
    return out + [p for seg in state["mid_term"]["segments"] for p in seg["pages"]]


def on_disk(folder: Path, word: str) -> list[str]:
    """The files under the data folder whose bytes hold the word."""
    return [p.name for p in folder.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]


def imported(engine, tmp_path, data, fmt, shown, gone, title, times):
    """Import once and check what the issue asks of every format; returns the report."""
    preview = engine.preview_import("u1", data)
    assert preview["format"] == fmt and preview["recognised"]["why"]
    report = engine.import_dialogue("u1", data)
    assert report["format"] == fmt and report["imported"] == preview["to_import"] > 0
    stored = rows(engine)
    texts = "\n".join(r["user"] + "\n" + r["assistant"] for r in stored)
    for words in shown:
        assert words in texts, words
    export = json.dumps(engine.export("u1"), ensure_ascii=False)
    for word in gone:
        assert word not in texts and word not in export, word
        assert on_disk(tmp_path / "data", word) == [], word
    assert on_disk(tmp_path / "data", shown[0].split()[-1])  # the grep does see stored text
    by_user = {r["user"]: r for r in stored}
    for user_text, when in times.items():
        assert by_user[user_text]["timestamp"] == pytest.approx(when), user_text
    titles = [c["title"] for c in engine.conversations("u1")]
    assert title in titles and title in by_user[next(iter(times))]["source"]
    again = engine.import_dialogue("u1", data)
    assert again["imported"] == 0 and again["skipped"]
    assert {s["reason"] for s in again["skipped"]} == {"already imported"}
    return preview, report


def test_claude_zip_shown_branch_thinking_out_artifact_kept_memories_facts(engine, tmp_path):
    data = fx.claude_zip()
    preview, report = imported(
        engine, tmp_path, data, "claude",
        shown=["Pack a shell jacket", "[artifact: Packing list]\n- shell jacket",
               "Here is my current list", "[artifact: Countdown]", "That logs 3, 2, 1."],
        gone=["zorbellian", "Quillithink", "Gnarbleplan", "not supported on your current"],
        title="Gear for a wet hike",
        times={"What should I pack for a drizzly day hike?": utc("2025-03-02T09:15:05Z"),
               "Make me a one-line countdown in JS": utc("2024-06-01T12:00:10Z")})
    assert preview["abandoned"] == 1 and preview["conversations"] == 2
    assert "conversations.json" in preview["recognised"]["why"]
    assert "chat_messages" in preview["recognised"]["why"]
    assert preview["facts"]["new"] == 3
    assert report["facts"] == {"found": 3, "imported": 3}
    facts = engine.state("u1")["long_term"]["user_facts"]
    origins = {f["text"]: f["origin"] for f in facts}
    assert origins["Lives in Leeds with a whippet named Biscuit"] == "imported from Claude memory"
    assert origins["Grows chillies on the balcony"] == ("imported from Claude project memory"
                                                        " (Garden)")
    assert {f["text"] for f in engine.profile("u1")["imported_facts"]} == set(origins)
    # correctable like any fact: the text changes, where it came from stays
    fact = next(f for f in facts if f["text"].startswith("Prefers tea"))
    engine.edit_fact("u1", fact["id"], "Prefers green tea over coffee")
    fixed = {f["id"]: f for f in engine.state("u1")["long_term"]["user_facts"]}[fact["id"]]
    assert fixed["text"] == "Prefers green tea over coffee" and fixed["by_user"]
    assert fixed["origin"] == "imported from Claude memory"
    assert engine.import_dialogue("u1", data)["facts"]["imported"] == 0


def test_claude_conversations_json_alone_is_recognised_by_content(engine):
    data = json.dumps(fx.claude_conversations()).encode()
    preview = engine.preview_import("u1", data)
    assert preview["format"] == "claude" and preview["to_import"] == 3
    assert preview["facts"]["found"] == 0


def test_openwebui_current_branch_epoch_seconds_and_ms(engine, tmp_path):
    preview, _ = imported(
        engine, tmp_path, json.dumps(fx.openwebui()).encode(), "openwebui",
        shown=["Plan on 4 to 6 hours for bulk fermentation.",
               "Overnight, 12 to 16 hours, works well."],
        gone=["frumious", "Snickerthought"], title="Sourdough timing",
        times={"How long should dough proof at 20 C?": 1740900000.0,
               "And in the fridge?": 1740900100.0})
    assert preview["abandoned"] == 1


def test_openwebui_bare_blob_and_dangling_current_id(engine):
    chat = fx.openwebui()[0]["chat"]
    chat["history"]["currentId"] = "gone"  # repaired: the leaf with the largest timestamp
    preview = engine.preview_import("u1", json.dumps(chat).encode())
    assert preview["format"] == "openwebui"
    assert preview["sample"][-1]["assistant"] == "Overnight, 12 to 16 hours, works well."


def test_librechat_newest_sibling_and_created_by_user_role(engine, tmp_path):
    preview, _ = imported(
        engine, tmp_path, json.dumps(fx.librechat()).encode(), "librechat",
        shown=["How about Fernando?", "Something Greek?", "Try Ptera, from the Greek for wing."],
        gone=["wibbleton", "grumbleweed", "Pteronthink"], title="Naming a houseplant",
        times={"Suggest a name for my fern.": utc("2025-05-10T08:40:00Z"),
               "Something Greek?": utc("2025-05-10T08:41:00Z")})
    assert preview["abandoned"] == 2


def test_sillytavern_shown_swipe_local_times_notes_out(engine, tmp_path):
    preview, _ = imported(
        engine, tmp_path, fx.sillytavern(), "sillytavern",
        shown=["Evening, Robin.", "The keeper's lamp turns slow and bright.",
               "Hidden from the prompt,\nstill mine."],
        gone=["flumpish", "stormy coast", "Keep it to one line"], title="Chat with Quill",
        times={"A short poem about lighthouses.": local(2025, 2, 14, 19, 6),
               "Hidden from the prompt,\nstill mine.": utc("2025-02-14T19:07:00Z")})
    assert preview["abandoned"] == 1
    greeting = next(r for r in rows(engine) if r["assistant"].startswith("Evening"))
    assert greeting["user"] == "" and greeting["timestamp"] == local(2025, 2, 14, 19, 5)


def test_gemini_conversations_from_time_gaps_reply_html_as_text(engine, tmp_path):
    preview, _ = imported(
        engine, tmp_path, json.dumps(fx.gemini()).encode(), "gemini",
        shown=["- Pepper omelette\n- Rice bowl", "Try a lentil soup & fresh bread.",
               "About 330 m."],
        gone=["blorptastic", "Gave feedback"], title="Suggest a quick weeknight dinner",
        times={"Suggest a quick weeknight dinner": utc("2025-04-06T15:10:02.101Z"),
               "How tall is the Eiffel Tower?": utc("2025-04-07T09:00:00Z")})
    assert preview["conversations"] == 2 and preview["abandoned"] == 1
    titles = {c["title"]: c["count"] for c in engine.conversations("u1")}
    assert titles["Suggest a quick weeknight dinner"] == 2


def test_openai_jsonl_and_sharegpt_roles_tools_left_out(engine):
    report = engine.import_dialogue("u1", fx.openai_jsonl())
    assert report["format"] == "openai-jsonl" and report["imported"] == 2
    report = engine.import_dialogue("u1", json.dumps(fx.sharegpt()).encode())
    assert report["format"] == "sharegpt" and report["imported"] == 2
    texts = {(r["user"], r["assistant"]) for r in rows(engine)}
    assert ("Describe autumn.", "Red leaves drift and fall") in texts
    assert ("Weather in Oslo?", "About 4 C in Oslo.") in texts
    assert ("Convert 5 km to miles.", "5 km is about 3.1 miles.") in texts
    assert ("Name a blue fruit.", "Blueberries.") in texts
    assert not any("haiku" in u + a or "temp_c" in u + a for u, a in texts)
    titles = {c["title"] for c in engine.conversations("u1")}
    assert {"Describe autumn.", "Convert 5 km to miles."} <= titles
    assert engine.import_dialogue("u1", fx.openai_jsonl())["imported"] == 0
    assert engine.import_dialogue("u1", json.dumps(fx.sharegpt()).encode())["imported"] == 0


def test_openmemory_and_letta_saved_memories_become_marked_facts(engine):
    report = engine.import_dialogue("u1", json.dumps(fx.OPENMEMORY).encode())
    assert report["format"] == "openmemory" and report["facts"]["imported"] == 2
    report = engine.import_dialogue("u1", json.dumps(fx.LETTA).encode())
    assert report["format"] == "letta" and report["facts"]["imported"] == 2
    long_term = engine.state("u1")["long_term"]
    user = {f["text"]: f["origin"] for f in long_term["user_facts"]}
    assert user == {"Prefers tabs over spaces": "imported from OpenMemory (cursor)",
                    "Uses Neovim at work": "imported from OpenMemory (cursor), archived there",
                    "Goal: 10k race in June.": "imported from Letta agent pocket-coach (human block)"}
    assistant = {f["text"]: f["origin"] for f in long_term["assistant_facts"]}
    assert assistant == {"Encouraging, brief.":
                         "imported from Letta agent pocket-coach (persona block)"}
    assert "vorpalmonk" not in json.dumps(engine.export("u1"))
    assert engine.import_dialogue("u1", json.dumps(fx.LETTA).encode())["facts"]["imported"] == 0


def test_claude_memories_json_alone_and_openmemory_jsonl_gz(engine):
    import gzip

    report = engine.import_dialogue("u1", json.dumps(fx.CLAUDE_MEMORIES).encode())
    assert report["format"] == "claude-memories" and report["facts"]["imported"] == 3
    lines = [{"id": "m9", "content": "Cycles to work", "state": "active", "app": "openmemory",
              "created_at": "2025-02-01T08:00:00+00:00"},
             {"id": "m8", "content": "Sold the old van", "state": "deleted"}]
    data = gzip.compress("\n".join(json.dumps(x) for x in lines).encode())
    report = engine.import_dialogue("u1", data)
    assert report["format"] == "openmemory" and report["facts"]["imported"] == 1
    facts = {f["text"]: f for f in engine.state("u1")["long_term"]["user_facts"]}
    assert facts["Cycles to work"]["origin"] == "imported from OpenMemory (openmemory)"
    assert facts["Cycles to work"]["valid_from"] == utc("2025-02-01T08:00:00Z")
    assert "Sold the old van" not in facts
