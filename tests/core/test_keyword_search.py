"""Keyword search: the common-term filter counts only the asking user's pages."""

from __future__ import annotations

from memoryos_core.answer import retrieval
from memoryos_core.storage import kept_scores, search


def _fill(engine, user, n, text, start=1_700_000_000):
    for i in range(n):
        engine.add_exchange(user, f"{text} number {i}", "Noted.", timestamp=start + i * 60,
                            maintain=False)


def test_keyword_filter_counts_only_the_users_pages(engine):
    # another user mentions the ukulele on 70 pages: store-wide it is a common word
    _fill(engine, "other", 77, "I practised the ukulele today")
    _fill(engine, "u1", 10, "My ukulele teacher is called Ines")
    trace = engine.retrieve("u1", "Who teaches my ukulele lessons?")
    assert "ukulele" in trace["keyword_search_terms"]  # 3 of u1's pages: distinctive for u1
    assert any(p.get("keyword_rank") for p in trace["pages"])
    other = engine.retrieve("other", "When did I play the ukulele?")
    assert "ukulele" not in other["keyword_search_terms"]  # 70 of 70 pages: common for them


def test_frequent_terms_agree_with_exact_counts(engine):
    _fill(engine, "other", 60, "Café crème with a croissant")
    _fill(engine, "u1", 67, "Café crème at the station")
    words = ["café", "crème", "croissant", "station", "nothing"]
    exact = {w: search.keyword_document_count(engine.store, "u1", w, 1000) for w in words}
    assert exact == {"café": 60, "crème": 60, "croissant": 0, "station": 60, "nothing": 0}
    assert search.frequent_terms(engine.store, "u1", words, 50, 60) == {"café", "crème",
                                                                         "station"}
    assert search.frequent_terms(engine.store, "u1", words, 59, 60) == {"café", "crème",
                                                                         "station"}
    assert search.frequent_terms(engine.store, "u1", words, 60, 60) == set()
    assert retrieval.distinctive_words(engine.ctx, "u1", words) == ["croissant", "nothing"]


def test_keyword_search_with_the_users_page_count_ranks_the_same(tmp_path):
    """Ranking the index's best matches first (the user holds most pages) changes nothing:
    same ids, same order (summed idf, BM25, then id), also when other users' or short-term rows crowd the
    best matches and the joined query ranks again."""
    from memoryos_core.storage import SQLiteStore
    from memoryos_core.storage.tables import exchanges as exchanges_db

    store = SQLiteStore(tmp_path / "data")
    texts = ["hiking boots for the ridge trail", "boots again", "the ridge at dawn",
             "a trail run", "hiking hiking hiking with Anna"]
    with store.transaction() as conn:
        mine = [exchanges_db.insert_exchange(conn, "u1", texts[i % 5], "ok", i, i, "chat",
                                          f"a{i}") for i in range(60)]
        exchanges_db.overflow_to_mid_term(conn, "u1", 10, 100.0)  # the newest 10 stay short-term
        theirs = [exchanges_db.insert_exchange(conn, "u2", texts[i % 5], "fine", i, i, "chat",
                                            f"b{i}") for i in range(20)]
        exchanges_db.overflow_to_mid_term(conn, "u2", 0, 100.0)
    for words in (["boots"], ["ridge", "trail"], ["hiking", "anna"], ["nothing"]):
        for limit in (1, 3, 7, 15, 40, 60):
            joined = search.keyword_search(store, "u1", words, limit)
            assert search.keyword_search(store, "u1", words, limit, user_pages=50) == joined
            for ties in _runs_of_equal(store, words, joined):
                assert ties == sorted(ties)  # equal BM25: lower id first
            other = search.keyword_search(store, "u2", words, limit)
            assert search.keyword_search(store, "u2", words, limit, user_pages=20) == other
            # a count that lets u2 rank the index's best first: u1's rows crowd them out
            assert search.keyword_search(store, "u2", words, limit, user_pages=80) == other
            assert set(joined) <= set(mine[:50]) and set(other) <= set(theirs)
    store.close()


