"""Reads a retrieval sends together (PostgreSQL: one round trip) answer exactly as one by one:
the nearest vectors of several kinds, and independent statements; a failing one is an error
that leaves the store working."""

from __future__ import annotations

import pytest

from memoryos_core.storage.tables import profile as profile_db

TEXTS = ["I adopted a cat named Miso", "We hiked the Pyrenees in June", "My sister plays cello",
         "The garden has tomatoes and basil", "I work as a nurse at night", "Jazz on Sundays"]


def _engine_with_vectors(make_engine, embedder):
    engine = make_engine()
    vecs = embedder.embed(TEXTS)
    with engine.store.transaction("ann") as conn:
        for kind, offset in (("page", 0), ("segment", 100), ("fact", 200)):
            for i, vec in enumerate(vecs):
                engine.store.put_vector(conn, "ann", kind, offset + i, vec)
    with engine.store.transaction("bob") as conn:  # another user's vectors never answer ann
        for i, vec in enumerate(vecs):
            engine.store.put_vector(conn, "bob", "page", 900 + i, vec)
    return engine


def test_nearest_of_several_kinds_match_each_search(make_engine, embedder):
    engine = _engine_with_vectors(make_engine, embedder)
    query = embedder.embed(["what is my cat called?"])[0]
    wanted = {"page": 4, "segment": 2, "fact": 0}
    found = engine.index.search_each("ann", query, wanted)
    assert found == {kind: engine.index.search("ann", kind, query, k)
                     for kind, k in wanted.items()}
    assert [i for i, _ in found["page"]][0] == 0 and found["segment"][0][0] == 100
    assert found["fact"] == []  # k 0
    assert engine.index.search_each("bob", query, {"segment": 3}) == {"segment": []}  # none
    assert all(i < 900 for i, _ in found["page"])
    scores = [s for _, s in found["page"]]
    assert scores == sorted(scores, reverse=True)


def test_statements_sent_together_answer_as_one_by_one(make_engine):
    engine = make_engine()
    engine.add_exchange("ann", "I live in Lisbon now", "Noted: Lisbon.")
    statements = [(profile_db.PROFILE_ROWS, ("ann",)),
                  ("SELECT id, user_text FROM exchanges WHERE user_id = ? ORDER BY id", ("ann",)),
                  ("SELECT count(*) AS n FROM exchanges WHERE user_id = ?", ("nobody",))]
    together = engine.store.query_each(statements)
    assert together == [engine.store.query(sql, params) for sql, params in statements]
    assert together[1][0]["user_text"] == "I live in Lisbon now" and together[2] == [{"n": 0}]


def test_a_failing_statement_among_them_is_an_error_and_the_store_keeps_working(make_engine):
    engine = make_engine()
    engine.add_exchange("ann", "My dog is Rex", "Rex, noted.")
    with pytest.raises(Exception, match="no_such_table"):
        engine.store.query_each([("SELECT count(*) AS n FROM exchanges", ()),
                                 ("SELECT * FROM no_such_table", ())])
    engine.add_exchange("ann", "I play chess", "Chess, noted.")
    texts = [r["user_text"] for r in engine.store.query(
        "SELECT user_text FROM exchanges WHERE user_id = ? ORDER BY id", ("ann",))]
    assert texts == ["My dog is Rex", "I play chess"]
    assert engine.retrieve("ann", "what is my dog called?", record=False)["pages"] is not None
