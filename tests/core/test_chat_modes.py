"""Regenerate and Edit (chat `replaces`), temporary and memory-off chats (chat `mode`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryos_core import InvalidInput
from memoryos_core.storage.tables import exchanges as exchanges_db


def rows(engine, user="u1"):
    return engine.store.query("SELECT id, user_text, assistant_text, tier FROM exchanges"
                              " WHERE user_id = ? ORDER BY id", (user,))


def test_chat_regenerate_replaces_the_answer_in_place(engine, chat_model):
    chat_model.enqueue("First I say tea.", "Then I say coffee.")
    first = engine.chat("u1", "What should I drink?", maintain=False)
    again = engine.chat("u1", "What should I drink?", replaces=first["exchange_id"],
                        maintain=False)
    assert again["exchange_id"] == first["exchange_id"]
    assert [(r["user_text"], r["assistant_text"]) for r in rows(engine)] == [
        ("What should I drink?", "Then I say coffee.")]
    trace = engine.trace("u1", first["exchange_id"])
    [previous] = trace["previous_answers"]  # type: ignore[typeddict-item]
    assert previous["answer"] == "First I say tea." and previous["how"] == "regenerated"
    # the keyword index holds the new words, not the old ones
    assert exchanges_db.keyword_pages(engine.store, "u1", ["coffee"], 5) == [first["exchange_id"]]
    assert exchanges_db.keyword_pages(engine.store, "u1", ["tea"], 5) == []
    assert engine.short_term_fill("u1")["count"] == 1
    # the regenerated answer's prompt did not show the old answer as a recent turn
    assert "First I say tea." not in json.dumps(trace["prompt"])


def test_chat_edit_replaces_the_message_and_keeps_earlier_turns(engine, chat_model):
    chat_model.enqueue("Hello Ann.", "Noted.", "Noted, Bern it is.")
    engine.chat("u1", "I am Ann.", maintain=False)
    second = engine.chat("u1", "I live in Berlin.", maintain=False)
    edited = engine.chat("u1", "I live in Bern.", replaces=second["exchange_id"],
                         maintain=False)
    assert [r["user_text"] for r in rows(engine)] == ["I am Ann.", "I live in Bern."]
    prompt = json.dumps(edited["trace"]["prompt"])
    assert "I am Ann." in prompt and "Berlin" not in prompt
    kept = engine.trace("u1", second["exchange_id"])["previous_answers"]  # type: ignore[typeddict-item]
    assert kept[0]["user"] == "I live in Berlin." and kept[0]["how"] == "edited"
    assert engine.events("u1")[0]["kind"] == "replace"


def test_chat_replacing_an_exchange_that_left_short_term_memory_is_refused(make_engine,
                                                                          chat_model):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=1)
    old = engine.chat("u1", "one", maintain=False)
    engine.chat("u1", "two", maintain=False)
    calls = len(chat_model.calls)
    with pytest.raises(InvalidInput, match="left short-term memory"):
        engine.chat("u1", "one again", replaces=old["exchange_id"], maintain=False)
    assert len(chat_model.calls) == calls  # refused before the model was asked
    assert [r["user_text"] for r in rows(engine)] == ["one", "two"]
    with pytest.raises(InvalidInput):
        engine.chat("u2", "not mine", replaces=old["exchange_id"], maintain=False)


def test_chat_temporary_reads_memory_and_writes_nothing(engine, chat_model):
    chat_model.enqueue("Stored.")
    engine.chat("u1", "My cat is called Miso.", maintain=False)
    before = engine.export("u1")
    usage = engine.usage("u1")
    events = engine.events("u1")
    chat_model.enqueue("Your cat is Miso.", "Yes, Miso.")
    result = engine.chat("u1", "What is my cat called? zq-temp-1", mode="temporary",
                         maintain=False)
    assert result["exchange_id"] is None and result["moved_to_mid_term"] == []
    assert "Miso" in json.dumps(result["trace"]["prompt"])  # memory was read
    follow = engine.chat("u1", "And again? zq-temp-2", mode="temporary", maintain=False,
                         recent=[("What is my cat called? zq-temp-1", "Your cat is Miso.")])
    assert "zq-temp-1" in json.dumps(follow["trace"]["prompt"])  # its own earlier turn
    after = engine.export("u1")
    assert after["exchanges"] == before["exchanges"] and after["traces"] == before["traces"]
    assert engine.usage("u1") == usage and engine.events("u1") == events
    assert "zq-temp" not in json.dumps(after)
    assert exchanges_db.keyword_pages(engine.store, "u1", ["zq-temp-1"], 5) == []


@pytest.mark.sqlite_only
def test_chat_temporary_leaves_no_byte_on_disk(engine, chat_model, tmp_path):
    chat_model.enqueue("ok")
    engine.chat("u1", "a stored hello", maintain=False)
    chat_model.enqueue("A secret answer qx-marker-77.")
    engine.chat("u1", "temporary qx-marker-77 text", mode="temporary", maintain=False)
    for path in Path(tmp_path).rglob("*"):
        if path.is_file():
            assert b"qx-marker-77" not in path.read_bytes(), path


def test_chat_memory_off_neither_reads_nor_writes(engine, chat_model):
    chat_model.enqueue("Stored.")
    engine.chat("u1", "My cat is called Miso.", maintain=False)
    before = engine.export("u1")
    chat_model.enqueue("I do not know.")
    result = engine.chat("u1", "What is my cat called?", mode="off", maintain=False,
                         recent=[("Hi", "Hello")])
    prompt = json.dumps(result["trace"]["prompt"])
    assert "Miso" not in prompt and "Hello" in prompt
    assert result["trace"]["pages"] == [] and result["exchange_id"] is None
    after = engine.export("u1")
    assert after["exchanges"] == before["exchanges"]


def test_chat_mode_arguments_are_checked(engine):
    with pytest.raises(InvalidInput, match="mode"):
        engine.chat("u1", "hi", mode="secret")
    with pytest.raises(InvalidInput, match="recent"):
        engine.chat("u1", "hi", recent=[("a", "b")])
    with pytest.raises(InvalidInput, match="replace"):
        engine.chat("u1", "hi", mode="temporary", replaces=1)
    with pytest.raises(InvalidInput, match="pairs"):
        engine.chat("u1", "hi", mode="off", recent=[("only one",)])  # type: ignore[list-item]
