"""Memory holds what was said, not the app's scaffolding: fallbacks, evidence lines and answers
built from memory never become facts, nor does the assistant saying the user's words back; a
store made by an earlier version is cleaned once when it is opened."""

from __future__ import annotations

import json

from memoryos_core.memory import app_text, cleanup
from memoryos_core.storage.tables import store_meta as store_meta_db

DAY = 86400
T0 = 1_793_000_000  # October 2026
EVIDENCE = '\n(What I remember: 25 October 2026, Sunday, you said: "My cat Zorblax is grey.")'
FALLBACK = ("Here is what I remember that may answer this:\n"
            '- 25 October 2026, Sunday, you said: "My cat Zorblax is grey."\n'
            "- I have a grey cat named Zorblax.")
BUILT = "You told me on 3 December 2026 that your sister Ingrid moved to Tromsø."
NOT_TOLD = "I don't remember you telling me that."
NOTHING = "I don't find anything about that in my memory of our conversations."


def test_app_text_is_found_and_stripped():
    assert app_text.strip_app_text("Grey cats are lovely." + EVIDENCE) == "Grey cats are lovely."
    assert app_text.strip_app_text(FALLBACK) == ""
    assert app_text.strip_app_text("Sure.\n" + FALLBACK + "\nAnything else?") \
        == "Sure.\n\nAnything else?"
    assert app_text.without_evidence("Nice." + EVIDENCE) == "Nice."
    assert app_text.without_evidence(FALLBACK) == FALLBACK  # the fallback is the answer given
    for text in (FALLBACK, BUILT, NOT_TOLD, NOTHING, EVIDENCE.strip(),
                 '25 October 2026, Sunday, you said: "My cat Zorblax is grey."'):
        assert app_text.is_app_text(text), text
    for text in ("I moved to Berlin last month.", "Tromsø is far north, you will need a coat.",
                 "I remember Paris fondly.", "You should tell your sister."):
        assert not app_text.is_app_text(text), text
    assert app_text.analysable_reply("I love grey cats. " + BUILT + EVIDENCE) \
        == "I love grey cats."


def test_copies_of_user_lines_are_found():
    said = ["I live in Paris near the Canal Saint-Martin."]
    assert app_text.copies_user("You live in Paris near the Canal Saint-Martin.", said)
    assert app_text.copies_user("I see, you live in Paris near the canal!", said)
    assert not app_text.copies_user("Paris is lovely in the spring.", said)
    assert not app_text.copies_user("I live in Rome.", said)  # one word alone is no copy


def _facts(engine, kind, user="u1"):
    return [f["text"] for f in engine.state(user)["long_term"][f"{kind}_facts"]]


def test_extractive_analysis_stores_no_app_text_and_no_copies(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2)
    turns = [("My cat Zorblax is grey and sleeps all day.", "I think grey cats are calm." + EVIDENCE),
             ("What is my cat called?", FALLBACK),
             ("Where does my sister live?", BUILT),
             ("What did I say about my brother?", NOT_TOLD),
             ("I am training for the Lisbon marathon in May.",
              "I see you are training for the Lisbon marathon in May!"),
             ("Anything about my shoes?", NOTHING),
             ("I live in Paris.", "I adore the bakeries there."),
             ("Thanks!", "You're welcome."), ("Bye.", "See you.")]
    for i, (u, a) in enumerate(turns):
        engine.add_exchange("u1", u, a, timestamp=T0 + i * 600)
    engine.force_analysis("u1")
    assistant = _facts(engine, "assistant")
    assert assistant == ["I think grey cats are calm.", "I adore the bakeries there."]
    user = _facts(engine, "user")
    assert "I live in Paris." in user  # a short statement is a fact too
    assert not any(app_text.is_app_text(t) for t in user + assistant)


