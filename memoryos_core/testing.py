"""Test doubles at the model boundaries: a scripted chat model, a hashing embedder (no torch)."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .errors import ModelError
from .llm.base import Completion, Message
from .text import count_tokens

Reply = str | Exception | Callable[[list[Message], dict[str, Any] | None], str]


class ScriptedChatModel:
    """Replies from a queue (text, exception or callable); records prompts. Never a default."""

    def __init__(
        self, replies: list[Reply] | None = None, default: Reply | None = None,
        name: str = "scripted", context_window: int = 8192,
    ) -> None:
        self.name = name
        self.context_window = context_window
        self.replies: deque[Reply] = deque(replies or [])
        self.default = default
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def enqueue(self, *replies: Reply) -> None:
        """Add replies to the end of the queue."""
        with self._lock:
            self.replies.extend(replies)

    def complete(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        """Pop the next scripted reply (or use the default); raise it if it is an exception."""
        with self._lock:
            self.calls.append({"messages": messages, "json_schema": json_schema})
            reply = self.replies.popleft() if self.replies else self.default
        if reply is None:
            raise ModelError("scripted model has no reply left")
        if isinstance(reply, Exception):
            raise reply
        text = reply(messages, json_schema) if callable(reply) else reply
        return Completion(
            text=text, model=self.name,
            prompt_tokens=sum(count_tokens(m["content"]) for m in messages),
            completion_tokens=count_tokens(text),
        )

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3
    ) -> Iterator[str]:
        """The next reply, word by word."""
        text = self.complete(messages, max_tokens=max_tokens).text
        for i, word in enumerate(text.split(" ")):
            yield word if i == 0 else " " + word

    @property
    def prompts(self) -> list[str]:
        """The last message of every call, in order."""
        return [c["messages"][-1]["content"] for c in self.calls]


def fill_schema(schema: dict[str, Any], text: str = "filler") -> Any:
    """A minimal value that satisfies a JSON schema; integer enums in arrays are used whole.

    Strings are `text` (cut to the schema's maxLength).
    """
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {name: fill_schema(sub, text) for name, sub in props.items()}
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items:
            return list(items["enum"])
        return [fill_schema(items, text)] if schema.get("minItems", 0) > 0 else []
    if kind == "integer":
        return 0
    if kind == "number":
        return 0.0
    if kind == "boolean":
        return True
    return text[: schema.get("maxLength", len(text))]


_PAGE_LINE = re.compile(r"^\[(?:p?\d+)\] \([^)]*\) User: (.*)$", re.MULTILINE)


def page_words(messages: list[Message]) -> str:
    """Words of the first dialogue page in a maintenance prompt (a grounded filler text)."""
    for message in messages:
        match = _PAGE_LINE.search(message["content"])
        if match:
            found = " ".join(match.group(1).replace("| Assistant:", " ").split()[:8])
            if len(found) >= 8:
                return found
    return "filler"


def schema_filler(messages: list[Message], json_schema: dict[str, Any] | None) -> str:
    """Default reply for an instant fake: valid JSON for structured calls, else a short answer."""
    if json_schema is None:
        return "Noted."
    return json.dumps(fill_schema(json_schema, page_words(messages)))


_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Deterministic hashed bag of words and word trigrams: no model, starts in milliseconds.

    Texts that share words get near vectors (cosine grows with the words in common); a word's
    character trigrams count too, at half weight, so "run" and "running" are near as well.
    Nothing else of meaning is there: tests that need synonyms or paraphrase need the real model.
    """

    def __init__(self, name: str = "hash-384", dim: int = 384) -> None:
        self.name = name
        self.dim = dim

    def _bucket(self, feature: str) -> int:
        # blake2b, not hash(): Python salts str hashes per process, vectors must not change
        digest = hashlib.blake2b(feature.encode(), digest_size=4).digest()
        return int.from_bytes(digest, "little") % self.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, shape (len(texts), dim); empty text is a fixed unit."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                out[i, self._bucket(word)] += 1.0
                padded = f"<{word}>"
                for k in range(len(padded) - 2):
                    out[i, self._bucket("#" + padded[k:k + 3])] += 0.5
            norm = float(np.linalg.norm(out[i]))
            if norm:
                out[i] /= norm
            else:
                out[i, 0] = 1.0
        return out
