"""A sentence that says two things is answered with the part asked about, and a value said
again as changed ("I'm on Jardiance now instead of the metformin") is the one that holds."""

from __future__ import annotations

import pytest

from memoryos_core.answer import courtesy, over_time
from memoryos_core.answer.aliases import given_names
from memoryos_core.answer.lists import other_subject_parts
from tests.core.test_routing import _new_user_chat


def test_a_clause_with_a_subject_of_its_own_is_a_part_of_its_own():
    assert other_subject_parts(
        "We have a cat, Feijoada, very fat and lazy, and Rui has an old dog, a collie.") == \
        ["We have a cat, Feijoada, very fat and lazy", "Rui has an old dog, a collie."]
    assert other_subject_parts("I see the nurse every second Tuesday, and on Fridays I go "
                               "to the bowls club.") == \
        ["I see the nurse every second Tuesday", "on Fridays I go to the bowls club."]
    assert other_subject_parts("we got a dog named moose, moose is a lab and pickles is 14") == \
        ["we got a dog named moose", "moose is a lab", "pickles is 14"]
    # a pronoun says whose only with the clause before it; a shared subject is one clause
    for one in ("My boyfriend Rui is a firefighter, he works 24 hour shifts and then is off",
                "My mom and dad are retired", "I live in Paris, it is lovely"):
        assert other_subject_parts(one) == []


def test_a_contracted_verb_after_and_opens_a_clause_of_the_users():
    assert courtesy.clauses("My husband Faisal drives a taxi, mostly nights, and we've got "
                            "two kids.") == ["My husband Faisal drives a taxi, mostly nights",
                                             "we've got two kids."]
    assert courtesy.clauses("In October, Min-jun and I will travel to Busan.") == \
        ["In October, Min-jun and I will travel to Busan."]


def test_a_plural_relation_names_each_one_listed():
    assert given_names("kids", ["we've got two kids, Imran who's 14 and Nadia who's 9."]) == \
        ["imran", "nadia"]
    assert given_names("dogs", ["Two dogs, Rex, Milo and Bruno."]) == ["rex", "milo", "bruno"]
    # one sister is one name: "Bea" beside her is someone else
    assert given_names("sister", ["my sister Ana and Bea live in Rome"]) == ["ana"]


def test_a_later_sentence_that_names_the_value_as_changed_updates_it():
    said = ["I have type 2 diabetes, on metformin.", "My cat is called Marmalade.",
            "I'm on Jardiance now instead of the metformin.", "Marmalade is 4 years old."]
    own = [{"type", "diabet", "metformin"}, {"cat", "marmalad"}, {"jardianc", "metformin"},
           {"marmalad", "year", "old"}]
    times = [1.0, 2.0, 3.0, 4.0]
    updated = over_time.updates(said, own, times, [True] * 4)
    assert updated == [[2], [], [], []]  # the cat's age names her, yet says no change
    assert over_time.latest(0, updated, times) == 2 and over_time.latest(1, updated, times) == 1
    # one that may not answer (it names no one asked about) updates only where it names whom
    # the older one names
    assert over_time.updates(said, own, times, [True, True, False, True])[0] == []
    grandson = ["The grandson is Callum. He is studying geology at Durham.",
                "Callum is switching from geology to civil engineering."]
    assert over_time.updates(grandson, [{"geolog", "durham"}, {"geolog", "civil"}],
                             [1.0, 2.0], [True, False]) == [[1], []]
    # a sentence of another kind shares a word by chance: the job is not updated by the flat
    moved = ["I work nights in a flat-pack furniture warehouse.",
             "We are now in Edinburgh, the flat is small but nice."]
    own_moved = [{"night", "flat", "pack", "warehous"}, {"flat", "small", "nice"}]
    assert over_time.updates(moved, own_moved, [1.0, 2.0], [True, True]) == [[1], []]
    assert over_time.updates(moved, own_moved, [1.0, 2.0], [True, True],
                             ["job", "home"]) == [[], []]
    assert over_time.updates(moved, own_moved, [1.0, 2.0], [True, True], ["job", ""]) == \
        [[1], []]  # a kind the classifier is not sure of decides nothing
    assert over_time.updates(moved, own_moved, [1.0, 2.0], [True, True], ["job", "other"]) == \
        [[1], []]  # nor "other", a kind of its own for what has none


