"""The answer prompt: recent exchanges shortened, a layout per model, the guard against repeats."""

from __future__ import annotations

import time

import pytest

from memoryos_core.answer import answer_guard
from memoryos_core.answer.recent import SHORTENED, fit_recent, recent_tokens
from memoryos_core.testing import ScriptedChatModel
from memoryos_core.text import count_tokens

DAY = 86400.0


def small_model(replies: list[str] | None = None, default: str | None = None) -> ScriptedChatModel:
    """A scripted model that the engine treats as the embedded small model."""
    model = ScriptedChatModel(replies, default=default, name="small", context_window=4096)
    model.embedded = True  # type: ignore[attr-defined]
    return model


def test_fit_recent_shortens_long_sides_and_keeps_short_ones():
    rows = [{"id": i, "user_text": f"short question {i}", "assistant_text": "word " * 400}
            for i in range(6)]
    rows.append({"id": 6, "user_text": "paste " * 900, "assistant_text": "ok"})
    fitted = fit_recent(rows, 500)
    assert recent_tokens(fitted) <= 500
    assert [r["user_text"] for r in fitted[:6]] == [r["user_text"] for r in rows[:6]]
    assert all(r["assistant_text"].endswith(SHORTENED) for r in fitted[:6])
    newest = count_tokens(fitted[-1]["user_text"])
    assert newest > 2 * count_tokens(fitted[0]["assistant_text"])  # the newest keeps more
    assert fitted[-1]["assistant_text"] == "ok" and fitted[-1]["shortened"]
    assert rows[0]["assistant_text"] == "word " * 400  # the rows themselves are untouched
    assert fit_recent(rows, 0)[0]["assistant_text"] == rows[0]["assistant_text"]  # 0: no cap


