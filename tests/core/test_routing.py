"""The embedded chat's learned decisions hold on messages of the kinds the old rules misread."""

from __future__ import annotations

import pytest

from memoryos_core.answer import names, router
from memoryos_core.answer.router import SHIPPED, data_hash, examples, load
from tests.core.test_answer_prompt import small_model


def test_the_shipped_router_weights_match_the_examples_they_were_fitted_on():
    """A changed example file without `benchmarks.routing --write-weights` fails here."""
    assert load(SHIPPED, data_hash(examples())) is not None


def _new_user_chat(make_engine):
    """A fresh engine with the embedded-model layout, its stand-in model, and a way to chat
    with it as u1."""
    engine = make_engine(consolidation="extractive", analysis="extractive")
    model = small_model(default=lambda messages, schema: "A model's answer.")

    def say(text: str) -> str:
        return engine.chat("u1", text, model=model, maintain=False)["answer"]

    return engine, model, say


@pytest.mark.real_model  # the router is a model over MiniLM's meaning
def test_requests_that_talk_about_the_user_go_to_the_model_and_recall_to_memory(embedder):
    requests = ["I'm starting a new job on Monday and I'm nervous, any tips?",
                "Our dog keeps barking at night, what can we do?",
                "My sister's wedding is next month, can you help me write a toast?",
                "Can you suggest a name for my new kitten?"]
    recall = ["What does my partner do for work?", "Where are we going this summer?",
              "What's my dog called again?", "Do you remember my sister's name?"]
    assert [router.route(embedder, t).route for t in requests] == ["model"] * len(requests)
    assert [router.route(embedder, t).route for t in recall] == ["memory"] * len(recall)
    # a correction with thanks in it is answered by the model: read as small talk, it gets
    # no "You're welcome!" (the "Thanks, but that's wrong" -> "You're welcome!")
    from memoryos_core.answer import courtesy
    from memoryos_core.answer.saying import reflect

    correction = "Thanks, but that's not right."
    assert router.route(embedder, correction).route in ("model", "social")
    assert courtesy.reply(correction, [], reflect) is None


@pytest.mark.real_model  # which word is a first name is read by meaning
def test_a_nationality_after_im_is_not_taken_for_a_name(embedder):
    is_name = names.first_name_check(embedder)
    assert [is_name(w) for w in ("Sam", "Priyanka", "Joaquin")] == [True, True, True]
    assert [is_name(w) for w in ("Chinese", "Portuguese", "Vegetarian")] == [False] * 3


@pytest.mark.real_model
def test_told_facts_are_said_back_and_asked_slots_answered_by_the_right_sentence(make_engine):
    engine, model, say = _new_user_chat(make_engine)
    assert say("I'm Chinese and I live in Leeds.") == \
        "Got it: you're Chinese; you live in Leeds."  # not "Nice to meet you, Chinese!"
    say("My partner Jo is a nurse and my brother Ed is a chef.")
    say("I have a dog called Rex and a cat called Tom.")
    partner = say("What does my partner do?")
    assert "nurse" in partner and "chef" not in partner  # the partner's job, not the brother's
    dog = say("What's my dog's name?")
    assert "Rex" in dog and "Tom" not in dog  # the dog, not the cat beside it in the sentence
    unknown = say("What's my blood type?")
    assert unknown == "I don't remember you telling me that."
    first = engine.chat("u2", "I'm moving flats next week and I'm dreading it, any tips?",
                        model=model, maintain=False)
    assert first["source"] == "model"  # the first message of a newcomer: the model answers


def test_a_list_is_said_back_by_its_item_and_a_pronoun_with_the_sentence_before_it():
    from memoryos_core.answer import lists

    assert lists.list_parts("We have a German shepherd, Rocky, and a tortoise called "
                               "Shelly that is older than our marriage.") == \
        ["We have a German shepherd, Rocky.",
         "We have a tortoise called Shelly that is older than our marriage."]
    assert lists.list_parts("And in the house we have a dog, Pipoca, and a cat called "
                               "Farofa.")[1] == "And in the house we have a cat called Farofa."
    assert lists.list_parts("My son Matthias has a farm, and my daughter Ulrike is a "
                               "judge.") == ["My son Matthias has a farm.",
                                             "my daughter Ulrike is a judge."]
    assert lists.list_parts("I went for a long walk by the river.") == []


