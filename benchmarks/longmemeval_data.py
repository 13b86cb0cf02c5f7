"""LongMemEval data for the benchmarks: the default file and its loading; the layout and the
category mapping are the package's (memoryos_core.evaluation.data, whose docstring has them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memoryos_core.evaluation.data import (  # noqa: F401 - the benchmarks' names for them
    CATEGORY_OF_TYPE,
    category,
    locomo_date,
    question_time,
    to_locomo,
)
from memoryos_core.evaluation.data import lme_evidence_ids as evidence_ids  # noqa: F401

from .common import ROOT

LONGMEMEVAL_DEV = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_dev30.json"


class LongMemEvalDataMissing(SystemExit):
    """No usable LongMemEval file: exits a benchmark with one line (no traceback)."""


def longmemeval_path() -> Path:
    """$MEMORYOS_LONGMEMEVAL, else ../shared/data/longmemeval/longmemeval_s_dev30.json."""
    env = os.environ.get("MEMORYOS_LONGMEMEVAL")
    path = Path(env) if env else LONGMEMEVAL_DEV
    if not path.is_file():
        raise LongMemEvalDataMissing(
            f"LongMemEval data not found at {path}: pass a LongMemEval JSON file or set"
            " MEMORYOS_LONGMEMEVAL=/path/to/longmemeval_s.json")
    return path


def load_longmemeval(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The question objects of a LongMemEval file (a list, or one question object)."""
    path = Path(path) if path else longmemeval_path()
    if not path.is_file():
        raise LongMemEvalDataMissing(f"LongMemEval data file {path} does not exist")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LongMemEvalDataMissing(f"{path} is not a LongMemEval JSON file: {exc}") from None
    questions = doc if isinstance(doc, list) else [doc]
    for n, q in enumerate(questions):
        if not isinstance(q, dict) or not isinstance(q.get("haystack_sessions"), list) \
                or "question_id" not in q:
            raise LongMemEvalDataMissing(f"{path}: question {n} is not a LongMemEval question"
                                         " (needs question_id and haystack_sessions)")
    return questions
