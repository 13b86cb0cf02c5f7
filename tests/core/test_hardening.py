"""Hardening of the engine (issue 11): races, bad ids, re-imports, malformed LoCoMo, traces."""

from __future__ import annotations

import json
import re
import threading

import pytest

from memoryos_core.transfer import versions


def _texts(engine, user="u1"):
    return {r["user_text"] for r in engine.store.query(
        "SELECT user_text FROM exchanges WHERE user_id = ?", (user,))}


@pytest.mark.parametrize("action", ["clear", "restore"])
def test_clear_and_restore_lose_no_exchange_admitted_meanwhile(engine, monkeypatch, action):
    for i in range(3):
        engine.add_exchange("u1", f"early message {i}", "ok", maintain=False)
    version = engine.snapshot("u1")["version"]
    real_export = versions.export_document
    racer: list[threading.Thread] = []

    def export_then_race(ctx, user_id):
        doc = real_export(ctx, user_id)
        if not racer:  # another turn arrives while the "before" version is being taken
            racer.append(threading.Thread(target=engine.add_exchange, args=(
                "u1", "racing message", "ok"), kwargs={"maintain": False}))
            racer[0].start()
            racer[0].join(timeout=3)
        return doc

    monkeypatch.setattr(versions, "export_document", export_then_race)
    result = engine.clear("u1") if action == "clear" else engine.restore("u1", version)
    racer[0].join(timeout=60)
    assert not racer[0].is_alive()
    monkeypatch.setattr(versions, "export_document", real_export)
    saved = versions.load_version(engine.ctx, "u1", result["saved_as"])
    in_saved = {e["user_text"] for e in saved["exchanges"]}
    assert "racing message" in in_saved | _texts(engine)  # in the saved version or current


TRANSCRIPT = ("User: I moved to Lisbon\nAssistant: Nice!\nUser: hi\nAssistant: hello\n"
              "User: hi\nAssistant: hello\n")


def test_reimporting_an_untimed_transcript_stores_it_once(engine):
    first = engine.import_dialogue("u1", TRANSCRIPT)
    assert first["imported"] == 3  # the repeated "hi" exchange is a second exchange
    again = engine.import_dialogue("u1", TRANSCRIPT)
    assert again["imported"] == 0
    assert [s["reason"] for s in again["skipped"]] == ["already imported"] * 3
    assert engine.preview_import("u1", TRANSCRIPT)["to_import"] == 0
    assert len(engine.store.query("SELECT id FROM exchanges WHERE user_id = 'u1'")) == 3


def test_cli_imports_a_transcript_twice_stores_once(tmp_path, capsys, embedder):
    from memoryos_core.hosts import cli

    path = tmp_path / "chat.txt"
    path.write_text(TRANSCRIPT)
    argv = ["--data-dir", str(tmp_path / "d"), "--set", "consolidation=extractive", "-q",
            "import", str(path)]
    assert cli.main(argv, embedder=embedder) == 0
    assert cli.main(argv, embedder=embedder) == 0
    out = capsys.readouterr().out
    assert "imported 3" in out and "imported 0" in out


