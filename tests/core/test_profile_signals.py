"""The profile without a model records signals (sentences and pages), never a made-up level;
with a model a level is decided over all of a dimension's evidence; counts equal links."""

from __future__ import annotations

import json
import re

import pytest

from memoryos_core.answer.memory_block import profile_line

# Thirty exchanges: pottery, a half marathon, sailing and a book club among small talk.
HOBBIES = [
    ("Hi! How are you today?", "I'm well, thanks. How can I help?"),
    ("I took my first pottery class with Nora on Monday.", "How did it go?"),
    ("The clay kept collapsing on the wheel, but I loved it.", "Centring takes practice."),
    ("It's been a long week at work.", "Sorry to hear that."),
    ("I ran my first half marathon on Sunday in 2 hours 5 minutes.", "Congratulations!"),
    ("My legs are sore, but I want to train for a full marathon next year.", "Great goal."),
    ("The weather has been grey all week.", "Grey weeks are hard."),
    ("We went sailing on the lake and the wind was perfect.", "That sounds wonderful."),
    ("I am learning to trim the sails on my friend's boat.", "Sail trim is an art."),
    ("Thanks, that's helpful.", "You're welcome."),
    ("Our book club meets every second Thursday at Nora's place.", "What are you reading?"),
    ("We are reading a novel by Ursula Le Guin this month.", "The Dispossessed is great."),
    ("I forgot my umbrella on the bus again.", "Oh no!"),
    ("The glaze on my mugs came out of the kiln a deep blue.", "Sounds beautiful."),
    ("Okay, sounds good.", "Great."),
    ("I did a 10 km training run along the river this morning.", "Nice pace?"),
    ("Can you remind me what we talked about yesterday?", "We talked about your week."),
    ("I'm so tired today.", "Rest well."),
    ("We sailed to the island and back before the storm.", "Good timing!"),
    ("I need to renew my parking permit.", "Don't forget the deadline."),
    ("The book club chose a mystery novel for next month.", "Fun pick."),
    ("Good morning!", "Good morning to you."),
    ("I threw a tall vase on the pottery wheel yesterday.", "Impressive."),
    ("The printer at the office is broken again.", "Annoying."),
    ("Let me know what you think.", "Will do."),
    ("I was stuck in traffic for forty minutes.", "That's frustrating."),
    ("Nora said she would call me later.", "Nice."),
    ("I have a dentist appointment at nine.", "Good luck."),
    ("Just checking in to say hello.", "Hello!"),
    ("Let's talk again this evening.", "Sure."),
]
MORE_RUNNING = [
    ("I signed up for the spring marathon and started a 16-week running plan.", "Good luck!"),
    ("My long run on Saturday was 25 km.", "That's a solid distance."),
    ("Okay, talk soon.", "Bye!"),
    ("See you tomorrow.", "See you."),
]


def transcript(pairs: list[tuple[str, str]]) -> str:
    return "\n".join(f"User: {u}\nAssistant: {a}" for u, a in pairs)


def _dims(engine, user="u1"):
    return {d["dimension"]: d for f in engine.profile(user)["families"]
            for d in f["dimensions"]}


def _said(dim):
    return [s["text"] for s in dim["signals"]]


@pytest.mark.real_model  # interests are told apart by meaning ("sailing" is sport)
def test_profile_signals_without_model_name_the_interests_and_invent_no_level(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2)
    engine.import_dialogue("u1", transcript(HOBBIES))
    engine.force_analysis("u1")
    dims = _dims(engine)
    sports = dims["Sports Interest"]
    assert any("half marathon" in t for t in _said(sports))
    assert any("sailing" in t for t in _said(sports))
    assert "Food Interest" not in dims  # pottery and book-club sentences are not about food
    assert any("pottery" in t for t in _said(dims["Art Interest"]))
    assert any("book club" in t for t in _said(dims["Literature Interest"]))
    small_talk = {u for u, _ in HOBBIES if len(u.split()) < 5 or "?" in u}
    for name, dim in dims.items():
        assert dim["level"] is None and dim["kind"] == "signals", name
        assert not set(_said(dim)) & small_talk
        links = sorted({s["page"] for s in dim["signals"]})
        assert links == dim["evidence"]  # the count shown equals the links
        n = len(dim["signals"])
        assert dim["summary"].startswith(
            f"{n} sentence{'s' if n != 1 else ''} in {len(links)} page")
    # the memory block writes it honestly: how often it came up and what was said, no level
    line = profile_line(sports)
    assert line.startswith(f"- Sports Interest: mentioned in {len(sports['evidence'])} pages (")
    assert not any(level in line for level in ("High", "Medium", "Low"))

    before = sports
    engine.import_dialogue("u1", transcript(MORE_RUNNING))
    engine.force_analysis("u1")
    after = _dims(engine)["Sports Interest"]
    assert set(before["evidence"]) < set(after["evidence"])  # accumulated, not replaced
    assert set(_said(before)) < set(_said(after))
    assert any("long run" in t for t in _said(after)) and after["level"] is None
    assert sorted({s["page"] for s in after["signals"]}) == after["evidence"]


