"""Facts over time: a later statement on the same subject replaces the older fact (kept as
history); retrieval answers with the current value and shows the history when asked the past."""

from __future__ import annotations

import json

import pytest

from memoryos_core.hosts.mcp_tools import ToolHost

DAY = 86400
T0 = 1_683_540_000  # 8 May 2023, 10:00 UTC
T1 = T0 + 28 * DAY  # four weeks later: 5 June 2023
SUBARU = "I drive a 2014 Subaru Outback."
TESLA = "I sold the Subaru, I drive a Tesla Model 3 now."
OTHERS = [("I adopted a beagle puppy called Biscuit.", "Puppies are a joy to train."),
          ("My sister lives in Boston and teaches maths.", "Boston is lovely in autumn."),
          ("I am learning to bake sourdough bread at home.", "Sourdough takes patience.")]
LATER = [("I went to a jazz concert with Priya on Friday.", "Jazz live is the best."),
         ("We won the office quiz about rivers last night.", "Congratulations to the team.")]
CLOSING = [("Thanks, talk soon!", "Bye for now."), ("See you tomorrow.", "Take care.")]


def _extractive(make_engine):
    return make_engine(consolidation="extractive", analysis="extractive", short_term_capacity=2)


def _say(engine, turns, start, user="u1"):
    for i, (text, reply) in enumerate(turns):
        engine.add_exchange(user, text, reply, timestamp=start + i * 600)


def _car_history(engine, user="u1"):
    """The Subaru, then weeks later the Tesla, each analysed as it comes; the last report."""
    _say(engine, [(SUBARU, "Outbacks are sturdy cars."), *OTHERS, *CLOSING], T0, user)
    engine.force_analysis(user)
    _say(engine, [(TESLA, "Enjoy the quiet ride."), *LATER, *CLOSING], T1, user)
    return engine.force_analysis(user)


def _by_text(facts, words):
    return next(f for f in facts if words in f["text"])


def test_a_newer_car_replaces_the_older_fact_kept_as_history(make_engine):
    engine = _extractive(make_engine)
    report = _car_history(engine)
    facts = engine.state("u1")["long_term"]["user_facts"]
    tesla = _by_text(facts, "Tesla")
    assert tesla["valid_until"] is None and tesla["valid_from"] == T1
    assert [h["text"] for h in tesla["history"]] == [SUBARU]
    old = tesla["history"][0]
    assert old["valid_from"] == T0 and old["valid_until"] == T1
    assert old["superseded_by"] == tesla["id"]
    assert not any(SUBARU == f["text"] for f in facts)  # history, not a current fact
    assert [(s["old_text"], s["new_text"]) for s in report["facts_superseded"]] == [
        (SUBARU, TESLA)]
    for text, _ in OTHERS + LATER:  # other subjects: current, nothing replaced
        fact = _by_text(facts, text[:20])
        assert fact["valid_until"] is None and fact["history"] == []


@pytest.mark.real_model  # "what car" passes fact_min_score (MiniLM's scale) by meaning only
def test_retrieval_gives_the_current_value_and_the_history_when_asked_the_past(make_engine):
    engine = _extractive(make_engine)
    _car_history(engine)
    now = engine.retrieve("u1", "What car do I drive?")
    assert TESLA in now["facts"]["user"][0]["text"]
    assert all(not f["superseded"] for f in now["facts"]["user"])
    assert SUBARU not in [f["text"] for f in now["facts"]["user"]]
    left = [f for f in now["facts"]["superseded_left_out"] if f["text"] == SUBARU]
    assert left and left[0]["valid_until"] == T1
    facts_part = now["memory_block"].split("## Relevant past conversation")[0]
    assert "Tesla Model 3" in facts_part and "2014 Subaru Outback" not in facts_part

    before = engine.retrieve("u1", "What car did I drive before?")
    texts = [f["text"] for f in before["facts"]["user"]]
    assert TESLA in texts and SUBARU in texts
    assert texts.index(TESLA) < texts.index(SUBARU)  # the current value first
    old = _by_text(before["facts"]["user"], "2014 Subaru")
    assert old["superseded"] and old["valid_until"] == T1
    assert f"- {SUBARU} (until 5 June 2023; replaced)" in before["memory_block"]


