"""The text a page is found by: the exchange, a short user turn with the reply before it.

A page's vector is made from its retrieval text, on every path that writes one (chat, imports,
re-embedding, the upgrade of an older store when it is opened). A short user turn ("Tokyo!")
says little alone; with the reply it answers ("Where are you going for your honeymoon?") it is
found by the question about it. Keyword search and what the prompt shows stay the page's own
text. The previous exchange counts when it is of the same sitting: the one before it in dialogue
order (time, then id) of the same conversation, less than an hour earlier, as measured.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..llm.base import Embedder
from ..storage import every_table
from ..storage.base import BaseStore
from ..storage.db import Connection
from ..storage.tables import sittings as sittings_db
from ..storage.tables import store_meta as store_meta_db
from ..text import count_tokens
from .admission import NewExchange

log = logging.getLogger(__name__)

# A user turn of at most this many tokens is found with the reply before it. Measured in
# docs/benchmarks.md, "Issue 46": at 10, LoCoMo 0.823 -> 0.824, LUFY 0.842 -> 0.861, LongMemEval
# 0.913 unchanged; at 20 LUFY rose further (0.874) but LoCoMo fell (0.817).
SHORT_USER_TOKENS = 10
# Two exchanges are of one sitting when the later came less than this after the earlier (the
# measurement's rule; LoCoMo's and LongMemEval's sessions are days apart).
SITTING_GAP = 3600.0
VERSION = "2"  # of the page vectors' text (1: the page alone); store_meta "page_vector_text"
BATCH = 64


def page_text(user_text: str, assistant_text: str) -> str:
    """The page's own text, as keyword search and the prompt know it."""
    return f"User: {user_text}\nAssistant: {assistant_text}"


def retrieval_text(user_text: str, assistant_text: str, reply_before: str | None = None) -> str:
    """The text a page is embedded from: its own, after `reply_before` when its user turn is
    short (<= SHORT_USER_TOKENS) and there is a reply before it in the sitting."""
    own = page_text(user_text, assistant_text)
    if reply_before and count_tokens(user_text) <= SHORT_USER_TOKENS:
        return f"Assistant: {reply_before}\n{own}"
    return own


def in_sitting(earlier_ts: float, ts: float) -> bool:
    """Whether an exchange at `ts` follows one at `earlier_ts` in the same sitting."""
    return 0 <= float(ts) - float(earlier_ts) < SITTING_GAP


def _previous(rows: Sequence[Mapping[str, Any]], group: str) -> list[int | None]:
    """For each row, the position of the row before it in dialogue order (ts, then position)
    among the rows of its `group` value (rows without it: one group), when of one sitting."""
    groups: dict[Any, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.get(group), []).append(i)
    out: list[int | None] = [None] * len(rows)
    for members in groups.values():
        members.sort(key=lambda i: (float(rows[i]["ts"]), i))
        for before, i in zip(members, members[1:], strict=False):
            if in_sitting(rows[before]["ts"], rows[i]["ts"]):
                out[i] = before
    return out


def sitting_texts(rows: Sequence[Mapping[str, Any]], group: str = "conversation_id",
                  ) -> list[str]:
    """The retrieval text of each row (user_text, assistant_text, ts), in the rows' order, its
    reply before that of the row before it in its sitting (`_previous`)."""
    return [retrieval_text(r["user_text"], r["assistant_text"],
                           None if p is None else rows[p]["assistant_text"])
            for r, p in zip(rows, _previous(rows, group), strict=True)]


def _in_short_term(rows: Sequence[Mapping[str, Any]], new: NewExchange,
                   replaces: int | None) -> tuple[Mapping[str, Any] | None, float] | None:
    """The exchange before a chat turn's and the turn's time, from the short-term rows the turn
    read (oldest first): they hold the newest exchanges, so the one before a turn of the current
    conversation is among them; None when it may be older (then the store is asked)."""
    if replaces is not None:
        at = [n for n, r in enumerate(rows) if int(r["id"]) == replaces]
        if not at:
            return None
        own = rows[at[0]]
        earlier = [r for r in rows[:at[0]] if r["conversation_id"] == own["conversation_id"]]
        return (earlier[-1], float(own["ts"])) if earlier else None
    if new.conversation != "current":
        return None
    mine = [r for r in rows if r["source"] == new.source]
    if not mine:
        return None, new.ts  # no short-term exchange of its source: it starts a conversation
    conv = mine[-1]["conversation_id"]
    earlier = [r for r in rows if r["conversation_id"] == conv and float(r["ts"]) <= new.ts]
    return (earlier[-1], new.ts) if earlier else None


