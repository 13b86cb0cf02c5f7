"""Admission, consolidation and no-loss behaviour of the engine with real SQLite/FAISS/MiniLM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from memoryos_core import InvalidInput, ModelError
from memoryos_core.storage import SQLiteStore

TOPICS = [
    ("I adopted a puppy named Rex last week.", "Congratulations on Rex!"),
    ("Rex chewed my running shoes today.", "Puppies love shoes; try chew toys."),
    ("I am training for a marathon in October.", "Great goal, build mileage slowly."),
    ("My long run was 18 miles on Sunday.", "That is solid marathon training."),
    ("I started learning Spanish on an app.", "¡Muy bien! Practice daily."),
    ("My Spanish teacher is from Valencia.", "Valencia is lovely."),
    ("I cooked paella for my family.", "Paella is a great choice."),
    ("Rex learned to sit this morning.", "Good dog, Rex!"),
    ("I ran intervals at the track.", "Intervals build speed."),
    ("I booked a trip to Spain in spring.", "You can practise your Spanish there."),
]


def all_ids(engine, user="u1"):
    return [r["id"] for r in engine.store.query(
        "SELECT id FROM exchanges WHERE user_id = ? ORDER BY id", (user,))]


def test_admission_moves_overflow_to_pending_pages(make_engine):
    engine = make_engine(consolidation="extractive", consolidation_batch=50)
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    state = engine.state("u1")
    assert state["short_term"]["count"] == 7
    assert [e["user"] for e in state["short_term"]["exchanges"]] == [u for u, _ in TOPICS[3:]]
    assert [p["user"] for p in state["mid_term"]["pending_pages"]] == [u for u, _ in TOPICS[:3]]
    assert state["mid_term"]["count"] == 0


def test_exchanges_admitted_out_of_dialogue_order_leave_the_newest_short_term(make_engine):
    engine = make_engine(consolidation="extractive", consolidation_batch=50)
    order = [9, 2, 7, 0, 5, 8, 1, 4, 6, 3]  # an import whose exchanges arrive shuffled
    moved = []
    for i in order:
        u, a = TOPICS[i]
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
        last = next(e for e in engine.events("u1") if e["kind"] == "admission")
        moved += last["detail"]["moved_to_mid_term"]
    state = engine.state("u1")
    # the short term holds the latest by dialogue time, whatever order they came in
    assert [e["user"] for e in state["short_term"]["exchanges"]] == [u for u, _ in TOPICS[3:]]
    assert sorted(p["user"] for p in state["mid_term"]["pending_pages"]) == sorted(
        u for u, _ in TOPICS[:3])
    assert len(moved) == len(set(moved)) == 3  # each overflow moved once and logged


def test_pending_pages_are_retrievable_before_consolidation(make_engine):
    engine = make_engine(consolidation="extractive", consolidation_batch=50)
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    trace = engine.retrieve("u1", "What is my dog called?")
    selected = [p for p in trace["pages"] if p["selected"]]
    assert any("Rex" in p["user"] for p in selected)
    assert "puppy named Rex" in trace["memory_block"]


def test_extractive_consolidation_files_every_page_once(engine):
    for i, (u, a) in enumerate(TOPICS * 2):
        engine.add_exchange("u1", u + f" ({i})", a, timestamp=1_700_000_000 + i * 60)
    engine.force_analysis("u1")
    state = engine.state("u1")
    filed = [p["id"] for s in state["mid_term"]["segments"] for p in s["pages"]]
    assert len(filed) == len(set(filed)) == 13
    assert state["mid_term"]["pending_pages"] == []
    assert all(s["summary"] for s in state["mid_term"]["segments"])
    # chain links survive in the store: each page's next points back to it
    pages = {p["id"]: p for s in state["mid_term"]["segments"] for p in s["pages"]}
    for page in pages.values():
        if page["next_id"] in pages:
            assert pages[page["next_id"]]["prev_id"] == page["id"]


def test_llm_consolidation_repairs_double_and_missing_pages(make_engine, chat_model):
    engine = make_engine(consolidation="llm", analysis="extractive", consolidation_batch=3)
    plan = {"continues_previous": False, "overview": "Dog and running",
            "topics": [{"summary": "The new puppy Rex", "keywords": ["rex", "puppy"],
                        "pages": [1, 2]},
                       {"summary": "Marathon training", "keywords": ["marathon"],
                        "pages": [2]}]}  # page 2 twice, page 3 missing
    chat_model.enqueue(json.dumps(plan))
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    state = engine.state("u1")
    filed = [p["id"] for s in state["mid_term"]["segments"] for p in s["pages"]]
    assert len(filed) == len(set(filed)) == 3
    summaries = {s["summary"] for s in state["mid_term"]["segments"]}
    assert "The new puppy Rex" in summaries
    assert state["mid_term"]["chain_overview"] == "Dog and running"


def test_garbage_consolidation_falls_back_and_loses_nothing(make_engine, chat_model):
    engine = make_engine(consolidation="llm", analysis="extractive", consolidation_batch=3,
                         structured_retries=1)
    chat_model.enqueue("not json at all", '{"topics": []}')
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    state = engine.state("u1")
    filed = [p["id"] for s in state["mid_term"]["segments"] for p in s["pages"]]
    assert len(filed) == 3 and state["short_term"]["count"] == 7
    events = [e for e in engine.events("u1") if e["kind"] == "consolidation"]
    assert events[-1]["detail"]["mode"] == "extractive"
    assert "invalid" in events[-1]["detail"]["fallback"]
    assert engine.usage("u1")["consolidation"]["fallbacks"] == 1


def test_consolidation_provider_error_keeps_pages(make_engine, chat_model):
    engine = make_engine(consolidation="llm", analysis="extractive", consolidation_batch=3)
    chat_model.enqueue(ModelError("HTTP 500"))
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    assert len(all_ids(engine)) == 10
    state = engine.state("u1")
    assert sum(len(s["pages"]) for s in state["mid_term"]["segments"]) == 3


def test_chat_provider_error_stores_nothing(engine, chat_model):
    chat_model.enqueue("Hello! Nice to meet you.")
    engine.chat("u1", "Hi, I am Ana.")
    before = engine.state("u1")
    chat_model.enqueue(ModelError("HTTP 429: rate limited"))
    with pytest.raises(ModelError, match="429"):
        engine.chat("u1", "Do you remember me?")
    assert engine.state("u1") == before
    assert len(all_ids(engine)) == 1


def test_chat_answer_uses_memory_and_stores_trace(engine, chat_model):
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    chat_model.enqueue("<think>look at memory</think>Your dog is Rex.")
    result = engine.chat("u1", "What is the name of my dog?", relationship="friend")
    assert result["answer"] == "Your dog is Rex."
    prompt = chat_model.calls[-1]["messages"]
    assert "puppy named Rex" in prompt[0]["content"]
    assert "You are the user's friend." in prompt[0]["content"]
    assert prompt[-1]["content"] == "What is the name of my dog?"
    trace = engine.trace("u1", result["exchange_id"])
    assert trace["model"] == "scripted"
    assert {p["name"] for p in trace["prompt_parts"]} >= {"pages", "recent", "message"}
    assert engine.state("u1")["short_term"]["exchanges"][-1]["assistant"] == "Your dog is Rex."


def test_bad_input_is_refused_and_nothing_written(engine):
    with pytest.raises(InvalidInput):
        engine.add_exchange("u1", "x" * 30000, "y")
    with pytest.raises(InvalidInput):
        engine.add_exchange("u1", "  ", "")
    with pytest.raises(InvalidInput):
        engine.chat("", "hello")
    assert all_ids(engine) == []


def test_users_never_see_each_other(engine):
    engine.add_exchange("alice", "My secret project is called Bluebird.", "Noted.")
    engine.add_exchange("bob", "I like chess.", "Nice.")
    trace = engine.retrieve("bob", "What is the secret project called?")
    assert "Bluebird" not in json.dumps(trace)
    assert "Bluebird" not in json.dumps(engine.state("bob"))
    assert engine.state("bob")["short_term"]["count"] == 1


def test_eight_threads_chatting_lose_and_duplicate_nothing(make_engine, chat_model):
    engine = make_engine(consolidation="llm", analysis="llm", consolidation_batch=3)
    errors = []

    def worker(n):
        try:
            for k in range(5):
                engine.chat("u1", f"thread {n} message {k} about topic {n * 10 + k}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    engine.force_analysis("u1")
    rows = engine.store.query("SELECT user_text, tier, segment_id FROM exchanges"
                              " WHERE user_id = 'u1'")
    texts = [r["user_text"] for r in rows]
    assert len(texts) == len(set(texts)) == 40
    state = engine.state("u1")
    filed = [p["id"] for s in state["mid_term"]["segments"] for p in s["pages"]]
    assert len(filed) == len(set(filed)) == 33 and state["short_term"]["count"] == 7


CRASH_SCRIPT = textwrap.dedent("""
    import sys, time
    from memoryos_core import EngineConfig, MemoryEngine
    from memoryos_core.testing import ScriptedChatModel, schema_filler
    engine = MemoryEngine(sys.argv[1], chat_model=ScriptedChatModel(default=schema_filler),
                          config=EngineConfig(consolidation="llm", analysis="llm",
                                              consolidation_batch=3))
    for i in range(200):
        eid = engine.add_exchange("u1", f"message number {i} about apples", f"reply {i}",
                                  timestamp=1_700_000_000 + i)
        print(i, flush=True)
