"""The optional answering step: a chat model answers each question from a strategy's context,
scored with LoCoMo's official F1 and BLEU-1.

Every strategy gets the same short prompt around its own context, so only the context differs.
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import MemoryOSError
from ..llm import ChatModel
from ..text import count_tokens, truncate_tokens
from . import scoring

SYSTEM = ("You answer questions about a long conversation between two people, using only the"
          " context below ('User' and 'Assistant' are the two speakers). Reply with a short"
          " phrase, no explanation. Dates: use the dates shown in the context. If the context"
          " does not contain the answer, reply exactly: Not mentioned in the conversation.")


class Answerer:
    """Asks a chat model for a short answer per (question, context) and scores it."""

    def __init__(self, model: ChatModel, max_tokens: int = 64) -> None:
        self.model = model
        self.max_tokens = max_tokens

    def answer(self, qa: dict[str, Any], context: str) -> dict[str, Any]:
        """The prediction, its time, an error if the model failed (scored 0), F1 and BLEU-1."""
        room = self.model.context_window - self.max_tokens - count_tokens(SYSTEM) - 120
        if count_tokens(context) > room:  # the model's window is the hard limit
            context = truncate_tokens(context, max(0, room))
        messages = [{"role": "system", "content": f"{SYSTEM}\n\nContext:\n{context}"},
                    {"role": "user", "content": f"Question: {qa['question']}\nShort answer:"}]
        t0 = time.perf_counter()
        try:
            text = self.model.complete(messages, max_tokens=self.max_tokens,
                                       temperature=0.0).text.strip()
            error = None
        except MemoryOSError as exc:  # a failed answer scores 0 and is counted
            text, error = "", f"{type(exc).__name__}: {exc}"
        ms = (time.perf_counter() - t0) * 1000
        return {"prediction": text[:300], "answer_ms": round(ms, 1), "error": error,
                **scoring.score(qa, text)}
