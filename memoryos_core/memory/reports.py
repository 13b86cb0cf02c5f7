"""The maintenance reports: what consolidation, eviction and analysis did (logged as events).

Each is built whole, once its step is done: `consolidation._file_plan` (a batch, with what
`eviction.evict_overflow` evicted), `analysis.analyse` (from the `AnalysisTally` its chunks and
`profile_update.store` kept as they went); the engine's reports of a whole run are new dicts
holding these and its counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class AnalysisTally:
    """What an analysis run has done so far, kept as it goes; `report()` makes its report."""

    segments: list[int]
    pages: int = 0
    profile_changes: list[ProfileChange] = field(default_factory=list)
    facts_added: list[FactAdded] = field(default_factory=list)
    facts_merged: int = 0
    facts_superseded: list[FactSuperseded] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    profile_signals: list[SignalsAdded] = field(default_factory=list)

    def report(self) -> AnalysisReport:
        """The run's report (`profile_signals` only when signals were added)."""
        done: AnalysisReport = {
            "segments": self.segments, "pages": self.pages,
            "profile_changes": self.profile_changes, "facts_added": self.facts_added,
            "facts_merged": self.facts_merged, "facts_superseded": self.facts_superseded,
            "fallbacks": self.fallbacks}
        return {**done, "profile_signals": self.profile_signals} if self.profile_signals \
            else done


class MaintainReport(TypedDict, total=False):
    """A maintenance run, or why it was skipped."""

    skipped: str
    consolidation: list[BatchReport]
    analysis: AnalysisReport