@pytest.mark.real_model  # "what car" passes fact_min_score (MiniLM's scale) by meaning only
def test_a_named_period_brings_the_fact_that_held_then(make_engine):
    # a date question scores lower against the facts (0.42-0.54): a lower fact_min_score
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2, fact_min_score=0.4)
    _car_history(engine)
    may = engine.retrieve("u1", "What car did I drive in May 2023?", now=T1 + 30 * DAY)
    assert [f["text"] for f in may["facts"]["user"]][:2] == [TESLA, SUBARU]
    july = engine.retrieve("u1", "What car did I drive in July 2023?", now=T1 + 30 * DAY)
    assert SUBARU not in [f["text"] for f in july["facts"]["user"]]  # it ended in June
    assert SUBARU in [f["text"] for f in july["facts"]["superseded_left_out"]]


@pytest.mark.real_model  # "what car" passes fact_min_score (MiniLM's scale) by meaning only
def test_mcp_retrieve_memory_carries_validity(make_engine):
    engine = _extractive(make_engine)
    _car_history(engine)
    host = ToolHost(engine, user=lambda: "u1", maintain=lambda user, model: None)
    found = host.retrieve_memory("What car did I drive before?")
    items = {k["knowledge"]: k for k in found["retrieved_user_knowledge"]}
    assert items[TESLA]["valid_until"] is None and items[TESLA]["valid_from"]
    assert items[SUBARU]["valid_until"] is not None
    tesla_id = _by_text(engine.state("u1")["long_term"]["user_facts"], "Tesla")["id"]
    assert items[SUBARU]["superseded_by"] == tesla_id


def test_history_survives_export_into_another_user_and_restore(make_engine):
    engine = _extractive(make_engine)
    _car_history(engine)
    doc = engine.export("u1")
    engine.import_dialogue("u2", json.dumps(doc).encode(), fmt="memoryos-export")
    tesla = _by_text(engine.state("u2")["long_term"]["user_facts"], "Tesla")
    assert [h["text"] for h in tesla["history"]] == [SUBARU]  # the link follows the new ids
    assert tesla["history"][0]["superseded_by"] == tesla["id"]
    version = engine.snapshot("u1")["version"]
    engine.clear("u1")
    engine.restore("u1", version)
    tesla = _by_text(engine.state("u1")["long_term"]["user_facts"], "Tesla")
    assert [h["valid_until"] for h in tesla["history"]] == [T1]


def _llm_analysis(make_engine, chat_model, replaces):
    """A model that states the Subaru fact, then the Tesla fact replacing the id it names."""
    engine = make_engine(consolidation="extractive", analysis="llm", short_term_capacity=2)
    prompts = []

    def reply(messages, schema):
        text = messages[-1]["content"]
        if "user_facts" not in json.dumps(schema):
            return json.dumps({"dimensions": []})
        prompts.append(text)
        pages = schema["properties"]["user_facts"]["items"]["properties"]["pages"]["items"]
        page_of = {p: p for p in pages["enum"]}
        said = [line for line in text.splitlines() if line.startswith("[p")]
        facts = []
        for line in said:
            pid = int(line[2:line.index("]")])
            if "Subaru Outback" in line and pid in page_of:
                facts.append({"fact": "The user drives a 2014 Subaru Outback.", "pages": [pid]})
            if "Tesla" in line and pid in page_of:
                known = schema["properties"]["user_facts"]["items"]["properties"].get("replaces")
                target = replaces(known["enum"][1:] if known else [])
                facts.append({"fact": "The user sold the Subaru and drives a Tesla Model 3.",
                              "pages": [pid], "replaces": target})
        return json.dumps({"user_facts": facts, "assistant_facts": []})

    chat_model.default = reply
    _car_history(engine)
    return engine, prompts


