"""The answer pipeline's values: `Retrieval` -> `Prompt` -> `Trace`, each built once.

After simonw/llm's `Prompt`, `Response` and `Usage`: each value is whole when it is made and
no one edits it afterwards; a later step that needs a different one makes a new one.

- `Retrieval` (frozen) is made by `answer.retrieval.retrieve` (ranking, facts, profile,
  segments, keywords, budget; `answer.memory_block.assemble` marks, while it is being built,
  what entered the block: `PageHit.selected`/`reason`, `FactHit.in_prompt`, the profile rows'
  `in_prompt`, and makes the memory's parts and `memory_block`). `retrieve_flat` makes the flat
  baseline's.
- `Prompt` (frozen, what is sent) is made by `answer.answering.fit_prompt` from a Retrieval:
  the messages that fit the model's window, their parts, the memory they hold (a copy of the
  Retrieval with the pages a compact prompt leaves out unselected, or a smaller one a refit
  retrieved; the caller's is never changed), how it was fitted and the small model's plan.
- `Answered` (frozen, the answer's figures: model, timings, tokens, attempts) is made by
  `answer.turn.answer`.
- `Trace` is built once by `Trace.build` from a Prompt and, for an answered turn, its
  `Answered` and `version`; `MemoryEngine.chat` stores `Trace.to_json()`, and a stored trace is
  read back only by `Trace.from_json` (`read_trace`; versions and exports carry the stored text
  as it is). A Trace is a read-only dict in the stored JSON shape (`TraceData`): hosts,
  templates and the JSON endpoints read it by key, and old stored traces read as stored.

At the engine's edge the values are JSON-ready: `MemoryEngine.retrieve` returns
`Retrieval.to_dict()` (`RetrievalData`), `chat`, `prompt` and `trace` a `Trace`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, NoReturn, NotRequired, Required, TypedDict, cast

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


class RetrievalData(TypedDict):
    """A Retrieval as JSON (`Retrieval.to_dict()`, what `MemoryEngine.retrieve` returns)."""

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


def _waited(stats: dict[str, Any], memory: Mapping[str, Any]) -> dict[str, Any]:
    """The answer's figures with what the user waited for its first words: the memory search
    (a cold embedder's load included) and the model's first token."""
    first = stats.get("first_token_ms")
    if first is None:
        return stats
    search = float((memory.get("timings_ms") or {}).get("total") or 0.0)
    return {**stats, "waited_ms": round(search + float(first), 1)}


@dataclass(frozen=True)
class Retrieval:
    """What retrieval found for a query and the memory block it assembled (the fields and
    their order are `RetrievalData`'s)."""

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
    prompt_parts: list[Part]  # the memory block's parts
    memory_block: str
    timings_ms: dict[str, float]

    def to_dict(self) -> RetrievalData:
        """The JSON shape, keys in field order (the lists and hits are shared, not copied)."""
        return cast(RetrievalData, {f.name: getattr(self, f.name) for f in fields(self)})


class Fitted(TypedDict):
    """How the prompt was fitted to the model's window."""

    window: int
    short_term_dropped: int
    memory_budget: int
    memory_budget_asked: int | None
    refits: int


@dataclass(frozen=True)
class Prompt:
    """What is sent: the messages that fit the model's window and the memory they hold."""

    layout: str  # "chat" or "compact" (the model class)
    messages: list[dict[str, str]]
    parts: list[Part]  # the whole prompt's parts, with their tokens
    memory: Retrieval  # the memory as sent (never the caller's Retrieval edited)
    recent_shortened: int
    fitted: Fitted
    plan: dict[str, Any] | None = None  # small model: kind, the built answer, evidence


@dataclass(frozen=True)
class Answered:
    """The figures of one answer a trace records (llm's `Usage`), made by `turn.answer`."""

    model: str
    answer_ms: float
    prompt_tokens: int
    completion_tokens: int
    source: str
    attempts: list[dict[str, Any]]  # each model call: its text, repeat, echo
    stats: dict[str, Any]  # first token, tokens/s of the answer kept
    # the messages of the answer kept when they are not the prompt's (a retry without the
    # recent turns): the trace shows what was sent for the answer the user reads
    sent: list[dict[str, str]] | None = None


class TraceData(RetrievalData):
    """A Trace's stored JSON shape: the retrieval, the prompt sent, and the answer's
    figures (those from `chat`; absent in `MemoryEngine.prompt`'s trace). A trace stored
    before a key existed lacks it; `previous_answers` is added by a Regenerate or Edit."""

    memory_parts: list[Part]
    layout: str
    prompt: list[dict[str, str]]
    recent_shortened: int
    fitted: Fitted
    first_prompt: NotRequired[list[dict[str, str]]]  # a retried answer's first prompt
    model: NotRequired[str]
    answer_ms: NotRequired[float]
    prompt_tokens: NotRequired[int]
    completion_tokens: NotRequired[int]
    answer_source: NotRequired[str]
    answer_attempts: NotRequired[list[dict[str, Any]]]  # each model call: its text, repeat, echo
    answer_plan: NotRequired[dict[str, Any]]  # small model: kind, the built answer, evidence
    answer_stats: NotRequired[dict[str, Any]]  # first token, tokens/s of the answer kept
    version: NotRequired[int]


def _parts_sent(parts: list[Part]) -> list[Part]:
    """A retry's prompt parts: its recent turns were left out (the model had copied them)."""
    return [Part(name=p["name"], tokens=0, items=0) if p["name"] == "recent" else p
            for p in parts]


class TraceVersionError(MemoryOSError):
    """A stored trace is of a newer version than this engine reads."""


class Trace(dict[str, Any]):
    """What is stored for an exchange (`TraceData`), built once: a read-only dict.

    `Trace.build` makes it from the Prompt sent and the answer's figures; `Trace.from_json`
    reads a stored one, whatever keys it was stored with. `dict(trace)` is a plain copy.
    """

    __slots__ = ()

    @classmethod
    def build(cls, prompt: Prompt, answered: Answered | None = None,
              version: int = TRACE_VERSION) -> Trace:
        """The trace of `prompt`; with `answered`, the answer's figures and the `version`
        of the stored shape (a prompt alone is never stored and has neither)."""
        memory = prompt.memory.to_dict()
        data: dict[str, Any] = {**memory, "prompt_parts": prompt.parts,
                                "memory_parts": memory["prompt_parts"],
                                "layout": prompt.layout, "prompt": prompt.messages,
                                "recent_shortened": prompt.recent_shortened}
        if prompt.plan is not None:
            data["answer_plan"] = prompt.plan
        data["fitted"] = prompt.fitted
        if answered is not None and answered.sent is not None:  # a retry: what it was sent
            data.update(prompt=answered.sent, first_prompt=prompt.messages,
                        prompt_parts=_parts_sent(prompt.parts))
        if answered is not None:
            data.update(model=answered.model, answer_ms=answered.answer_ms,
                        prompt_tokens=answered.prompt_tokens,
                        completion_tokens=answered.completion_tokens,
                        answer_source=answered.source, answer_attempts=answered.attempts,
                        answer_stats=_waited(answered.stats, memory), version=version)
        return cls(data)

    @classmethod
    def from_json(cls, raw: str) -> Trace:
        """A stored trace: version 1 as stored, an unversioned one (stored before traces had
        a version, the same keys less any added since) read as version 0; a newer one
        refused."""
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
        return cls(data)  # the stored shape: the keys are not checked one by one

    def to_json(self) -> str:
        """The stored form (the same text as the dict's JSON)."""
        return json.dumps(self, ensure_ascii=False)

    def __reduce__(self) -> tuple[type[Trace], tuple[dict[str, Any]]]:
        return Trace, (dict(self),)  # copy, deepcopy and pickle make a new one, never edit

    def _frozen(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a Trace is built once (Trace.build): make a new one")

    __setitem__ = __delitem__ = setdefault = pop = popitem = clear = _frozen
    update = __ior__ = _frozen


def trace_json(trace: Trace) -> str:
    """The stored form of a trace (`Trace.to_json`)."""
    return trace.to_json()


def read_trace(raw: str) -> Trace:
    """A stored trace read back (`Trace.from_json`)."""
    return Trace.from_json(raw)


class ChatResult(TypedDict):
    """One answered turn: the reply, the exchange it was stored as, and its trace."""

    answer: str
    exchange_id: int | None  # None: a temporary or memory-off turn, stored nowhere
    model: str
    trace: Trace
    stats: dict[str, Any]  # first_token_ms, tokens_per_second, completion_tokens, answer_ms
    source: str  # model | retry | plain | memory | no memory | courtesy
    evidence: dict[str, Any] | None  # the memory sentence a memory answer says back
    moved_to_mid_term: list[int]  # exchanges that became pages this turn
