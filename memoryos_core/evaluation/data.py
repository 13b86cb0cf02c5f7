"""Evaluation data: LoCoMo and LongMemEval files read, checked and turned into LoCoMo samples.

A LoCoMo file is a list of conversations (or one), each with `conversation` (speakers, dated
`session_<n>` turn lists with `dia_id`s) and `qa` (question, answer, evidence dia_ids,
category). A LongMemEval question (Wu et al., ICLR 2025) carries its own user-assistant history
(`haystack_sessions` dated by `haystack_dates`); each question becomes one LoCoMo sample whose
turns are named "D<session>:<turn>" (both 1-based, as the engine's LongMemEval import names
them) and whose one qa is the question, asked at its `question_date`.

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
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ImportFormatError, InvalidInput
from ..transfer.longmemeval import lme_time

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
CATEGORY_OF_TYPE = {
    "single-session-user": 4, "single-session-assistant": 4, "multi-session": 1,
    "knowledge-update": 1, "temporal-reasoning": 2, "single-session-preference": 3,
}
SPEAKERS = {"user": "User", "assistant": "Assistant"}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # not %B: that follows the locale
MAX_BYTES = 50 * 1024 * 1024  # as an import (a LoCoMo file is ~3 MB for 10 conversations)
DIA = re.compile(r"D\d+:\d+")


class EvaluationInputError(InvalidInput):
    """The file given to an evaluation is not usable; the message says what to fix."""


@dataclass
class Sample:
    """One conversation to import and question: a LoCoMo sample, its own file's bytes."""

    sample_id: str
    doc: dict[str, Any]
    source: bytes  # what the importer reads (the whole file, or this sample alone)
    now: float | None = None  # when the questions are asked (LongMemEval: question_date)
    question_type: str | None = None
    qa: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # questions that measure nothing


def evidence_ids(qa: dict[str, Any]) -> list[str]:
    """The dia_ids of a question's evidence (some entries hold several, e.g. 'D8:6; D9:17')."""
    out: list[str] = []
    for item in qa.get("evidence") or []:
        out += [d for d in DIA.findall(str(item)) if d not in out]
    return out


def _category(qa: dict[str, Any]) -> int:
    """A question's category as an int (0 when missing or not a number)."""
    try:
        return int(qa.get("category") or 0)
    except (TypeError, ValueError):
        return 0


def parse(data: bytes, name: str = "data") -> tuple[str, list[Sample]]:
    """('locomo' | 'longmemeval', samples) of a file's bytes; EvaluationInputError otherwise."""
    if len(data) > MAX_BYTES:
        raise EvaluationInputError(f"{name} is {len(data) / 1e6:.1f} MB; an evaluation file may"
                                   f" be {MAX_BYTES // (1024 * 1024)} MB at most")
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise EvaluationInputError(f"{name} is not text (UTF-8 JSON expected)") from None
    except json.JSONDecodeError as exc:
        raise EvaluationInputError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno},"
                                   f" column {exc.colno}") from None
    items = doc if isinstance(doc, list) else [doc]
    if not items or not all(isinstance(i, dict) for i in items):
        raise EvaluationInputError(f"{name} holds no conversation: expected a LoCoMo list of"
                                   " conversations or a LongMemEval list of questions")
    if all("haystack_sessions" in i for i in items):
        samples = [_lme_sample(q, n) for n, q in enumerate(items)]
        if all(s.warnings for s in samples):
            raise EvaluationInputError(f"{name}: no question has evidence (has_answer turns or"
                                       " answer_session_ids)")
        return "longmemeval", samples
    if all("conversation" in i for i in items):
        return "locomo", [_locomo_sample(c, n, data, name) for n, c in enumerate(items)]
    raise EvaluationInputError(
        f"{name} is neither LoCoMo (objects with 'conversation' and 'qa') nor LongMemEval"
        " (objects with 'haystack_sessions' and 'question')")


