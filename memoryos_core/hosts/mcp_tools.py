"""Tool bodies shared by the MCP server and the compat API: the reference's result shapes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, cast

from ..control.forgetting import Forgotten
from ..control.memory_search import SearchResult
from ..engine import MemoryEngine
from ..errors import InvalidInput
from ..llm import ChatModel
from ..memory import reads
from ..memory.reports import AnalysisReport
from ..memory.state import Profile, State
from ..timeframe import format_ts, parse_ts
from ..transfer.importing import ImportOutcome
from ..transfer.versions import Restored, Version

NO_PROFILE = "No detailed user profile"


class KnowledgeEntry(TypedDict):
    """A fact as the reference's knowledge entry, with when it held and its successor."""

    knowledge: str
    timestamp: str
    valid_from: str | None
    valid_until: str | None  # None while current
    superseded_by: int | None


class QAPair(TypedDict):
    """A short-term exchange as the reference's QA pair."""

    user_input: str
    agent_response: str
    timestamp: str


class RetrievedPage(QAPair):
    """A retrieved page: its exchange and its chain overview ("" when none)."""

    meta_info: str


class AddDetails(TypedDict):
    user_input_length: int
    agent_response_length: int
    has_meta_data: bool


class MemoryAdded(TypedDict):
    """The reference's add_memory success shape plus our exchange id."""

    status: str
    message: str
    timestamp: str
    exchange_id: int
    details: AddDetails


class MemoryRetrieved(TypedDict):
    """The reference's retrieve_memory shape (lists cut to max_results, totals not)."""

    status: str
    query: str
    timestamp: str
    user_profile: str
    short_term_memory: list[QAPair]
    short_term_count: int
    retrieved_pages: list[RetrievedPage]
    retrieved_user_knowledge: list[KnowledgeEntry]
    retrieved_assistant_knowledge: list[KnowledgeEntry]
    total_pages_found: int
    total_user_knowledge_found: int
    total_assistant_knowledge_found: int


class UserProfile(TypedDict):
    """The reference's get_user_profile shape; ours adds the structured profile."""

    status: str
    timestamp: str
    user_id: str
    assistant_id: str
    user_profile: str
    profile: Profile
    user_knowledge: NotRequired[list[KnowledgeEntry]]  # with include_knowledge
    user_knowledge_count: NotRequired[int]
    assistant_knowledge: NotRequired[list[KnowledgeEntry]]  # with include_assistant_knowledge
    assistant_knowledge_count: NotRequired[int]


class ChatReply(TypedDict):
    """A chat turn without its trace."""

    answer: str
    exchange_id: int | None  # None only for a turn stored nowhere (not over MCP)
    model: str


class DialogueImported(ImportOutcome):
    """The engine's ImportReport as JSON, less exchange_ids (refs' keys become strings)."""

    refs: NotRequired[dict[str, str]]  # exchange id (as text): its place in the source


def profile_text(engine: MemoryEngine, user_id: str) -> str:
    """The structured profile (and any imported profile note) as readable text."""
    lines: list[str] = []
    for fam in engine.profile(user_id)["families"]:
        if fam["dimensions"]:
            lines.append(f"{fam['family']}:")
            lines += [f"- {d['dimension']}: {d['summary']}" for d in fam["dimensions"]]
    for note in reads.note_rows(engine.ctx, user_id):
        lines.append(note["text"])
    return "\n".join(lines)


def knowledge(engine: MemoryEngine, user_id: str, kind: str,
              ids: list[int] | None = None) -> list[KnowledgeEntry]:
    """Facts as the reference's knowledge entries {knowledge, timestamp}, optionally by id order;
    ours add when each held (valid_from, valid_until: None while current) and its successor."""
    facts = {f.id: f for f in reads.fact_rows(engine.ctx, user_id, kind)}
    order = list(facts) if ids is None else [i for i in ids if i in facts]
    return [{"knowledge": facts[i].text, "timestamp": format_ts(facts[i].created_at),
             "valid_from": _ts_or_none(facts[i].valid_from),
             "valid_until": _ts_or_none(facts[i].valid_until),
             "superseded_by": facts[i].superseded_by}
            for i in order]


def _ts_or_none(ts: float | None) -> str | None:
    return None if ts is None else format_ts(ts)


def short_term(engine: MemoryEngine, user_id: str) -> list[QAPair]:
    """Short-term memory as the reference's QA pairs."""
    return [{"user_input": e["user"], "agent_response": e["assistant"],
             "timestamp": format_ts(e["timestamp"])}
            for e in engine.state(user_id)["short_term"]["exchanges"]]


def check_count(value: Any, name: str, low: int = 1, high: int = 100) -> int:
    """An integer within bounds, else InvalidInput naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


def check_text(value: Any, name: str) -> str:
    """A non-empty string, else InvalidInput naming the argument."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} must be a non-empty string")
    return value