def test_long_recent_exchanges_leave_the_memory_its_budget(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 30 * DAY
    for i in range(20):
        engine.add_exchange("u1", f"My bike trip number {i} went along the river.", "Nice.",
                            timestamp=start + i * 3600, maintain=False)
    long_text = "word " * 600
    for i in range(7):
        engine.add_exchange("u1", long_text, long_text, timestamp=start + DAY + i,
                            maintain=False)
    trace = engine.retrieve("u1", "Where did my bike trips go?")
    assert trace["token_budget"] == 1200 and trace["recent_tokens"] <= 500
    model = ScriptedChatModel(default="Along the river.")
    messages, trace = engine.prompt("u1", "Where did my bike trips go?", model=model)
    assert trace["layout"] == "chat" and trace["recent_shortened"] == 7
    total = sum(count_tokens(m["content"]) for m in messages)
    assert sum(p["tokens"] for p in trace["prompt_parts"]) == total
    assert total <= 1700 + 200  # the context budget plus the instructions
    assert "bike trip" in messages[0]["content"]
    # short-term memory itself keeps the whole text
    assert all(e["user"] == long_text.strip() for e in engine.recent_exchanges("u1", 7))


def test_compact_prompt_puts_the_best_memory_last_before_the_question(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 30 * DAY
    chat = [("The weather was grey all morning.", "I hope it clears up."),
            ("The physio is called Dr. Okafor, she fixed my knee.", "Good to hear."),
            ("I had pasta for lunch.", "Sounds tasty.")] * 1
    chat += [(f"Small talk line number {i} about the day.", "Okay.") for i in range(12)]
    for n, (user, reply) in enumerate(chat):
        engine.add_exchange("u1", user, reply, timestamp=start + n * DAY, maintain=False)
    model = small_model(default="Your physio is Dr. Okafor.")
    result = engine.chat("u1", "What is the name of my physio?", model=model, maintain=False)
    sent = model.calls[0]["messages"]
    assert len(sent) == 1 and sent[0]["role"] == "user"  # one plain message for a small model
    content = sent[0]["content"]
    trace = result["trace"]
    assert trace["layout"] == "compact" and trace["prompt"] == sent
    memory_at = content.index("Memory (what the user told you before):")
    assert content.index("Recent conversation:") < memory_at
    lines = content[memory_at:].split("\n")
    assert "Okafor" in lines[-3]  # the best page is the last memory line, then the question
    assert lines[-2] == "User's message: What is the name of my physio?"
    assert sum(p["tokens"] for p in trace["prompt_parts"]) == count_tokens(content)
    assert result["answer"] == "Your physio is Dr. Okafor."
    # its own earlier replies are cut to a few words in the recent lines
    assert all(len(line.split()) <= 12 for line in content.split("\n")
               if line.startswith("Assistant: "))


def test_a_repeated_answer_is_regenerated_then_replaced_by_memory_lines(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 30 * DAY
    facts = ["My car is a green 2014 Subaru Outback.", "My sister Mara lives in Lisbon."]
    chat = facts + [f"Small talk number {i} about nothing much." for i in range(10)]
    for n, user in enumerate(chat):
        engine.add_exchange("u1", user, "Thanks for telling me.", timestamp=start + n * DAY,
                            maintain=False)
    model = small_model(default="Thanks for telling me.")
    result = engine.chat("u1", "What car do I drive?", model=model, maintain=False)
    assert len(model.calls) == 2  # the repeat was generated again, without the recent lines
    assert "Recent conversation:" not in model.calls[1]["messages"][0]["content"]
    assert result["trace"]["answer_source"] == "memory lines"
    assert "Subaru" in result["answer"] and "Thanks for telling me" not in result["answer"]
    assert [a["repeat"] for a in result["trace"]["answer_attempts"]] == [True, True]
    # a retry that answers is what the user gets
    model = small_model(["Thanks for telling me.", "You drive a green Subaru Outback."])
    result = engine.chat("u1", "Which car is mine?", model=model, maintain=False)
    assert result["answer"] == "You drive a green Subaru Outback."
    assert result["trace"]["answer_source"] == "retry"


def test_an_answer_that_echoes_the_prompt_is_not_an_answer(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 30 * DAY
    chat = ["My physiotherapist is called Dr. Okafor."] + [
        f"Small talk number {i} about nothing much." for i in range(10)]
    for n, user in enumerate(chat):
        engine.add_exchange("u1", user, f"Reply {n}.", timestamp=start + n * DAY,
                            maintain=False)
    # the question said back, then a line of the prompt: the user gets the memory lines
    model = small_model(["User: What is the name of my physio?",
                         "The user's message is: what is the name of my physio"])
    result = engine.chat("u1", "What is the name of my physio?", model=model, maintain=False)
    assert [a["echo"] for a in result["trace"]["answer_attempts"]] == [True, True]
    assert result["trace"]["answer_source"] == "memory lines"
    assert "Okafor" in result["answer"] and "name of my physio" not in result["answer"]
    # an answer that uses some of the question's words is an answer
    model = small_model(["Your physio is called Dr. Okafor."])
    result = engine.chat("u1", "What is the name of my physio?", model=model, maintain=False)
    assert result["answer"] == "Your physio is called Dr. Okafor."
    assert result["trace"]["answer_source"] == "model"
    # an answer holding a line of the prompt's scaffolding copied it
    assert answer_guard.echoes("The user's message is about a physio", "Who is my physio?")
    assert not answer_guard.echoes("Dr. Okafor", "What is the name of my physio?")


def test_an_answer_that_ignores_the_best_memory_line_is_shown_with_it(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 30 * DAY
    chat = ["My car is a green 2014 Subaru Outback.", "I adopted a kitten called Pixel."] + [
        f"Small talk number {i} about nothing much." for i in range(10)]
    for n, user in enumerate(chat):
        engine.add_exchange("u1", user, "Good to know.", timestamp=start + n * DAY,
                            maintain=False)
    model = small_model(["Pixel."])  # the wrong line of its prompt
    result = engine.chat("u1", "Which car do I drive?", model=model, maintain=False)
    assert result["answer"].startswith("Pixel.\n(What I remember: ")
    assert "Subaru Outback" in result["answer"] and result["trace"]["answer_evidence_shown"]
    model = small_model(["You drive a green Toyota Corolla."])  # one shared word is not enough
    result = engine.chat("u1", "Which car do I drive?", model=model, maintain=False)
    assert "Subaru Outback" in result["answer"] and result["trace"]["answer_evidence_shown"]
    model = small_model(["You drive a green Subaru."])  # an answer that uses it stands alone
    result = engine.chat("u1", "Which car do I drive?", model=model, maintain=False)
    assert result["answer"] == "You drive a green Subaru."
    assert not result["trace"]["answer_evidence_shown"]
    # a message no memory line matches by its words gets no line beside the answer
    model = small_model(["Hello! How can I help?"])
    result = engine.chat("u1", "Hi there", model=model, maintain=False)
    assert result["answer"] == "Hello! How can I help?"


@pytest.mark.real_model  # "physio" finds the physiotherapist, "cat" the kitten: by meaning
def test_a_question_about_the_user_finds_its_fact_by_meaning_and_shows_it(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 30 * DAY
    chat = ["I adopted a grey kitten last week and named him Pixel.",
            "My physiotherapist is called Dr. Okafor, she fixed my knee.",
            "I work night shifts as a nurse at the hospital."] + [
        f"Small talk number {i} about the weather and the trains." for i in range(10)]
    for n, user in enumerate(chat):
        engine.add_exchange("u1", user, "Good to know.", timestamp=start + n * DAY,
                            maintain=False)
    # asking for a name is not a keyword: the physio's name does not find the kitten "named"
    trace = engine.retrieve("u1", "What is the name of my physio?", token_budget=450)
    best = next(p for p in trace["pages"] if p["selected"])
    assert "Okafor" in best["user"] and "name" not in trace["query_keywords"]
    trace = engine.retrieve("u1", "What is my cat called?", token_budget=450)
    assert "Pixel" in next(p for p in trace["pages"] if p["selected"])["user"]
    # no word of the question is in the fact, yet it is the nearest page: shown beside a guess
    model = small_model(["Your cat is called Luna."])
    result = engine.chat("u1", "What is my cat called?", model=model, maintain=False)
    assert "Pixel" in result["answer"] and result["trace"]["answer_evidence_shown"]
    model = small_model(["You are a teacher."])
    result = engine.chat("u1", "What do I do for a living?", model=model, maintain=False)
    assert "nurse" in result["answer"] and result["trace"]["answer_evidence_shown"]
    # a greeting is not a question about the user's life: no memory line beside the answer
    model = small_model(["Hello! I am fine, thank you."])
    result = engine.chat("u1", "Hello, how are you?", model=model, maintain=False)
    assert result["answer"] == "Hello! I am fine, thank you."


def test_a_capable_model_gets_the_chat_layout_and_streams(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    for i in range(10):
        engine.add_exchange("u1", f"I planted tomato number {i}.", "Lovely.", maintain=False)
    model = ScriptedChatModel(default="You planted tomatoes.")
    pieces: list[str] = []
    result = engine.chat("u1", "What did I plant?", model=model, on_token=pieces.append,
                         maintain=False)
    sent = model.calls[0]["messages"]
    trace = engine.trace("u1", result["exchange_id"])
    assert trace["layout"] == "chat"
    assert trace["prompt"][0]["role"] == "system" and trace["prompt"][-1]["content"] == \
        "What did I plant?"
    assert sent == trace["prompt"]  # the trace holds exactly what was sent
    assert "".join(pieces) == "You planted tomatoes."
    names = [p["name"] for p in trace["prompt_parts"]]
    assert names[0] == "instructions" and names[-2:] == ["recent", "message"]