def test_llm_analysis_never_sees_nor_keeps_app_text(make_engine, chat_model):
    engine = make_engine(consolidation="extractive", analysis="llm", short_term_capacity=2)
    prompts = []

    def reply(messages, schema):
        text = messages[-1]["content"]
        if "user_facts" not in json.dumps(schema):
            return json.dumps({"dimensions": []})
        prompts.append(text)
        page = schema["properties"]["user_facts"]["items"]["properties"]["pages"]["items"]["enum"][0]
        return json.dumps({"user_facts": [
            {"fact": "The user's cat Zorblax is grey.", "pages": [page]}],
            "assistant_facts": [
                {"fact": 'What I remember: you said: "My cat Zorblax is grey."', "pages": [page]},
                {"fact": "You said your cat Zorblax is grey.", "pages": [page]},
                {"fact": "The assistant finds grey cats calm.", "pages": [page]}]})

    chat_model.default = reply
    engine.add_exchange("u1", "My cat Zorblax is grey.", "Grey cats are calm." + EVIDENCE,
                        timestamp=T0)
    engine.add_exchange("u1", "Where does my sister live?", BUILT, timestamp=T0 + 60)
    for i in range(3):
        engine.add_exchange("u1", f"Small talk {i}.", "Indeed.", timestamp=T0 + 120 + i)
    engine.force_analysis("u1")
    assert prompts and not any("What I remember" in p or "Tromsø" in p for p in prompts)
    assert _facts(engine, "assistant") == ["The assistant finds grey cats calm."]
    assert _facts(engine, "user") == ["The user's cat Zorblax is grey."]


def _old_store(engine):
    """Rows as earlier versions wrote them: answers with the evidence line, app-text facts
    and a copied user line among the facts, one app-text fact replacing a real one."""
    for i, (u, a) in enumerate([
            ("My cat Zorblax is grey.", "Grey cats are calm."),
            ("What colour is my cat?", "Lovely." + EVIDENCE),
            ("I live in Paris near the canal.", "You live in Paris near the canal!"),
            ("Thanks.", "Welcome."), ("Bye.", "Bye.")]):
        engine.add_exchange("u1", u, a, timestamp=T0 + i * 600)
    pages = {p["user"]: p["id"] for p in engine.recent_exchanges("u1")}
    emb, store = engine.ctx.embedder, engine.store
    facts = [  # (kind, text, source page, valid_from, valid_until, superseded_by index)
        ("user", "I had a black cat.", "My cat Zorblax is grey.", T0 - DAY, T0 + 600, 1),
        ("user", 'What I remember: you said: "My cat Zorblax is grey."',
         "What colour is my cat?", T0 + 600, None, None),
        ("assistant", "Grey cats are calm, I think.", "My cat Zorblax is grey.", T0, None, None),
        ("assistant", "You live in Paris near the canal!", "I live in Paris near the canal.",
         T0 + 1200, None, None),
        ("user", "I live in Paris near the canal.", "I live in Paris near the canal.",
         T0 + 1200, None, None)]
    ids = []
    with store.transaction("u1") as conn:
        for kind, text, page, start, until, _ in facts:
            row = conn.execute(
                "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at,"
                " valid_from, valid_until) VALUES ('u1', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (kind, text, text.lower(), json.dumps([pages[page]]), start, start, start,
                 until)).fetchone()
            ids.append(int(row[0]))
            store.put_vector(conn, "u1", "fact", ids[-1], emb.embed([text])[0], new=True)
        for (*_, successor), fid in zip(facts, ids, strict=True):
            if successor is not None:
                conn.execute("UPDATE facts SET superseded_by = ? WHERE id = ?",
                             (ids[successor], fid))
        conn.execute("UPDATE exchanges SET assistant_text = assistant_text || ? WHERE id = ?",
                     (EVIDENCE, pages["My cat Zorblax is grey."]))
        conn.execute("DELETE FROM store_meta WHERE key = ?", (store_meta_db.DONE_KEY,))
    return pages


