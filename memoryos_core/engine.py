"""MemoryEngine: the façade over the three memory tiers that hosts (web, CLI) call."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict, cast

from .answer import followup, modes, retrieval, turn
from .answer.answering import COMPACT_MEMORY_TOKENS, fit_prompt, layout_for
from .answer.types import ChatResult, Prompt, RetrievalData, Trace
from .config import EngineConfig
from .context import Context
from .control.conversations import Conversations
from .control.methods import UserControl
from .errors import InvalidInput, NotFound, Stopped, check_id, check_user
from .llm import ChatModel, Embedder
from .llm.base import Message
from .llm.embedder import SentenceTransformerEmbedder
from .llm.resolver import ModelResolver, is_embedded
from .memory import analysis, cleanup, consolidation, conversations, reads, state
from .memory.admission import admit, check_exchange
from .memory.heat import record_visits
from .memory.provenance import answered_by
from .memory.reports import AnalysisReport, MaintainReport
from .memory.retrieval_text import chat_text, next_page_text
from .memory.state import PageDetail, PageView, Profile, SegmentView, ShortTermFill, State
from .runtime.imports import Imports
from .runtime.jobs import Jobs, Progress, staged
from .storage import open_index, open_store
from .storage.base import PurposeUsage
from .transfer import versions
from .transfer.reembed import check_model
from .transfer.sniff import MAX_EXPANDED_BYTES
from .transfer.versions import Diff, ExportDocument, Restored, Saved, Version


class Event(TypedDict):
    """One entry of a user's event log."""

    id: int
    ts: float
    kind: str
    detail: dict[str, Any]  # what the step logged: each kind its own keys