def _locomo(turns, session=None):
    conv = {"speaker_a": "Ann", "speaker_b": "Bo", "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns}
    if session is not None:
        conv["session_2"] = session
        conv["session_2_date_time"] = "2:00 pm on 9 May, 2023"
    return json.dumps({"sample_id": "x", "conversation": conv})


OK_TURNS = [{"speaker": "Ann", "dia_id": "D1:1", "text": "I bake bread."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Sourdough?"}]


@pytest.mark.parametrize("session", ["not a list", {"speaker": "Ann"}, 7])
def test_locomo_session_that_is_not_a_list_is_an_error(engine, session):
    from memoryos_core import ImportFormatError

    with pytest.raises(ImportFormatError, match="session_2 must be a list of turns"):
        engine.import_dialogue("u1", _locomo(OK_TURNS, session))
    assert engine.state("u1")["short_term"]["count"] == 0


def test_locomo_turns_without_text_or_with_a_third_speaker_are_listed_skips(engine):
    turns = [*OK_TURNS, {"speaker": "Ann", "dia_id": "D1:3"},
             {"speaker": "Ann", "dia_id": "D1:4", "text": "   "},
             {"speaker": "Cy", "dia_id": "D1:5", "text": "I am someone else"},
             {"dia_id": "D1:6", "text": "no speaker at all"},
             {"speaker": "Ann", "dia_id": "D1:7", "text": "Rye this time."},
             {"speaker": "Bo", "dia_id": "D1:8", "text": "Nice."}]
    report = engine.import_dialogue("u1", _locomo(turns))
    assert report["imported"] == 2 and report["total"] == 6
    reasons = {s["where"]: s["reason"] for s in report["skipped"]}
    assert reasons == {"session_1[2]": "the turn has no text",
                       "session_1[3]": "the turn has no text",
                       "session_1[4]": "speaker 'Cy' is neither Ann nor Bo",
                       "session_1[5]": "the turn names no speaker"}
    texts = [(e["user"], e["assistant"]) for e in engine.state("u1")["short_term"]["exchanges"]]
    assert texts == [("I bake bread.", "Sourdough?"), ("Rye this time.", "Nice.")]


def test_locomo_messages_sent_in_a_row_are_one_exchange(engine):
    turns = [{"speaker": "Ann", "dia_id": "D1:1", "text": "hey"},
             {"speaker": "Ann", "dia_id": "D1:2", "text": "guess what, I got the bakery job"},
             {"speaker": "Bo", "dia_id": "D1:3", "text": "Congrats!"},
             {"speaker": "Bo", "dia_id": "D1:4", "text": "When do you start?"},
             {"speaker": "Ann", "dia_id": "D1:5", "text": "Monday"}]
    report = engine.import_dialogue("u1", _locomo(turns))
    assert report["imported"] == 2
    texts = [(e["user"], e["assistant"]) for e in engine.state("u1")["short_term"]["exchanges"]]
    assert texts == [("hey\nguess what, I got the bakery job", "Congrats! When do you start?"),
                     ("Monday", "")]
    # every message's turn id still leads to the exchange that holds it
    assert sorted(report["refs"].values()) == ["D1:1,D1:2,D1:3,D1:4", "D1:5"]


def test_deeply_nested_json_is_an_import_error(engine):
    from memoryos_core import ImportFormatError

    with pytest.raises(ImportFormatError, match="nested too deeply"):
        engine.preview_import("u1", "[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("call", [
    lambda e: e.page("u1", 2**63), lambda e: e.segment("u1", 2**64),
    lambda e: e.trace("u1", 2**63), lambda e: e.restore("u1", 2**63),
    lambda e: e.diff("u1", 0, 2**63), lambda e: e.delete_version("u1", -1),
])
def test_ids_beyond_sqlite_integers_are_not_found(engine, call):
    from memoryos_core import NotFound

    with pytest.raises(NotFound):
        call(engine)


def test_cli_restore_of_a_huge_version_is_one_line(tmp_path, capsys, embedder):
    from memoryos_core.hosts import cli

    code = cli.main(["--data-dir", str(tmp_path / "d"), "restore", str(2**63)], embedder=embedder)
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("memoryos: error:") and "Traceback" not in err


def test_trimmed_prompt_trace_describes_what_was_sent(make_engine):
    from memoryos_core.testing import ScriptedChatModel

    small = ScriptedChatModel(default="Noted.", context_window=700)
    engine = make_engine(model=small, consolidation="extractive", analysis="extractive",
                         answer_max_tokens=100, consolidation_batch=4)
    for i in range(40):
        engine.add_exchange("u1", f"My sourdough bread attempt number {i} used rye flour and"
                            f" a long cold proof of {i + 8} hours in the fridge.",
                            f"Rye sourdough attempt {i} sounds tasty; the long proof adds"
                            " flavour and an open crumb.", timestamp=1_700_000_000 + i * 60)
    visits_before = {s["id"]: s["n_visit"] for s in engine.state("u1")["mid_term"]["segments"]}
    result = engine.chat("u1", "What did I do with my sourdough rye bread?", maintain=False)
    trace = engine.trace("u1", result["exchange_id"])
    sent = small.calls[-1]["messages"]
    system = sent[0]["content"]
    window = 700 - 100 - 64
    assert sum(len(m["content"]) for m in sent) > 0
    assert trace["fitted"]["window"] == window and trace["fitted"]["refits"] >= 1
    assert trace["memory_block"] in system
    selected = [p for p in trace["pages"] if p["selected"]]
    for page in selected:  # every page the trace calls selected is in the prompt
        assert page["user"][:60] in system, page["id"]
    parts = {p["name"]: p["tokens"] for p in trace["prompt_parts"]}
    assert sum(parts.values()) <= window
    used = {p["segment_id"] for p in selected if p["segment_id"]}
    assert set(trace["used_segments"]) == used
    after = {s["id"]: s["n_visit"] for s in engine.state("u1")["mid_term"]["segments"]}
    visited = {sid for sid in after if after[sid] > visits_before.get(sid, 0)}
    assert visited == used


@pytest.mark.parametrize("payload, message", [
    ('{"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [],'
     ' "session_1_date_time": ["1:56 pm on 8 May, 2023"]}}', "is not like"),
    ('{"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [],'
     ' "session_1_date_time": "1:99 pm on 8 May, 2023"}}', "not a valid date"),
    ('{"mapping": {"a": {"message": {"author": [], "content": {"parts": ["hi"]}}}}}',
     "no 'User:'|holds no|unexpected|nothing"),
    ('{"mapping": {"a": {"parent": ["x"], "message": {"author": {"role": "user"},'
     ' "content": {"parts": 5}}}}}', "."),
    ('[{"user_input": "a", "agent_response": "b", "timestamp": 1e309}]', "outside years"),
    ('[{"user_input": "a", "agent_response": "b", "timestamp": -1e20}]', "outside years"),
    ('[{"user_input": "a", "agent_response": "b", "timestamp": "9999-12-31T23:59:59-05:00"}]',
     "not a date|years 1-9999"),
])
def test_importers_refuse_odd_shapes_with_a_named_error(engine, payload, message):
    from memoryos_core import ImportFormatError

    try:
        report = engine.import_dialogue("u1", payload)
    except ImportFormatError as exc:
        assert re.search(message, str(exc)), str(exc)
        assert engine.state("u1")["short_term"]["count"] == 0
    else:  # a ChatGPT node without a usable message is simply nothing to import
        assert report["imported"] == 0


def test_timestamps_outside_dates_are_refused(engine):
    from memoryos_core import InvalidInput

    for bad in (float("inf"), float("nan"), 1e300):
        with pytest.raises(InvalidInput, match="years 1-9999"):
            engine.add_exchange("u1", "hi", "hello", timestamp=bad)
