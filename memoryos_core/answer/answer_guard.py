"""One answer from the chat model, streamed as it is written and guarded while it grows.

A 135M model given a history of alike replies answers every question with that reply (measured:
8 of 8 questions answered "Thanks for telling me."), says the question back, copies a line of
its prompt ("User: Hi! My name is Priya…") or narrates the chat ("The user thanked the AI
for…"). Its answer is streamed token by token and checked as it grows: a copied prompt line or
a narration cuts the stream at once, a repeat of an earlier answer is caught when it ends.
Either way the shown text is replaced (the host is told, with the reason: the user never sees a
repeat unmarked), the answer is generated again without the recent conversation and with more
randomness, and if that fails too the user gets a short plain reply of ours. Every attempt is
kept in the trace. Questions on memory never reach this guard with the small model: they are
answered from memory (`grounded`).
"""

from __future__ import annotations

import inspect
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import ModelError, Stopped
from ..llm import ChatModel
from ..text import STOP_WORDS, count_tokens, strip_think, words
from .courtesy import plain_reply

REPEAT_SHARE = 0.8  # 80% or more of the same words as an earlier reply: a repeat
FIRST_TEMPERATURE = 0.3
RETRY_TEMPERATURE = 0.8
# the compact prompt's own lines: an answer holding one copied the prompt, it did not answer
SCAFFOLD = ("user's message", "recent conversation:",
            "memory (what the user told you", "current time:", "answer the user's message")
# a small model narrating the chat instead of taking part in it
NARRATION = ("the user ", "the user's ", "the ai ", "an ai ", "the assistant ", "user asked",
             "assistant provided", "helpful ai", "helpful assistant", "your job")
# the app's own answers from memory: the small model imitating them invents a memory
APP_ANSWER = ("you told me", "i don't remember you telling me")
# someone (the user, by the name they just gave) called an assistant: "Priya is a wonderful AI
# assistant…", the model taking the user for itself
_CALLED_ASSISTANT = re.compile(r"\b(?!i\b)[a-z]+ (?:is|was) (?:an?|the|your) (?:[\w-]+ ){0,3}"
                               r"(?:ai|assistant|chatbot)\b")
ECHO_LINE_WORDS = 4  # a prompt line this long said back (80% of its words) is an echo
# SmolLM2 opens many replies with a quiz scaffold ("The answer is: Paris", "A: …"): dropped
# while held back, so it is never shown
_SCAFFOLD = re.compile(r"^\s*(?:the answer is|answer|a)\s*:\s*", re.IGNORECASE)
HOLDBACK_CHARS = 24  # shown this far behind the model: "The user thanked…" is cut unseen
REASONS = {"repeat": "the model repeated an earlier answer",
           "echo": "the model copied its prompt",
           "narration": "the model described the chat instead of answering",
           "empty": "the model gave no answer"}

Event = Callable[[str, dict[str, Any]], None]


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
    source: str = "model"  # model | retry | plain | memory | no memory
    first_token_s: float | None = None  # seconds from the call to the first shown piece
    generating_s: float = 0.0  # seconds the model spent on the answer that was kept
    sent: list[dict[str, str]] | None = None  # the kept answer's messages, if not the prompt's


