"""The first-impression check: personal facts said weeks ago among small talk, then asked.

Counts what a person reads: the fact in the answer itself, another fact mixed in, prompt
echoes and repeats (run through `python -m benchmarks.answers --impression-only`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from . import common

DAY = 86400.0

# (fact said in the chat, question, words the answer must hold): made up for this check.
FACTS = [
    ("I adopted a grey kitten last week and named him Pixel.", "What is my cat called?",
     ["pixel"]),
    ("My car is a green 2014 Subaru Outback.", "What car do I drive?", ["subaru"]),
    ("My physiotherapist is called Dr. Okafor, she fixed my knee.",
     "What is the name of my physio?", ["okafor"]),
    ("I finished the Berlin half marathon in 1:52 this spring.",
     "What was my half marathon time?", ["1:52"]),
    ("My sister Mara moved to Lisbon for a design job.", "Which city does my sister live in?",
     ["lisbon"]),
    ("I work night shifts as a nurse at St. Mary's hospital.", "What do I do for a living?",
     ["nurse"]),
    ("My favourite novel is The Left Hand of Darkness.", "What is my favourite book?",
     ["left hand of darkness"]),
    ("I'm allergic to peanuts, so I always check labels.", "What food am I allergic to?",
     ["peanut"]),
]
# a second set, asked in other words than they were said in ("raised" / "grow up"): a check
# that answers generalise beyond the first set; never tuned on
OTHER_FACTS = [
    ("We got married on a beach in Crete in June 2019.", "Where did I get married?", ["crete"]),
    ("I was raised in a small fishing village near Cork.", "Where did I grow up?", ["cork"]),
    ("My daughter Leni just started primary school.", "What is my daughter's name?",
     ["leni"]),
    ("My dentist, Dr. Vasquez, wants to see me again in March.", "Who is my dentist?",
     ["vasquez"]),
    ("I play the cello in a community orchestra on Thursdays.", "What instrument do I play?",
     ["cello"]),
    ("Our dog Biscuit is a three-year-old beagle.", "What breed is my dog?", ["beagle"]),
    ("I'm saving up for a trip to Patagonia next winter.", "Where am I planning to travel?",
     ["patagonia"]),
    ("My brother Tomas teaches chemistry at a high school in Leeds.",
     "What subject does my brother teach?", ["chemistry"]),
]
FACT_SETS = {"main": FACTS, "other": OTHER_FACTS}
SMALL_TALK = [
    "The weather was grey all morning.", "I watched a documentary about bridges yesterday.",
    "Lunch today was a simple salad.", "The train was late again this morning.",
    "I'm trying to drink more water.", "The neighbours are painting their fence.",
    "I found an old photo album in the attic.", "Work was quiet today.",
    "I might try a new coffee place tomorrow.", "My phone needed an update this morning.",
    "I tidied the kitchen after dinner.", "There was a nice sunset this evening.",
    "I listened to a podcast about space.", "The supermarket was crowded.",
    "I finally replied to all my emails.", "It rained during my walk.",
    "I reorganised my bookshelf.", "The bus driver was very friendly.",
    "I tried a new pasta recipe.", "My plants need more light.",
    "I stayed up too late reading the news.", "The office coffee machine broke.",
]
REPLIES = ["That sounds nice, tell me more.", "Thanks for sharing that with me.",
           "I hope the rest of your day goes well.", "Interesting! How did that feel?",
           "Good to know.", "That must have been fun."]


def impression_chat(alike_replies: bool, facts: list[Any] | None = None
                    ) -> list[tuple[str, str]]:
    """30 exchanges: the 8 facts spread among small talk (one reply for all when `alike`)."""
    talk = list(SMALL_TALK)
    out: list[tuple[str, str]] = []
    for i, (fact, _, _) in enumerate(facts or FACTS):
        out += [(talk.pop(0), REPLIES[(3 * i) % len(REPLIES)]),
                (fact, REPLIES[(3 * i + 1) % len(REPLIES)])]
        if i % 2:
            out.append((talk.pop(0), REPLIES[(3 * i + 2) % len(REPLIES)]))
    out += [(t, REPLIES[k % len(REPLIES)]) for k, t in enumerate(talk[:30 - len(out)])]
    if alike_replies:
        out = [(user, "Thanks for telling me.") for user, _ in out]
    return out


def first_impression(model: Any, data_dir: Path, emb: Any, alike_replies: bool = False,
                     max_tokens: int | None = None, fact_set: str = "main") -> dict[str, Any]:
    """Facts said weeks ago, asked about through engine.chat: facts answered, repeats."""
    facts = FACT_SETS[fact_set]
    settings = {} if max_tokens is None else {"answer_max_tokens": max_tokens}
    engine = common.make_engine(data_dir, model=model, emb=emb, **settings)
    start = time.time() - 40 * DAY
    for n, (user, reply) in enumerate(impression_chat(alike_replies, facts)):
        engine.add_exchange("newcomer", user, reply, timestamp=start + n * DAY)
    answers, answered, repeated, mixed, echoed, sources = [], 0, 0, 0, 0, []
    earlier: list[str] = []
    for n, (_, question, gold) in enumerate(facts):
        result = engine.chat("newcomer", question)
        text = result["answer"]
        hit = all(g in text.lower() for g in gold)
        # another fact's answer in this one: the small model mixed two memories
        other = any(all(g in text.lower() for g in facts[k][2])
                    for k in range(len(facts)) if k != n)
        echo = result["source"] not in ("memory", "no memory") \
            and echoes_prompt(text, question, result["trace"]["prompt"])
        again = repeats_earlier(text, earlier)
        answered += hit
        repeated += again
        mixed += other
        echoed += echo
        earlier.append(text)
        sources.append(result["trace"].get("answer_source"))
        answers.append({"question": question, "answer": text[:300], "answered": hit,
                        "repeat": again, "mixed": other, "echo": echo,
                        "source": result["trace"].get("answer_source")})
    engine.store.close()
    return {"fact_set": fact_set, "alike_replies": alike_replies, "facts": len(facts),
            "answered": answered, "answered_share": round(answered / len(facts), 3), "repeats": repeated,
            "mixed": mixed, "echoes": echoed,
            "answer_sources": {s: sources.count(s) for s in set(sources)}, "answers": answers}


def repeats_earlier(answer: str, earlier: list[str]) -> bool:
    """An answer with 80% or more of its words in one earlier answer."""
    from memoryos_core.answer.answer_guard import repeats

    return repeats(answer, earlier)


def echoes_prompt(text: str, question: str, messages: list[dict[str, str]]) -> bool:
    """The answer copies a line of its prompt, a role label, or narrates the chat."""
    from memoryos_core.answer import answer_guard

    lines = answer_guard._prompt_lines(messages)
    return answer_guard._final_reason(text, [], question, lines) in ("echo", "narration")
