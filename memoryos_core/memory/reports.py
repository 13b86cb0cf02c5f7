"""The maintenance reports: what consolidation, eviction and analysis did (logged as events).

Made by `consolidation._file_plan` (a batch), `eviction.evict_overflow`, `analysis.analyse` with
`profile_update.store` (the profile's part); the engine adds the counts of a whole run.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Evicted(TypedDict):
    segment_id: int
    pages: int


class FiledSegment(TypedDict):
    id: int
    joined: bool  # an existing segment grew (else a new one)
    score: float
    pages: list[int]
    summary: str


class BatchReport(TypedDict):
    """One consolidated batch of pending pages."""

    mode: str  # "llm" or "extractive"
    fallback: str | None
    notes: list[str]
    pages: list[int]
    segments: list[FiledSegment]
    evicted: NotRequired[list[Evicted]]  # set once the batch is stored


# "from" is a keyword: the functional form
ProfileChange = TypedDict("ProfileChange", {"dimension": str, "from": str | None,
                                            "to": str | None})


class SignalsAdded(TypedDict):
    dimension: str
    added: int
    sentences: int
    pages: int


class FactAdded(TypedDict):
    id: int
    kind: str
    text: str


class FactSuperseded(TypedDict):
    old: int
    old_text: str
    new: int
    new_text: str


class AnalysisReport(TypedDict):
    """One analysis run over the due segments."""

    segments: list[int]
    pages: int
    profile_changes: list[ProfileChange]
    facts_added: list[FactAdded]
    facts_merged: int
    facts_superseded: list[FactSuperseded]
    fallbacks: list[str]
    profile_signals: NotRequired[list[SignalsAdded]]  # only when signals were added
    consolidation_batches: NotRequired[int]  # a forced analysis: the batches filed first


class MaintainReport(TypedDict, total=False):
    """A maintenance run, or why it was skipped."""

    skipped: str
    consolidation: list[BatchReport]
    analysis: AnalysisReport
