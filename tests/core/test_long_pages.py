"""Long pages in the memory block: the passages that hold the question's words, not the opening."""

from __future__ import annotations

from memoryos_core.answer import memory_block
from memoryos_core.answer.memory_block import page_body
from memoryos_core.text import count_tokens

FILLER_SENTENCES = [f"Step {n}: water the seedlings in the morning and keep the tray near the window."
                    for n in range(30)]
HIDDEN = "The variety you asked about, Brandywine, needs a stake about two metres tall."
REPLY = " ".join(FILLER_SENTENCES[:20] + [HIDDEN] + FILLER_SENTENCES[20:])
OTHER_REPLY = " ".join(f"Idea {n}: a walk by the river, a museum visit or a picnic in the park."
                       for n in range(30))


def _row(user: str, assistant: str) -> dict[str, str]:
    return {"user_text": user, "assistant_text": assistant}


def test_a_long_reply_shows_the_sentence_the_question_is_about(engine):
    engine.add_exchange("u1", "I'm starting tomatoes from seed this spring, any advice?", REPLY,
                        timestamp=1_700_000_000, maintain=False)
    for i in range(8):  # push the exchange out of short-term memory into the mid-term pages
        engine.add_exchange("u1", f"What should I do on weekend number {i}?", OTHER_REPLY,
                            timestamp=1_700_000_100 + i * 60, maintain=False)
    trace = engine.retrieve("u1", "How tall a stake does the Brandywine variety need?")
    assert HIDDEN in trace["memory_block"]
    # the opening alone, as a flat retriever writes the page, never reaches it
    assert HIDDEN not in page_body(_row("I'm starting tomatoes from seed this spring, any advice?",
                                        REPLY))


def test_a_long_page_without_the_question_words_costs_only_its_opening():
    row = _row("Any plans you would suggest for a rainy Sunday?", OTHER_REPLY)
    focused = page_body(row, ["tomato", "stake"])
    assert focused.startswith("User: Any plans you would suggest for a rainy Sunday? | Assistant: Idea 0")
    assert count_tokens(focused) <= count_tokens(row["user_text"]) + memory_block.REPLY_OPENING_TOKENS + 10
    assert count_tokens(page_body(row)) == memory_block.PAGE_LINE_TOKENS  # unfocused: a full line


def test_matching_sentences_keep_their_order_and_mark_what_was_left_out():
    reply = " ".join(["Tomatoes like warmth."] + FILLER_SENTENCES[:15] + ["Stakes keep tomatoes upright."]
                     + FILLER_SENTENCES[15:])
    line = page_body(_row("Tell me about growing tomatoes.", reply), ["tomatoes", "stakes"])
    assert "Tomatoes like warmth. … Stakes keep tomatoes upright. …" in line
    assert count_tokens(line) <= memory_block.PAGE_LINE_TOKENS


def test_a_page_that_fits_its_line_is_shown_whole():
    row = _row("My sister moved to Porto.", "That's exciting, Porto is lovely.")
    assert page_body(row, ["porto"]) == page_body(row) == \
        "User: My sister moved to Porto. | Assistant: That's exciting, Porto is lovely."


RECIPE = " ".join(f"Stir step {n}: keep the pan on a low heat and whisk the sauce slowly." for n in range(25))


def test_a_recent_exchange_the_prompt_shortens_is_still_found_by_its_words(engine):
    said = (f"{RECIPE} By the way, I got my new stand mixer as a birthday gift from my sister "
            "last month, and it has been a game-changer.")
    engine.add_exchange("u1", said, "That sounds lovely! " + RECIPE, timestamp=1_700_000_000,
                        maintain=False)
    for i in range(3):  # still in short-term memory, but the recent conversation is cut to fit
        engine.add_exchange("u1", f"Tell me a dessert idea number {i}.", OTHER_REPLY,
                            timestamp=1_700_000_100 + i * 60, maintain=False)
    trace = engine.retrieve("u1", "Who gave me the new stand mixer as a birthday gift?")
    assert trace["recent_tokens"] <= engine.config.context_token_budget
    best = trace["pages"][0]
    assert best["selected"] and best.get("recent") and best["user"] == said
    assert "gift from my sister" in trace["memory_block"]


def test_recent_exchanges_shown_whole_are_never_pages_too(engine):
    engine.add_exchange("u1", "I got a stand mixer from my sister for my birthday.", "How nice!",
                        timestamp=1_700_000_000, maintain=False)
    trace = engine.retrieve("u1", "Who gave me the stand mixer?")
    assert not any(p["selected"] for p in trace["pages"])
    assert "stand mixer" not in trace["memory_block"]
