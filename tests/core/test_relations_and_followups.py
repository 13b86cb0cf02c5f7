"""A relation asked in another word than it was told ("sibling" for "brother", "mum" for
"mother"), and a follow-up that names nothing ("And before?"), are understood."""

from __future__ import annotations

import pytest

from memoryos_core.answer import followup, slot
from memoryos_core.memory import attributes, kinship
from tests.core.test_routing import _new_user_chat


def test_a_wider_or_casual_relation_word_covers_the_told_one_and_nothing_else():
    assert {"brother", "sister"} <= kinship.covered("siblings")
    assert {"grandson", "granddaughter"} <= kinship.covered("grandchild")
    assert {"husband", "boyfriend"} <= kinship.covered("partner")
    assert "mother" in kinship.covered("mum") and "mum" in kinship.covered("mother")
    assert "brother" not in kinship.covered("cousin") and kinship.covered("dog") == frozenset()
    # a narrower word does not cover a wider one: "my brother" is not any sibling
    assert "sister" not in kinship.covered("brother")
    told = [slot.Candidate("My brother Kenta is a QA tester.", 1, None, None)]
    assert slot.names(slot.head_terms("What does my sibling do?", told), told[0].sentence)
    assert not slot.names(slot.head_terms("What does my sister do?", told), told[0].sentence)
    # the kin words of other Englishes name the same relations
    bredda = [slot.Candidate("My bredda Andre is a police officer.", 1, None, None)]
    assert slot.names(slot.head_terms("What does my brother do?", bredda), bredda[0].sentence)
    assert kinship.relation("pickney") == "child" and kinship.relation("kuya") == "brother"
    assert kinship.relation("Lola") is None  # a name more often than a grandmother


def test_whose_fact_it_is_does_not_hang_on_the_word_chosen():
    # "my mum" and "my mother" are one person; the boss is no "bo"
    assert attributes.holder("my mum lives in Leeds", "home") == \
        attributes.holder("Where does my mother live?", "home") == "mother"
    assert attributes.holder("My boss drives a BMW", "car") == "boss"
    # a relation missing from the old list was taken for the user: the grandson's job
    assert attributes.holder("What is my grandson's job?", "job") == "grandson"
    assert attributes.holder("my other half works as a nurse", "job") == "partner"
    assert attributes.holder("my half brother lives in Rome", "home") == "brother"


def _rows(*pairs: tuple[str, str], ts: float = 1000.0) -> list[dict[str, object]]:
    return [{"user_text": u, "assistant_text": a, "ts": ts} for u, a in pairs]


def test_a_follow_up_naming_nothing_is_read_with_the_memory_question_before_it():
    asked = _rows(("Where do we live now?", "You told me earlier today that you live in Modena."))
    assert followup.with_previous("and before? 🤔", asked, now=1010.0) == \
        "Where do we live? and before? 🤔"
    assert followup.with_previous("What did I do before that?", asked, now=1010.0) == \
        "Where do we live? What did I do before that?"
    # a question of its own, a name asked, a follow-up of small talk, or hours later: as typed
    for text in ("What's my sister's job?", "What's my name?", "thanks!"):
        assert followup.with_previous(text, asked, now=1010.0) == text
    chatted = _rows(("How are you?", "I'm well, thanks!"))
    assert followup.with_previous("and before?", chatted, now=1010.0) == "and before?"
    assert followup.with_previous("and before?", asked, now=1000.0 + 3 * 3600) == "and before?"
    assert followup.with_previous("and before?", [], now=1010.0) == "and before?"
    # the follow-up turns the question to its own time: the time words it turns from go
    dose = _rows(("What dose of Ramipril am I on now?", "You told me earlier today that …"))
    assert followup.with_previous("And what was it before?", dose, now=1010.0) == \
        "What dose of Ramipril am I on? And what was it before?"
    lived = _rows(("Where did I live before?", "You told me earlier today that …"))
    assert followup.with_previous("and now?", lived, now=1010.0) == "Where did I live? and now?"


