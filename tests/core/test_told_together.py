"""What one message tells across its sentences is answered together: a sentence that goes on
of someone told before it ("She's a nurse."), the rest of a message of news for a question on
now, which of two children is older, and a child told only by name ("Helen is 52…")."""

from __future__ import annotations

import pytest

from memoryos_core.answer import lists, slot
from memoryos_core.answer.answer_kinds import holds_name
from memoryos_core.memory import first_names, kinship
from tests.core.test_routing import _new_user_chat


def test_a_sentence_that_goes_on_of_someone_told_before_refers_back():
    assert lists.refers_back("She's a nurse, so that'll be a godsend.")
    assert lists.refers_back("Orange fellow, we named him Laddoo.")
    assert not lists.refers_back("My dog Rex is 3.")
    assert not lists.refers_back("Tom is a pilot.")


def test_which_of_two_children_is_older_or_younger_is_read_from_their_ages():
    told = "We have two children, Chidera is 7 and Somto is 4."
    assert lists.extreme_part("How old is my younger one again?", told).endswith("Somto is 4.")
    assert lists.extreme_part("Who is older?", told).endswith("Chidera is 7.")
    # a younger brother is no younger child
    assert lists.extreme_part("What does my younger brother do?", told) is None


def test_a_name_of_usual_sex_tells_which_child_a_son_or_daughter_is():
    assert first_names.usual_sex("Helen") == "f" and first_names.usual_sex("Richard") == "m"
    assert first_names.usual_sex("Geneviève") == "f"  # accents as typed
    assert first_names.usual_sex("Robin") is None  # no clear sex: not guessed
    assert first_names.usual_sex("London") is None
    assert kinship.sex("daughter") == "f" and kinship.sex("bro") == "m"
    assert kinship.sex("kid") is None
    told = [slot.Candidate("I have two children.", 1, None, 1.0),
            slot.Candidate("Richard is 55 and a barrister in London.", 1, None, 1.0),
            slot.Candidate("Helen is 52 and works as a vet in York.", 1, None, 1.0),
            slot.Candidate("My friend Susan lives in Leeds.", 2, None, 2.0)]
    daughter = slot.head_terms("Where does my daughter live?", told)
    assert [slot.names(daughter, c.sentence) for c in told] == [False, False, True, False]
    son = slot.head_terms("How old is my son?", told)
    assert [slot.names(son, c.sentence) for c in told] == [False, True, False, False]
    # a name told as the daughter's stands: no guess where one is given
    given = told + [slot.Candidate("My daughter Ruth is a pilot.", 3, None, 3.0)]
    daughter = slot.head_terms("Where does my daughter live?", given)
    assert [slot.names(daughter, c.sentence) for c in given] == [False] * 4 + [True]


def test_the_owner_named_in_a_question_for_a_name_is_no_answer():
    assert not holds_name("There's also Dermot, my retired greyhound.", {"dermot"})
    assert holds_name("Our vet is Dr Byrne in Salthill.", {"dermot"})
    assert holds_name("Yaw is a lawyer in Accra.")


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_what_a_message_tells_across_its_sentences_is_said_together(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("Brendan's partner Shayla's coming too. She's a nurse, so that'll help.")
    say("Can you suggest a dinner for six?")
    assert "nurse" in say("What does Brendan's partner do for work?")
    say("I have two children. Richard is 55 and a barrister in London. Helen is 52 and "
        "works as a vet in York.")
    say("Any tips for a long train journey?")
    answer = say("Where does my daughter live?")
    assert "York" in answer and "London" not in answer, answer
    say("I drive an old Ford Transit for work.")
    say("How do I fix a squeaky door?")
    say("Big news: bought a new van! VW Crafter, 2021, white.")
    say("What should I name it?")
    answer = say("What van have I got now?")
    assert "Crafter" in answer, answer
    # a message's short first sentence is said with what the message goes on to tell
    say("Knee surgery 14 March. Left knee. Meniscus.")
    say("Tips for crutches on stairs?")
    assert "Left knee" in say("Which knee is it?")


def test_each_sentence_said_back_opens_with_a_capital():
    from memoryos_core.answer.grounded import Evidence, said_back

    told = Evidence("We have a tortoise. We named him Sekuru.", 1, None, None, 1.0, 0)
    assert said_back(told) == "You told me that you have a tortoise. You named him Sekuru."
