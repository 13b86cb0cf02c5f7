"""The per-user term document frequencies the keyword search reads stay exact through every
write: admission, import, filing, forgetting, eviction, clear, restore and erasure."""

from __future__ import annotations

from memoryos_core.storage import pg_search, search

from .test_admission import TOPICS

SECRET = "I hid the spare key under the zebraquokka statue."
WORDS = ["rex", "marathon", "spanish", "zebraquokka", "running", "key", "the", "grandma's",
         "e-mail", "nothing"]  # stemmed, a stop word, two words of several lexemes, no match


def check(engine) -> None:
    """Each word's count over each user's mid-term pages equals a count of the rows; on
    PostgreSQL term_counts equals a recount of every user's terms, with no row left at 0."""
    store = engine.store
    for user in ("u1", "u2"):
        for word in WORDS:
            kept = search.keyword_document_count(store, user, word, 10**6)
            if store.dialect == "postgresql":  # the GIN index's count, as before term_counts
                assert kept == pg_search._gin_counts(store.connect(), user, [word], None)[word]
    if store.dialect != "postgresql":
        return
    recount = {(r["user_id"], r["term"]): int(r["n"]) for r in store.query(
        "SELECT user_id, term, count(*) AS n FROM exchanges,"
        " unnest(tsvector_to_array(words)) AS term WHERE tier = 'mid' GROUP BY user_id, term")}
    kept_rows = {(r["user_id"], r["term"]): int(r["n"]) for r in store.query(
        "SELECT user_id, term, n FROM term_counts")}
    assert kept_rows == recount


def _mid_page(engine, user: str, text: str) -> int:
    state = engine.state(user)
    pages = [p for s in state["mid_term"]["segments"] for p in s["pages"]]
    pages += state["mid_term"]["pending_pages"]
    return next(p["id"] for p in pages if text in p["user"])


def test_term_counts_follow_every_write(make_engine):
    settings = {"consolidation": "extractive", "analysis": "extractive",
                "short_term_capacity": 2, "consolidation_batch": 2,
                "merge_threshold": 5.0}  # every topic a new segment
    engine = make_engine(**settings)
    check(engine)
    for i, (user, assistant) in enumerate([(SECRET, "Noted.")] + TOPICS[:4]):
        engine.add_exchange("u1", user, assistant, timestamp=1_700_000_000 + i * 60)
    engine.add_exchange("u2", "My grandma's e-mail about Rex and the marathon.", "Lovely.",
                        timestamp=1_699_000_000)
    check(engine)  # short-term pages moved to mid-term, in the same transaction
    engine.import_dialogue("u2", [{"user_input": u, "agent_response": a,
                                   "timestamp": 1_700_100_000 + i * 60}
                                  for i, (u, a) in enumerate(TOPICS)], fmt="playground")
    check(engine)
    engine.force_analysis("u1")  # filed and analysed: updates that leave the words alone
    check(engine)
    saved = engine.clear("u1")["saved_as"]
    check(engine)
    engine.restore("u1", saved)
    check(engine)
    engine.forget("u1", _mid_page(engine, "u1", "zebraquokka"))
    check(engine)
    assert search.keyword_document_count(engine.store, "u1", "zebraquokka", 10) == 0
    engine = make_engine(**settings, mid_term_capacity=2)  # the coldest segments evicted
    for i, (user, assistant) in enumerate(TOPICS[4:] * 2):
        engine.add_exchange("u1", f"{user} ({i})", assistant, timestamp=1_700_200_000 + i * 60)
    assert [e for e in engine.events("u1") if e["kind"] == "eviction"]
    check(engine)
    engine.forget("u2", _mid_page(engine, "u2", "grandma"), everywhere=True)
    check(engine)
    engine.erase_user("u2")
    check(engine)
    if engine.store.dialect == "postgresql":
        assert engine.store.scalar("SELECT count(*) FROM term_counts WHERE user_id = 'u2'") == 0
