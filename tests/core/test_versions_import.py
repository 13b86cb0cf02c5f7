"""Versions (snapshot, clear, restore, diff), export round trip and dialogue imports."""

from __future__ import annotations

import json

import pytest

from memoryos_core import ImportFormatError, NotFound

from .test_admission import TOPICS


def _fill(engine, user="u1", n=2):
    for i, (u, a) in enumerate(TOPICS * n):
        engine.add_exchange(user, f"{u} [{i}]", a, timestamp=1_700_000_000 + i * 60)
    engine.force_analysis(user)


def _without_ids(state):
    """A state with ids, links and user replaced by order, for comparing across users."""
    text = json.dumps(state, sort_keys=True)
    data = json.loads(text)
    data.pop("user_id")
    for seg in data["mid_term"]["segments"]:
        for key in ("id", "last_visit", "created_at", "recency", "heat", "analysed_at"):
            seg.pop(key)
        for page in seg["pages"]:
            for key in ("id", "segment_id", "prev_id", "next_id"):
                page.pop(key)
    for ex in data["short_term"]["exchanges"] + data["mid_term"]["pending_pages"]:
        for key in ("id", "prev_id", "next_id"):
            ex.pop(key)
    for kind in ("user_facts", "assistant_facts"):
        for fact in data["long_term"][kind]:
            fact.pop("id"), fact.pop("sources")
    for dim in data["long_term"]["profile"]:
        dim.pop("evidence")
        for said in dim["signals"]:
            said.pop("page")
    return data


def test_clear_then_restore_gives_back_the_same_memory(engine):
    _fill(engine)
    before_state = engine.state("u1")
    before_trace = engine.retrieve("u1", "When is my marathon?")
    cleared = engine.clear("u1")
    empty = engine.state("u1")
    assert empty["short_term"]["count"] == 0 and empty["mid_term"]["count"] == 0
    assert engine.retrieve("u1", "When is my marathon?")["pages"] == []
    versions = engine.versions("u1")
    assert versions[0]["label"] == "before clear"
    assert versions[0]["counts"]["pages"] == 13
    restored = engine.restore("u1", cleared["saved_as"])
    after = engine.state("u1")
    for seg_a, seg_b in zip(after["mid_term"]["segments"], before_state["mid_term"]["segments"],
                            strict=True):
        seg_a.pop("recency"), seg_a.pop("heat"), seg_b.pop("recency"), seg_b.pop("heat")
    assert after == before_state
    trace = engine.retrieve("u1", "When is my marathon?")
    assert [p["id"] for p in trace["pages"]] == [p["id"] for p in before_trace["pages"]]
    assert engine.versions("u1")[0]["label"].startswith("before restore")
    # the restore itself can be undone
    engine.restore("u1", restored["saved_as"])
    assert engine.state("u1")["short_term"]["count"] == 0


def _timeless(state):
    """A state without the clock-dependent heat terms."""
    for seg in state["mid_term"]["segments"]:
        seg.pop("recency"), seg.pop("heat")
    return state


@pytest.mark.parametrize("action", ["clear", "restore"])
def test_snapshot_and_wipe_are_one_transaction(engine, monkeypatch, action):
    """A failure after the wipe rolls back the "before" version too: memory and versions unchanged."""
    from memoryos_core.storage import every_table

    _fill(engine, n=1)
    version = engine.snapshot("u1", "kept")["version"]
    engine.add_exchange("u1", "I also play the violin.", "Lovely instrument.")
    before_pages = [p["id"] for p in engine.retrieve("u1", "When is my marathon?")["pages"]]
    before_state, before_versions = _timeless(engine.state("u1")), engine.versions("u1")
    assert before_pages
    real_wipe = every_table.wipe_memory

    def wipe_then_fail(conn, user_id):
        real_wipe(conn, user_id)  # the rows are gone inside the transaction ...
        raise RuntimeError("disk full")  # ... when the step fails

    monkeypatch.setattr(every_table, "wipe_memory", wipe_then_fail)
    with pytest.raises(RuntimeError, match="disk full"):
        engine.clear("u1") if action == "clear" else engine.restore("u1", version)
    monkeypatch.setattr(every_table, "wipe_memory", real_wipe)
    assert engine.versions("u1") == before_versions  # no "before clear/restore" version
    assert _timeless(engine.state("u1")) == before_state  # and nothing wiped
    assert [p["id"] for p in engine.retrieve("u1", "When is my marathon?")["pages"]] == before_pages


def test_diff_names_added_and_removed_items(engine):
    _fill(engine, n=1)
    first = engine.snapshot("u1", "first")["version"]
    engine.add_exchange("u1", "I also play the violin.", "Lovely instrument.")
    second = engine.snapshot("u1", "second")["version"]
    delta = engine.diff("u1", first, second)
    assert [e["text"] for e in delta["exchanges"]["added"]] == ["I also play the violin."]
    assert len(delta["exchanges"]["changed"]) == 1  # the oldest short-term one became a page
    with pytest.raises(NotFound):
        engine.diff("u1", first, 99)


