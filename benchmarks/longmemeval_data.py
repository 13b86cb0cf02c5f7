"""LongMemEval data: load question files, evidence turns, and the LoCoMo layout of a question.

A LongMemEval question (Wu et al., ICLR 2025) carries its own user-assistant history:
`haystack_sessions` (lists of turns {role, content, has_answer?}) dated by `haystack_dates`
("2023/05/30 (Tue) 17:14"). Turns are named like LoCoMo's dia_ids, "D<session>:<turn>", both
1-based in the file's session order: the engine's `longmemeval` import reports the same names
in its `refs`, and `to_locomo` writes them, so evidence maps to exchanges either way.

Question types map to LoCoMo categories (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial) by what answering needs:
- single-session-user, single-session-assistant -> 4: one fact stated in one session;
- multi-session -> 1: facts from several sessions combined;
- knowledge-update -> 1: the old and the new value live in different sessions, and the answer
  needs the later one (LoCoMo has no category of its own for this);
- temporal-reasoning -> 2: dates and durations;
- single-session-preference -> 3: an answer inferred from the user's tastes, not a stated fact;
- any question whose id ends in "_abs" (abstention) -> 5: the history does not hold the answer.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from memoryos_core.transfer.longmemeval import lme_time

from .common import ROOT

LONGMEMEVAL_DEV = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_dev30.json"
CATEGORY_OF_TYPE = {
    "single-session-user": 4, "single-session-assistant": 4, "multi-session": 1,
    "knowledge-update": 1, "temporal-reasoning": 2, "single-session-preference": 3,
}
SPEAKERS = {"user": "User", "assistant": "Assistant"}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # not %B: that follows the locale


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


def category(question: dict[str, Any]) -> int:
    """The LoCoMo category of a question (see the module docstring); 0 for an unknown type."""
    if str(question.get("question_id", "")).endswith("_abs"):
        return 5
    return CATEGORY_OF_TYPE.get(str(question.get("question_type")), 0)


def evidence_ids(question: dict[str, Any]) -> list[str]:
    """Dia_ids of the turns marked has_answer; else every turn of the answer sessions."""
    sessions = question.get("haystack_sessions") or []
    marked = [f"D{s}:{t}" for s, turns in enumerate(sessions, start=1)
              for t, turn in enumerate(turns, start=1)
              if isinstance(turn, dict) and turn.get("has_answer") is True]
    if marked:
        return marked
    answer_sessions = set(question.get("answer_session_ids") or [])
    session_ids = question.get("haystack_session_ids") or []
    return [f"D{s}:{t}" for s, (sid, turns) in enumerate(zip(session_ids, sessions, strict=False),
                                                         start=1)
            if sid in answer_sessions for t in range(1, len(turns) + 1)]


def question_time(question: dict[str, Any]) -> float:
    """The moment the question is asked (question_date), seconds since the epoch (UTC)."""
    return lme_time(question.get("question_date"), f"question {question.get('question_id')}")


def locomo_date(text: str) -> str:
    """'2023/05/30 (Tue) 17:14' in LoCoMo's words: '5:14 pm on 30 May, 2023'."""
    moment = dt.datetime.fromtimestamp(lme_time(text, "date"), dt.UTC)
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    return f"{hour}:{moment.minute:02d} {half} on {moment.day} {MONTHS[moment.month - 1]}, {moment.year}"


def to_locomo(question: dict[str, Any]) -> dict[str, Any]:
    """One LoCoMo sample for one question: its history as sessions, the question as its qa."""
    sessions = question.get("haystack_sessions") or []
    dates = question.get("haystack_dates") or []
    if len(dates) != len(sessions):
        raise ValueError(f"question {question.get('question_id')}: {len(sessions)} sessions but"
                         f" {len(dates)} haystack_dates")
    conversation: dict[str, Any] = {"speaker_a": "User", "speaker_b": "Assistant"}
    for s, (turns, date) in enumerate(zip(sessions, dates, strict=True), start=1):
        conversation[f"session_{s}_date_time"] = locomo_date(date)
        conversation[f"session_{s}"] = [
            {"speaker": SPEAKERS.get(str(turn.get("role")), str(turn.get("role"))),
             "dia_id": f"D{s}:{t}", "text": str(turn.get("content") or "")}
            for t, turn in enumerate(turns, start=1)]
    qa = {"question": question.get("question"), "answer": question.get("answer"),
          "evidence": evidence_ids(question), "category": category(question),
          "question_id": question.get("question_id"),
          "question_type": question.get("question_type"),
          "question_date": question.get("question_date")}
    return {"sample_id": str(question.get("question_id")), "conversation": conversation,
            "qa": [qa], "question_type": question.get("question_type"),
            "question_date": question.get("question_date")}
