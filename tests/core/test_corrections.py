"""A value corrected as it is told, or later, is said back corrected; a list of ages answers
"my youngest"; a swap answers "these days"; a relative told by way of a named one is found."""

from __future__ import annotations

import pytest

from memoryos_core.answer import lists
from memoryos_core.answer.slot import Candidate
from memoryos_core.answer.slot_features import head_terms
from memoryos_core.memory import repairs
from tests.core.test_routing import _new_user_chat


def test_a_message_is_read_with_its_own_repair_made():
    assert repairs.repaired("Correction, Lotte is 9 not 8, she had her birthday on Sunday.") == \
        "Lotte is 9, she had her birthday on Sunday."
    assert repairs.repaired("The match is on the 3rd of May. Wait no, sorry, it's the 5th, I "
                            "misread the email.") == \
        "The match is on the 5th of May. I misread the email."
    assert repairs.repaired("We'll hike near Grenoble, non pardon, near Annecy. Grenoble was "
                            "in 2023.") == "We'll hike near Annecy. Grenoble was in 2023."
    # two values given, each replaces the last of its kind before the repair
    assert repairs.repaired("The gig is Friday the 8th. Nah hang on, it's the Saturday, the "
                            "9th.") == "The gig is Saturday the 9th."
    assert repairs.repaired("Her aunt Rosa is visiting. Wait, no, I mean Carmen.") == \
        "Her aunt Carmen is visiting."
    # a repair that also names the value it takes back; the sentences keep their space
    assert repairs.repaired("We moved last year, rent is 600 a month. no wait, its 650 not "
                            "600") == "We moved last year, rent is 650 a month."
    assert repairs.repaired("Great trip. Sorry, Mila is 9 not 8.") == "Great trip. Mila is 9."
    # no value against a value of its kind: nothing corrected
    for text in ("We are not married, 12 years together.", "My son lives in Ghent, not far "
                 "from me.", "The first question CAN NOT BE SKIPPED.", "They are not friends.",
                 "No, Sorry, I can't today.", "I work Monday to Friday, not weekends."):
        assert repairs.repaired(text) == text


def test_a_later_correction_reads_into_what_was_told_before_it():
    later = ["ugh my mistake, it is Rotterdam not Utrecht", "Sorry, Lotte is 9 not 8."]
    assert repairs.with_later("The conference is in Utrecht in June.", later) == \
        "The conference is in Rotterdam in June."
    # a number only where the sentence shares a word with its correction
    assert repairs.with_later("Lotte is 8 and Jip is 5. We have 8 chickens.", later) == \
        "Lotte is 9 and Jip is 5. We have 8 chickens."
    read = repairs.as_corrected([(1.0, "I fly to Utrecht on Monday."), (5.0, later[0])])
    assert read(1.0, "I fly to Utrecht on Monday.") == "I fly to Rotterdam on Monday."
    assert read(9.0, "Utrecht was lovely.") == "Utrecht was lovely."  # told after: as said


def test_the_youngest_or_eldest_of_a_list_of_ages_is_its_item():
    said = "The grandkids are Mila 13, Oskar 9 and little Ida who's 4."
    assert lists.extreme_part("how old's the youngest grandkid?", said) == \
        "The grandkids are little Ida who's 4."
    assert lists.extreme_part("Who's my eldest grandchild?", said) == "The grandkids are Mila 13."
    assert lists.extreme_part("How old is Oskar?", said) is None
    # each item with its own owner and relation, whatever the verb of the age
    assert lists.extreme_part("How old is my firstborn?", "Our son Baraka is 10 and our "
                              "daughter Wambui is 5.") == "Our son Baraka is 10."
    assert lists.extreme_part("how old is my youngest", "Our eldest Mika is 12 and our bunso "
                              "Paolo is 9.") == "Our bunso Paolo is 9."
    assert lists.extreme_part("How old is mi youngest again?", "Mi have two pickney, Jaden who "
                              "is 8 and Amari who just turn 3.") == \
        "Mi have two pickney, Amari who just turn 3."
    assert lists.named_number_parts("I saw Rome 3 times and then Paris twice.") == []


def test_a_relative_told_by_way_of_a_named_one_is_the_composed_relation():
    told = [Candidate(s, 1, None, None) for s in (
        "My husband Tomasz is a carpenter.", "Tomasz's sister Ewa is a midwife in Gdansk.",
        "My own sister Kasia teaches piano.")]
    assert head_terms("What does my sister-in-law do?", told) == {"ewa"}
    assert head_terms("What does my sister do?", told) >= {"sister"}


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_corrected_values_and_values_now_are_said_back_as_they_stand(make_engine):
    engine, model, say = _new_user_chat(make_engine)
    say("I'm off to Utrecht for a supplier visit in March, four days.")
    say("Can you suggest what to pack for a short business trip?")
    say("We have three children: Mila is 13, Oskar is 9 and Ida is 4.")
    say("I used to cycle to the office but my knee went, now I take the tram.")
    say("Any ideas for a rainy Sunday with the kids?")
    say("ugh my mistake, it is Rotterdam not Utrecht, Utrecht was last year.")
    for text in ("What's a good book for a long train ride?", "Thanks, sounds great!",
                 "How do I make a simple tomato soup?", "Any tips for sleeping on a plane?"):
        say(text)
    visit = say("Which city is my supplier visit in?")
    assert "Rotterdam" in visit and "Utrecht" not in visit, visit
    youngest = say("How old is my youngest?")
    assert "4" in youngest and "13" not in youngest and "9" not in youngest, youngest
    commute = say("How do I get to the office these days?")
    assert "tram" in commute, commute


def test_a_relative_told_by_pronoun_is_said_back_with_whose():
    from memoryos_core.answer.grounded import focus
    from memoryos_core.memory import kinship

    said = "My son Pieter lives in Delft, he's a nurse, and his wife Anouk runs a bakery there."
    assert kinship.by_pronoun(said) == [(said.index("his wife"), "daughter-in-law", "Pieter")]
    assert focus(said, {"daughter-in-law"}) == "Pieter's wife Anouk runs a bakery there."
    # "her" is no son of the user's: nothing composed, the sentence as told
    assert kinship.by_pronoun("My son Pieter and her husband Bas came.") == []


def test_a_composed_relative_is_searched_by_the_relatives_it_is_made_of():
    from memoryos_core.answer.aliases import aliases

    words = aliases("What does my son-in-law do?", ["My daughter Noor lives in Utrecht."], [])
    assert {"husband", "daughter"} <= set(words)
    assert aliases("What does my sister do?", ["My sister Ana is a vet."], []) == ["ana"]
    # "the wife", as people say of their own, is searched by the name she was given
    assert aliases("What does the wife do for work?", ["My wife Efua loves jazz."], []) == ["efua"]
    assert aliases("What does the man at the shop do?", ["My wife Efua loves jazz."], []) == []


def test_a_fact_kept_without_a_chat_model_is_the_corrected_one():
    from memoryos_core.memory.analysis import extractive_facts

    page = {"id": 1, "assistant_text": "Enjoy the trip!",
            "user_text": "We fly to Faro on the 14th of August. Wait no, sorry, it's the 16th."}
    assert [f["text"] for f in extractive_facts([page])["user"]] == \
        ["We fly to Faro on the 16th of August."]
