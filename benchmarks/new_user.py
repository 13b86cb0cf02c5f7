"""A new user's first chat, live: greetings, facts told, questions on them, general questions.

Every turn goes through `engine.chat` as the browser's does, and each answer is checked for
what a person reading it would notice: a fact asked about is in the answer; a fact told is not
taken by the assistant as its own ("I'm Dana, a nurse…"); a greeting or a thank-you is met in
kind; no prompt echo. The same chat runs twice in one run: as the product answers it, and with
the set replies (answer/courtesy.py) switched off, so the small model answers all small talk.

    python -m benchmarks.new_user [--json] [--trials N] [--base-url URL --model NAME]
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

from . import common

# (message, kind, words the answer must hold): made up for this check, never tuned on
CHAT = [
    ("Hi!", "greeting", []),
    ("My name is Dana and I work as a nurse in Bristol.", "told", []),
    ("I have a dog called Pepper.", "told", []),
    ("What's my name?", "recall", ["dana"]),
    ("What is my dog called?", "recall", ["pepper"]),
    ("Tell me a joke.", "general", []),
    ("What's the capital of France?", "general", ["paris"]),
    ("Where do I work?", "recall", ["nurse"]),
    ("I moved to Cardiff last week.", "told", []),
    ("Where do I live now?", "recall", ["cardiff"]),
    ("I'm feeling a bit stressed about work.", "feeling", []),
    ("Thanks!", "thanks", []),
    ("What do you know about me?", "recall", ["dana", "nurse", "pepper"]),
    ("Can you suggest a dinner recipe?", "general", []),
    ("Bye!", "goodbye", []),
]
IN_KIND = {"greeting": ("hello", "hi", "hey"), "thanks": ("welcome", "pleasure", "glad"),
           "goodbye": ("bye", "soon", "later", "care")}
# the assistant speaking the user's life as its own
USER_WORDS = ("dana", "nurse", "bristol", "pepper", "cardiff")
_OWN = ("i'm ", "i am ", "my name", "i work", "i have a dog", "i moved", "my dog")


def takes_user_for_itself(answer: str) -> bool:
    """The answer says, in the first person, one of the user's facts: "I'm Dana, a nurse"."""
    low = answer.lower()
    return any(own in low for own in _OWN) and any(w in low for w in USER_WORDS)


def check(message: str, kind: str, gold: list[str], result: dict[str, Any]) -> dict[str, Any]:
    """What a reader notices in one answer."""
    text = result["answer"]
    low = text.lower()
    right = all(g in low for g in gold)
    if kind in IN_KIND:
        right = any(w in low for w in IN_KIND[kind]) and not takes_user_for_itself(text)
    elif kind in ("told", "feeling"):
        right = not takes_user_for_itself(text) and "the user" not in low
    # the message said back as the answer ("Tell me a joke." -> "Tell me a joke.")
    echo = kind in ("recall", "general") and message.lower().strip(".!?") in low
    return {"message": message, "kind": kind, "answer": text[:300], "right": right and not echo,
            "took_user_for_itself": takes_user_for_itself(text), "echo": echo,
            "source": result["source"], "model_called": result["source"] in ("model", "retry",
                                                                              "plain")}


def one_chat(model: Any, emb: Any, data_dir: Path, set_replies: bool) -> dict[str, Any]:
    """The chat once; `set_replies` False leaves all small talk to the model."""
    engine = common.make_engine(data_dir, model=model, emb=emb)
    turns = []
    with contextlib.nullcontext() if set_replies else \
            mock.patch("memoryos_core.answer.courtesy.reply", return_value=None):
        for message, kind, gold in CHAT:
            turns.append(check(message, kind, gold, dict(engine.chat("newcomer", message))))
    engine.store.close()
    return {"set_replies": set_replies, "turns": len(turns),
            "right": sum(t["right"] for t in turns),
            "took_user_for_itself": sum(t["took_user_for_itself"] for t in turns),
            "echoes": sum(t["echo"] for t in turns),
            "model_calls": sum(t["model_called"] for t in turns), "answers": turns}


def run(model: Any, emb: Any, trials: int = 1) -> dict[str, Any]:
    """The product's chat and the baseline's, alternating, `trials` times each."""
    out: dict[str, Any] = {**common.envelope("new_user", {"trials": trials, "turns": len(CHAT)},
                                             {"embedder": "all-MiniLM-L6-v2",
                                              "answer": getattr(model, "name", "?")}),
                           "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(trials):
            for set_replies in (True, False) if n % 2 == 0 else (False, True):
                out["runs"].append(one_chat(model, emb, Path(tmp) / f"{n}{set_replies}",
                                            set_replies))
    for name, flag in (("product", True), ("model_for_small_talk", False)):
        runs = [r for r in out["runs"] if r["set_replies"] is flag]
        out[name] = {k: sum(r[k] for r in runs) for k in
                     ("turns", "right", "took_user_for_itself", "echoes", "model_calls")}
    return out


def summary(result: dict[str, Any]) -> str:
    """Both sides' counts, then every answer as a person reads it."""
    lines = []
    for name in ("product", "model_for_small_talk"):
        r = result[name]
        lines.append(f"{name}: {r['right']}/{r['turns']} right, {r['took_user_for_itself']} took"
                     f" the user's life for its own, {r['echoes']} echoes, {r['model_calls']}"
                     " model calls")
    for one in result["runs"]:
        for t in one["answers"]:
            lines.append(f"  [{'set' if one['set_replies'] else 'mdl'}] "
                         f"{'ok ' if t['right'] else 'BAD'} {t['message']!r} -> {t['answer']!r}")
    return "\n".join(lines)


def main() -> None:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    args = parser.parse_args()
    from .answers import answer_model

    result = run(answer_model(args.base_url, args.model), common.embedder(), args.trials)
    common.emit(result, args.json, summary(result))


if __name__ == "__main__":
    main()