def test_only_a_question_on_the_present_follows_a_change():
    from memoryos_core.memory.fact_history import asks_about_now

    assert all(asks_about_now(q) for q in ("what am i hauling these days", "Where is my new "
                                           "job?", "Do I still have the boat?"))
    assert not any(asks_about_now(q) for q in ("What's my mum's job?", "Where did I live?"))


@pytest.mark.real_model  # the router, the slot model and the clauses read MiniLM's meaning
def test_a_newcomer_is_answered_with_the_part_asked_and_the_value_that_holds_now(make_engine):
    _, _, say = _new_user_chat(make_engine)
    say("I get my eyes checked at the clinic every first Monday, and on Thursdays I go "
        "to choir practice.")
    day = say("Which day is my eye check again?")
    assert "Monday" in day and "Thursday" not in day and "choir" not in day
    say("We have a rabbit, Biscuit, very shy, and Tomas has an old cat from before, a "
        "Siamese called Pepper.")
    pet = say("What's our rabbit called?")
    assert "Biscuit" in pet and "Pepper" not in pet
    say("I'm on lisinopril for my blood pressure, one tablet every morning.")
    say("Quick update, the doctor changed my tablets, I'm on amlodipine now instead of the "
        "lisinopril.")
    now = say("Which blood pressure tablet am I taking now?")
    assert "amlodipine" in now, now


def test_each_of_several_people_in_one_sentence_is_a_part_of_its_own():
    from memoryos_core.answer.lists import list_parts, named_number_parts

    assert other_subject_parts("Somto is 9 and he is mad about football, while Ebuka is 5 and "
                               "all he wants to do is draw cars.") == \
        ["Somto is 9 and he is mad about football",
         "Ebuka is 5 and all he wants to do is draw cars."]
    assert other_subject_parts("my mum is a dental nurse n my dad drives road trains") == \
        ["my mum is a dental nurse", "my dad drives road trains"]
    assert other_subject_parts("my mum and my dad are teachers") == []
    assert list_parts("we got a staffy called tank hes 7 n a budgie called mango") == \
        ["we got a staffy called tank hes 7.", "we got a budgie called mango."]
    assert named_number_parts("His kids are Naledi, 14, and Bongani, 8.") == \
        ["His kids are Naledi, 14.", "His kids are Bongani, 8."]
    assert named_number_parts("Kids: Ola 15, Thea 11.") == ["Kids: Ola 15.", "Kids: Thea 11."]
    assert named_number_parts("I met Ana in 2019 at 7:30.") == []


def test_what_is_said_back_is_the_part_about_what_was_asked():
    from memoryos_core.answer.grounded import focus

    boys = ("Somto is 9 and he is mad about football, while Ebuka is 5 and all he wants to do "
            "is draw cars.")
    assert focus(boys, set(), "How old is Somto again?") == \
        "Somto is 9 and he is mad about football."
    assert focus(boys, set(), "Who likes drawing cars?").startswith("Ebuka is 5")
    assert focus("His kids are Naledi, 14, and Bongani, 8.", set(), "How old is Bongani?") == \
        "His kids are Bongani, 8."
    assert focus("my mum is a dental nurse n my dad drives road trains", {"dad", "father"},
                 "wat does my dad do for work") == "my dad drives road trains."
    # no single part names it: the whole sentence
    assert focus(boys, set(), "What sports do the boys like?") == boys


def test_an_age_is_a_number_of_years_not_a_year():
    from memoryos_core.answer.answer_kinds import HOLDS, asked_kind
    from memoryos_core.answer.slot import Candidate, with_asked_kind
    from memoryos_core.text import words

    assert asked_kind("How old is my mum?") == "age" and asked_kind("Thea age?") == "age"
    assert not HOLDS["age"].search("My mother moved in after my father passed in 2021.")
    assert all(HOLDS["age"].search(t) for t in ("She is 72", "she turned forty", "in her 60s"))
    said = [Candidate("My mother moved in with us in 2021.", 3, None, 1.0),
            Candidate("My mother moved in with us in 2021. She is 72.", 3, None, 1.0),
            Candidate("My sister is 40.", 4, None, 2.0)]
    texts = [" ".join(words(c.sentence)) for c in said]
    assert with_asked_kind("How old is my mum?", texts, said, 0) == 1
    assert with_asked_kind("When did my mum move in?", texts, said, 0) == 0


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_a_newcomer_asking_of_one_of_two_people_hears_only_of_that_one(make_engine):
    _, _, say = _new_user_chat(make_engine)
    say("We have two boys. Somto is 9 and he is mad about football, while Ebuka is 5 and all "
        "he wants to do is draw cars.")
    say("My mother moved in with us after my father passed in 2021. She is 72 and diabetic.")
    say("Can you suggest a quick breakfast for a diabetic?")
    somto = say("How old is Somto again?")
    assert "9" in somto and "Ebuka" not in somto, somto
    mum = say("How old is my mum?")
    assert "72" in mum, mum


