"""Kinds of fact: a one-value kind's newer statement replaces the older; likes, pets and people
stay many; the learned kinds (real model) and the rule over given kinds (any embedder)."""

from __future__ import annotations

import pytest

from memoryos_core.memory import fact_kinds, learned

MERGE = 0.95
DAY = 86400
T0 = 1_780_000_000


def test_fact_kinds_likes_never_replace_even_when_numbers_differ():
    assert not fact_kinds.replaces("I like colour number 5.", "I like colour number 6.", 0.97,
                                   MERGE, "like", "like")
    assert not fact_kinds.replaces("I love jazz.", "I work as a nurse.", 0.2, MERGE, "like",
                                   "job")


def test_fact_kinds_one_value_kind_of_one_holder_replaces_without_a_name():
    teacher = "I work as a teacher at a primary school."
    tester = "Last week I started a new job as a software tester."
    assert fact_kinds.replaces(teacher, tester, 0.4, MERGE, "job", "job")
    assert not fact_kinds.replaces(teacher, "My sister started a new job as a tester.", 0.4,
                                   MERGE, "job", "job")  # the sister's job, not mine
    assert not fact_kinds.replaces(teacher, tester, 0.4, MERGE, "job", "commute")
    assert not fact_kinds.replaces("I'm 30.", "I'm 30.", 0.99, MERGE, "age", "age")


def test_fact_kinds_events_and_feelings_both_hold_unless_a_measure_changed():
    assert not fact_kinds.replaces("So much happened: I went to a conference.",
                                   "A lot happened: I joined a new group.", 0.7, MERGE,
                                   "other", "other")
    assert fact_kinds.replaces("I run about 20 miles a week.", "I'm up to 35 miles a week now.",
                               0.7, MERGE, "hobby", "hobby")


@pytest.mark.real_model  # the floor is chosen on MiniLM's out-of-fold predictions
def test_fact_kinds_floor_is_chosen_out_of_fold_and_chat_has_no_kind(embedder):
    if learned.model_for(fact_kinds.DATA, embedder) is None:
        pytest.skip("the kinds are measured for MiniLM only")
    assert fact_kinds.CONFIDENT <= fact_kinds.floor(embedder) <= max(fact_kinds.FLOORS)
    got = learned.out_of_fold(fact_kinds.DATA, embedder)
    assert got is not None and len(got) == len(learned.split(learned.read(fact_kinds.DATA))[0])
    chat = ["Thanks for always having my back!", "We'll get through this together."]
    kinds = fact_kinds.classify_many(embedder.embed(chat), embedder) or []
    assert not set(kinds) & fact_kinds.ONE_VALUE


def test_fact_kinds_favourites_of_different_things_both_hold():
    assert fact_kinds.replaces("My favourite food is sushi.", "My favourite food is now pho.",
                               0.8, MERGE, "favourite", "favourite")
    assert not fact_kinds.replaces("My favourite food is sushi.", "My favourite band is Muse.",
                                   0.5, MERGE, "favourite", "favourite")


def test_fact_kinds_to_replace_takes_every_fact_of_the_kind_or_the_closest():
    scored = [(0.5, {"text": "I live in Rome.", "kind": "home"}),
              (0.4, {"text": "I live in Pisa.", "kind": "home"}),
              (0.3, {"text": "I like pizza.", "kind": "like"})]
    got = fact_kinds.to_replace(scored, "I moved to Milan.", "home", MERGE)
    assert [k["text"] for k in got] == ["I live in Rome.", "I live in Pisa."]
    assert fact_kinds.to_replace(scored, "I like pasta.", "like", MERGE) == []


def test_fact_kinds_data_holds_enough_labelled_sentences_and_a_held_out_split(embedder):
    rows = learned.read(fact_kinds.DATA)
    train, test = learned.split(rows)
    assert len(rows) >= 300 and len(test) >= 60 and not {t for _, t in train} & {
        t for _, t in test}
    assert {lab for lab, _ in rows} >= fact_kinds.ONE_VALUE | {"like", "pet", "people"}
    if learned.model_for(fact_kinds.DATA, embedder) is None:  # the hashing embedder
        assert fact_kinds.classify_many(embedder.embed(["I live in Paris."]), embedder) is None


def _analysed_facts(make_engine, said: list[str]) -> list[dict]:
    """The user facts after `said`, a day apart, and a forced extractive analysis."""
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=1)
    for i, text in enumerate(said):
        engine.add_exchange("u1", text, "Okay.", timestamp=T0 + i * DAY, maintain=False)
    engine.force_analysis("u1")
    return engine.state("u1")["long_term"]["user_facts"]


@pytest.mark.real_model  # the kinds are learned over MiniLM's meaning
def test_fact_kinds_changes_by_meaning_keep_history_and_likes_stay_many(make_engine):
    said = ["I work as a teacher at a primary school.", "I drive an old Volvo.",
            "I live in Paris.", "I have a dog called Rex.",
            *[f"I like colour number {n}." for n in range(1, 6)],
            "Last week I started a new job as a software tester.",
            "I sold it and now I cycle everywhere.", "I moved to Berlin last month.",
            "I also have a cat called Misty.", "Thanks, talk soon!"]
    facts = _analysed_facts(make_engine, said)
    current = {f["text"]: [h["text"] for h in f["history"]] for f in facts}
    assert current["Last week I started a new job as a software tester."] == [
        "I work as a teacher at a primary school."]
    assert current["I sold it and now I cycle everywhere."] == ["I drive an old Volvo."]
    assert current["I moved to Berlin last month."] == ["I live in Paris."]
    for n in range(1, 6):  # five likes, five current facts
        assert current[f"I like colour number {n}."] == []
    assert current["I have a dog called Rex."] == [] and \
        current["I also have a cat called Misty."] == []
    old = next(h for f in facts for h in f["history"] if h["text"] == "I live in Paris.")
    assert old["valid_until"] is not None


@pytest.mark.real_model  # the kinds are learned over MiniLM's meaning
def test_news_that_a_value_is_gone_ends_it_though_no_new_one_is_named(make_engine):
    said = ["I drive an old Renault Clio.", "I work at Deloitte as an auditor.",
            "I have a rabbit called Caramel.", "My sister left Deloitte last year.",
            "Big news, I sold the Clio last week!", "Thanks, talk soon!"]
    current = {f["text"]: [h["text"] for h in f["history"]]
               for f in _analysed_facts(make_engine, said)}
    # kept without its aside, the news holds the car as its history
    assert current["I sold the Clio last week!"] == ["I drive an old Renault Clio."]
    assert "I drive an old Renault Clio." not in current
    # the sister's news ends nothing of the user's
    assert current["I work at Deloitte as an auditor."] == []
