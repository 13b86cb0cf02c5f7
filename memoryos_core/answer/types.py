"""The answer pipeline's values: `Retrieval` -> `Prompt` -> `Trace`, each part with one owner.

Who makes each part, and who may change it afterwards (no one else writes it):

- `Retrieval` is made by `answer.retrieval.retrieve` (ranking, facts, profile, segments,
  keywords, budget). `answer.memory_block.assemble` marks, inside it, what entered the block:
  `PageHit.selected`/`reason`, `FactHit.in_prompt`, the scored profile rows' `in_prompt`, and
  makes `prompt_parts` (the memory's parts) and `memory_block`; until `fit_prompt` takes it,
  nothing else edits a Retrieval.
- `Prompt` (what is sent) is made by the layouts in `answer.answering` (`chat`, `compact`).
- `Trace` is made by `answer.answering.fit_prompt` from a Retrieval and the Prompt that fit
  the model's window: it alone may unselect pages (`_mark_compact`, a refit) and replace the
  memory with a smaller retrieval; it moves the memory's parts to `memory_parts` and writes
  the prompt's under `prompt_parts`. `engine.MemoryEngine.chat` stamps the answer's keys and
  `version`, and stores it (`trace_json`); a stored trace is read back only by `read_trace`
  (versions and exports carry the stored text as it is).

The TypedDicts stay plain dicts: hosts, templates and the JSON endpoints index them by key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NotRequired, Required, TypedDict, cast

from ..errors import MemoryOSError

TRACE_VERSION = 1  # the stored shape defined here; 0: stored before traces had a version


class PageHit(TypedDict, total=False):
    """A page retrieval considered: its ranks per list, fused score, and whether it was used."""

    id: Required[int]
    vector_score: float
    vector_rank: int
    fused: Required[float]
    keyword_rank: int
    period_rank: int
    continues: int  # the page whose dialogue this one continues
    repeats: int  # the better-ranked page it repeats (left out of the block)
    recent: bool  # a short-term exchange the recent conversation shows shortened
    reason: str
    selected: bool
    segment_id: int | None
    timestamp: float
    user: str
    assistant: str


class SegmentHit(TypedDict, total=False):
    """A segment ranked by cos + Jaccard, with its heat (for the trace and heat visits)."""

    id: Required[int]
    cos: Required[float]
    summary: str
    keywords: list[str]
    jaccard: float
    heat: float
    score: float
    selected: bool


class FactHit(TypedDict):
    """A fact that scored against the query, with when it held."""

    id: int
    text: str
    score: float
    sources: list[int]
    valid_from: float | None
    valid_until: float | None
    superseded_by: int | None
    superseded: bool
    in_prompt: NotRequired[bool]


class Facts(TypedDict):
    """Facts per list; `superseded_left_out`: replaced ones the question did not ask about."""

    user: list[FactHit]
    assistant: list[FactHit]
    superseded_left_out: NotRequired[list[FactHit]]


class ProfileHit(TypedDict):
    """A profile dimension as the trace lists it (only its newest signal)."""

    dimension: str
    family: str
    level: str | None
    reason: str | None
    evidence: Any  # the stored column as read (JSON text of page ids)
    signals: list[dict[str, Any]]
    in_prompt: NotRequired[bool]
    score: NotRequired[float]


class Part(TypedDict):
    """One part of the memory block or of the prompt, with its tokens and items."""

    name: str
    tokens: int
    items: int


class Retrieval(TypedDict):
    """What retrieval found for a query and the memory block it assembled."""

    query: str
    query_keywords: list[str]
    keyword_search_terms: list[str]
    period: list[str] | None  # first and last day searched
    strategy: str
    segments: list[SegmentHit]
    pages: list[PageHit]
    facts: Facts
    profile: list[ProfileHit]
    used_segments: list[int]
    token_budget: int
    recent_tokens: int
    prompt_parts: list[Part]  # the memory block's parts (a Trace: the whole prompt's)
    memory_block: str
    timings_ms: dict[str, float]


@dataclass
class Prompt:
    """What a layout sends: the messages and its parts with their tokens."""

    layout: str  # "chat" or "compact" (the model class)
    messages: list[dict[str, str]]
    parts: list[Part]


class Fitted(TypedDict):
    """How the prompt was fitted to the model's window."""

    window: int
    short_term_dropped: int
    memory_budget: int
    memory_budget_asked: int | None
    refits: int


class Trace(Retrieval):
    """What is stored for an exchange: the retrieval, the prompt sent, and the answer's
    figures (those from `chat`; absent in `MemoryEngine.prompt`'s trace)."""

    memory_parts: list[Part]
    layout: str
    prompt: list[dict[str, str]]
    recent_shortened: int
    fitted: Fitted
    model: NotRequired[str]
    answer_ms: NotRequired[float]
    prompt_tokens: NotRequired[int]
    completion_tokens: NotRequired[int]
    answer_source: NotRequired[str]
    answer_attempts: NotRequired[list[dict[str, Any]]]  # each model call: its text, repeat, echo
    answer_plan: NotRequired[dict[str, Any]]  # small model: kind, the built answer, evidence
    answer_stats: NotRequired[dict[str, Any]]  # first token, tokens/s of the answer kept
    version: NotRequired[int]


class TraceVersionError(MemoryOSError):
    """A stored trace is of a newer version than this engine reads."""


def trace_json(trace: Trace) -> str:
    """The stored form of a trace (the caller has stamped its `version`)."""
    return json.dumps(trace, ensure_ascii=False)


def read_trace(raw: str) -> Trace:
    """A stored trace: version 1 as stored, an unversioned one (stored before traces had a
    version, the same keys less any added since) read as version 0; a newer one refused."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise TraceVersionError("a stored trace is not a JSON object")
    version = data.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise TraceVersionError(f"a stored trace has an invalid version {version!r}")
    if version > TRACE_VERSION:
        raise TraceVersionError(f"a stored trace is version {version}; this engine reads"
                                f" versions up to {TRACE_VERSION} (upgrade memoryos)")
    if "version" not in data:
        data["version"] = 0
    return cast(Trace, data)  # a dict of the stored shape: the keys are not checked one by one


class ChatResult(TypedDict):
    """One answered turn: the reply, the exchange it was stored as, and its trace."""

    answer: str
    exchange_id: int | None  # None: a temporary or memory-off turn, stored nowhere
    model: str
    trace: Trace
    stats: dict[str, Any]  # first_token_ms, tokens_per_second, completion_tokens, answer_ms
    source: str  # model | retry | plain | memory | no memory
    evidence: dict[str, Any] | None  # the memory sentence a memory answer says back
    moved_to_mid_term: list[int]  # exchanges that became pages this turn