def test_a_question_on_the_past_is_answered_by_the_value_before_the_one_now():
    from memoryos_core.answer.over_time import before_now
    from memoryos_core.text import words

    said = ["I work as crane operator on building site.", "My brother Jasur is surgeon.",
            "My father was fisherman for forty years.",
            "News: my back is not good anymore, so I stop the high work.",
            "From Monday I am driving instructor in a driving school."]
    texts = [" ".join(words(s)) for s in said]
    kinds = ["job", "job", "job", "other", "job"]
    times = [1.0, 2.0, 3.0, 4.0, 4.0]
    allowed = [True] * 5
    # the job before the driving school is the user's own, not the father's told since
    assert before_now(4, kinds, texts, times, allowed) == 0
    # found as the news that the old value is gone: the value it ended, of its message's kind
    assert before_now(3, kinds, texts, times, allowed) == 0
    # nothing of its kind told before it: none, or the news itself where it names a value gone
    assert before_now(0, kinds, texts, times, allowed) is None
    assert before_now(3, ["other"] * 5, texts, times, allowed) == 3


def test_the_value_before_is_the_users_own_and_may_follow_the_news_in_one_message():
    from memoryos_core.answer.over_time import before_now
    from memoryos_core.text import words

    said = ["Tunde is a bus driver.", "I'm a mortgage adviser there.",
            "before that I was a teacher"]
    texts = [" ".join(words(s)) for s in said]
    assert before_now(1, ["job"] * 3, texts, [1.0, 2.0, 2.0], [True] * 3) == 2
    assert before_now(1, ["job", "job", "other"], texts, [1.0, 2.0, 2.0], [True] * 3) is None


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_why_this_answer_shows_the_sentence_said_first(make_engine):
    engine, model, say = _new_user_chat(make_engine)
    say("I work as a crane operator on a building site.")
    say("My dad drives a taxi in Tashkent.")
    say("News: my back is bad, so from Monday I am a driving instructor.")
    result = engine.chat("u1", "What was my job before?", model=model, maintain=False)
    assert "crane" in result["answer"], result["answer"]
    first = result["trace"]["answer_plan"]["considered"][0]
    assert "crane" in first["text"] and first["why"].startswith(("answers", "offered"))


def test_lists_of_people_with_their_ages_in_other_forms_are_cut_into_their_people():
    from memoryos_core.answer.grounded import focus
    from memoryos_core.answer.lists import named_number_parts

    assert named_number_parts("I've got two kids, Fergus who is 10 and Isla who is 6.") == \
        ["I've got two kids, Fergus who is 10.", "I've got two kids, Isla who is 6."]
    assert named_number_parts("Our grandchildren are Liam, who is 9, and Anika, who is 6.") \
        == ["Our grandchildren are Liam, who is 9.", "Our grandchildren are Anika, who is 6."]
    assert named_number_parts("Cody's 32 and a game warden in Lubbock, Kaylee's 29 and "
                              "teaches in Fort Worth.") == \
        ["Cody's 32 and a game warden in Lubbock.", "Kaylee's 29 and teaches in Fort Worth."]
    assert named_number_parts("We arrived on May 5 and left on June 9.") == []
    # a clause of its own subject, though a pronoun of that subject follows
    assert other_subject_parts("We've got two sheepdogs, Mot and Fly, and Osian's got a guinea "
                               "pig called Sion because he got it at Christmas") == \
        ["We've got two sheepdogs, Mot and Fly",
         "Osian's got a guinea pig called Sion because he got it at Christmas"]
    assert focus("I've got two kids, Fergus who is 10 and Isla who is 6.", {"fergus"},
                 "How old is Fergus?") == "I've got two kids, Fergus who is 10."
