"""Continuations in the memory block: brought for short exchanges, not for long ones."""

from __future__ import annotations

from memoryos_core.answer import page_order
from memoryos_core.answer.memory_block import page_tokens

FILLER = ["How do I repot a fern?", "Suggest a podcast about history.",
          "How long should I boil an egg?", "Recommend a board game for four.",
          "What is the capital of Peru?", "How do I clean a cast iron pan?",
          "Any tips for a sourdough starter?", "What is a good stretch for the back?"]
LONG_REPLY = " ".join(f"Point {n}: keep the soil moist, give it indirect light and feed it"
                      " monthly in spring." for n in range(25))


def _chat(engine, user, pairs):
    for i, (said, reply) in enumerate(pairs):
        engine.add_exchange(user, said, reply, timestamp=1_700_000_000 + i * 60, maintain=False)


def test_a_short_exchange_brings_the_one_that_continues_it(engine):
    _chat(engine, "u1", [("Did Ann come to the barbecue on Sunday?", "Yes, she did."),
                         ("What did she bring along?", "A lemon drizzle cake."),
                         *[(q, "Sure.") for q in FILLER]])
    trace = engine.retrieve("u1", "Did Ann come to the barbecue?")
    taken = {p["id"]: p for p in trace["pages"] if p["selected"]}
    assert any(p.get("continues") for p in taken.values())
    assert "lemon drizzle cake" in trace["memory_block"]


def test_a_long_exchange_spends_no_budget_on_its_continuation(engine):
    # a user-assistant history: every reply runs to hundreds of tokens
    _chat(engine, "u1", [("Did Ann come to the barbecue on Sunday?", LONG_REPLY),
                         ("What did she bring along?", LONG_REPLY),
                         *[(q, LONG_REPLY) for q in FILLER]])
    trace = engine.retrieve("u1", "Did Ann come to the barbecue?")
    assert not any(p.get("continues") for p in trace["pages"])
    best = trace["pages"][0]
    assert best["selected"] and "barbecue" in best["user"]
    row = {"user_text": best["user"], "assistant_text": best["assistant"]}
    assert page_tokens(row) > page_order.CONTINUATION_MAX_TOKENS