def _locomo_sample(conv: dict[str, Any], n: int, data: bytes, name: str) -> Sample:
    """A LoCoMo conversation checked: questions with evidence that names turns of its own."""
    where = f"conversation {n} ({conv.get('sample_id') or 'no sample_id'})"
    if not isinstance(conv.get("conversation"), dict):
        raise EvaluationInputError(f"{where}: 'conversation' must be an object of sessions")
    qas = conv.get("qa")
    if not isinstance(qas, list) or not qas:
        raise EvaluationInputError(f"{where}: no questions ('qa' must be a non-empty list)")
    turns = {str(t.get("dia_id")) for key, value in conv["conversation"].items()
             if key.startswith("session_") and isinstance(value, list)
             for t in value if isinstance(t, dict)}
    warnings: list[str] = []
    usable = 0
    for k, qa in enumerate(qas):
        if not isinstance(qa, dict) or not str(qa.get("question") or "").strip():
            raise EvaluationInputError(f"{where}, question {k}: needs a 'question' text")
        if _category(qa) == 5:
            continue  # adversarial questions have no answer in the conversation
        ids = evidence_ids(qa)
        unknown = [d for d in ids if d not in turns]
        if not ids:
            warnings.append(f"{where}, question {k}: no evidence ids; it has no recall")
        elif unknown:
            warnings.append(f"{where}, question {k}: evidence {', '.join(unknown[:3])} names no"
                            " turn of the conversation")
        usable += len(ids) > len(unknown)
    if not usable:
        # a file whose questions name no turn cannot measure anything: refuse it whole
        raise EvaluationInputError(f"{where}: no question has evidence ids (like 'D1:3') naming"
                                   " turns of the conversation")
    sample_id = str(conv.get("sample_id") or f"{name}-{n}")
    return Sample(sample_id, conv, data, qa=list(qas), warnings=warnings)


def category(question: dict[str, Any]) -> int:
    """The LoCoMo category of a LongMemEval question (see the module docstring); 0: unknown."""
    if str(question.get("question_id", "")).endswith("_abs"):
        return 5
    return CATEGORY_OF_TYPE.get(str(question.get("question_type")), 0)


def lme_evidence_ids(question: dict[str, Any]) -> list[str]:
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
          "evidence": lme_evidence_ids(question), "category": category(question),
          "question_id": question.get("question_id"),
          "question_type": question.get("question_type"),
          "question_date": question.get("question_date")}
    return {"sample_id": str(question.get("question_id")), "conversation": conversation,
            "qa": [qa], "question_type": question.get("question_type"),
            "question_date": question.get("question_date")}


def _lme_sample(question: dict[str, Any], n: int) -> Sample:
    """A LongMemEval question checked and laid out as its own LoCoMo sample."""
    where = f"question {n} ({question.get('question_id') or 'no question_id'})"
    if "question_id" not in question or not str(question.get("question") or "").strip():
        raise EvaluationInputError(f"{where}: needs 'question_id' and 'question'")
    if not isinstance(question.get("haystack_sessions"), list) or not all(
            isinstance(s, list) and all(isinstance(t, dict) for t in s)
            for s in question["haystack_sessions"]):
        raise EvaluationInputError(f"{where}: 'haystack_sessions' must be a list of turn lists")
    try:
        sample = to_locomo(question)
        now = question_time(question)
    except (ValueError, ImportFormatError) as exc:
        raise EvaluationInputError(f"{where}: {exc}") from None
    warnings = [] if category(question) == 5 or sample["qa"][0]["evidence"] else [
        f"{where}: no evidence (no turn has has_answer, no answer_session_ids name a session)"]
    # one file per question, the layout the LoCoMo importer reads
    source = json.dumps([sample]).encode("utf-8")
    return Sample(sample["sample_id"], sample, source, now=now,
                  question_type=str(question.get("question_type")), qa=sample["qa"],
                  warnings=warnings)
