"""Structured (JSON) model calls: parse tolerantly, validate, retry with the error, then give up."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import ModelError, StructuredOutputError
from ..text import strip_think
from .base import ChatModel, Completion, Message

T = TypeVar("T")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json(text: str) -> Any:
    """The JSON value in a reply, tolerating <think> blocks, code fences and chatter around it."""
    text = strip_think(text)
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    text = text.strip()
    try:
        return json.loads(text, strict=False)  # small models put raw newlines inside strings
    except json.JSONDecodeError:
        pass
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError("the reply holds no JSON")
    decoder = json.JSONDecoder(strict=False)
    value, _ = decoder.raw_decode(text[start:])
    return value


def call_structured(
    model: ChatModel, messages: list[Message], schema: dict[str, Any],
    validate: Callable[[Any], T], *, retries: int, max_tokens: int,
    on_call: Callable[[Completion], None] | None = None,
) -> T:
    """Ask for JSON, validate it, retry with the validation error; StructuredOutputError at last."""
    attempt_messages = list(messages)
    last_error = "no attempt"
    for _ in range(retries + 1):
        completion = model.complete(
            attempt_messages, max_tokens=max_tokens, temperature=0.2, json_schema=schema
        )
        if on_call is not None:
            on_call(completion)
        try:
            return validate(parse_json(completion.text))
        except (ValueError, TypeError, KeyError) as exc:
            last_error = str(exc) or type(exc).__name__
            attempt_messages = [
                *messages,
                {"role": "assistant", "content": completion.text[:2000]},
                {"role": "user", "content": f"That reply was not valid: {last_error}. "
                 "Reply again with only the JSON object."},
            ]
        except ModelError:
            raise
    raise StructuredOutputError(f"model output stayed invalid: {last_error}")