""")


@pytest.mark.real_model  # the child engine embeds with the default model (MiniLM)
def test_killed_admission_loses_no_admitted_exchange(tmp_path):
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-c", CRASH_SCRIPT, str(data)],
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    admitted = []
    deadline = time.time() + 240
    assert proc.stdout is not None
    for line in proc.stdout:
        admitted.append(int(line))
        if len(admitted) >= 40 or time.time() > deadline:
            break
    assert proc.poll() is None, "the child ended on its own before it was killed"
    assert len(admitted) >= 40, f"only {len(admitted)} exchanges admitted before the kill"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = SQLiteStore(data)
    rows = store.query("SELECT user_text, tier, segment_id FROM exchanges ORDER BY id")
    texts = [r["user_text"] for r in rows]
    assert len(texts) == len(set(texts))
    for i in admitted:
        assert f"message number {i} about apples" in texts
    assert sum(r["tier"] == "short" for r in rows) == min(7, len(rows))
    assert store.query_one("PRAGMA integrity_check")["integrity_check"] == "ok"
    fts = store.scalar("SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH 'apples'")
    assert fts == len(rows)
    vec = store.scalar("SELECT count(*) FROM vectors WHERE kind = 'page'")
    assert vec == len(rows)


def test_core_imports_without_flask():
    code = "import sys; sys.modules['flask'] = None; import memoryos_core; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
