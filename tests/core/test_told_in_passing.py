"""A fact told in passing ("I'm vegan btw", "fyi I can't eat peanuts", "living in Cork these
days") is read as told and given back truly, with no aside and no broken English."""

from __future__ import annotations

import pytest

from memoryos_core.answer import courtesy, router
from memoryos_core.answer.saying import reflect
from tests.core.test_routing import _new_user_chat


def told(text: str) -> str | None:
    """The set reply to a message the router read as told."""
    return courtesy.reply(text, [], reflect, told=True)


@pytest.mark.real_model  # the router is a model over MiniLM's meaning
def test_short_facts_told_with_an_aside_are_read_as_told_and_requests_with_one_are_not(
        embedder):
    # none of these is in the router's examples
    facts = ["I'm vegan btw", "heads up: I'm on a low-sodium diet", "fwiw I'm left-handed",
             "keep in mind I only have a microwave", "living in Cork these days",
             "I don't eat pork, fyi"]
    requests = ["btw can you suggest a vegan dessert?",
                "just so you know I'm diabetic, can you plan me a breakfast?"]
    # a learned router on wordings it never saw (told recall 0.86 on its test split): at least
    # five of the six; none is taken for a question on memory
    routes = [router.route(embedder, t).route for t in facts]
    assert routes.count("told") >= len(facts) - 1 and "memory" not in routes, routes
    assert [router.route(embedder, t).route for t in requests] == ["model"] * len(requests)


def test_an_aside_before_or_after_a_fact_is_not_said_back():
    assert told("I'm vegan btw") == "Got it: you're vegan."
    assert told("my kid's name is Leo fyi 🙂") == "Got it: your kid's name is Leo."
    assert told("just so u know, i use a wheelchair") == "Got it: you use a wheelchair."
    # a frame that announces the fact is no part of it
    assert told("I should mention I have a bad knee") == "Got it: you have a bad knee."
    assert told("forgot to say, my dog is a beagle named Toast") == \
        "Got it: your dog is a beagle named Toast."
    assert told("remember that I'm training for a marathon") == \
        "Got it: you're training for a marathon."


def test_a_fragment_told_is_given_back_as_typed_and_a_question_or_bid_is_not():
    assert told("just fyi, allergic to penicillin") == "Got it: \u201callergic to penicillin\u201d."
    assert told("living in nairobi these days") == "Got it: \u201cliving in nairobi these days\u201d."
    assert told("no kids") == "Got it: \u201cno kids\u201d."
    assert told("single") is None  # one word: the model's
    # typed without "?", a question or a request is never given back as the user's fact
    for other in ("whats my dogs name again", "remind me my shoe size",
                  "do i still work in the cafe", "need a cover letter for a welding job",
                  "Wrong. Python dicts keep insertion order since 3.7.",
                  "i miss him so much, how i stop being sad", "Yesterday, I went to the zoo."):
        assert told(other) is None, other


def test_news_of_a_loss_is_met_with_sympathy_not_got_it():
    assert told("btw my grandpa passed away last week") == \
        "I'm so sorry to hear that. Do you want to talk about it?"


def test_the_router_floors_count_only_what_gets_a_set_reply():
    """A message read as told that no set reply fits goes to the model as a request does: it
    is no mistake the user sees, so the told floor is chosen on set replies alone."""
    import numpy as np

    probs = np.array([[0.1, 0.1, 0.5, 0.3]] * 4 + [[0.1, 0.1, 0.8, 0.0]] * 2, dtype=np.float32)
    labels = ["told"] * 2 + ["model"] * 2 + ["told"] * 2
    classes = list(router.ROUTES)
    # the two requests at 0.5 would be said back: the floor rises above them
    assert router.choose_floors(probs, labels, classes)["told"] > 0.5
    # no set reply fits them: they reach the model anyway, and the floor lets the facts in
    answered = {"told": np.array([True, True, False, False, True, True])}
    assert router.choose_floors(probs, labels, classes, answered)["told"] <= 0.5


@pytest.mark.real_model
def test_a_fact_told_in_passing_is_answered_without_the_model(make_engine):
    _, model, say = _new_user_chat(make_engine)
    assert say("fyi I can't eat peanuts") == "Got it: you can't eat peanuts."
    assert say("started at a bakery last week") == \
        "Got it: \u201cstarted at a bakery last week\u201d."
    assert model.calls == []


def test_a_fact_told_in_passing_is_kept_without_its_asides(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=2)
    turns = [("fyi I'm a midwife, mostly night shifts", "Noted."),
             ("heads up, I can't eat shellfish btw", "Noted."),
             ("oh and we have a tortoise called Ada 🐢", "Noted."),
             ("I live in Leeds.", "Noted."), ("Thanks, talk soon!", "Bye."),
             ("See you tomorrow.", "Take care.")]
    for i, (text, reply) in enumerate(turns):
        engine.add_exchange("u1", text, reply, timestamp=1_683_540_000 + i * 600)
    engine.force_analysis("u1")
    kept = {f["text"] for f in engine.state("u1")["long_term"]["user_facts"]}
    assert {"I'm a midwife, mostly night shifts", "I can't eat shellfish",
            "We have a tortoise called Ada", "I live in Leeds."} <= kept


def test_a_message_between_small_talk_and_told_is_answered_in_kind():
    """Unsure which of the two, sure it is one of them: the set reply, not the model."""
    import numpy as np

    from memoryos_core.llm.classifier import SoftmaxModel

    model = SoftmaxModel(list(router.ROUTES), np.zeros((1, 4)), np.zeros(4))
    fitted = router.Router(model, {"memory": 0.6, "told": 0.4, "social": 0.6, "in_kind": 0.65})
    split = fitted.decide(np.array([0.04, 0.03, 0.35, 0.58]))
    assert split.route == "social" and not split.unsure
    # small talk under its floor with the rest on the model: the model answers
    assert fitted.decide(np.array([0.04, 0.41, 0.0, 0.55])).route == "model"


@pytest.mark.real_model
def test_a_name_given_with_a_greeting_is_met_by_name_not_by_the_model(make_engine):
    _, model, say = _new_user_chat(make_engine)
    assert say("Hello! I'm Inès.") == "Nice to meet you, Inès! What's on your mind?"
    assert model.calls == []


def test_short_small_talk_as_typed_on_a_phone_is_met_in_kind():
    """The small model answered "ok thats cool" and "ty, gtg" with offers of help on
    "creative projects"."""
    def social(text: str) -> str | None:
        return courtesy.reply(text, [], reflect)

    for ack in ("ok thats cool", "fair enough", "I see.", "Okay, cool."):
        assert social(ack) == "Okay! What else is on your mind?", ack
    assert social("cool, thanks") == "You're welcome!"
    assert social("yo") == "Hello! What would you like to talk about?"
    assert social("ty, gtg") == "Bye! Talk soon."
    # a name given as typed in a hurry, and an aside inside the sentence
    assert told("name's Tae, 24, grad student in Busan").startswith("Nice to meet you, Tae!")
    assert told("my gf is Jiwoo btw, shes a nurse") == "Got it: your gf is Jiwoo, shes a nurse."
