"""The optional answering step of the LoCoMo benchmark: one model call per (question, context).

Every strategy gets the same short prompt around its own context, so only the context differs.
The model is an OpenAI-compatible endpoint (--base-url/--model) or the embedded local model.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from memoryos_core.evaluation import scoring as locomo_scoring

from . import common

SYSTEM = ("You answer questions about a long conversation between two people, using only the"
          " context below ('User' and 'Assistant' are the two speakers). Reply with a short"
          " phrase, no explanation. Dates: use the dates shown in the context. If the context"
          " does not contain the answer, reply exactly: Not mentioned in the conversation.")


class Answerer:
    """Asks the answering model; scores with the official LoCoMo rules."""

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, max_tokens: int = 64,
                 context_window: int = 8192) -> None:
        if base_url:
            from memoryos_core.llm import OpenAIChatModel

            self.model = OpenAIChatModel(model or "default", base_url=base_url,
                                         api_key=api_key or os.environ.get("OPENAI_API_KEY"),
                                         context_window=context_window)
        else:
            from memoryos_core.llm import default_chat_model

            self.model = default_chat_model()
        self.max_tokens = max_tokens

    def answer(self, qa: dict[str, Any], context: str) -> dict[str, Any]:
        from memoryos_core.text import count_tokens, truncate_tokens

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
        except Exception as exc:  # noqa: BLE001 - a failed answer scores 0, counted
            text, error = "", f"{type(exc).__name__}: {exc}"
        ms = (time.perf_counter() - t0) * 1000
        scores = locomo_scoring.score(qa, text)
        return {"prediction": text[:300], "answer_ms": round(ms, 1), "error": error, **scores}


def aggregate(recs: list[dict[str, Any]], categories: dict[int, str]) -> dict[str, Any]:
    """Mean F1 / BLEU-1 overall and by category, answer latency, errors."""
    return locomo_scoring.answer_summary(recs, categories, common.percentile)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("answering (optional)")
    group.add_argument("--answer", action="store_true",
                       help="answer every question with a model and score the official F1")
    group.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint")
    group.add_argument("--model", default=None, help="model name at the endpoint")
    group.add_argument("--api-key", default=None, help="key (default $OPENAI_API_KEY)")
    group.add_argument("--answer-max-tokens", type=int, default=64)
    group.add_argument("--context-window", type=int, default=8192,
                       help="the endpoint model's context window")


def answer_args(args: argparse.Namespace) -> dict[str, Any] | None:
    if not args.answer:
        return None
    return {"base_url": args.base_url, "model": args.model, "api_key": args.api_key,
            "max_tokens": args.answer_max_tokens, "context_window": args.context_window}
