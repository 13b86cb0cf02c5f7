"""The optional answering step of the LoCoMo benchmark: one model call per (question, context).

Every strategy gets the same short prompt around its own context, so only the context differs.
The model is an OpenAI-compatible endpoint (--base-url/--model) or the embedded local model.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from memoryos_core.evaluation import answering
from memoryos_core.evaluation import scoring as locomo_scoring

from . import common


class Answerer(answering.Answerer):
    """The package's answerer (memoryos_core.evaluation.answering) over an OpenAI-compatible
    endpoint (`base_url`) or the embedded local model."""

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, max_tokens: int = 64,
                 context_window: int = 8192) -> None:
        if base_url:
            from memoryos_core.llm import OpenAIChatModel

            chat: Any = OpenAIChatModel(model or "default", base_url=base_url,
                                        api_key=api_key or os.environ.get("OPENAI_API_KEY"),
                                        context_window=context_window)
        else:
            from memoryos_core.llm import default_chat_model

            chat = default_chat_model()
        super().__init__(chat, max_tokens)


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
