"""The answer prompt: recent exchanges shortened, a layout per model, the guard against repeats."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from memoryos_core.answer import answer_guard, courtesy
from memoryos_core.answer.recent import SHORTENED, fit_recent, recent_tokens
from memoryos_core.testing import ScriptedChatModel
from memoryos_core.text import count_tokens

DAY = 86400.0


def said_back(answer: str, ending: str) -> bool:
    """The memory sentence said back, sure ("You told me … that …") or offered as not sure
    ("I'm not sure this answers it, but you told me … that …"): the slot model decides which."""
    return answer.startswith(("You told me ", "I'm not sure this answers it, but you told me ")) \
        and answer.endswith(ending)


def small_model(replies: list[str] | None = None, default: Any = None) -> ScriptedChatModel:
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


def _chat_with_facts(engine, facts: list[str], reply: str = "Good to know.") -> None:
    """The facts said a month ago among small talk, all in mid-term memory by now."""
    start = time.time() - 30 * DAY
    chat = facts + [f"Small talk number {i} about nothing much." for i in range(10)]
    for n, user in enumerate(chat):
        engine.add_exchange("u1", user, reply, timestamp=start + n * DAY, maintain=False)


@pytest.mark.real_model  # "blood type" is far from "physiotherapist" only by meaning
def test_a_question_on_memory_is_answered_from_memory_without_the_small_model(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    _chat_with_facts(engine, ["The weather was grey all morning.",
                              "My physiotherapist is called Dr. Okafor, she fixed my knee.",
                              "I had pasta for lunch."])
    model = small_model(default="The user asked about a physio.")
    pieces: list[str] = []
    result = engine.chat("u1", "What is the name of my physiotherapist?", model=model,
                         maintain=False, on_token=pieces.append)
    assert model.calls == []  # nothing the small model could get wrong
    answer = result["answer"]
    assert said_back(answer, " that your physiotherapist is called Dr. Okafor, she fixed your"
                             " knee.") and " on " in answer
    assert "".join(pieces) == answer and result["source"] == "memory"
    assert result["evidence"]["page_id"] and "Okafor" in result["evidence"]["text"]
    trace = engine.trace("u1", result["exchange_id"])
    assert trace["layout"] == "compact" and trace["answer_plan"]["kind"] == "memory"
    # the prompt the trace shows still holds the memory it was answered from
    assert "Okafor" in trace["prompt"][0]["content"]
    # a question on the user's own life that memory cannot answer says so, in plain words
    result = engine.chat("u1", "What is my blood type?", model=model, maintain=False)
    assert result["answer"] == "I don't remember you telling me that."
    assert result["source"] == "no memory" and model.calls == []


@pytest.mark.real_model  # which recent sentence answers is decided by meaning
def test_what_the_user_said_minutes_ago_answers_a_question_on_it(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    model = small_model(["Grey weeks are hard."])
    replies = [engine.chat("u1", said, model=model, maintain=False)["answer"]
               for said in ("Hi! My name is Priya and I teach maths.",
                            "I have two cats, Miso and Tofu.", "The weather is grey today.")]
    # a fact told is taken in, said back, never by the model (it took the user's life for its own)
    assert replies == ["Nice to meet you, Priya! Got it: you teach maths.",
                       "Got it: you have two cats, Miso and Tofu.", "Grey weeks are hard."]
    # still in short-term memory (the recent turns), not yet a page retrieval can find
    assert engine.short_term_fill("u1")["count"] == 3
    result = engine.chat("u1", "What are my cats called?", model=model, maintain=False)
    assert result["answer"] == ("You told me earlier today that you have two cats, "
                                "Miso and Tofu.")
    assert result["source"] == "memory" and result["evidence"]["page_id"]
    result = engine.chat("u1", "What's my name?", model=model, maintain=False)
    assert "your name is Priya" in result["answer"]
    # a question asked before is never said back as the answer to the next one
    result = engine.chat("u1", "What are my hobbies?", model=model, maintain=False)
    assert "?" not in result["answer"]
    assert len(model.calls) == 1  # the small model was asked only for the small talk


@pytest.mark.real_model  # which half of a sentence answers is decided by meaning
def test_greetings_facts_told_and_what_memory_knows_are_answered_without_the_model(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    model = small_model(["The answer is: Try a lentil soup."])

    def say(text: str) -> str:
        return engine.chat("u1", text, model=model, maintain=False)["answer"]

    assert say("Hi!") == "Hello! What would you like to talk about?"
    assert say("My name is Dana and I work as a nurse in Bristol.") == \
        "Nice to meet you, Dana! Got it: you work as a nurse in Bristol."
    assert say("I have a dog called Pepper.") == "Got it: you have a dog called Pepper."
    # a feeling is met in kind, never stored as a fact said back
    assert say("I'm so tired today.") == \
        "I'm sorry you're so tired today. Do you want to talk about it?"
    # a request is the model's; its quiz opening ("The answer is:") is never shown
    assert say("Can you suggest a dinner recipe?") == "Try a lentil soup."
    # each half of "My name is … and I work as …" answers its own question
    assert say("What's my name?") == "You told me earlier today that your name is Dana."
    assert say("Where do I work?") == \
        "You told me earlier today that you work as a nurse in Bristol."
    known = say("What do you know about me?")
    assert known.startswith("Here is what you've told me: ")
    for told in ("your name is Dana", "you work as a nurse in Bristol",
                 "you have a dog called Pepper"):
        assert told in known
    assert "?" not in known and "tired" not in known  # neither questions nor feelings said back
    result = engine.chat("u1", "Thanks, bye!", model=model, maintain=False)
    assert result["answer"] == "Bye, Dana! Talk soon." and result["source"] == "courtesy"
    assert len(model.calls) == 1  # only the request reached the small model


@pytest.mark.real_model  # the router reads the question by MiniLM's meaning
def test_what_memory_knows_reads_every_tier_and_names_the_user_first(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         short_term_capacity=3)
    model = small_model(default="Sounds good.")
    for text in ("Hi! I'm Marguerite, I keep bees in my back garden.",
                 "My brother Tomasz repairs bicycles in Gdansk.",
                 "Can you suggest a name for a bakery?", "Tell me a fun fact about owls.",
                 "What rhymes with orange?", "Give me a synonym for happy."):
        engine.chat("u1", text, model=model)  # the first two leave short-term memory
    known = engine.chat("u1", "What do you know about me?", model=model)["answer"]
    assert known.startswith("Here is what you've told me: your name is Marguerite; "), known
    assert "you keep bees in your back garden" in known
    assert "your brother Tomasz repairs bicycles in Gdansk" in known
    assert "?" not in known and "owls" not in known


@pytest.mark.real_model  # the router reads "What is the capital of France?" by MiniLM's meaning
def test_small_talk_is_the_small_models_and_it_sees_no_memory(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    _chat_with_facts(engine, ["My physiotherapist is called Dr. Okafor, she fixed my knee."])
    model = small_model(default="Grey days can feel long. Maybe a walk will help.")
    result = engine.chat("u1", "The weather has been grey all week.", model=model,
                         maintain=False)
    sent = model.calls[0]["messages"]
    # the small model's own chat format: a one-line system message, the last three exchanges
    # as turns, the message; no memory and no scaffolding it could copy
    assert [m["role"] for m in sent] == ["system"] + ["user", "assistant"] * 3 + ["user"]
    assert sent[-1]["content"] == "The weather has been grey all week."
    content = "\n".join(m["content"] for m in sent)
    assert "Okafor" not in content and "User:" not in content and "Memory" not in content
    assert result["answer"] == "Grey days can feel long. Maybe a walk will help."
    assert result["source"] == "model" and result["evidence"] is None
    # a general question nothing in memory names is the model's too
    model = small_model(default="Paris is the capital of France.")
    result = engine.chat("u1", "What is the capital of France?", model=model, maintain=False)
    assert result["answer"] == "Paris is the capital of France." and len(model.calls) == 1


def test_a_repeat_is_replaced_marked_and_tried_again_then_a_plain_reply(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    alike = "Thanks for telling me, that sounds really interesting."  # shown before it ends
    _chat_with_facts(engine, ["I went hiking on Sunday."], reply=alike)
    model = small_model(default=alike)
    pieces: list[str] = []
    events: list[tuple[str, dict]] = []
    result = engine.chat("u1", "The train was late again.", model=model, maintain=False,
                         on_token=pieces.append, on_event=lambda k, d: events.append((k, d)))
    assert len(model.calls) == 2  # generated again, without the recent lines
    retry = model.calls[1]["messages"]
    assert [m["role"] for m in retry] == ["system", "user"]
    assert retry[-1]["content"] == "The train was late again."
    replaced = [d["reason"] for k, d in events if k == "replace"]
    assert replaced == ["the model repeated an earlier answer"] * 2  # each shown one marked
    assert result["answer"] == "I see. Tell me more?" and result["source"] == "plain"
    assert "".join(pieces).endswith("I see. Tell me more?")
    assert [a["reason"] for a in result["trace"]["answer_attempts"]] == ["repeat", "repeat"]
    phases = [d["phase"] for k, d in events if k == "phase"]
    assert phases[0] == "searching memory" and "writing" in phases
    # a retry that answers is what the user gets
    model = small_model([alike, "Trains can be so unreliable."])
    result = engine.chat("u1", "Any tips for when the bus is late?", model=model,
                         maintain=False)
    assert result["answer"] == "Trains can be so unreliable." and result["source"] == "retry"


def test_an_echo_or_a_narration_is_cut_before_it_is_shown(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    _chat_with_facts(engine, ["I went hiking on Sunday."])
    model = small_model(["User: The weather is nice today, is it not?",
                         "Nice weather is a gift."])
    pieces: list[str] = []
    events: list[tuple[str, dict]] = []
    result = engine.chat("u1", "The weather is nice today, is it not", model=model,
                         maintain=False, on_token=pieces.append,
                         on_event=lambda k, d: events.append((k, d)))
    # the echo and the narration were cut at their first words: nothing of them was shown
    assert "".join(pieces) == "Nice weather is a gift." == result["answer"]
    assert not [k for k, _ in events if k == "replace"]
    assert [a["reason"] for a in result["trace"]["answer_attempts"]] == ["echo", None]
    pieces.clear()
    model = small_model(["The user thanked the AI for the conversation.", "Glad you liked it."])
    result = engine.chat("u1", "I liked our chat", model=model, maintain=False,
                         on_token=pieces.append)
    assert "".join(pieces) == "Glad you liked it." == result["answer"]
    assert result["trace"]["answer_attempts"][0]["reason"] == "narration"
    # the guard's pieces on their own
    assert answer_guard.cut_reason("Assistant: sure", "hi", []) == "echo"
    assert answer_guard.cut_reason("The user thanked the AI", "hi", []) == "narration"
    assert answer_guard.cut_reason("The user guide says so", "where is the user guide?",
                                   []) is None
    line = [{"role": "user", "content": "User: Hi! My name is Priya and I love tea"}]
    lines = answer_guard._prompt_lines(line)
    assert answer_guard.cut_reason("Hi! My name is Priya and I love tea. Yes", "x",
                                   lines) == "echo"


def test_stop_ends_the_answer_and_stores_nothing(make_engine):
    import threading

    from memoryos_core.errors import Stopped

    engine = make_engine(consolidation="extractive", analysis="extractive")
    _chat_with_facts(engine, ["I went hiking on Sunday."])
    before = len(engine.recent_exchanges("u1", 100))
    stop = threading.Event()
    model = small_model(default="One two three four five six seven eight nine ten.")
    pieces: list[str] = []

    def token(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            stop.set()  # the user pressed Stop after three words

    with pytest.raises(Stopped):
        engine.chat("u1", "Tell me a story", model=model, maintain=False, on_token=token,
                    stop=stop)
    assert len(pieces) == 3  # not one piece after Stop
    assert len(engine.recent_exchanges("u1", 100)) == before


def test_said_back_turns_the_users_sentence_to_them():
    from memoryos_core.answer.grounded import Evidence, said_back

    def back(sentence: str) -> str:
        return said_back(Evidence(sentence, 1, None, 1_700_000_000.0, 1.0, 1))

    assert back("My car is a green 2014 Subaru Outback.") == (
        "You told me on 14 November 2023 that your car is a green 2014 Subaru Outback.")
    assert back("I'm allergic to peanuts, so I always check labels.").endswith(
        "that you're allergic to peanuts, so you always check labels.")
    assert back("Oh, I was born in Oslo!").endswith("that you were born in Oslo.")
    assert back("Mara moved to Lisbon for me.").endswith("that Mara moved to Lisbon for you.")
    assert back("Our dog Biscuit is a beagle, we adopted him.").endswith(
        "that your dog Biscuit is a beagle, you adopted him.")
    assert back("I moved to the US last year.").endswith("that you moved to the US last year.")
    assert back("By the way, speaking of bikes, I just got a new one.").endswith(
        "that you just got a new one.")
    # a sentence that speaks to the assistant is quoted, not turned
    assert back("You told me to rest my knee.") == (
        "You told me on 14 November 2023: \u201cYou told me to rest my knee.\u201d")
    # a fragment with no subject is quoted as typed, never made a broken "that" clause
    assert back("live in osaka.") == "You told me on 14 November 2023: \u201cLive in osaka.\u201d"
    for fragment in ("A cat called Troll.", "Moved to Dubai last week.",
                     "Brewmaster at a small brewery in Znojmo.", "Marit, physiotherapist."):
        assert back(fragment).endswith(f": \u201c{fragment}\u201d"), fragment
    assert back("Marit and I plan to drive around Lofoten.").endswith(
        "that Marit and you plan to drive around Lofoten.")


@pytest.mark.real_model  # "physio" finds the physiotherapist, "cat" the kitten: by meaning
def test_a_question_about_the_user_finds_its_fact_by_meaning(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    _chat_with_facts(engine, ["I adopted a grey kitten last week and named him Pixel.",
                              "My physiotherapist is called Dr. Okafor, she fixed my knee.",
                              "I work night shifts as a nurse at the hospital."])
    # asking for a name is not a keyword: the physio's name does not find the kitten "named"
    trace = engine.retrieve("u1", "What is the name of my physio?", token_budget=450)
    best = next(p for p in trace["pages"] if p["selected"])
    assert "Okafor" in best["user"] and "name" not in trace["query_keywords"]
    model = small_model(default="Your cat is called Luna.")
    for question, fact in [("What is my cat called?", "Pixel"),
                           ("What is the name of my physio?", "Okafor")]:
        result = engine.chat("u1", question, model=model, maintain=False)
        assert fact in result["answer"] and result["source"] == "memory", question
        assert said_back(result["answer"], ".")
    # never another fact in its place: the job is said back, offered, or (too unsure to
    # offer) not claimed, and the trace names the nurse sentence as the likeliest
    result = engine.chat("u1", "What do I do for a living?", model=model, maintain=False)
    assert "Pixel" not in result["answer"] and "Okafor" not in result["answer"]
    considered = result["trace"]["answer_plan"]["considered"]
    assert "nurse" in considered[0]["text"]
    assert model.calls == []
    # a greeting is not a question on memory: it is answered in kind
    result = engine.chat("u1", "Hello, how are you?", model=model, maintain=False)
    assert "I'm well, thank you" in result["answer"]
    assert result["source"] == "courtesy" and model.calls == []


@pytest.mark.real_model  # the attribute ("where I live") is read by meaning (MiniLM)
def test_a_new_value_said_minutes_ago_answers_now_and_the_old_one_before(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    model = small_model(default="Grey days.")
    told = [engine.chat("u1", said, model=model, maintain=False)["answer"]
            for said in ("I live in Paris.", "The weather is grey today.", "I like green tea.",
                         "I moved to Berlin last month.")]
    assert told[0] == "Got it: you live in Paris." and \
        told[3] == "Got it: you moved to Berlin last month."
    calls = len(model.calls)  # the weather, and whatever the router was unsure of
    # only Paris shares the word "live" with the question; Berlin is the newer home
    for question in ("Where do I live now?", "Where do I live?"):
        answer = engine.chat("u1", question, model=model, maintain=False)["answer"]
        assert said_back(answer, " earlier today that you moved to Berlin last month.")
    answer = engine.chat("u1", "Where did I live before?", model=model, maintain=False)
    assert said_back(answer["answer"], " earlier today that you live in Paris.")
    assert len(model.calls) == calls  # the questions were answered from memory


@pytest.mark.real_model  # retrieval by meaning decides which pages the trace holds
def test_an_advice_question_is_the_models_even_where_memory_holds_its_words(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    model = small_model(default=lambda messages, schema: "Try a warm bath and some music."
                        if "relax" in messages[-1]["content"] else "That sounds fun!")
    engine.chat("u1", "I'm learning to play the ukulele.", model=model, maintain=False)
    _chat_with_facts(engine, ["I work long shifts as a paramedic."],
                     reply="Music is a great way to relax after a long day.")
    result = engine.chat("u1", "What's a good way to relax after a long shift?", model=model,
                         maintain=False)
    assert result["answer"] == "Try a warm bath and some music." and result["source"] == "model"
    sent = "\n".join(m["content"] for m in model.calls[-1]["messages"])
    assert "You told me" not in sent  # answers from memory are not shown to it to imitate
    # the model imitating an answer from memory, or taking the user for itself, is cut
    assert answer_guard.cut_reason("You told me earlier today that you write", "hi", []) \
        == "echo"
    assert answer_guard.cut_reason("Priya is a wonderful AI assistant who", "Hi! I'm Priya",
                                   []) == "narration"


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


def test_the_plain_reply_answers_in_kind_with_the_message():
    plain = courtesy.plain_reply
    assert plain("social", "Hi! My name is Priya.") == \
        "Nice to meet you, Priya! What's on your mind?"
    assert plain("social", "Good morning!") == "Hello! What would you like to talk about?"
    assert plain("social", "Thanks, that's kind of you.") == "You're welcome!"
    assert plain("social", "I am tired.") == "I see. Tell me more?"  # "tired" is not a name
    # what the router did not read as small talk is not met as thanks
    assert plain("chat", "Thanks, but that's wrong.") == "I see. Tell me more?"
    assert plain("general", "Hi, what is a quasar?").startswith("I'm not sure about that.")


LISTS = [("What should I pack for a hike?",
          "Here is a list:\n\n* **Water**, at least two litres\n* Snacks\n* A rain jacket"),
         ("Ideas for a rainy afternoon?", "1. Read a novel\n2. Bake bread\n3. Call a friend"),
         ("How do I start running?", "## Start slowly\n- Walk and jog in turns\n- Rest a day")]


def test_the_small_model_sees_earlier_replies_as_plain_sentences_without_list_markers(
        make_engine):
    # issue 48: after three answers with lists, every later answer of SmolLM2 began with "*"
    engine = make_engine(consolidation="extractive", analysis="extractive")
    start = time.time() - 600
    for n, (user, reply) in enumerate(LISTS):
        engine.add_exchange("u1", user, reply, timestamp=start + n * 60, maintain=False)
    for text in ("Tell me a joke about cats.", "What did I ask about hiking?"):
        messages, _ = engine.prompt("u1", text, model=small_model())
        shown = "\n".join(m["content"] for m in messages)
        assert "Snacks" in shown or "Read a novel" in shown or "Walk and jog" in shown, shown
        assert not re.search(r"(?m)^\s*(?:Assistant: )?(?:[-*+]|\d+\.|#+) ", shown), shown
        assert "**" not in shown
    from memoryos_core.answer.recent import plain_turn
    assert plain_turn(LISTS[0][1]) == ("Here is a list: Water, at least two litres; Snacks;"
                                       " A rain jacket")


def test_a_retried_answers_trace_holds_the_prompt_of_the_retry(make_engine):
    # issue 48: "Why this answer" of a retried answer showed the first attempt's prompt
    engine = make_engine(consolidation="extractive", analysis="extractive")
    alike = "Thanks for telling me, that sounds really interesting."
    _chat_with_facts(engine, ["I went hiking on Sunday."], reply=alike)
    model = small_model([alike, "Trains can be so unreliable."])
    result = engine.chat("u1", "Any tips for when the bus is late?", model=model,
                         maintain=False)
    assert result["source"] == "retry"
    first, retry = (c["messages"] for c in model.calls)
    stored = engine.trace("u1", result["exchange_id"])
    for trace in (result["trace"], stored):
        assert trace["prompt"] == retry and trace["first_prompt"] == first
        recent = next(p for p in trace["prompt_parts"] if p["name"] == "recent")
        assert recent["tokens"] == 0 and recent["items"] == 0
    answered = engine.chat("u1", "Trains in the rain are worse.",
                           model=small_model(["Umbrellas help."]), maintain=False)
    assert "first_prompt" not in answered["trace"]  # a first answer kept: its prompt as it was
