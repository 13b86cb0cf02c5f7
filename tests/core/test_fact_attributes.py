"""Facts that change: a new value of the same attribute replaces the old one by meaning (the old
kept as history), and a question on the attribute gets the current value into the prompt."""

from __future__ import annotations

import pytest

DAY = 86400
T0 = 1_780_000_000  # May 2026
T1 = T0 + 40 * DAY
PARIS = "I live in Paris."
BERLIN = "I moved to Berlin last month."
SMALL_TALK = [("The weather was lovely on my walk today.", "Walks in the sun are the best."),
              ("I made a lemon cake for the neighbours.", "Lemon cake sounds delicious."),
              ("We watched an old western film last night.", "Westerns have great scores."),
              ("My knee is sore after football practice.", "Rest it and use some ice.")]
CLOSING = [("Thanks, talk soon!", "Bye for now."), ("See you tomorrow.", "Take care.")]


def _by_text(facts, text):
    return next(f for f in facts if f["text"] == text)


@pytest.mark.real_model  # "moved to Berlin" is a home like "live in Paris" by meaning only
def test_a_move_replaces_the_home_and_a_now_question_gets_the_new_one(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2)
    turns = [(PARIS, "Paris is beautiful in spring."), *SMALL_TALK[:2]]
    for i, (text, reply) in enumerate(turns):
        engine.add_exchange("u1", text, reply, timestamp=T0 + i * 600)
    for i, (text, reply) in enumerate([(BERLIN, "How exciting, a new city!"), *SMALL_TALK[2:],
                                       *CLOSING]):
        engine.add_exchange("u1", text, reply, timestamp=T1 + i * 600)
    report = engine.force_analysis("u1")
    assert [(s["old_text"], s["new_text"]) for s in report["facts_superseded"]] == [
        (PARIS, BERLIN)]
    facts = engine.state("u1")["long_term"]["user_facts"]
    berlin = _by_text(facts, BERLIN)
    assert berlin["valid_until"] is None and [h["text"] for h in berlin["history"]] == [PARIS]
    assert berlin["history"][0]["superseded_by"] == berlin["id"]
    assert berlin["history"][0]["valid_until"] == T1
    for text, _ in SMALL_TALK:  # other subjects: current, nothing replaced
        fact = _by_text(facts, text)
        assert fact["valid_until"] is None and fact["history"] == []

    now = engine.retrieve("u1", "Where do I live now?", now=T1 + DAY)
    assert now["facts"]["user"][0]["text"] == BERLIN and now["facts"]["user"][0]["in_prompt"]
    facts_part = now["memory_block"].split("## Relevant past conversation")[0]
    assert BERLIN in facts_part
    assert PARIS not in facts_part or f"{PARIS} (until" in facts_part
    block = now["memory_block"]
    assert block.index("Berlin") < block.index("Paris") if "Paris" in block else True

    before = engine.retrieve("u1", "Where did I live before?", now=T1 + DAY)
    texts = [f["text"] for f in before["facts"]["user"]]
    assert texts.index(BERLIN) < texts.index(PARIS)
    assert f"- {PARIS} (until" in before["memory_block"]


@pytest.mark.real_model  # the sister's home is a home by meaning; her words say whose it is
def test_another_persons_home_and_another_pet_replace_nothing(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2)
    turns = [("I live in Berlin.", "Berlin has great museums."),
             ("We have a cat called Luna.", "Cats are wonderful company."),
             ("My sister lives in Rome.", "Rome must be lovely."),
             ("We adopted a puppy named Max.", "Congratulations on the puppy!"), *CLOSING]
    for i, (text, reply) in enumerate(turns):
        engine.add_exchange("u1", text, reply, timestamp=T0 + i * DAY)
    report = engine.force_analysis("u1")
    assert report["facts_superseded"] == []
    sister = engine.retrieve("u1", "Where does my sister live?", now=T0 + 9 * DAY)
    assert sister["facts"]["user"][0]["text"] == "My sister lives in Rome."


