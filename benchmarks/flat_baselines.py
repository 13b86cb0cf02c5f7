"""Flat baselines at equal tokens: the package's (memoryos_core.evaluation.baselines), under the
names the answer benchmark calls them by."""

from __future__ import annotations

from typing import Any

from memoryos_core.answer import retrieval
from memoryos_core.evaluation import baselines
from memoryos_core.evaluation.baselines import DEPTH, RRF_K, dense_ranking, rrf  # noqa: F401
from memoryos_core.text import keywords


def bm25_ranking(engine: Any, user: str, question: str, filtered: bool = False) -> list[int]:
    """Mid-term pages by the store's keyword search over the question's content words
    (`filtered`: the words found in many exchanges dropped first, as the product does)."""
    words = keywords(question, 16)
    if filtered:
        words = retrieval.distinctive_words(engine.ctx, user, words)
    return baselines.bm25_ranking(engine, user, words)