def _without_recent(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The prompt without its recent exchanges (what the model copied): the turns of a chat,
    or the lines of a one-message prompt."""
    if len(messages) > 2 and messages[0]["role"] == "system":
        return [messages[0], messages[-1]]
    content = messages[-1]["content"].split("\n")
    if "Recent conversation:" not in content:
        return messages
    start = content.index("Recent conversation:")
    end = start + 1
    while end < len(content) and content[end].startswith(("User: ", "Assistant: ")):
        end += 1
    return [*messages[:-1], {"role": "user", "content": "\n".join(content[:start]
                                                                   + content[end:])}]


def echoes(answer: str, question: str) -> bool:
    """True when the answer copies the prompt instead of answering: the question said back
    (80% or more of its words, and little else) or a line of the prompt's own scaffolding."""
    if any(phrase in answer.lower() for phrase in SCAFFOLD):
        return True
    asked = set(words(question))
    return bool(asked) and _says_back(set(words(answer)), asked)


def _prompt_lines(messages: list[dict[str, str]]) -> list[set[str]]:
    """The word sets of the prompt's lines long enough that saying one back is an echo."""
    out = []
    for m in messages:
        for line in m["content"].split("\n"):
            said = set(words(line.split(": ", 1)[-1]))
            if len(said) >= ECHO_LINE_WORDS:
                out.append(said)
    return out


def cut_reason(text: str, question: str, lines: list[set[str]]) -> str | None:
    """Why a growing answer must be cut now: it copies a prompt line or narrates; else None."""
    low = " " + " ".join(text.lower().split())
    asked = question.lower()
    for line in text.split("\n"):
        if line.strip().lower().startswith(("user:", "assistant:")):
            return "echo"
    if any(p in low for p in SCAFFOLD):
        return "echo"
    if any(" " + p in low and p not in asked for p in NARRATION) \
            or _CALLED_ASSISTANT.search(low):
        return "narration"
    if any(" " + p in low for p in APP_ANSWER):
        return "echo"
    for sentence in text.replace("\n", ". ").split(". ")[:-1]:  # whole sentences only
        said = set(words(sentence))
        if len(said) >= ECHO_LINE_WORDS and any(_says_back(said, line) for line in lines):
            return "echo"
    return None


# words that carry no answer: "Aw, shucks! What's the capital of France?" says the question back
_FILLER = frozenset("aw aww shucks oh ooh wow hmm hmmm yes yeah yep sure okay well haha great"
                    " good nice question asked asking ah".split())


def _says_back(said: set[str], line: set[str]) -> bool:
    """80% of the same words and no content word of its own ("Paris is the capital of
    France." answers "What is the capital of France?")."""
    said = said - _FILLER
    new = [w for w in said - line if w not in STOP_WORDS and len(w) > 2]
    return not new and len(said & line) >= REPEAT_SHARE * max(len(said), len(line))


def _final_reason(text: str, earlier: list[str], question: str,
                  lines: list[set[str]]) -> str | None:
    """Why a finished answer cannot be shown (empty, repeat, echo, narration), or None."""
    if not text.strip():
        return "empty"
    if repeats(text, earlier):
        return "repeat"
    if question and echoes(text, question):
        return "echo"
    tail = cut_reason(text + ". ", question, lines)  # the last sentence, now whole
    return tail


def _open_stream(llm: ChatModel, messages: list[dict[str, str]], max_tokens: int,
                 temperature: float, stop: threading.Event | None) -> Iterator[str]:
    """The model's stream, given the stop event where the model takes one (it then ends its
    generation, or closes its HTTP stream, as soon as the user presses Stop)."""
    params = inspect.signature(llm.stream).parameters
    if stop is not None and "stop" in params:
        return llm.stream(messages, max_tokens=max_tokens, temperature=temperature,
                          stop=stop)  # type: ignore[call-arg]
    return llm.stream(messages, max_tokens=max_tokens, temperature=temperature)


@dataclass
class _Attempt:
    text: str
    reason: str | None
    shown: bool
    first_token_s: float | None
    seconds: float
    prompt_tokens: int = 0  # the model's own counts, where it gave them (not on streams)
    completion_tokens: int = 0


def _visible(raw: str, guarded: bool) -> str:
    """What of the model's text the user may see: no think block; for the small model no
    quiz scaffold either."""
    text = strip_think(raw)
    return _SCAFFOLD.sub("", text, count=1) if guarded else text


def _stream_attempt(llm: ChatModel, messages: list[dict[str, str]], max_tokens: int,
                    temperature: float, question: str, lines: list[set[str]],
                    earlier: list[str],
                    on_token: Callable[[str], None] | None, stop: threading.Event | None,
                    started: float, guarded: bool) -> _Attempt:
    """One streamed generation, shown piece by piece; cut as soon as it must be replaced."""
    t0 = time.perf_counter()
    if on_token is None and stop is None:  # nobody watches it grow: one call, exact usage
        done = llm.complete(messages, max_tokens=max_tokens, temperature=temperature)
        text = _visible(done.text, guarded)
        return _Attempt(text, _final_reason(text, earlier, question, lines) if guarded
                        else None, False, None, time.perf_counter() - t0, done.prompt_tokens,
                        done.completion_tokens)
    pieces: list[str] = []
    shown, first = 0, None  # characters of the visible text shown so far

    def show(upto: int, text: str) -> None:
        nonlocal shown, first
        if on_token is not None and upto > shown:
            if first is None:
                first = time.perf_counter() - started
            on_token(text[shown:upto])
            shown = upto

    stream = _open_stream(llm, messages, max_tokens, temperature, stop)
    try:
        for piece in stream:
            if stop is not None and stop.is_set():
                raise Stopped("the answer was stopped")
            pieces.append(piece)
            text = _visible("".join(pieces), guarded)
            if guarded:
                reason = cut_reason(text, question, lines)
                if reason is not None:
                    return _Attempt(text, reason, shown > 0, first, time.perf_counter() - t0)
            # an opening "<think>" block is held back whole: strip_think hides it
            show(max(shown, len(text) - (HOLDBACK_CHARS if guarded else len("<think>"))), text)
    except ModelError:
        if stop is not None and stop.is_set():
            raise Stopped("the answer was stopped") from None
        raise
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # ends the model's loop or its HTTP stream when we cut it short
    if stop is not None and stop.is_set():
        raise Stopped("the answer was stopped")
    text = _visible("".join(pieces), guarded)
    reason = _final_reason(text, earlier, question, lines) if guarded else None
    if reason is None:
        show(len(text), text)  # the held-back tail of an answer that stands
    return _Attempt(text, reason, shown > 0, first, time.perf_counter() - t0)


def model_reply(llm: ChatModel, messages: list[dict[str, str]], earlier: list[str],
                max_tokens: int, *, question: str = "", kind: str = "chat",
                guarded: bool = True, on_token: Callable[[str], None] | None = None,
                on_event: Event | None = None, stop: threading.Event | None = None) -> Reply:
    """The model's streamed answer; `guarded` (the small model): cut, replaced and retried
    when it repeats or echoes, then a plain reply of ours; a capable model's answer is only
    checked for repeats in the trace."""
    started = time.perf_counter()
    lines = _prompt_lines(messages) if guarded else []
    reply = Reply("")
    plan = [(messages, FIRST_TEMPERATURE, "model"),
            (_without_recent(messages), RETRY_TEMPERATURE, "retry")] if guarded \
        else [(messages, FIRST_TEMPERATURE, "model")]
    for prompt, temperature, source in plan:
        got = _stream_attempt(llm, prompt, max_tokens, temperature, question, lines, earlier,
                              on_token, stop, started, guarded)
        reason = got.reason
        reply.prompt_tokens += got.prompt_tokens or sum(count_tokens(m["content"])
                                                        for m in prompt)
        reply.completion_tokens += got.completion_tokens or count_tokens(got.text)
        reply.attempts.append({"text": got.text[:200], "repeat": repeats(got.text, earlier),
                               "echo": reason in ("echo", "narration"), "reason": reason})
        if reply.first_token_s is None:
            reply.first_token_s = got.first_token_s
        if reason is None:
            reply.text, reply.source, reply.generating_s = got.text, source, got.seconds
            reply.sent = prompt if prompt is not messages else None  # the retry's own
            return reply
        if got.shown and on_event is not None:
            on_event("replace", {"reason": REASONS[reason]})
    reply.text, reply.source = plain_reply(kind, question), "plain"
    if on_token is not None:
        if reply.first_token_s is None:
            reply.first_token_s = time.perf_counter() - started
        on_token(reply.text)
    return reply


def said(text: str, source: str, on_token: Callable[[str], None] | None) -> Reply:
    """An answer built from memory: shown at once, no model call."""
    if on_token is not None:
        on_token(text)
    return Reply(text, source=source, first_token_s=0.0,
                 attempts=[{"text": text[:200], "repeat": False, "echo": False,
                            "reason": None, "built": True}])


def answer(llm: ChatModel, layout: str, messages: list[dict[str, str]], earlier: list[str],
           max_tokens: int, *, built: str | None = None, built_source: str = "memory",
           kind: str = "chat", on_token: Callable[[str], None] | None = None,
           on_event: Event | None = None, stop: threading.Event | None = None,
           question: str = "") -> Reply:
    """The reply for a prompt of `layout`: `built` (a memory answer) as it is, else the
    model's, guarded for a compact (small-model) prompt."""
    if built is not None:
        reply = said(built, built_source, on_token)
    else:
        reply = model_reply(llm, messages, earlier, max_tokens, question=question, kind=kind,
                            guarded=layout == "compact", on_token=on_token,
                            on_event=on_event, stop=stop)
    if not reply.text.strip():
        raise ModelError(f"chat model {llm.name!r} returned an empty answer")
    return reply