def test_which_of_a_group_is_weighed_as_who_and_before_what_names_the_new_value():
    from memoryos_core.answer import asking
    from memoryos_core.memory import fact_history

    assert asking.as_who("Which of my children looks after animals for a living?") == \
        "Who looks after animals for a living?"
    assert asking.as_who("which of my kids has the footy final?") == "Who has the footy final?"
    # what goes around the question is not weighed: "my head" is not what was asked about
    assert asking.weighed("Sorry, my head is all over the place. What did I say my husband "
                            "does again?") == "What did I say my husband does again?"
    assert asking.weighed("haha yeah nah. how old's my daughter again") == \
        "how old's my daughter again"
    assert asking.weighed("How old are my kids? The form wants ages.") == "How old are my kids?"
    assert asking.weighed("Where do we live? and before?") == "Where do we live? and before?"
    for text in ("Which city is my daughter in?", "Which of these is better?"):
        assert asking.as_who(text) == text
    assert fact_history.past_reference("What did I drive before the Ranger?") == "the Ranger"
    assert fact_history.past_reference("where was i working b4 the move") == "the move"
    assert fact_history.asks_about_past("where was i working b4 the move")
    assert fact_history.past_reference("And where was he before?") == ""
    # a question typed as on a phone after "n" asks: it is no candidate answer
    assert asking.asks("n who looks after the dog when im away")
    assert not asking.asks("n then we went to the beach")


def test_a_follow_up_naming_its_person_by_a_pronoun_asks_about_the_person_before():
    asked = _rows(("What does my daughter do for work?",
                   "You told me earlier today that your daughter Ana is a dentist."))
    assert followup.with_previous("And where does she live?", asked, now=1010.0) == \
        "And where does my daughter live?"
    assert followup.with_previous("and when's her birthday", asked, now=1010.0) == \
        "and when's my daughter's birthday"
    assert followup.with_previous("n wat she do for work", asked, now=1010.0) == \
        "n wat my daughter do for work"  # a question typed as on a phone asks too
    named = _rows(("What does Kemal do?", "You told me earlier today that Kemal is a chef."))
    assert followup.with_previous("and how old is he?", named, now=1010.0) == \
        "and how old is Kemal?"
    # a message naming its own person, or after small talk, is read as typed
    for text in ("And Kuba, how old is he?", "where does my son live? she said"):
        assert followup.with_previous(text, asked, now=1010.0) == text
    chatted = _rows(("My sister is visiting", "How lovely!"))
    assert followup.with_previous("where does she live?", chatted, now=1010.0) == \
        "where does she live?"


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_a_newcomer_asking_in_other_words_and_following_up_is_answered(make_engine):
    engine, model, say = _new_user_chat(make_engine)
    say("I worked in a bank in Lisbon for ten years.")
    say("Now I teach yoga at a studio in Porto.")
    say("My brother Kenta is a QA tester at a game company.")
    assert "QA tester" in say("What does my sibling do for a living?")
    say("I live in Bologna, near the old town.")
    say("I moved to Modena last month.")
    now = say("Where do I live now?")
    assert "Modena" in now
    before = say("and before?")
    assert "Bologna" in before and "I don't remember" not in before