class MemoryEngine(UserControl, Conversations, Imports):
    """Long-term hierarchical memory for many users in one data folder."""

    def __init__(
        self, data_dir: str | Path, chat_model: ChatModel | None = None,
        embedder: Embedder | None = None, config: EngineConfig | None = None,
        database_url: str | None = None, models: ModelResolver | None = None,
    ) -> None:
        """`models` decides which chat model serves each user (default: `chat_model` for
        everyone, else the embedded model); `chat_model` alone is the instance's model."""
        self.config = config or EngineConfig()
        # PostgreSQL when a URL is given (or MEMORYOS_DATABASE_URL is set), else the data folder.
        self.store = open_store(data_dir, database_url)
        self.index = open_index(self.store)
        self.jobs = Jobs(self.store)
        self.models = models or ModelResolver(chat_model)
        embedder = embedder or SentenceTransformerEmbedder.from_name(self.config.embedding_model)
        check_model(self.store, embedder)  # a store made with another model refuses to open
        cleanup.clean_app_text(self.store, embedder)  # once per store: the app's text out
        self.ctx = Context(self.store, self.index, embedder, self.config, self.chat_model,
                           lambda: is_embedded(self.models.configured))
        self._user_locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        # the most one member of an uploaded archive (or a gzip) may expand to, in bytes
        self.max_expanded_bytes = MAX_EXPANDED_BYTES

    # -- models -----------------------------------------------------------------------------

    def chat_model(self) -> ChatModel:
        """The instance's chat model, the embedded one loaded on first use."""
        return self.models.instance()

    @property
    def default_model_name(self) -> str | None:
        """Name of the configured chat model, or None when the embedded one will be used."""
        configured = self.models.configured
        return None if configured is None else configured.name

    @property
    def configured_chat_model(self) -> ChatModel | None:
        """The instance's chat model as given (None: the embedded model, loaded on demand)."""
        return self.models.configured

    def _ctx_for(self, user_id: str, model: ChatModel | None) -> Context:
        """The context whose model is the one serving this user (`model`: chosen per call)."""
        chosen = self.models.chosen(user_id, model)
        if chosen is None:
            return self.ctx
        return dataclasses.replace(self.ctx, chat_model=lambda: chosen,
                                   embedded_model=lambda: is_embedded(chosen))

    def _user_lock(self, user_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._user_locks.setdefault(user_id, threading.Lock())

    # -- writing memory ---------------------------------------------------------------------

    def add_exchange(
        self, user_id: str, user_text: str, assistant_text: str,
        timestamp: float | None = None, maintain: bool = True,
    ) -> int:
        """Admit one exchange (short-term, overflow to pending pages); returns its id."""
        check_user(user_id)
        new = check_exchange(self.config, user_text, assistant_text, timestamp)
        vec = self.ctx.embedder.embed([chat_text(self.store, user_id, new)])[0]
        with self.store.transaction(user_id) as conn:
            exchange_id, moved = admit(conn, self.store, self.config, user_id, new, vec)
            self.store.log_event(conn, user_id, "admission",
                                 {"exchange": exchange_id, "moved_to_mid_term": moved})
        if maintain:
            self.maintain(user_id)
        return exchange_id

    def maintain(self, user_id: str, force: bool = False, model: ChatModel | None = None,
                 progress: Progress | None = None) -> MaintainReport:
        """Consolidate full batches of pending pages, then analyse hot segments.

        Runs once per user at a time; a call that finds it running returns at once (the running
        one will see the new pages or the next call will).
        """
        lock = self._user_lock(user_id)
        if not lock.acquire(blocking=force):
            return MaintainReport(skipped="maintenance already running")
        try:
            ctx = self._ctx_for(user_id, model)
            pending, unanalysed = reads.maintenance_state(self.ctx, user_id)
            batches = consolidation.consolidate(ctx, user_id, force=force, waiting=pending)
            # a filed batch changed which segments hold unanalysed pages: read them again
            report = analysis.analyse(ctx, user_id, force=False, progress=progress,
                                      candidates=None if batches else unanalysed)
            return MaintainReport(consolidation=batches, analysis=report)
        finally:
            lock.release()

    def force_analysis(self, user_id: str, model: ChatModel | None = None,
                       progress: Progress | None = None) -> AnalysisReport:
        """File every pending page, then analyse all segments with unanalysed pages."""
        check_user(user_id)
        with self._user_lock(user_id):
            ctx = self._ctx_for(user_id, model)
            stages = staged(progress, {"consolidation": (0, 40), "analysis": (40, 100)})
            batches = consolidation.consolidate(ctx, user_id, force=True, progress=stages)
            report = analysis.analyse(ctx, user_id, force=True, progress=stages)
        if progress:
            progress(100, 100, "done")
        return {**report, "consolidation_batches": len(batches)}  # the run's report, whole

    # -- reading and answering --------------------------------------------------------------

    def retrieve(self, user_id: str, query: str, record: bool = False,
                 strategy: str = "memoryos", token_budget: int | None = None,
                 now: float | None = None) -> RetrievalData:
        """The retrieval trace for a query (what would go into an answer prompt), as JSON;
        `now` is when the question is asked (default: the current time)."""
        check_user(user_id)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        return retrieval.retrieve(self.ctx, user_id, query, record=record, strategy=strategy,
                                  token_budget=token_budget, now=now).to_dict()

    def prompt(self, user_id: str, text: str, *, model: ChatModel | None = None,
               relationship: str | None = None, style_hint: str | None = None,
               now: float | None = None) -> tuple[list[Message], Trace]:
        """The exact messages an answer to `text` would send, and their trace; nothing stored."""
        check_user(user_id)
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("message must not be empty")
        llm = self.models.for_user(user_id, model)
        short_rows = reads.short_term_rows(self.ctx, user_id)
        prompt = self._prompt(user_id, text, llm, relationship, style_hint, now, short_rows)
        return prompt.messages, Trace.build(prompt)

    def _prompt(self, user_id: str, text: str, llm: ChatModel, relationship: str | None,
                style_hint: str | None, now: float | None,
                short_rows: list[dict[str, Any]], memory: bool = True,
                seen: list[dict[str, Any]] | None = None) -> Prompt:
        """The prompt from short-term rows read once this turn; a small model's memory is
        retrieved at its compact budget from the start (not retrieved twice); `memory`
        False: nothing retrieved (a memory-off chat); `seen`: the short-term rows retrieval
        must not bring back as pages, when more than the prompt shows (an exchange redone)."""
        cap = COMPACT_MEMORY_TOKENS if layout_for(llm) == "compact" else None
        asked = followup.with_previous(text, short_rows, now)  # "And before?" after a question
        found = retrieval.retrieve(self.ctx, user_id, asked, record=False, now=now,
                                   short_rows=short_rows if seen is None else seen,
                                   budget_cap=cap) if memory else modes.no_memory(text)
        return fit_prompt(self.ctx, user_id, text, found, llm, relationship, style_hint, now,
                          short_rows=short_rows, asked=asked)

    def chat(
        self, user_id: str, text: str, *, relationship: str | None = None,
        style_hint: str | None = None, model: ChatModel | None = None,
        on_token: Callable[[str], None] | None = None, maintain: bool = True,
        on_event: turn.Event | None = None, stop: threading.Event | None = None,
        replaces: int | None = None, mode: str = "normal",
        recent: list[tuple[str, str]] | None = None,
    ) -> ChatResult:
        """Retrieve, answer (streamed to `on_token`, phases and replacements to `on_event`;
        `stop` set ends it, stores nothing and raises Stopped), and only then admit the
        exchange (`replaces`: a short-term exchange it takes the place of, Regenerate and
        Edit). `mode` "temporary" reads memory, "off" does not; neither writes anything, and
        `recent` holds that chat's own earlier turns (user, assistant)."""
        check_user(user_id)
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("message must not be empty")
        if len(text) > self.config.max_text_chars:
            raise InvalidInput(f"message is longer than {self.config.max_text_chars} characters")
        llm = self.models.for_user(user_id, model)
        mode = modes.check_mode(mode, recent, replaces)
        if on_event is not None and mode != "off":
            on_event("phase", {"phase": "searching memory"})
        short_rows = (reads.short_term_rows(self.ctx, user_id) if mode == "normal"
                      else modes.own_rows(recent))
        shown = short_rows if replaces is None else \
            conversations.rows_before(short_rows, replaces)  # the turns before the one redone
        prompt = self._prompt(user_id, text, llm, relationship, style_hint, None, shown,
                              memory=mode != "off", seen=short_rows)
        reply, answered = turn.answer(
            llm, prompt.messages, prompt.layout, prompt.plan,
            turn.earlier_answers(short_rows, prompt.memory), self.config.answer_max_tokens,
            text, on_token, on_event, stop)
        answer = reply.text
        trace = Trace.build(prompt, answered)  # the stored shape (memoryos_core.answer.types)
        try:
            new = dataclasses.replace(check_exchange(self.config, text, answer),
                                      answered_by=answered_by(reply.source, is_embedded(llm)))
        except InvalidInput:  # the call was made: it counts even when the exchange cannot enter
            self.store.add_usage(user_id, "answer", reply.prompt_tokens, reply.completion_tokens)
            raise
        if mode != "normal" and not (stop is not None and stop.is_set()):  # nothing written
            return ChatResult(answer=answer, exchange_id=None, model=llm.name, trace=trace,
                              stats=trace["answer_stats"], source=reply.source,
                              evidence=(trace.get("answer_plan") or {}).get("evidence"),
                              moved_to_mid_term=[])
        # a redone answer is the reply before the next page's short user turn: embedded again
        after = None if replaces is None else \
            next_page_text(self.store, user_id, replaces, new.assistant_text)
        vec, *after_vec = self.ctx.embedder.embed(
            [chat_text(self.store, user_id, new, replaces, short_rows)]
            + ([after[1]] if after else []))
        if stop is not None and stop.is_set():  # Stop pressed as the answer ended: keep nothing
            raise Stopped("the answer was stopped")
        with self.store.transaction(user_id) as conn:  # one write transaction per turn
            self.store.count_usage(conn, user_id, "answer", reply.prompt_tokens,
                                   reply.completion_tokens)
            if replaces is None:
                exchange_id, moved = admit(conn, self.store, self.config, user_id, new, vec,
                                           trace=trace.to_json())
            else:  # texts, vector, keyword entry and trace in place; the old answer kept
                exchange_id, moved = replaces, []
                kept = conversations.replace(conn, self.store, user_id, replaces, new, vec, trace)
                if after:
                    self.store.put_vector(conn, user_id, "page", after[0], after_vec[0])
                # the result's trace is the stored one: the answers replaced are counted now,
                # not only once the page is reloaded
                trace = Trace({**trace, "previous_answers": kept})
            record_visits(conn, user_id, trace["used_segments"], time.time())
            self.store.log_event(conn, user_id, "admission" if replaces is None else "replace",
                                 {"exchange": exchange_id, "moved_to_mid_term": moved,
                                  "model": llm.name})
        if maintain:
            self.maintain(user_id, model=model)
        plan = trace.get("answer_plan") or {}
        return ChatResult(answer=answer, exchange_id=exchange_id, model=llm.name, trace=trace,
                          stats=trace["answer_stats"], source=reply.source,
                          evidence=plan.get("evidence"), moved_to_mid_term=list(moved))

    def trace(self, user_id: str, exchange_id: int) -> Trace:
        """The stored retrieval trace of one answer (`version` 0: stored before versions)."""
        text = reads.stored_trace(self.ctx, check_user(user_id),
                                  check_id(exchange_id, "exchange"))
        if text is None:
            raise NotFound(f"no trace for exchange {exchange_id}")
        return Trace.from_json(text)

    def state(self, user_id: str) -> State:
        """Every tier with counts, capacities, heat terms, pages and links: JSON-ready."""
        return state.build_state(self.ctx, check_user(user_id))

    def segment(self, user_id: str, segment_id: int) -> SegmentView:
        """One segment with heat terms and its pages (NotFound for another user's)."""
        return state.one_segment(self.ctx, check_user(user_id), check_id(segment_id, "segment"))

    def page(self, user_id: str, page_id: int) -> PageDetail:
        """One exchange or page with chain links and what it supports in long-term memory."""
        return state.one_page(self.ctx, check_user(user_id), check_id(page_id, "page"))

    def short_term_fill(self, user_id: str) -> ShortTermFill:
        """How full short-term memory is: count and capacity."""
        count = reads.short_term_count(self.ctx, check_user(user_id))
        return ShortTermFill(count=count, capacity=self.config.short_term_capacity)

    def recent_exchanges(self, user_id: str, limit: int = 50) -> list[PageView]:
        """The newest exchanges of every tier, oldest first (a chat history)."""
        return state.recent_exchanges(self.ctx, check_user(user_id), limit)

    def profile(self, user_id: str) -> Profile:
        """The stored structured profile grouped by family."""
        return state.build_profile(self.ctx, check_user(user_id))

    def events(self, user_id: str, limit: int = 200) -> list[Event]:
        """The user's event log, newest first."""
        return cast(list[Event], self.store.events(check_user(user_id), limit))

    def usage(self, user_id: str) -> dict[str, PurposeUsage]:
        """Chat-model calls and tokens per purpose."""
        return self.store.usage(check_user(user_id))

    # -- versions, import, export -----------------------------------------------------------

    def snapshot(self, user_id: str, label: str = "manual") -> Version:
        """Store the user's whole memory as a new numbered version."""
        return versions.snapshot(self.ctx, check_user(user_id), label)

    def versions(self, user_id: str) -> list[Version]:
        """The user's versions, newest first."""
        return versions.list_versions(self.ctx, check_user(user_id))

    def restore(self, user_id: str, version: int) -> Restored:
        """Snapshot the current state, then make `version` current, atomically."""
        check_id(version, "version")
        with self._user_lock(check_user(user_id)):
            result = versions.restore(self.ctx, user_id, version)
        return result

    def clear(self, user_id: str) -> Saved:
        """Snapshot ("before clear"), then empty the user's memory. Settings never change."""
        with self._user_lock(check_user(user_id)):
            result = versions.clear(self.ctx, user_id)
        return result

    def diff(self, user_id: str, a: int, b: int) -> Diff:
        """What was added, removed and changed between two versions."""
        return versions.diff(self.ctx, check_user(user_id), check_id(a, "version"),
                             check_id(b, "version"))

    def delete_version(self, user_id: str, version: int) -> None:
        """Delete one stored version."""
        versions.delete_version(self.ctx, check_user(user_id), check_id(version, "version"))

    def export(self, user_id: str) -> ExportDocument:
        """One versioned JSON document with the user's whole memory."""
        return versions.export_document(self.ctx, check_user(user_id))
