"""Official LoCoMo answer scoring: the package's (memoryos_core.evaluation.scoring)."""

from memoryos_core.evaluation.scoring import (  # noqa: F401 - the benchmarks' names for them
    STEM,
    STEMMER,
    bleu1,
    f1_multi,
    f1_score,
    gold_answer,
    normalize_answer,
    score,
)