def test_a_value_that_no_longer_holds_is_the_past_never_the_present():
    from memoryos_core.answer.slot import of_its_time

    said = ["i worked as a receptionist at a hotel.", "big news: i quit the hotel job.",
            "now i run a cooking school for tourists."]
    assert of_its_time([0, 1, 2], said, [1.0, 2.0, 2.0], past=False) == 2
    assert of_its_time([0, 1, 2], said, [1.0, 2.0, 2.0], past=True) == 0  # the job it replaced
    moved = ["we moved out of bologna!", "now living in modena, rent is cheaper."]
    assert of_its_time([0, 1], moved, [5.0, 5.0], past=False) == 1  # said first, yet the present
    assert of_its_time([0, 1], moved, [5.0, 5.0], past=True) == 0
    # a value gone with nothing said since: that is the news, not the older value
    quit_only = ["i work as a cashier at a bank.", "i quit the bank job."]
    assert of_its_time([0, 1], quit_only, [1.0, 2.0], past=False) == 1
    assert of_its_time([0, 1], quit_only, [1.0, 2.0], past=True) == 0  # the cashier's job
    assert of_its_time([1], quit_only, [1.0, 2.0], past=True) == 1  # the one word of it
    # without a word of a value gone, the newest holds and the one before it is the past
    homes = ["i live in paris.", "i moved to berlin last month."]
    assert (of_its_time([0, 1], homes, [1.0, 2.0], past=False),
            of_its_time([0, 1], homes, [1.0, 2.0], past=True)) == (1, 0)


def test_a_childhood_state_is_the_value_before_never_the_present():
    from memoryos_core.answer.slot import of_its_time
    from memoryos_core.memory.fact_history import of_childhood

    said = ["i live in osaka", "i grew up in sapporo."]  # the later clause, yet the past
    assert (of_its_time([0, 1], said, [1.0, 1.0], past=False),
            of_its_time([0, 1], said, [1.0, 1.0], past=True)) == (0, 1)
    assert all(of_childhood(t) for t in ("where did I grow up?", "where was I born",
                                         "As a kid I lived in Cork", "I was raised by my gran"))
    assert not any(of_childhood(t) for t in ("where do I live now?", "they raised the rent",
                                             "I moved to Leeds last year"))


