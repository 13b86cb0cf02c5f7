"""One answer from the chat model, guarded against repeating an earlier reply.

A 135M model given a history of alike replies answers every question with that reply (measured:
8 of 8 questions answered "Thanks for telling me."), and often says the question back or a line
of its prompt. An answer whose words are mostly those of an earlier reply, or that echoes the
prompt, is generated again without the recent conversation and with more randomness; if it
still fails, the user gets the memory lines the model was given, never the repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ModelError
from ..llm import ChatModel
from ..memory.grounding import content_words, grounding
from ..text import count_tokens, strip_think, words

REPEAT_SHARE = 0.8  # 80% or more of the same words as an earlier reply: a repeat
FIRST_TEMPERATURE = 0.3
RETRY_TEMPERATURE = 0.8
# the compact prompt's own lines: an answer holding one copied the prompt, it did not answer
SCAFFOLD = ("user's message", "recent conversation:",
            "memory (what the user told you", "current time:", "answer the user's message")
EVIDENCE_GROUNDING = 0.5  # share of an answer's own words the best memory line must hold
FALLBACK_LINES = 2  # memory lines shown when the model cannot answer without repeating


def repeats(answer: str, earlier: list[str]) -> bool:
    """True when an earlier reply and the answer share 80% or more of the words of each.

    Both ways: an answer that quotes part of a longer earlier reply (the same fact asked
    again) is not a repeat; the same sentence said again is.
    """
    mine = set(words(answer))
    if not mine:
        return False
    for reply in earlier:
        theirs = set(words(reply))
        if theirs and len(mine & theirs) >= REPEAT_SHARE * max(len(mine), len(theirs)):
            return True
    return False


@dataclass
class Reply:
    """The answer that reaches the user, its token counts and how it was reached."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: list[dict[str, Any]] = field(default_factory=list)
    source: str = "model"  # model | retry | memory lines
    evidence_shown: bool = False  # the best memory line was shown beside the answer


def _without_recent(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The compact prompt without its recent-conversation lines (what the model copied)."""
    content = messages[-1]["content"].split("\n")
    if "Recent conversation:" not in content:
        return messages
    start = content.index("Recent conversation:")
    end = start + 1
    while end < len(content) and content[end].startswith(("User: ", "Assistant: ")):
        end += 1
    return [*messages[:-1], {"role": "user", "content": "\n".join(content[:start]
                                                                   + content[end:])}]


def _fallback(remembered: list[str]) -> str:
    """What the user gets when the model can only repeat itself: the memory it was given."""
    if not remembered:
        return "I don't find anything about that in my memory of our conversations."
    return ("Here is what I remember that may answer this:\n"
            + "\n".join(f"- {line}" for line in remembered[:FALLBACK_LINES]))


def _complete(llm: ChatModel, messages: list[dict[str, str]], max_tokens: int,
              temperature: float) -> tuple[str, int, int]:
    done = llm.complete(messages, max_tokens=max_tokens, temperature=temperature)
    return strip_think(done.text), done.prompt_tokens, done.completion_tokens


def echoes(answer: str, question: str) -> bool:
    """True when the answer copies the prompt instead of answering: the question said back
    (80% or more of its words, and little else) or a line of the prompt's own scaffolding."""
    if any(phrase in answer.lower() for phrase in SCAFFOLD):
        return True
    mine, asked = set(words(answer)), set(words(question))
    return bool(asked) and len(mine & asked) >= REPEAT_SHARE * max(len(mine), len(asked))


def _attempt(text: str, earlier: list[str], question: str) -> dict[str, Any]:
    """One attempt as the trace keeps it: what it said, whether it repeats or echoes."""
    return {"text": text[:200], "repeat": repeats(text, earlier),
            "echo": bool(question) and echoes(text, question)}


def _answers(text: str, attempt: dict[str, Any]) -> bool:
    """An attempt is an answer when it said something that neither repeats nor echoes."""
    return bool(text) and not (attempt["repeat"] or attempt["echo"])


def guarded_reply(llm: ChatModel, messages: list[dict[str, str]], earlier: list[str],
                  remembered: list[str], max_tokens: int, question: str = "") -> Reply:
    """The small model's answer, regenerated or replaced by memory lines when it repeats an
    earlier reply or echoes the prompt."""
    text, p_tok, c_tok = _complete(llm, messages, max_tokens, FIRST_TEMPERATURE)
    reply = Reply(text, p_tok, c_tok, [_attempt(text, earlier, question)])
    if _answers(text, reply.attempts[-1]):
        return reply
    text, p_tok, c_tok = _complete(llm, _without_recent(messages), max_tokens,
                                   RETRY_TEMPERATURE)
    reply.prompt_tokens += p_tok
    reply.completion_tokens += c_tok
    reply.attempts.append(_attempt(text, earlier, question))
    if _answers(text, reply.attempts[-1]):
        reply.text, reply.source = text, "retry"
        return reply
    reply.text, reply.source = _fallback(remembered), "memory lines"
    return reply


def streamed_reply(llm: ChatModel, messages: list[dict[str, str]], earlier: list[str],
                   max_tokens: int, on_token: Callable[[str], None] | None) -> Reply:
    """A capable model's answer, streamed when asked; a repeat is only noted in the trace."""
    if on_token is None:
        done = llm.complete(messages, max_tokens=max_tokens)
        text, p_tok, c_tok = strip_think(done.text), done.prompt_tokens, done.completion_tokens
    else:
        pieces = []
        for piece in llm.stream(messages, max_tokens=max_tokens):
            pieces.append(piece)
            on_token(piece)
        text = strip_think("".join(pieces))  # streams carry no usage: count as the prompt was
        p_tok = sum(count_tokens(m["content"]) for m in messages)
        c_tok = count_tokens(text)
    return Reply(text, p_tok, c_tok, [{"text": text[:200], "repeat": repeats(text, earlier)}])


def with_evidence(reply: Reply, evidence: tuple[str, str] | None, question: str) -> Reply:
    """A small model's answer whose own words (those not in the question) mostly come from
    outside the best memory line gets that line beside it: the user sees what the memory found,
    not only what the model made of it. `evidence`: (the line as shown, the words it was said in)."""
    if evidence is None or reply.source == "memory lines":
        return reply
    asked = words(question)
    # one shared word is not grounding: "a green Toyota" for "a green Subaru" is another car
    if content_words(evidence[1], asked) \
            and grounding(reply.text, evidence[1], asked) < EVIDENCE_GROUNDING:
        reply.text = f"{reply.text}\n(What I remember: {evidence[0]})"
        reply.evidence_shown = True
    return reply


def answer(llm: ChatModel, layout: str, messages: list[dict[str, str]], earlier: list[str],
           remembered: list[str], max_tokens: int,
           on_token: Callable[[str], None] | None = None, question: str = "",
           evidence: tuple[str, str] | None = None) -> Reply:
    """The reply for a prompt of `layout`; a compact (small-model) answer is guarded and
    shown with the best memory line (`evidence`) when it does not use it."""
    if layout != "compact":
        reply = streamed_reply(llm, messages, earlier, max_tokens, on_token)
    else:
        reply = with_evidence(guarded_reply(llm, messages, earlier, remembered, max_tokens,
                                            question), evidence, question)
        if on_token is not None and reply.text:
            on_token(reply.text)  # checked before it is shown: a repeat never reaches the user
    if not reply.text:
        raise ModelError(f"chat model {llm.name!r} returned an empty answer")
    return reply