def test_a_correction_keeps_the_old_text_in_the_facts_history(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2)
    for i, (text, reply) in enumerate([(PARIS, "Paris is beautiful in spring."), *CLOSING]):
        engine.add_exchange("u1", text, reply, timestamp=T0 + i * 600)
    engine.force_analysis("u1")
    fact = _by_text(engine.state("u1")["long_term"]["user_facts"], PARIS)
    edited = engine.edit_fact("u1", fact["id"], "I live in Lyon.")
    assert edited["fact"] == fact["id"]  # the fact keeps its id: links and pages stay
    engine.edit_fact("u1", fact["id"], "I live in Lyon, near the river.")
    facts = engine.state("u1")["long_term"]["user_facts"]
    mine = _by_text(facts, "I live in Lyon, near the river.")
    assert mine["id"] == fact["id"] and mine["by_user"] and mine["valid_until"] is None
    assert [h["text"] for h in mine["history"]] == ["I live in Lyon.", PARIS]  # newest first
    assert all(h["superseded_by"] == fact["id"] and h["valid_until"] is not None
               and h["valid_from"] == fact["valid_from"] and not h["by_user"]
               for h in mine["history"])
    assert not any(f["text"] in (PARIS, "I live in Lyon.") for f in facts)  # history only
    event = next(e for e in engine.events("u1") if e["kind"] == "correction")
    assert event["detail"]["old_text_kept_as"] in {h["id"] for h in mine["history"]}
    engine.restore("u1", edited["saved_as"])  # undone: the fact as analysis stored it
    back = _by_text(engine.state("u1")["long_term"]["user_facts"], PARIS)
    assert back["id"] == fact["id"] and back["history"] == [] and not back["by_user"]


@pytest.mark.real_model  # the attributes' cosines are MiniLM's
def test_what_someone_does_asks_their_job_and_what_they_do_on_sunday_does_not(embedder):
    import numpy as np

    from memoryos_core.memory import attributes

    def asked(question: str) -> set[str]:
        vec = np.asarray(embedder.embed([question])[0], dtype=np.float32)
        return set(attributes.asked_in(question, vec, embedder))

    # too few words for a job's descriptions: "What does Fiona do?" had no attribute at all
    for question in ("What does Fiona do?", "what does my sis do", "what did my nonna do for "
                     "work?", "What does my son do, and where?"):
        assert "job" in asked(question), question
    for question in ("What do we do on Sunday?", "What does my dog do when I'm out?",
                     "What do my kids do after school?"):
        assert "job" not in asked(question), question


@pytest.mark.real_model  # the attributes' cosines are MiniLM's
def test_what_one_must_not_eat_and_how_one_gets_around_are_attributes(embedder):
    import numpy as np

    from memoryos_core.memory import attributes

    def classed(text: str) -> set[str]:
        return set(attributes.classify(np.asarray(embedder.embed([text])[0]), embedder))

    # "What must I avoid eating?" found no tie to "I'm allergic to shellfish"
    for text in ("btw im allergic to shellfish", "I'm lactose intolerant.",
                 "What must I avoid eating?", "Is there any food I have to be careful with?"):
        assert classed(text) == {"diet"}, text
    for text in ("I love sushi.", "My favourite food is lasagne.", "I made pasta for dinner."):
        assert "diet" not in classed(text), text
    assert not attributes.single_valued("diet")  # an allergy and a diet both hold
    # the commute is the car's attribute, as the learned fact kind "commute" has it
    for text in ("I commute by e-bike and ferry.", "How do I get to work?", "how do i commute"):
        assert classed(text) == {"car"}, text


@pytest.mark.real_model  # the slot model reads MiniLM's meaning
def test_how_one_gets_to_work_is_answered_with_the_commute_told(make_engine):
    from tests.core.test_routing import _new_user_chat

    engine, model, say = _new_user_chat(make_engine)
    say("I'm Ingrid, I work at the marine institute in Bergen.")
    say("Hobby: cross-country skiing.")
    say("I commute by e-bike and ferry.")
    # "I don't remember" before: the question shares no word with the commute
    assert "e-bike" in say("How do I get to work?")