@pytest.mark.real_model
def test_where_one_lives_was_born_and_grew_up_are_told_apart(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("I live in Osaka but I grew up in Sapporo.")
    say("I was born in Lagos, funnily enough, my parents were working there.")
    assert "Osaka" in say("do you know where I live?")
    assert "Sapporo" in say("where did I grow up?")
    assert "Lagos" in say("where was I born?")


@pytest.mark.real_model
def test_the_new_value_said_before_the_news_of_the_old_one_gone_is_the_present(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("I work as a cashier at a bank in Leeds.")
    say("Update: now I work as a baker in my own bakery! I quit the bank job.")
    say("Can you suggest a name for a sourdough loaf?")
    now = say("What is my job now?")
    # the bank only as the job quit: the news is said whole ("…a baker…! I quit the bank job.")
    assert "baker" in now and now.count("bank") == now.count("quit the bank"), now


@pytest.mark.real_model  # the router reads the earlier messages as it read them when asked
def test_a_question_the_user_asked_is_never_offered_as_something_they_told(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("yo im darnell, 29, i work at the amazon warehouse drivin forklift")
    say("also I got asthma use a albuterol inhaler like 2 puffs when it get bad")
    say("yo I got the cdl job at the truckin company!!")
    # questions typed as on a phone: no question mark, "wat" for "what", "n" for "and"
    for asked in ("wat job i do now", "n wat job i had before that", "wat inhaler i use"):
        say(asked)
    answer = say("wat my blood pressure was at my last checkup")
    for asked in ("wat job", "wat inhaler"):
        assert asked not in answer.lower(), answer


@pytest.mark.real_model  # a name typed in lower case is read as one by its meaning
def test_a_name_given_in_lower_case_or_after_is_names_the_asked_person(embedder):
    def told(*texts: str) -> list[slot.Candidate]:
        return [slot.Candidate(t, k, None, None) for k, t in enumerate(texts)]

    assert "kayla" in slot.head_terms("when is my girlfriends bday", told(
        "my gf kayla thinks hes the best tho", "kaylas bday is march 9 btw"), embedder)
    assert "efua" in slot.head_terms("When is my wife's birthday?", told(
        "My wife is Efua, she's a pharmacist."), embedder)
    assert "ana" in slot.head_terms("What's my wife's job?", told("my wife's name is Ana"))
    # what a person is, said after "is", names no one
    assert slot.head_terms("What does my husband do?", told(
        "my husband is pilot", "My husband is Italian", "my husband works nights"),
        embedder) == {"husband", "hubby"}


@pytest.mark.real_model  # the slot model weighs "before the Tesla" and "which of my sons"
def test_what_came_before_a_named_value_and_which_of_a_group_are_answered(make_engine):
    say = _new_user_chat(make_engine)[2]
    say("My car is a red Fiat Panda, fifteen years old.")
    say("Can you suggest a weekend trip from Turin?")
    say("Big news, I finally bought a Tesla Model 3 last week!")
    before = say("What car did I have before the Tesla?")
    assert "Panda" in before and "Tesla" not in before, before
    say("My sons are Tom and Ben. Tom is training to be a nurse in Leeds.")
    say("Ben is taking flying lessons at the weekends.")
    which = say("Sorry, long day. Which of my sons is learning to fly?")
    assert "Ben" in which and "nurse" not in which, which


def test_a_relation_of_a_relation_is_the_one_relation_it_makes():
    from memoryos_core.text import words

    def made(text: str) -> list[str]:
        return kinship.composed_relations(words(text))

    assert made("Where does my husband's mother come from?") == ["mother-in-law"]
    assert made("my MIL") == made("my mother in law") == ["mother-in-law"]
    assert made("whats my dads wifes name") == ["stepmother"] == made("my step mum")
    assert made("hes my dads wifes son") == ["stepbrother"]  # the whole chain, not its start
    assert made("our son's wife Priya") == ["daughter-in-law"]
    assert made("my sister's son and my brother's daughter") == ["nephew", "niece"]
    assert made("my wife's brother Ade") == ["brother-in-law"]
    # a relation told by pronoun: whose husband "her husband" is, the nearest one she may be
    assert made("Our daughter Aoife lives in Cork, her husband Conor is a guard.") == [
        "son-in-law"] == made("my daughter Niamh and her husband")
    assert made("my brother Tom and his wife Liz") == ["sister-in-law"]
    assert made("my son and her husband") == made("I met her husband") == []
    # plain relations and lists of them are kinship's words, not compositions
    assert made("my mother and father") == made("my grandma") == made("my brother Tom") == []
    # the mother-in-law is no mother, and "my mother" no mother-in-law
    told = [slot.Candidate("My mother-in-law, Mama Akinyi, comes from Kisumu.", 1, None, None),
            slot.Candidate("My mother Regina teaches history.", 2, None, None)]
    asked = slot.head_terms("Where does my husband's mother come from?", told)
    assert [slot.names(asked, c.sentence) for c in told] == [True, False]
    # a sentence on a wider relation is about the asked one: "our kids" for "my daughter"
    assert "kid" in kinship.covering("daughter") and kinship.covering("dog") == frozenset()


@pytest.mark.real_model  # the router and the slot model read MiniLM's meaning
def test_a_relation_asked_by_composition_is_answered_with_the_one_told(make_engine):
    engine, model, say = _new_user_chat(make_engine)
    say("My husband Otieno is a civil engineer and my mother-in-law Akinyi comes from Kisumu.")
    say("My mother Wambui lives in Nyeri.")
    say("Can you suggest a dinner for four?")
    answer = say("Where is my husband's mother from?")
    assert "Kisumu" in answer and "Nyeri" not in answer, answer


def test_a_pet_asked_by_its_kind_is_found_by_its_breed_or_casual_word():
    told = [slot.Candidate("We have a Border Collie named Jess and a tabby called Mogsy.", 1,
                           None, None),
            slot.Candidate("Our neighbour Russell has a Maltese husband.", 2, None, None),
            slot.Candidate("My sister keeps a grey kitten, Smudge.", 3, None, None)]
    dog = slot.head_terms("whats my dog called again", told)
    assert [slot.names(dog, c.sentence) for c in told] == [True, False, False]
    cat = slot.head_terms("What's our cat's name?", told)
    assert [slot.names(cat, c.sentence) for c in told] == [True, False, True]