def chat_text(store: BaseStore, user_id: str, new: NewExchange, replaces: int | None = None,
              short_rows: Sequence[Mapping[str, Any]] | None = None) -> str:
    """The retrieval text of an exchange about to be admitted (or to take the place of
    `replaces`), its reply before found in the turn's `short_rows` when there, else read from
    the store in one statement (none for a long user turn)."""
    if count_tokens(new.user_text) > SHORT_USER_TOKENS:
        return new.page_text
    found = None if short_rows is None else _in_short_term(short_rows, new, replaces)
    if found is not None:
        row, at = found
    elif replaces is not None:
        row = sittings_db.exchange_before_stored(store, user_id, replaces)
        at = row["at"] if row else 0.0
    elif new.conversation == "current":
        row, at = sittings_db.exchange_before_current(store, user_id, new.source, new.ts), new.ts
    elif isinstance(new.conversation, int):
        row = sittings_db.exchange_before(store, user_id, new.conversation, new.ts)
        at = new.ts
    else:  # a new conversation starts a sitting
        row, at = None, new.ts
    before = str(row["assistant_text"]) if row and in_sitting(row["ts"], at) else None
    return retrieval_text(new.user_text, new.assistant_text, before)


def next_page_text(store: BaseStore, user_id: str, exchange_id: int,
                   new_reply: str) -> tuple[int, str] | None:
    """Where a stored exchange gets a new answer (Edit, Regenerate), the page after it that is
    found with that answer (a short user turn of the same sitting): its id and new retrieval
    text; None when there is none."""
    row = sittings_db.exchange_after_stored(store, user_id, exchange_id)
    if row is None or count_tokens(row["user_text"]) > SHORT_USER_TOKENS \
            or not in_sitting(row["at"], row["ts"]):
        return None
    return int(row["id"]), retrieval_text(row["user_text"], row["assistant_text"], new_reply)


def import_texts(store: BaseStore, user_id: str, news: Sequence[NewExchange],
                 conversation: int | None = None) -> list[str]:
    """The retrieval texts of exchanges imported as one conversation, in their order
    (`conversation`: a stored one they continue, whose last exchange may come before)."""
    rows: list[dict[str, Any]] = [{"user_text": n.user_text, "assistant_text": n.assistant_text,
                                   "ts": n.ts} for n in news]
    if conversation is not None and rows:
        first = min(float(n.ts) for n in news)
        prev = sittings_db.exchange_before(store, user_id, conversation, first)
        if prev is not None:
            return sitting_texts([{"user_text": "", **prev}] + rows)[1:]
    return sitting_texts(rows)


def stored_texts(rows: Sequence[Mapping[str, Any]],
                 changed: set[int] | None = None) -> dict[int, str]:
    """The retrieval text of stored exchanges (sittings_db rows), by id; with `changed`, only
    of those and of the pages whose reply before is one of them."""
    keyed = [dict(r, sitting=(r["user_id"], r["conversation_id"])) for r in rows]
    before = _previous(keyed, "sitting")
    texts = sitting_texts(keyed, "sitting")
    return {int(r["id"]): t for r, t, p in zip(keyed, texts, before, strict=True)
            if changed is None or int(r["id"]) in changed
            or (p is not None and int(keyed[p]["id"]) in changed and t.startswith("Assistant:"))}


def embed_all(embedder: Embedder, texts: list[str]) -> list[Any]:
    """Vectors of many texts, BATCH at a time."""
    out: list[Any] = []
    for start in range(0, len(texts), BATCH):
        out.extend(embedder.embed(texts[start:start + BATCH]))
    return out


def refresh(conn: Connection, store: BaseStore, embedder: Embedder,
            user_id: str | None = None, changed: set[int] | None = None) -> int:
    """Inside the caller's transaction, embed pages (of one user or all) again from their
    retrieval text: those of `changed` and the pages whose reply before is one of them, else
    every page found with the reply before it. Returns how many vectors were written."""
    rows = sittings_db.rows(conn, user_id)
    owner = {int(r["id"]): str(r["user_id"]) for r in rows}
    wanted = [(i, t) for i, t in stored_texts(rows, changed).items()
              if changed is not None or t.startswith("Assistant: ")]
    for (i, _), vec in zip(wanted, embed_all(embedder, [t for _, t in wanted]), strict=True):
        store.put_vector(conn, owner[i], "page", i, vec)
    return len(wanted)


def upgrade(store: BaseStore, embedder: Embedder) -> int | None:
    """Once per store, when it is opened: a store whose page vectors were made from the page
    alone gets the short user turns' vectors made again (None: it was done, or a new store)."""
    with store.transaction(lock="page-vector-text") as conn:
        if store_meta_db.page_vector_text(conn) == VERSION:
            return None
        done = 0 if every_table.is_new_store(conn) else refresh(conn, store, embedder)
        store_meta_db.mark_page_vector_text(conn, VERSION)
    if done:
        log.info("page vectors: %d short user turns embedded again with the reply before", done)
    return done
