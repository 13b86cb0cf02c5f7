"""The text a page is found by: a short user turn with the reply before it, on every path."""

from __future__ import annotations

import numpy as np
import pytest

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.memory import retrieval_text as rt
from memoryos_core.storage.tables import store_meta as store_meta_db
from memoryos_core.transfer.reembed import reembed

T0 = 1_700_000_000
QUESTION = "Where did I go on my honeymoon?"
# (user, assistant, minutes after T0): the honeymoon's place is said in a short turn, and only
# the question before it says what it is
CHAT = [
    ("I repaired the brakes on my bicycle today.", "Good job! Was it hard?", 0),
    ("Not really, it took an hour.", "Nice, now you can ride safely.", 3),
    ("My sister Ines started a new job at the bakery.", "How exciting for her!", 2000),
    ("She bakes sourdough bread every morning.", "That sounds delicious.", 2004),
    ("We got married last weekend!", "Congratulations! Where are you going for your"
     " honeymoon?", 5000),
    ("Tokyo!", "Wonderful, enjoy it.", 5002),
    ("I bought new running shoes, bright orange ones.", "Great colour!", 9000),
    ("My knee hurt after the intervals.", "Rest for a couple of days.", 9003),
    ("I am learning Spanish with an app.", "¡Muy bien! How far along are you?", 12000),
    ("Lesson 40.", "Great progress, keep it up.", 12002),
    ("The tomatoes on my balcony turned red.", "Lovely, enjoy them.", 15000),
    ("I watched a documentary about whales.", "Which one was it?", 18000),
]
SMALL = EngineConfig().replace(consolidation="extractive", analysis="extractive",
                               short_term_capacity=2, consolidation_batch=2)


def test_the_rule() -> None:
    assert rt.retrieval_text("Tokyo!", "Enjoy.", "Where to?") == \
        "Assistant: Where to?\nUser: Tokyo!\nAssistant: Enjoy."
    long_turn = "We are flying to Tokyo for two weeks in April with my wife and her parents."
    assert rt.retrieval_text(long_turn, "Enjoy.", "Where to?") == rt.page_text(long_turn, "Enjoy.")
    assert rt.retrieval_text("Tokyo!", "Enjoy.", None) == rt.page_text("Tokyo!", "Enjoy.")
    rows = [{"user_text": u, "assistant_text": a, "ts": T0 + m * 60} for u, a, m in CHAT]
    texts = rt.sitting_texts(rows)
    tokyo = [n for n, (u, _, _) in enumerate(CHAT) if u == "Tokyo!"][0]
    assert texts[tokyo].startswith("Assistant: Congratulations!")
    # an hour or more after the reply, another sitting: the page alone
    assert texts[2] == rt.page_text(*CHAT[2][:2])
    assert texts[9].startswith("Assistant: ¡Muy bien!")
    assert sum(t.startswith("Assistant: ") for t in texts) == 5  # each sitting's short 2nd turn


def _rank(vectors: dict[int, np.ndarray], qvec: np.ndarray, page: int) -> int:
    order = sorted(vectors, key=lambda i: -float(vectors[i] @ qvec))
    return order.index(page) + 1


def _ranks(engine: MemoryEngine, user: str) -> tuple[int, int, int]:
    """The Tokyo page's rank for the question by the stored vectors and by the page text
    alone, and its id."""
    rows = {r["id"]: r for r in engine.store.query(
        "SELECT id, user_text, assistant_text FROM exchanges WHERE user_id = ?", (user,))}
    tokyo = next(i for i, r in rows.items() if r["user_text"] == "Tokyo!")
    qvec = engine.ctx.embedder.embed([QUESTION])[0]
    stored = engine.ctx.index.vectors_of(user, "page", list(rows))
    alone = dict(zip(rows, engine.ctx.embedder.embed(
        [rt.page_text(r["user_text"], r["assistant_text"]) for r in rows.values()]),
        strict=True))
    return _rank(stored, qvec, tokyo), _rank(alone, qvec, tokyo), tokyo


def _check_found(engine: MemoryEngine, user: str) -> None:
    found, alone, tokyo = _ranks(engine, user)
    assert found <= 2 < alone, (found, alone)  # next to the question it answers
    trace = engine.retrieve(user, QUESTION, record=False)
    assert tokyo in {p["id"] for p in trace["pages"] if p["selected"]}
    assert "Tokyo!" in trace["memory_block"]


def _stored(engine: MemoryEngine) -> dict[tuple[str, int], np.ndarray]:
    rows = engine.store.query("SELECT id, user_id FROM exchanges")
    out = {}
    for user in {r["user_id"] for r in rows}:
        ids = [r["id"] for r in rows if r["user_id"] == user]
        out.update({(user, i): v for i, v in engine.ctx.index.vectors_of(user, "page", ids)
                    .items()})
    return out


