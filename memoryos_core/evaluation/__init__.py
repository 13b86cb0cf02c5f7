"""The evaluation lab's harness: LoCoMo / LongMemEval evidence recall on the product path."""

from .conversation import STRATEGIES
from .data import CATEGORIES, EvaluationInputError, parse
from .harness import DEFAULT_BUDGET, DEFAULT_WINDOW, run

__all__ = ["CATEGORIES", "DEFAULT_BUDGET", "DEFAULT_WINDOW", "STRATEGIES", "EvaluationInputError",
           "parse", "run"]