def test_a_capable_model_says_which_fact_a_new_one_replaces(make_engine, chat_model):
    engine, prompts = _llm_analysis(make_engine, chat_model, lambda known: known[0])
    facts = engine.state("u1")["long_term"]["user_facts"]
    tesla = _by_text(facts, "Tesla")
    subaru_id = tesla["history"][0]["id"]
    assert tesla["history"][0]["text"] == "The user drives a 2014 Subaru Outback."
    assert any(f"[{subaru_id}]" in p and "Subaru Outback" in p for p in prompts[1:])


def test_a_replaced_id_the_model_was_not_shown_is_rejected(make_engine, chat_model):
    engine, _ = _llm_analysis(make_engine, chat_model, lambda known: 987654)
    facts = engine.state("u1")["long_term"]["user_facts"]
    assert all(f["valid_until"] is None and f["history"] == [] for f in facts)
    assert {"The user drives a 2014 Subaru Outback.",
            "The user sold the Subaru and drives a Tesla Model 3."} <= {f["text"] for f in facts}


def test_migration_backfills_valid_from_from_the_newest_source_page(tmp_path, database_url):
    """A store made before facts had times: each fact holds from its newest source page (or,
    with none, from when it was stored) and is current."""
    import sqlite3
    import time

    from memoryos_core.storage import open_store
    from memoryos_core.storage.migrations import MIGRATIONS
    from memoryos_core.storage.pg_schema import PG_MIGRATIONS
    from memoryos_core.storage.sqlite import DB_NAME, _split_sql

    folder = tmp_path / "data"
    folder.mkdir()
    rows = ["INSERT INTO exchanges (id, user_id, user_text, assistant_text, ts, admitted_at,"
            " tier, source, content_key) VALUES (1, 'u1', 'a', 'b', 100, 1, 'mid', 'chat', 'k1'),"
            " (2, 'u1', 'c', 'd', 200, 1, 'mid', 'chat', 'k2')",
            "INSERT INTO facts (id, user_id, kind, text, norm, sources, created_at, updated_at)"
            " VALUES (1, 'u1', 'user', 'I drive a Subaru.', 'i drive a subaru', '[1, 2]', 5, 5),"
            " (2, 'u1', 'user', 'I like tea.', 'i like tea', '[]', 7, 7)"]
    if database_url is None:
        conn = sqlite3.connect(folder / DB_NAME)
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,"
                     " applied_at REAL NOT NULL)")
        for number, script in enumerate(MIGRATIONS[:6], start=1):
            for statement in _split_sql(script):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))
        for sql in rows:
            conn.execute(sql)
        conn.commit()
        conn.close()
    else:
        import psycopg

        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,"
                         " applied_at DOUBLE PRECISION NOT NULL)")
            for number, script in enumerate(PG_MIGRATIONS[:3], start=1):
                conn.execute(script)
                conn.execute("INSERT INTO schema_migrations VALUES (%s, %s)",
                             (number, time.time()))
            for sql in rows:
                conn.execute(sql)
    store = open_store(folder, database_url)
    try:
        got = {r["id"]: (r["valid_from"], r["valid_until"], r["superseded_by"])
               for r in store.query("SELECT * FROM facts ORDER BY id")}
    finally:
        store.close()
    assert got == {1: (200, None, None), 2: (7, None, None)}


def test_a_fact_evicted_over_capacity_takes_its_history_with_it(make_engine):
    # issue 47: the lab's memory showed 102 user facts with a capacity of 100: an evicted
    # current fact left the values it had replaced, each then listed as a fact of its own
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2, fact_capacity=4)
    _car_history(engine)
    newer = [("I started volunteering at the animal shelter on Saturdays.", "How kind."),
             ("My favourite author is Ursula Le Guin.", "A wonderful writer."),
             ("I grow tomatoes and basil on my balcony.", "Fresh basil is great."),
             ("I play the cello in a community orchestra.", "Lovely instrument.")]
    _say(engine, [*newer, *CLOSING], T1 + 10 * DAY)
    engine.force_analysis("u1")
    long = engine.state("u1")["long_term"]
    facts = long["user_facts"]
    assert len(facts) <= long["fact_capacity"] == 4, [f["text"] for f in facts]
    assert not any("Subaru" in f["text"] for f in facts)  # not without the Tesla
