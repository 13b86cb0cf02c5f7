"""The user's conversations, as MemoryEngine methods: list them, read one a page at a time,
start a new one."""

from __future__ import annotations

import json
from typing import Any, TypedDict

from ..answer.answer_guard import REASONS
from ..context import Context
from ..errors import NotFound, check_id, check_user
from ..memory import conversations
from ..memory.state import PageView, page_view
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import traces as traces_db
from ..storage.tables.exchanges import Exchange

TITLE_CHARS = 80


class ConversationView(TypedDict):
    """One conversation as a list shows it."""

    id: int  # the id of the exchange that started it (0: exchanges stored before conversations)
    title: str  # its first message
    started_at: float
    last_at: float
    count: int
    source: str  # "chat", or the import it came from ("import:locomo")
    current: bool  # the one a new message continues


class ChatView(PageView):
    """An exchange as the chat shows it: the page, and its answer's figures from the trace."""

    model: str | None
    stats: dict[str, Any] | None  # first_token_ms, tokens_per_second, ...
    answer_source: str | None
    replaced: str | None  # why the streamed text was replaced, if it was
    evidence: dict[str, Any] | None  # the memory line a memory answer says back
    previous_answers: int  # answers Regenerate or Edit replaced


class ConversationPage(TypedDict):
    """Some exchanges of one conversation, oldest first, and whether older ones exist."""

    id: int
    title: str
    source: str
    count: int
    current: bool
    exchanges: list[ChatView]
    earlier: bool  # more exchanges before the first one here ("Load earlier")


def _title(first_user: str, first_assistant: str, source: str) -> str:
    """A conversation's title: an import's own, else its first exchange's text."""
    # an imported chat export keeps its own title in the source: "import:claude 0b7e · Title"
    kept = str(source or "").partition(" · ")[2]
    text = " ".join((kept or str(first_user or first_assistant or "")).split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def _kind(source: str | None) -> str:
    """The kind of source: 'import:locomo D1:3' is 'import:locomo'."""
    return (source or "chat").split(" ", 1)[0]


def _replaced(trace: dict[str, Any]) -> str | None:
    """Why the model's first answer was replaced (as the chat said while streaming), if it
    was: the reason of its first attempt that the guard refused."""
    if trace.get("answer_source") not in ("retry", "plain"):
        return None
    for attempt in trace.get("answer_attempts") or []:
        reason = attempt.get("reason") if isinstance(attempt, dict) else None
        if reason:
            return REASONS.get(str(reason), str(reason))
    return None


def chat_view(row: Exchange, trace_text: str | None) -> ChatView:
    """An exchange and its stored trace (JSON text, or None) as the chat shows it."""
    trace: dict[str, Any] = {}
    if trace_text:
        try:
            loaded = json.loads(trace_text)
            trace = loaded if isinstance(loaded, dict) else {}
        except ValueError:  # a damaged trace costs its figures, never the chat page
            trace = {}
    stats = trace.get("answer_stats")
    plan = trace.get("answer_plan")
    evidence = plan.get("evidence") if isinstance(plan, dict) else None
    return ChatView(**page_view(row), model=trace.get("model"),
                    stats=stats if isinstance(stats, dict) else None,
                    answer_source=trace.get("answer_source"), replaced=_replaced(trace),
                    evidence=evidence if isinstance(evidence, dict) else None,
                    previous_answers=len(trace.get("previous_answers") or []))


class Conversations:
    """Conversations of a user (mixed into MemoryEngine)."""

    ctx: Context

    def conversations(self, user_id: str, limit: int = 50) -> list[ConversationView]:
        """The user's conversations, the newest first (chats and imports alike)."""
        store = self.ctx.store
        current = exchanges_db.current_conversation(store, check_user(user_id))
        return [ConversationView(id=c.conversation,
                                 title=_title(c.first_user, c.first_assistant, c.source),
                                 started_at=c.started_at, last_at=c.last_at, count=c.count,
                                 source=_kind(c.source),
                                 current=current is not None and c.conversation == current)
                for c in exchanges_db.conversation_listing(store, user_id, limit)]

    def current_conversation(self, user_id: str) -> int | None:
        """The conversation the next chat message continues (None: it starts a new one)."""
        return exchanges_db.current_conversation(self.ctx.store, check_user(user_id))

    def conversation(self, user_id: str, conversation_id: int, limit: int = 30,
                     before: int | None = None) -> ConversationPage:
        """Up to `limit` exchanges of one conversation, oldest first, ending just before the
        exchange `before` (None: with the newest); NotFound for one the user does not have."""
        store = self.ctx.store
        check_user(user_id)
        conversation_id = check_id(conversation_id, "conversation")
        cursor = None
        if before is not None:
            row = exchanges_db.exchange_in_conversation(store, user_id, conversation_id,
                                                        check_id(before, "page"))
            if row is None:
                raise NotFound(f"exchange {before} is not in conversation {conversation_id}")
            cursor = (float(row["ts"]), int(row["id"]))
        rows = exchanges_db.exchanges_before(store, user_id, conversation_id, cursor, limit + 1)
        first = exchanges_db.first_exchange(store, user_id, conversation_id)
        if first is None:
            raise NotFound(f"conversation {conversation_id} does not exist")
        shown = list(reversed(rows[:limit]))
        traces = traces_db.traces_of(store, user_id, [r.id for r in shown])
        current = exchanges_db.current_conversation(store, user_id)
        return ConversationPage(
            id=conversation_id, title=_title(first["user_text"], first["assistant_text"],
                                             first["source"]),
            source=_kind(first["source"]),
            count=exchanges_db.conversation_size(store, user_id, conversation_id),
            current=current == conversation_id and conversation_id != exchanges_db.UNGROUPED,
            exchanges=[chat_view(r, traces.get(r.id)) for r in shown],
            earlier=len(rows) > limit)

    def new_conversation(self, user_id: str) -> list[int]:
        """Start a new conversation: the short-term exchanges move to mid-term memory (pending
        pages, filed by the next maintenance); returns their ids."""
        # no user lock: like a chat turn, it only adds pending pages a running maintenance
        # may or may not see (the next one will)
        return conversations.new_conversation(self.ctx, check_user(user_id))