@pytest.mark.real_model
def test_an_item_of_a_list_and_a_job_told_with_he_are_said_back(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("We have a German shepherd, Rocky, and a tortoise called Shelly.")
    say("Since my husband died I have a companion, Walter. He was a watchmaker.")
    shelly = say("What animal is Shelly?")
    assert "tortoise" in shelly and "Rocky" not in shelly
    walter = say("What was Walter's job?")
    assert "watchmaker" in walter


@pytest.mark.real_model  # a first name is read by meaning
def test_a_fact_told_about_someone_else_is_said_back_and_a_request_is_not(embedder):
    from memoryos_core.answer import courtesy, grounded

    is_name = names.first_name_check(embedder)

    def told(text: str) -> str | None:
        return courtesy.reply(text, [], grounded.reflect, is_name, told=True)

    # the small model answered this one "I'm sorry for your loss."
    assert told("Chidi is a pilot with Air Canada, so he's away a lot.") == \
        "Got it: Chidi is a pilot with Air Canada, so he's away a lot."
    assert told("My sister's cat is ginger.") == "Got it: your sister's cat is ginger."
    assert told("Suggest a nice dinner I could cook for Chidi.") is None  # a request
    assert told("Write a poem about my dog.") is None
    assert courtesy.reply("Chidi is a pilot.", [], grounded.reflect, is_name) is None  # small talk


def test_a_fact_opened_by_an_interjection_is_told_like_any_other():
    from memoryos_core.answer import courtesy, grounded

    def told(text: str) -> str | None:
        return courtesy.reply(text, [], grounded.reflect, told=True)

    assert told("Actually we moved to Gdańsk in October.") == \
        "Got it: you moved to Gdańsk in October."
    assert told("Oh, by the way, I work nights now.") == "Got it: you work nights now."
    assert told("Anyway, I think I need a holiday.") is None  # a wish: the model's
    # an announcing label before a comma, as before a colon ("Big news: …")
    assert told("Big news, I got a new job as a data analyst in Accra.") == \
        "Got it: you got a new job as a data analyst in Accra."
    assert told("Yesterday, I went to the zoo.") is None  # not a label: the model's


def test_what_the_user_cannot_do_is_a_fact_where_the_message_was_read_as_told():
    from memoryos_core.answer import courtesy, grounded

    # the small model answered this one "I'm glad to know that you're not allergic to peanuts"
    assert courtesy.reply("Btw I can't eat peanuts, proper allergy.", [], grounded.reflect,
                          told=True) == "Got it: you can't eat peanuts, proper allergy."
    assert courtesy.reply("By the way, I can't drive.", [], grounded.reflect, told=True) == \
        "Got it: you can't drive."
    # read otherwise ("I can't decide…" asks for help), it is the model's
    assert courtesy.reply("I can't decide what to cook tonight.", [], grounded.reflect) is None


def test_a_sign_off_alone_is_said_goodbye_to_and_a_sentence_opening_alike_is_not():
    from memoryos_core.answer import courtesy, grounded

    # the small model answered "night!" with "I'm here to help with anything a nacho-loving
    # person wants"
    for bye in ("night!", "gn", "nighty night", "ok cheers, night", "ttyl", "right, off to bed",
                "thanks, later!"):
        assert courtesy.reply(bye, [], grounded.reflect) == "Bye! Talk soon.", bye
    for other in ("night shifts are hard", "Later I want to ask you something", "nightmare"):
        assert courtesy.reply(other, [], grounded.reflect) is None, other


def test_whose_attribute_a_possessive_question_asks_is_the_relation_it_names():
    from memoryos_core.memory.attributes import holder

    # "my sister's name" is no attribute of the user: "I moved…" was offered for it
    assert holder("What is my sister's name?", "home") == "sister"
    assert holder("where do my parents' friends live", "home") == "parent"
    assert holder("What's my partner's job?", "job") == "partner"
    assert holder("Where do I live now?", "home") == "self"


@pytest.mark.real_model  # the page is found by meaning and by the name the user gave him
def test_a_question_naming_a_relation_finds_the_page_naming_the_person(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2, top_pages=3)
    model = small_model(default=lambda messages, schema: "A model's answer.")
    for said in ("My husband Chidi loves old jazz records.",
                 "Chidi is a pilot with Air Canada, so he's away a lot.",
                 "My brother Ed works as a chef in Lyon.", "My friend Sara is a nurse.",
                 "I work as a librarian at the city library.", "My job is quiet but I like it.",
                 "My mum retired from her job at the bank last year.",
                 "The weather was grey all week.", "We watched a film on Friday."):
        engine.chat("u1", said, model=model, maintain=False)
    trace = engine.retrieve("u1", "What's my husband's job?")
    assert "chidi" in trace["keyword_search_terms"]  # searched by the name he was given
    chosen = [p["user"] for p in trace["pages"] if p.get("selected")]
    assert any("pilot" in text for text in chosen)
    answer = engine.chat("u1", "What's my husband's job?", model=model, maintain=False)["answer"]
    assert "chef" not in answer and "librarian" not in answer  # never another's job


def test_a_name_given_in_passing_is_greeted_by_name():
    from memoryos_core.answer import courtesy, grounded

    assert courtesy.reply("My name's Bjørn by the way. I'm a marine engineer.", [],
                          grounded.reflect, told=True) == \
        "Nice to meet you, Bjørn! Got it: you're a marine engineer."


def test_the_name_given_to_a_relation_is_read_only_from_an_apposition():
    from memoryos_core.answer.aliases import given_names, owned_nouns

    assert owned_nouns("What's my husband's job?") == ["husband", "job"]  # his job
    assert owned_nouns("What does Chidi do?") == []  # a name is no relation
    said = ["Yesterday, my husband cooked dinner.", "Chidi, my husband, is a pilot.",
            "My husband Chidi loves jazz.", "my husband works late"]
    assert given_names("husband", said) == ["chidi"]
    assert given_names("dog", ["We have a dog called Zuri.", "our dog, Bruno, barks"]) == \
        ["zuri", "bruno"]


def test_a_word_between_my_and_the_owned_noun_is_passed_over():
    from memoryos_core.answer.aliases import owned_nouns
    from memoryos_core.text import owned

    assert owned("What's my little brother's name?") == ["brother"]  # not "little"
    assert owned("What did my late husband do for work?") == ["husband"]
    assert owned("which car did my old boss drive") == ["boss"]
    assert owned_nouns("whats my eldest daughter called") == ["daughter"]
    assert owned_nouns("What's my sister's husband called?") == ["sister", "husband"]


@pytest.mark.real_model
def test_the_job_now_is_the_newer_sentence_of_the_message_that_changed_it(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("I'm a receptionist at a hotel in Marrakech.")
    say("My wife Salma is a paediatrician at the children's hospital.")
    say("Big news: I quit the hotel job. Now I run a cooking school for tourists.")
    now = say("What is my job now?")
    assert "cooking school" in now and "paediatrician" not in now
    assert "I don't remember" not in now
    before = say("What was my job before?")
    assert "hotel" in before and "cooking school" not in before


def test_someone_named_with_the_user_as_one_subject_stays_in_the_fact():
    from memoryos_core.answer import courtesy, grounded

    # the old split made "In October, Min-jun" a clause of its own, said back as the answer
    # to "Where are we going in October?", and dropped Min-jun from what was said back
    assert courtesy.clauses("In October, Min-jun and I will travel to Jeju Island.") == \
        ["In October, Min-jun and I will travel to Jeju Island."]
    assert courtesy.reply("Walter and I will make a river cruise on the Danube in May.", [],
                          grounded.reflect, lambda word: word == "Walter", told=True) == \
        "Got it: Walter and you will make a river cruise on the Danube in May."
    # a clause of its own before "and I" still splits
    assert courtesy.clauses("My name is Dana and I work as a nurse.") == \
        ["My name is Dana", "I work as a nurse."]
    assert courtesy.clauses("Work is crazy, and I need a break.") == \
        ["Work is crazy", "I need a break."]


@pytest.mark.real_model  # the router reads a question typed without its question mark
def test_a_question_typed_without_its_question_mark_is_never_said_back_as_an_answer(
        make_engine):
    engine, model, say = _new_user_chat(make_engine)
    say("I'm Wei Ling, I run a noodle stall at Gurney Drive.")
    say("whats my daughter job")  # nothing told: its sentence is a question, not a fact
    for asked in ("What does my daughter do for work?", "whats my daughters job again"):
        answer = say(asked)
        assert "daughter job" not in answer and "daughters job" not in answer.replace(
            asked, "")