def test_version_retention_and_deletion(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         version_retention=3)
    for i in range(5):
        engine.snapshot("u1", f"v{i}")
    assert [v["label"] for v in engine.versions("u1")] == ["v4", "v3", "v2"]
    engine.delete_version("u1", 4)
    assert [v["version"] for v in engine.versions("u1")] == [5, 3]
    with pytest.raises(NotFound):
        engine.delete_version("u1", 4)


def test_export_imported_into_another_user_reproduces_state(engine):
    _fill(engine)
    doc = json.loads(json.dumps(engine.export("u1")))
    report = engine.import_dialogue("u2", json.dumps(doc))
    assert report["format"] == "memoryos-export"
    assert _without_ids(engine.state("u2")) == _without_ids(engine.state("u1"))
    trace_a = engine.retrieve("u1", "Spanish teacher")
    trace_b = engine.retrieve("u2", "Spanish teacher")
    assert [p["user"] for p in trace_a["pages"]] == [p["user"] for p in trace_b["pages"]]


PLAYGROUND = [
    {"user_input": "I love hiking in the Alps.", "agent_response": "Sounds amazing!",
     "timestamp": "2024-05-01 10:00:00"},
    {"user_input": "My sister lives in Zurich.", "agent_response": "Nice city.",
     "timestamp": "2024-05-02 11:00:00"},
]


def test_playground_import_keeps_times_and_is_not_duplicated(engine):
    report = engine.import_dialogue("u1", json.dumps(PLAYGROUND))
    assert report["format"] == "playground" and report["imported"] == 2
    again = engine.import_dialogue("u1", json.dumps(PLAYGROUND))
    assert again["imported"] == 0
    assert [s["reason"] for s in again["skipped"]] == ["already imported"] * 2
    ex = engine.state("u1")["short_term"]["exchanges"]
    assert ex[0]["timestamp"] == 1714557600.0


def test_chatgpt_export_follows_current_branch(engine):
    mapping = {
        "root": {"id": "root", "message": None, "parent": None, "children": ["a"]},
        "a": {"id": "a", "parent": "root", "children": ["b1", "b2"], "message": {
            "id": "a", "author": {"role": "user"}, "content": {"parts": ["Plan my trip"]},
            "create_time": 1700000000}},
        "b1": {"id": "b1", "parent": "a", "children": [], "message": {
            "id": "b1", "author": {"role": "assistant"}, "content": {"parts": ["Old answer"]},
            "create_time": 1700000001}},
        "b2": {"id": "b2", "parent": "a", "children": [], "message": {
            "id": "b2", "author": {"role": "assistant"}, "content": {"parts": ["New answer"]},
            "create_time": 1700000002}},
    }
    doc = [{"title": "Trip", "mapping": mapping, "current_node": "b2"}]
    report = engine.import_dialogue("u1", json.dumps(doc))
    assert report["format"] == "chatgpt"
    ex = engine.state("u1")["short_term"]["exchanges"]
    assert [(e["user"], e["assistant"]) for e in ex] == [("Plan my trip", "New answer")]


def test_transcript_import(engine):
    text = "User: hi there\nAssistant: hello!\nUser: I moved to Lisbon\nit is sunny\nAssistant: Nice"
    report = engine.import_dialogue("u1", text)
    assert report["format"] == "transcript" and report["imported"] == 2
    assert engine.state("u1")["short_term"]["exchanges"][1]["user"] == "I moved to Lisbon\nit is sunny"


def test_locomo_import_uses_session_times_and_speaker(engine, locomo_file):
    report = engine.import_dialogue("u1", locomo_file.read_bytes(), speaker=None)
    assert report["format"] == "locomo" and report["imported"] == 22
    state = engine.state("u1")
    first = min(p["timestamp"] for s in state["mid_term"]["segments"] for p in s["pages"])
    assert first == pytest.approx(1683554160.0)  # 1:56 pm on 8 May, 2023
    assert any(r.startswith("D1:") for r in report["refs"].values())


@pytest.mark.parametrize("payload, message", [
    ('[{"user_input": "a", "agent_response": ', "invalid JSON"),
    ('[{"user_input": 5, "agent_response": "b"}]', "item 0: field 'user_input'"),
    ("", "empty"),
    ('{"something": 1}', "unknown format"),
    ("hello there", "line 1"),
])
def test_malformed_imports_are_rejected_and_write_nothing(engine, payload, message):
    with pytest.raises(ImportFormatError, match=message):
        engine.import_dialogue("u1", payload)
    assert engine.state("u1")["short_term"]["count"] == 0
    assert engine.versions("u1") == []