def _runs_of_equal(store, words, ids):
    """The ids of a ranking grouped by equal BM25 score."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    score = {r["rowid"]: r["s"] for r in store.query(
        f"SELECT rowid, bm25(exchanges_fts) AS s FROM exchanges_fts WHERE exchanges_fts MATCH ?"
        f" AND rowid IN ({marks})", (search.fts_query(words), *ids))}
    runs: list[list[int]] = []
    for i in ids:
        if runs and score[runs[-1][-1]] == score[i]:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def test_keyword_search_finds_other_forms_of_a_word(engine):
    """A question's word finds the page that uses another form of it (stemmed index: the
    Porter stemmer on SQLite, the 'english' configuration on PostgreSQL)."""
    _fill(engine, "u1", 12, "We talked about the weather")
    engine.add_exchange("u1", "I painted the old barn red last weekend.", "Bold choice!",
                        timestamp=1_700_100_000, maintain=False)
    engine.add_exchange("u1", "My kids were running around the orchard all day.", "Fun!",
                        timestamp=1_700_100_060, maintain=False)
    for _ in range(8):  # push the two pages into mid-term memory (short-term holds 7)
        engine.add_exchange("u1", "Another quiet day.", "Ok.", maintain=False)
    barn = search.keyword_search(engine.store, "u1", ["painting"], 5)
    kids = search.keyword_search(engine.store, "u1", ["kid", "runs"], 5)
    texts = {r["id"]: r["user_text"] for r in engine.store.query(
        "SELECT id, user_text FROM exchanges WHERE user_id = ?", ("u1",))}
    assert [texts[i] for i in barn] == ["I painted the old barn red last weekend."]
    assert [texts[i] for i in kids] == ["My kids were running around the orchard all day."]
    trace = engine.retrieve("u1", "What was I painting?")
    assert trace["pages"][0]["user"] == "I painted the old barn red last weekend."


def test_indexed_terms_are_the_terms_of_the_index(tmp_path):
    """The stems the common-word filter looks up are the ones exchanges_fts stores."""
    from memoryos_core.storage import SQLiteStore
    from memoryos_core.storage.tables import exchanges as exchanges_db

    store = SQLiteStore(tmp_path / "data")
    text = "Running happily through 2023 with painted kids and the generous organizers"
    with store.transaction() as conn:
        exchanges_db.insert_exchange(conn, "u1", text, "ok", 1.0, 1.0, "chat", "k1")
    vocab = {r["term"] for r in store.query("SELECT term FROM exchanges_vocab")}
    words = ["running", "happily", "2023", "painted", "kids", "generous", "organizers"]
    stems = search.indexed_terms([*words, "café", "don't"])
    assert set(stems) == set(words)  # only plain words: others are counted exactly
    assert set(stems.values()) <= vocab
    assert stems["running"] == "run" and stems["kids"] == "kid"


def test_migration_rebuilds_an_old_unstemmed_index(tmp_path):
    """A store made before migration 6 keeps its exchanges and finds them by word forms."""
    import sqlite3
    import time

    from memoryos_core.storage import SQLiteStore
    from memoryos_core.storage.migrations import MIGRATIONS
    from memoryos_core.storage.sqlite import DB_NAME, _split_sql

    folder = tmp_path / "data"
    folder.mkdir()
    conn = sqlite3.connect(folder / DB_NAME)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,"
                 " applied_at REAL NOT NULL)")
    for number, script in enumerate(MIGRATIONS[:5], start=1):
        for statement in _split_sql(script):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))
    conn.execute("INSERT INTO exchanges (user_id, user_text, assistant_text, ts, admitted_at,"
                 " tier, source, content_key) VALUES ('u1', 'We were painting the fence',"
                 " 'Nice', 1, 1, 'mid', 'chat', 'k')")
    conn.commit()
    assert conn.execute("SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH"
                        " 'painted'").fetchone()[0] == 0  # unstemmed before
    conn.close()
    store = SQLiteStore(folder)
    assert store.schema_version() >= 6
    assert search.keyword_search(store, "u1", ["painted"], 5) == [1]
    assert "paint" in {r["term"] for r in store.query("SELECT term FROM exchanges_vocab")}


def test_a_repeated_exchange_takes_the_budget_once(engine):
    """The same words said twice fill one place in the memory block; the trace marks the other."""
    _fill(engine, "u1", 10, "We talked about the weather")
    for day in (0, 3):
        engine.add_exchange("u1", "Remind me: my locker code is 4471.", "Noted, 4471.",
                            timestamp=1_700_200_000 + day * 86400, maintain=False)
    for _ in range(8):
        engine.add_exchange("u1", "Another quiet day.", "Ok.", maintain=False)
    trace = engine.retrieve("u1", "What is my locker code?")
    lockers = [p for p in trace["pages"] if "locker" in p["user"]]
    assert len(lockers) == 2
    assert sum(1 for p in lockers if p["selected"]) == 1
    repeat = next(p for p in lockers if not p["selected"])
    assert repeat["reason"] == f"repeats page {next(p['id'] for p in lockers if p['selected'])}"
    assert trace["memory_block"].count("locker code is 4471") == 1


def test_pages_holding_more_of_the_rare_words_rank_first(engine):
    """A page with two of the question's rare words beats short pages that repeat one (both
    backends: summed idf first)."""
    from memoryos_core.storage.tables import exchanges as exchanges_db

    texts = ["Lake Tahoe!", "Tahoe, Tahoe.", "kayaking again",
             "We went kayaking on Lake Tahoe last summer and the water was freezing cold",
             *[f"ordinary chat {i}" for i in range(30)]]
    with engine.store.transaction("u1") as conn:
        ids = [exchanges_db.insert_exchange(conn, "u1", t, "ok", i, i, "chat", f"k{i}")
               for i, t in enumerate(texts)]
        exchanges_db.overflow_to_mid_term(conn, "u1", 0, 100.0)
    ranked = search.keyword_search(engine.store, "u1", ["tahoe", "kayaking"], 10)
    assert ranked[0] == ids[3]
    assert set(ranked) == set(ids[:4])
    assert search.keyword_search(engine.store, "u1", ["tahoe", "kayaking"], 10,
                                 user_pages=34) == ranked


def test_kept_word_scores_rank_as_the_index_does_and_follow_every_write(tmp_path):
    """The BM25 kept per word while the index is unchanged ranks exactly as one statement over
    FTS5's bm25() does (ties by id, rows holding three of the words included), and any write
    is seen next time: an edit keeping the row's length, an insert, a write inside a
    transaction (its pending rows are searched too)."""
    import random

    from memoryos_core.storage import SQLiteStore
    from memoryos_core.storage.tables import exchanges as exchanges_db

    store = SQLiteStore(tmp_path / "data")
    rng = random.Random(3)
    vocab = ["boots", "ridge", "trail", "hiking", "anna", "lake", "tahoe", "kayak", "dawn",
             "snow", "tent", "map"]
    with store.transaction() as conn:
        for i in range(300):
            words = rng.choices(vocab, k=rng.randint(1, 6)) + ["the"] * rng.randint(0, 3)
            exchanges_db.insert_exchange(conn, "u1" if i % 4 else "u2", " ".join(words),
                                         "ok", i, i, "chat", f"k{i}")
        exchanges_db.overflow_to_mid_term(conn, "u1", 5, 1000.0)
        exchanges_db.overflow_to_mid_term(conn, "u2", 0, 1000.0)

    def same(words, limit, user="u1"):
        weights = search._idf_weights(store, words)
        kept = search.keyword_search(store, user, words, limit, user_pages=220)
        if not weights:  # no word in the index
            assert kept == []
            return kept
        assert kept == search._ranked_by_sql(store, user, weights, limit, 220)
        assert kept == search._ranked_by_sql(store, user, weights, limit, None)
        return kept

    for _ in range(60):
        same(rng.sample(vocab, rng.randint(1, 5)), rng.choice([1, 5, 20, 80, 300]),
             rng.choice(["u1", "u2"]))
    assert kept_scores._KEPT[store].words  # the scores were kept, and used
    first = store.query_one("SELECT id, user_text FROM exchanges WHERE user_id = 'u1'"
                            " AND tier = 'mid' AND user_text NOT LIKE '%zebra%' ORDER BY id")
    assert first is not None
    before = same(["zebra"], 10)
    with store.transaction() as conn:  # same length: the row and token counts do not change
        conn.execute("UPDATE exchanges SET user_text = ? WHERE id = ?",
                     (" ".join(["zebra"] * len(first["user_text"].split())), first["id"]))
        assert search.keyword_search(store, "u1", ["zebra"], 10) == [first["id"]]
    assert before == [] and same(["zebra"], 10) == [first["id"]]
    with store.transaction() as conn:
        new = exchanges_db.insert_exchange(conn, "u1", "zebra zebra trail", "ok", 999, 999,
                                           "chat", "k-new")
        conn.execute("UPDATE exchanges SET tier = 'mid' WHERE id = ?", (new,))
    assert same(["zebra", "trail"], 400)[0] == new
    store.close()