def test_a_store_of_an_earlier_version_is_cleaned_once_when_opened(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    pages = _old_store(engine)
    old_version = engine.snapshot("u1")["version"]  # a version holding the old rows
    reopened = make_engine(consolidation="extractive", analysis="extractive")
    answers = {p["user"]: p["assistant"] for p in reopened.recent_exchanges("u1")}
    assert answers["My cat Zorblax is grey."] == "Grey cats are calm."
    assert answers["What colour is my cat?"] == "Lovely."
    assert not any("What I remember" in a for a in answers.values())
    # the keyword index and the page vectors follow the new text
    found = reopened.search("u1", "Zorblax")
    assert [p["id"] for p in found["pages"] if p["by_words"]] == [pages["My cat Zorblax is grey."]]
    vec = reopened.index.vectors_of("u1", "page", [pages["What colour is my cat?"]])
    # a short turn: found with the reply before it (memory/retrieval_text.py)
    want = reopened.ctx.embedder.embed(["Assistant: Grey cats are calm.\nUser: What colour is"
                                        " my cat?\nAssistant: Lovely."])[0]
    assert float(next(iter(vec.values())) @ want) > 0.999
    # app text and the copied line are gone; the fact the app text had replaced is current
    facts = reopened.state("u1")["long_term"]
    assert [f["text"] for f in facts["assistant_facts"]] == ["Grey cats are calm, I think."]
    user = {f["text"]: f for f in facts["user_facts"]}
    assert set(user) == {"I had a black cat.", "I live in Paris near the canal."}
    assert user["I had a black cat."]["valid_until"] is None
    assert user["I had a black cat."]["superseded_by"] is None
    events = [e for e in reopened.events("u1") if e["kind"] == "cleanup"]
    assert events and events[0]["detail"]["answers"] == 2 and events[0]["detail"]["facts"] == 2
    # once: a third opening changes nothing
    assert cleanup.clean_app_text(reopened.store, reopened.ctx.embedder) is None
    # a version of the old rows comes back cleaned too
    reopened.restore("u1", old_version)
    answers = {p["user"]: p["assistant"] for p in reopened.recent_exchanges("u1")}
    assert answers["What colour is my cat?"] == "Lovely."
    assert [f["text"] for f in reopened.state("u1")["long_term"]["assistant_facts"]] == [
        "Grey cats are calm, I think."]
    assert [p["id"] for p in reopened.search("u1", "Zorblax")["pages"] if p["by_words"]] == [
        pages["My cat Zorblax is grey."]]


def test_relinks_follow_past_deleted_facts():
    rows = [{"id": 1, "superseded_by": 2, "valid_until": 10.0},
            {"id": 2, "superseded_by": 3, "valid_until": 20.0},
            {"id": 3, "superseded_by": 4, "valid_until": 30.0},
            {"id": 4, "superseded_by": None, "valid_until": None},
            {"id": 5, "superseded_by": 6, "valid_until": 40.0},
            {"id": 6, "superseded_by": None, "valid_until": None}]
    assert cleanup.relinks(rows, {2, 3, 6}) == {1: (30.0, 4), 5: (None, None)}


def test_cleanup_deletes_assistant_facts_only_the_embedded_model_or_the_app_said(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    for i, (u, a) in enumerate([("Hi there.", "I spent the morning at the beach."),
                                ("What do I like?", "You like tea."),
                                ("Any tips?", "I always carry an umbrella.")]):
        engine.add_exchange("u1", u, a, timestamp=T0 + i * 600)
    pages = {p["user"]: p["id"] for p in engine.recent_exchanges("u1")}
    writer = {"Hi there.": "embedded", "What do I like?": "app", "Any tips?": "model"}
    facts = [("assistant", "I spent the morning at the beach.", ["Hi there."]),
             ("assistant", "The assistant likes tea.", ["What do I like?", "Hi there."]),
             ("assistant", "I always carry an umbrella.", ["Any tips?", "Hi there."]),
             ("user", "The user said hi.", ["Hi there."])]
    with engine.store.transaction("u1") as conn:
        for user_text, by in writer.items():
            conn.execute("UPDATE exchanges SET answered_by = ? WHERE id = ?",
                         (by, pages[user_text]))
        for kind, text, sources in facts:
            row = conn.execute(
                "INSERT INTO facts (user_id, kind, text, norm, sources, created_at, updated_at,"
                " valid_from) VALUES ('u1', ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (kind, text, text.lower(), json.dumps([pages[s] for s in sources]), T0, T0,
                 T0)).fetchone()
            engine.store.put_vector(conn, "u1", "fact", int(row[0]),
                                    engine.ctx.embedder.embed([text])[0], new=True)
        conn.execute("DELETE FROM store_meta WHERE key = ?", (store_meta_db.DONE_KEY,))
    reopened = make_engine(consolidation="extractive", analysis="extractive")
    memory = reopened.state("u1")["long_term"]
    # a real assistant said the umbrella among its pages; the user's fact is the user's
    assert [f["text"] for f in memory["assistant_facts"]] == ["I always carry an umbrella."]
    assert [f["text"] for f in memory["user_facts"]] == ["The user said hi."]
    events = [e for e in reopened.events("u1") if e["kind"] == "cleanup"]
    assert events and events[0]["detail"]["facts"] == 2