@dataclass
class ToolHost:
    """What a host gives the tools: the engine, the caller's user id, its model and upkeep."""

    engine: MemoryEngine
    user: Callable[[], str]
    model: Callable[[str], ChatModel | None] = field(default=lambda _user: None)
    maintain: Callable[[str, ChatModel | None], None] | None = None
    assistant_id: str = "memoryos_assistant"

    def upkeep(self, user_id: str) -> None:
        """Consolidate and analyse after a write (inline unless the host queues it)."""
        model = self.model(user_id)
        if self.maintain is not None:
            self.maintain(user_id, model)
        else:
            self.engine.maintain(user_id, model=model)

    # -- the reference's three tools ---------------------------------------------------------

    def add_memory(self, user_input: str, agent_response: str, timestamp: str | None = None,
                   meta_data: dict[str, Any] | None = None) -> MemoryAdded:
        """Store one exchange; the reference's success shape plus our exchange id."""
        user_id = self.user()
        check_text(user_input, "user_input")
        check_text(agent_response, "agent_response")
        ts = parse_ts(timestamp)
        exchange_id = self.engine.add_exchange(user_id, user_input, agent_response, ts,
                                               maintain=False)
        self.upkeep(user_id)
        return {"status": "success", "message": "Memory has been successfully added to MemoryOS",
                "timestamp": timestamp or format_ts(None), "exchange_id": exchange_id,
                "details": {"user_input_length": len(user_input),
                            "agent_response_length": len(agent_response),
                            "has_meta_data": meta_data is not None}}

    def retrieve_memory(self, query: str, relationship_with_user: str = "friend",
                        style_hint: str = "", max_results: int = 10) -> MemoryRetrieved:
        """Short-term memory, retrieved pages and knowledge, as the reference returns them."""
        user_id = self.user()
        check_text(query, "query")
        check_count(max_results, "max_results")
        trace = self.engine.retrieve(user_id, query, record=True)
        pages = trace["pages"]
        overviews = reads.page_overviews(self.engine.ctx, user_id, [p["id"] for p in pages])
        user_k = knowledge(self.engine, user_id, "user", [f["id"] for f in trace["facts"]["user"]])
        asst_k = knowledge(self.engine, user_id, "assistant",
                           [f["id"] for f in trace["facts"]["assistant"]])
        stm = short_term(self.engine, user_id)
        return {
            "status": "success", "query": query, "timestamp": format_ts(None),
            "user_profile": profile_text(self.engine, user_id) or NO_PROFILE,
            "short_term_memory": stm, "short_term_count": len(stm),
            "retrieved_pages": [{"user_input": p["user"], "agent_response": p["assistant"],
                                 "timestamp": format_ts(p["timestamp"]),
                                 "meta_info": overviews.get(p["id"], "")}
                                for p in pages[:max_results]],
            "retrieved_user_knowledge": user_k[:max_results],
            "retrieved_assistant_knowledge": asst_k[:max_results],
            "total_pages_found": len(pages), "total_user_knowledge_found": len(user_k),
            "total_assistant_knowledge_found": len(asst_k),
        }

    def get_user_profile(self, include_knowledge: bool = True,
                         include_assistant_knowledge: bool = False) -> UserProfile:
        """The profile text and knowledge lists; ours adds the structured profile."""
        user_id = self.user()
        result: UserProfile = {
            "status": "success", "timestamp": format_ts(None), "user_id": user_id,
            "assistant_id": self.assistant_id,
            "user_profile": profile_text(self.engine, user_id) or NO_PROFILE,
            "profile": self.engine.profile(user_id),
        }
        if include_knowledge:
            items = knowledge(self.engine, user_id, "user")
            result["user_knowledge"], result["user_knowledge_count"] = items, len(items)
        if include_assistant_knowledge:
            items = knowledge(self.engine, user_id, "assistant")
            result["assistant_knowledge"], result["assistant_knowledge_count"] = items, len(items)
        return result

    # -- ours -------------------------------------------------------------------------------

    def chat(self, message: str, relationship_with_user: str | None = None,
             style_hint: str | None = None) -> ChatReply:
        """Answer with memory, then remember the exchange."""
        user_id = self.user()
        check_text(message, "message")
        result = self.engine.chat(user_id, message, relationship=relationship_with_user,
                                  style_hint=style_hint, model=self.model(user_id),
                                  maintain=False)
        self.upkeep(user_id)
        return {"answer": result["answer"], "exchange_id": result["exchange_id"],
                "model": result["model"]}

    def memory_state(self) -> State:
        """Every tier with counts, heat and pages (the engine's state)."""
        return self.engine.state(self.user())

    def force_analysis(self) -> AnalysisReport:
        """File pending pages and analyse every segment with unanalysed pages now."""
        user_id = self.user()
        return self.engine.force_analysis(user_id, model=self.model(user_id))

    def snapshot(self, label: str = "mcp") -> Version:
        """Save the current memory as a new version."""
        return self.engine.snapshot(self.user(), check_text(label, "label")[:200])

    def list_versions(self) -> list[Version]:
        """Saved versions, newest first."""
        return self.engine.versions(self.user())

    def restore_version(self, version: int) -> Restored:
        """Make a version current (the current memory is saved first)."""
        return self.engine.restore(self.user(), check_count(version, "version", 1, 10**9))

    def import_dialogue(self, document: str, format: str = "auto", speaker: str | None = None,
                        conversation: str | None = None) -> DialogueImported:
        """Import a dialogue document (any supported format) given as text."""
        user_id = self.user()
        check_text(document, "document")
        report = self.engine.import_dialogue(user_id, document.encode("utf-8"), format, speaker,
                                             select=conversation, model=self.model(user_id))
        report.pop("exchange_ids", None)
        return cast(DialogueImported, json.loads(json.dumps(report, default=str)))

    def search_memory(self, query: str, max_results: int = 20) -> SearchResult:
        """Pages, facts and profile dimensions matching a query, by words and by meaning."""
        check_text(query, "query")
        return self.engine.search(self.user(), query, check_count(max_results, "max_results"))

    def forget_exchange(self, exchange_id: int, everywhere: bool = False) -> Forgotten:
        """Forget one exchange (a version first), or everywhere (versions and files too)."""
        return self.engine.forget(self.user(), check_count(exchange_id, "exchange_id", 1, 2**63 - 1),
                                  everywhere=bool(everywhere))
