"""A user who types as on a phone (lower case, "im", "dont") is understood as one who does not,
and a fact told beside a request is remembered."""

from __future__ import annotations

import pytest

from memoryos_core.answer import asking, courtesy, grounded
from memoryos_core.memory.analysis import is_statement
from memoryos_core.text import casual_restored
from tests.core.test_routing import _new_user_chat


def test_casual_first_person_and_contractions_are_restored_and_nothing_else():
    assert casual_restored("btw im allergic to shellfish, i dont eat prawns") == \
        "btw I'm allergic to shellfish, I don't eat prawns"
    assert casual_restored("Im here and ive been ok, whats up") == \
        "I'm here and I've been ok, what's up"
    # "i.e." is no pronoun; a word that only looks like one stays as typed
    assert casual_restored("one thing, i.e. the dog, in my ill mood") == \
        "one thing, i.e. the dog, in my ill mood"
    assert casual_restored("my friend Im Soo-jin") == "my friend Im Soo-jin"  # a name


def test_a_fact_typed_casually_is_said_back_in_full_and_kept_by_analysis():
    def told(text: str) -> str | None:
        return courtesy.reply(text, [], grounded.reflect, told=True)

    # the small model answered this one "btw, I'm sorry for your mistake…"
    assert told("btw im allergic to shellfish") == "Got it: you're allergic to shellfish."
    assert told("i dont drive, i cycle everywhere") == \
        "Got it: you don't drive; you cycle everywhere."
    assert grounded.reflect("im a nurse in hilo") == "you're a nurse in hilo"
    # extractive analysis keeps it as it keeps "I'm a nurse at the city hospital."
    assert is_statement("im a nurse at the city hospital")
    assert is_statement("i live in Hilo.")
    # a question typed without its "?" was kept as a fact of the user's
    assert not is_statement("whats my dog called")
    assert not is_statement("what does my wife do for work")
    assert not is_statement("wat inhaler i use when it gets bad")
    assert not is_statement("n wat job i had before that")
    # nor is a request to the assistant that talks about the user
    assert not is_statement("can u suggest a quick dinner i can make for her after a night shift")
    assert not is_statement("Could you write a toast for my sister's wedding, I'm her maid of honour")
    assert is_statement("I can cook for her after her night shift")


def test_two_clauses_joined_by_a_comma_are_told_apart_and_a_phrase_is_not():
    assert courtesy.clauses("I'm Leilani, I teach surfing in Hilo") == \
        ["I'm Leilani", "I teach surfing in Hilo"]
    assert courtesy.clauses("When I was young, I lived in Paris.") == \
        ["When I was young, I lived in Paris."]
    assert courtesy.clauses("In October, I will travel to Jeju.") == \
        ["In October, I will travel to Jeju."]


def test_the_statement_before_a_question_is_a_fact_told():
    assert asking.before_question(
        "we have two cats, mochi and poi 🐱 any tips for keeping them off the counter?") == \
        ["we have two cats, mochi and poi"]
    assert asking.before_question("we already have a dog, Chispa, how do we introduce "
                                    "them?") == ["we already have a dog, Chispa"]
    assert asking.before_question("I moved to York last week - any good pubs?") == \
        ["I moved to York last week"]
    assert asking.before_question("Can you help, I am stuck?") == []  # it asks first
    assert asking.before_question("Any tips for a first marathon?") == []


def test_the_statement_after_a_request_is_a_fact_told():
    from memoryos_core.answer.asking import after_request

    assert after_request("can u help me plan a cheap bday party for my little bro, hes "
                         "turning 10") == ["hes turning 10"]
    assert after_request("can you recommend a book for my daughter, she is 12 and loves "
                         "horses?") == ["she is 12 and loves horses"]
    assert after_request("I moved to York, any good pubs?") == []  # it tells first
    assert after_request("can you help, what is a good name?") == []  # it only asks


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_a_casual_newcomer_is_answered_from_what_they_told(make_engine):
    engine, model, say = _new_user_chat(make_engine)
    assert say("btw im allergic to shellfish") == "Got it: you're allergic to shellfish."
    say("we have two cats, mochi and poi 🐱 any tips for keeping them off the counter?")
    allergy = say("what am i allergic to")
    assert "you're allergic to shellfish" in allergy  # not "Im allergic"
    cats = say("whats the name of our cats")
    assert "mochi and poi" in cats and "I don't remember" not in cats


@pytest.mark.real_model  # a first name is read by meaning
def test_someone_named_in_lower_case_is_told_of_like_anyone(embedder):
    from memoryos_core.answer import names

    is_name = names.first_name_check(embedder)
    assert courtesy.reply("keala is a nurse at the hospital", [], grounded.reflect, is_name,
                          told=True) == "Got it: keala is a nurse at the hospital."
    # a request opens with its verb, whatever the case
    assert courtesy.reply("suggest a dinner for keala", [], grounded.reflect, is_name,
                          told=True) is None


@pytest.mark.real_model  # the router reads MiniLM's meaning and the words as typed
def test_a_question_typed_without_capitals_apostrophes_or_mark_is_routed_to_memory(embedder):
    from memoryos_core.answer import router
    from memoryos_core.text import casually_typed

    assert casually_typed("Where's my wife's work?") == "wheres my wifes work"
    # the router learned before only from messages typed in full sent this one to the model
    assert router.route(embedder, "where did tomasz and i go for our anniversary").route == \
        "memory"
    for text, route in (("what is my husbands job", "memory"), ("hey how are you", "social"),
                        ("i got a new job at the bakery", "told"),
                        ("can you write a poem about my cat", "model")):
        assert router.route(embedder, text).route == route, text


def test_a_label_before_the_statement_is_not_said_back():
    # said back before as "you told me that NEWS 🎉📦 you moved out of Bologna"
    for typed, told in (("NEWS 🎉📦 we moved out of Bologna!!", "you moved out of Bologna"),
                        ("quick update - we moved to Porto", "you moved to Porto"),
                        ("big change I left the paper mill", "you left the paper mill"),
                        ("hello, I have a small tailor shop", "you have a small tailor shop")):
        said = grounded.said_back(grounded.Evidence(typed, 1, None, None, 1.0, 0))
        assert said.startswith(f"You told me that {told}"), said
    # "my partner Eetu and I" stays one subject behind a label ("Got it: your partner Eetu;
    # you just moved…" before)
    assert courtesy.clauses("quick update - my partner Eetu and I just moved to Helsinki") == \
        ["quick update - my partner Eetu and I just moved to Helsinki"]
    # a name with its emoji, a dash after the statement, a greeting alone: kept as typed
    for kept in ("My dog Biscuit 🐶 is sick", "I moved to York - any good pubs?", "hi",
                 "we got 3 pets: a corgi named waffles and a cat"):  # its own opening
        assert courtesy.INTERJECTION.sub("", kept) == kept
