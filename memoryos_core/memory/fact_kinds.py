"""What kind of fact a statement is, learned, and whether a newer one replaces an older.

A statement is classed by `learned` (a softmax over its MiniLM vector, trained on the labelled
sentences of labelled/fact_kinds.tsv) as one of: a one-value kind, whose newer value replaces the
older (where one lives, the job, how one gets around or the car, the partner or relationship
status, the school, the age, the phone, a favourite), a many-valued kind, where both hold
(likes, pets, hobbies, people), or other (events, plans, feelings). "I work as a teacher" ->
"I started a new job as a software tester" is a job replaced though no name changed; "I like
colour number 5" -> "I like colour number 6" are two likes. Whose fact it is comes from its
words (`attributes.holder`): "my sister lives in Rome" is not the user's home. A one-value
kind counts only at the probability `floor` chosen on out-of-fold predictions, and a fact of no
one-value kind is replaced only when a measure changed: long chats are mostly feelings,
efforts and doings beside a job or a partner, and a fact wrongly replaced is lost. Figures:
`python -m benchmarks.supersession` (docs/benchmarks.md, "Facts over time").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import attributes, fact_history, learned

DATA = "fact_kinds.tsv"
ONE_VALUE = frozenset({"home", "job", "commute", "partner", "school", "age", "phone",
                       "favourite"})
CONFIDENT = 0.5  # the least probability a kind may need (the floor is chosen above it)
FLOORS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))  # 0.5 .. 0.95
BETA = 0.5  # F-beta of the floor: a fact wrongly replaced is lost, one missed stays current
_FLOOR: dict[str, float] = {}
_FAVOURITE = frozenset({"favourite", "favorite", "favourit", "best", "all-time", "time",
                        "these", "days", "always", "been", "right", "now", "number", "one"})


def floor(embedder: Any) -> float:
    """The probability a one-value kind needs to count: of FLOORS, the one with the best
    F-beta (beta 0.5) of "a one-value kind, and the right one" over the out-of-fold predictions
    of the training split (learned.out_of_fold; the held-out split and the benchmarks' pairs
    are never looked at). Long chats are mostly feelings, plans and doings that only touch a
    job or a partner: a doubtful kind must not replace a fact."""
    name = str(getattr(embedder, "name", ""))
    if name not in _FLOOR:
        got = learned.out_of_fold(DATA, embedder) or []
        truth = sum(1 for lab, _, _ in got if lab in ONE_VALUE)
        best, best_f = CONFIDENT, -1.0
        for least in FLOORS:
            said = [(lab, cls) for lab, cls, p in got if cls in ONE_VALUE and p >= least]
            right = sum(1 for lab, cls in said if lab == cls)
            if not right:
                continue
            prec, rec = right / len(said), right / truth
            f = (1 + BETA**2) * prec * rec / (BETA**2 * prec + rec)
            if f > best_f:
                best, best_f = least, f
        _FLOOR[name] = best
    return _FLOOR[name]


def classify_many(vecs: np.ndarray, embedder: Any) -> list[str] | None:
    """The kind of each statement ('' when no kind is confident: a one-value kind needs
    `floor`, the others CONFIDENT), or None when the kinds were not measured for this
    embedding model (the tests' hashing embedder)."""
    model = learned.model_for(DATA, embedder, train_only=False)
    if model is None:
        return None
    if len(vecs) == 0:
        return []
    least = floor(embedder)
    return [kind if p >= (least if kind in ONE_VALUE else CONFIDENT) else ""
            for kind, p in model.predict(np.asarray(vecs))]


def _subject(text: str) -> set[str]:
    return fact_history.subject_words(text) - _FAVOURITE


def replaces(old: str, new: str, cos: float, merge: float, old_kind: str, new_kind: str,
             least: float = fact_history.SAME_SUBJECT) -> bool:
    """Whether the newer statement replaces the older, given both kinds.

    Likes never replace (many hold). Two statements of one one-value kind and one holder do,
    unless they are one statement said twice (at the merge cosine only numbers tell an update)
    or two favourites of different things. Of a pet only a changed count or one said gone.
    A one-value fact is ended by a statement of any kind that says its value is gone ("I
    sold the Clio!", `fact_history.ends_value`); otherwise a one-value statement never
    replaces another kind's, nor is replaced by it; the rest
    (measures, "20 miles a week" -> "35") keep the extractive rule of fact_history.
    """
    if "like" in (old_kind, new_kind):
        return False
    if old_kind == new_kind and new_kind in ONE_VALUE:
        if attributes.holder(old, new_kind) != attributes.holder(new, new_kind):
            return False
        if cos >= merge:
            return fact_history.numbers_differ(old, new)
        if new_kind == "favourite":  # "favourite band" -> "favourite food" are two
            return bool(_subject(old) & _subject(new))
        return True
    if old_kind == new_kind == "pet":
        return fact_history.other_value(old, new, "pet")
    # "I sold the Clio!": the car no longer holds though no new one is named (of any kind
    # the news is read as: it names no value of its own)
    if old_kind in ONE_VALUE and fact_history.ends_value(old, new) and \
            attributes.holder(old, old_kind) == attributes.holder(new, old_kind):
        return True
    if old_kind in ONE_VALUE or new_kind in ONE_VALUE:
        return False
    # events, feelings, hobbies: both hold, unless a measure of one subject changed
    return fact_history.numbers_differ(old, new) and \
        fact_history.same_subject_other_value(old, new, cos, merge, least)


def to_replace(scored: list[tuple[float, dict[str, Any]]], text: str, kind: str, merge: float,
               least: float = fact_history.SAME_SUBJECT) -> list[dict[str, Any]]:
    """The current facts a new statement replaces, given them with their cosine to it
    (closest first), each with its "kind": every fact of its one-value kind, else the closest
    the extractive rule matches."""
    found = [k for cos, k in scored
             if replaces(k["text"], text, cos, merge, str(k.get("kind") or ""), kind, least)]
    if kind in ONE_VALUE:
        return [k for k in found if k.get("kind") == kind]
    return found[:1]

