"""Small talk the set replies do not match is met as the act it is, not left to the small
model's inventions; fragments typed tersely and a dose changed are read."""

from __future__ import annotations

import pytest

from memoryos_core.answer import social_acts
from memoryos_core.answer.memory_sentences import with_fragments
from memoryos_core.answer.over_time import units
from memoryos_core.text import sentences
from tests.core.test_answer_prompt import small_model

MODEL_SAYS = "A model's answer."


def test_the_shipped_act_weights_match_the_examples_they_were_fitted_on():
    """A changed example file without `benchmarks.social_acts --write-weights` fails here."""
    rows = social_acts.examples()
    assert social_acts.load(social_acts.SHIPPED, social_acts.data_hash(rows)) is not None
    assert {r["act"] for r in rows} == set(social_acts.ACTS)


@pytest.mark.real_model  # the acts are a model over MiniLM's meaning
def test_a_new_users_small_talk_is_met_in_kind_and_remarks_go_to_the_model(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    model = small_model(default=lambda messages, schema: MODEL_SAYS)

    def say(text: str) -> str:
        return str(engine.chat("u1", text, model=model, maintain=False)["answer"])

    # the first message of a newcomer: SmolLM2 had answered "hi! is this the memory chatbot
    # my friend told me about?" with an invented "memory chatbot designed to assist users
    # with their digital life"
    first = say("hey there, first time using this")
    assert first != MODEL_SAYS and not first.startswith(("You told me", "I don't remember"))
    # a greeting the router is unsure is small talk is still met as one (SmolLM2 had said
    # "as a chatbot designed to assist users with customer service… find me on Facebook")
    assert say("hello?? anyone home").startswith("Hello")
    assert say("that's wrong lol").startswith("Sorry")
    assert say("I'm Leilani, I teach hula in Hilo.").startswith("Nice to meet you, Leilani")
    assert say("you're useless lol").startswith("Sorry")
    assert say("sorry, got distracted").startswith("Welcome back")
    assert say("lol you're pretty good at this") != MODEL_SAYS
    assert say("mahalo, see you tomorrow").startswith("Bye")
    # a remark or an opinion needs an answer with content: no act is sure of it
    assert [social_acts.reply(engine.ctx.embedder, t) for t in
            ("what a weird day honestly", "I reckon pineapple belongs on pizza")] == [None] * 2
    # no set reply became a fact of the user's or the assistant's
    engine.force_analysis("u1", model=model)
    facts = [f["text"] for f in engine.store.query("SELECT text FROM facts WHERE user_id = ?",
                                                   ("u1",))]
    assert not any("Sorry" in f or "Talk soon" in f or "chat model" in f for f in facts)


def test_fragments_typed_tersely_are_read_with_their_neighbours():
    assert with_fragments(sentences("Dog: Bamse. Norwegian elkhound. 7 years.")) == \
        ["Dog: Bamse. Norwegian elkhound. 7 years."]
    assert with_fragments(sentences("Moved. Stavanger now.")) == ["Moved. Stavanger now."]
    # a greeting or thanks is no fragment of a fact; nor is a question a candidate answer
    assert with_fragments(sentences("Hi! My name is Dana.")) == []
    assert with_fragments(sentences("Dog? Bamse.")) == []


def test_a_dose_changed_shares_its_unit_not_its_number():
    assert units("I'm on levothyroxine, 75mcg every morning") == \
        units("ok the doctor bumped it up, I'm taking 100mcg now") == {"mcg"}
    assert units("on the 3rd, back in the 90s") == set()