@pytest.mark.real_model
def test_a_short_answer_is_found_by_the_question_it_answers(make_engine) -> None:
    engine = make_engine(short_term_capacity=2, consolidation_batch=2)
    for user_text, answer, minutes in CHAT:  # live chat, each admitted as it is said
        engine.add_exchange("ana", user_text, answer, timestamp=T0 + minutes * 60)
    _check_found(engine, "ana")
    doc = [{"user_input": u, "agent_response": a, "timestamp": T0 + m * 60} for u, a, m in CHAT]
    engine.import_dialogue("ben", doc, fmt="playground")
    _check_found(engine, "ben")
    # the same vectors whichever way a page came in, and re-embedding gives them again
    before = _stored(engine)
    for (user, i), vec in before.items():
        twin = ("ben" if user == "ana" else "ana", i + (1 if user == "ana" else -1) * len(CHAT))
        assert np.allclose(vec, before[twin], atol=1e-5)
    reembed(engine.store, engine.ctx.embedder)
    engine.ctx.index.forget("ana")
    engine.ctx.index.forget("ben")
    after = _stored(engine)
    assert before.keys() == after.keys()
    for key, vec in before.items():
        assert np.allclose(vec, after[key], atol=1e-5), key


@pytest.mark.real_model
def test_a_redone_answer_and_a_new_chat(make_engine) -> None:
    engine = make_engine(short_term_capacity=7)
    engine.add_exchange("ana", *CHAT[4][:2])
    page = engine.add_exchange("ana", "Tokyo!", "Fun.")
    # Regenerate embeds the page again from the reply before it
    engine.chat("ana", "Tokyo!", replaces=page, maintain=False)
    row = engine.store.query_one("SELECT assistant_text FROM exchanges WHERE id = ?", (page,))
    assert row is not None and row["assistant_text"] != "Fun."
    want = engine.ctx.embedder.embed([rt.retrieval_text("Tokyo!", row["assistant_text"],
                                                        CHAT[4][1])])[0]
    assert np.allclose(engine.ctx.index.vectors_of("ana", "page", [page])[page], want, atol=1e-5)
    # a chat turn finds the reply before it among the short-term rows it read
    turn = engine.chat("ana", "And Kyoto.", maintain=False)["exchange_id"]
    assert turn is not None
    answer = engine.store.query_one("SELECT assistant_text FROM exchanges WHERE id = ?",
                                    (turn,))["assistant_text"]
    want = engine.ctx.embedder.embed([rt.retrieval_text("And Kyoto.", answer,
                                                        row["assistant_text"])])[0]
    assert np.allclose(engine.ctx.index.vectors_of("ana", "page", [turn])[turn], want, atol=1e-5)
    # a New chat starts a sitting of its own
    engine.new_conversation("ana")
    later = engine.add_exchange("ana", "Tokyo!", "Again?")
    alone = engine.ctx.embedder.embed([rt.page_text("Tokyo!", "Again?")])[0]
    assert np.allclose(engine.ctx.index.vectors_of("ana", "page", [later])[later], alone,
                       atol=1e-5)


@pytest.mark.real_model
def test_redoing_an_earlier_answer_moves_the_short_turn_after_it(make_engine) -> None:
    engine = make_engine(short_term_capacity=7)
    first = engine.add_exchange("ana", *CHAT[4][:2])
    page = engine.add_exchange("ana", "Tokyo!", "Fun.")
    long_one = engine.add_exchange("ana", CHAT[6][0], CHAT[6][1])
    before = engine.ctx.index.vectors_of("ana", "page", [long_one])[long_one]
    engine.chat("ana", CHAT[4][0], replaces=first, maintain=False)  # Regenerate, not the last
    redone = engine.store.query_one("SELECT assistant_text FROM exchanges WHERE id = ?",
                                    (first,))["assistant_text"]
    assert redone != CHAT[4][1]
    # "Tokyo!" is found with the answer it now follows, not the one that was replaced
    want = engine.ctx.embedder.embed([rt.retrieval_text("Tokyo!", "Fun.", redone)])[0]
    assert np.allclose(engine.ctx.index.vectors_of("ana", "page", [page])[page], want, atol=1e-5)
    # Edit of "Tokyo!" itself leaves the long turn after it as it was
    engine.chat("ana", "Osaka!", replaces=page, maintain=False)
    assert np.allclose(engine.ctx.index.vectors_of("ana", "page", [long_one])[long_one], before,
                       atol=1e-5)


@pytest.mark.real_model
@pytest.mark.sqlite_only
def test_an_older_store_is_moved_when_opened(tmp_path, embedder) -> None:
    data = tmp_path / "data"
    engine = MemoryEngine(data, embedder=embedder, config=SMALL)
    for user_text, answer, minutes in CHAT:
        engine.add_exchange("ana", user_text, answer, timestamp=T0 + minutes * 60)
    made = _stored(engine)
    rows = engine.store.query("SELECT id, user_text, assistant_text FROM exchanges")
    with engine.store.transaction() as conn:  # as an earlier release left it: the page alone
        for r, vec in zip(rows, embedder.embed(
                [rt.page_text(r["user_text"], r["assistant_text"]) for r in rows]), strict=True):
            engine.store.put_vector(conn, "ana", "page", r["id"], vec)
        conn.execute("DELETE FROM store_meta WHERE key = ?", (store_meta_db.PAGE_TEXT_KEY,))
    engine.store.close()
    reopened = MemoryEngine(data, embedder=embedder, config=SMALL)
    with reopened.store.transaction() as conn:
        assert store_meta_db.page_vector_text(conn) == rt.VERSION
    now = _stored(reopened)
    for key, vec in made.items():
        assert np.allclose(vec, now[key], atol=1e-5), key
    assert rt.upgrade(reopened.store, embedder) is None  # once