@pytest.mark.real_model  # interests are told apart by meaning ("sailing" is sport)
def test_profile_signals_enter_the_memory_block_without_a_level(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2, profile_min_score=0.2)
    engine.import_dialogue("u1", transcript(HOBBIES))
    engine.force_analysis("u1")
    trace = engine.retrieve("u1", "How is my marathon running going?")
    assert "- Sports Interest: mentioned in" in trace["memory_block"]
    row = next(r for r in trace["profile"] if r["dimension"] == "Sports Interest")
    assert row["level"] is None and len(row["signals"]) == 1  # the newest, quoted


def test_profile_level_from_a_model_is_decided_over_all_its_evidence(make_engine, chat_model):
    engine = make_engine(consolidation="extractive", analysis="llm", short_term_capacity=1,
                         heat_threshold=1000)
    replies = iter([("Low", "Ran a half marathon"), ("High", "Signed up for a spring marathon")])

    def reply(messages, schema):
        if "user_facts" in json.dumps(schema):
            return json.dumps({"user_facts": [], "assistant_facts": []})
        pages = messages[-1]["content"].split("Pages:")[1]
        running = [int(m) for m in re.findall(r"\[p(\d+)\][^\n]*(?:marathon|run)", pages)]
        level, reason = next(replies)
        return json.dumps({"dimensions": [{"dimension": "Sports Interest", "level": level,
                                           "reason": reason, "evidence": running[:1]}]})

    chat_model.default = reply
    engine.import_dialogue("u1", transcript(HOBBIES[4:6] + HOBBIES[:1]))
    engine.force_analysis("u1")
    first = _dims(engine)["Sports Interest"]
    assert first["level"] == "Low" and len(first["evidence"]) == 1
    chat_model.calls.clear()
    engine.import_dialogue("u1", transcript(MORE_RUNNING[:2] + [("Talk later.", "Sure.")]))
    engine.force_analysis("u1")
    prompt = next(p for p in chat_model.prompts if "Allowed dimensions" in p)
    # the earlier evidence is in the prompt, so the new level judges all of it
    assert "Sports Interest: Low; earlier evidence, 1 pages:" in prompt
    assert "I ran my first half marathon" in prompt.split("Pages:")[0]
    second = _dims(engine)["Sports Interest"]
    assert second["level"] == "High" and second["kind"] == "level"
    assert set(first["evidence"]) < set(second["evidence"])  # the links are the union
    assert len(second["evidence"]) == 2
    page = engine.page("u1", second["evidence"][0])
    assert [p["dimension"] for p in page["profile"]] == ["Sports Interest"]


def test_profile_migration_drops_made_up_levels_and_keeps_model_ones(tmp_path):
    import sqlite3
    import time

    from memoryos_core.storage import SQLiteStore
    from memoryos_core.storage.migrations import MIGRATIONS
    from memoryos_core.storage.sqlite import DB_NAME, _split_sql

    (tmp_path / "data").mkdir()
    conn = sqlite3.connect(tmp_path / "data" / DB_NAME)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,"
                 " applied_at REAL NOT NULL)")
    for number, script in enumerate(MIGRATIONS[:7], start=1):  # as before signals
        for statement in _split_sql(script):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))
    conn.executemany("INSERT INTO profile VALUES (?, ?, ?, ?, ?, ?, ?)", [
        ("u1", "Food Interest", "content interests", "High",
         "3 page(s) on it: pottery, nora, first, class", "[1, 2, 3]", 1.0),
        ("u1", "Sports Interest", "content interests", "Medium", "Runs races", "[4]", 1.0)])
    conn.commit()
    conn.close()
    rows = {r["dimension"]: r for r in SQLiteStore(tmp_path / "data").query(
        "SELECT * FROM profile")}
    food, sports = rows["Food Interest"], rows["Sports Interest"]
    assert (food["level"], food["reason"], food["evidence"]) == (None, "", "[1, 2, 3]")
    assert (sports["level"], sports["reason"], sports["signals"]) == ("Medium", "Runs races", "[]")
