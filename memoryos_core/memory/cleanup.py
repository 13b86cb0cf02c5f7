"""Memory made by earlier versions, cleaned once: the app's own text is no memory.

Earlier versions stored the answer guard's appended evidence line ("\\n(What I remember: ...)")
as part of the assistant's answer, and analysis could turn the app's text, or the assistant
saying the user's words back, into facts. When a store is opened this runs once (recorded in
store_meta), and on a user's rows when a version of theirs is restored: each answer loses the
evidence line and its page is embedded again (the page vector and the keyword index were made
with the line in); each fact that is the app's text, and each assistant fact that copies a
user line of its pages, is deleted, the facts it had replaced taking its place in their
history; so is each assistant fact whose every source page was answered by the embedded model
or the app (`exchanges.answered_by`, memory/provenance.py: only what a real assistant said is
its fact; version 2). Facts the user wrote or corrected stay.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, TypedDict

from ..llm.base import Embedder
from ..storage import every_table
from ..storage.base import BaseStore
from ..storage.db import Connection
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import store_meta as store_meta_db
from . import retrieval_text
from .app_text import copies_user, is_app_text, without_evidence
from .provenance import APP, EMBEDDED

VERSION = "2"  # bump to run a changed cleanup again on every store


class Cleaned(TypedDict):
    """What the cleanup changed."""

    answers: int  # answers whose evidence line was removed (their pages embedded again)
    facts: int  # facts deleted


def doomed_facts(rows: list[dict[str, Any]], said: dict[int, str],
                 writers: dict[int, str] | None = None) -> set[int]:
    """Ids of the facts to delete: the app's text, an assistant fact copying a user line of
    its source pages (`said`: user text by page id), or an assistant fact whose every source
    page the embedded model or the app answered (`writers`: answered_by by page id); never
    the user's own."""
    writers = writers or {}
    out: set[int] = set()
    for r in rows:
        if r.get("by_user"):
            continue
        sources = [int(i) for i in json.loads(r["sources"])]
        lines = [said[i] for i in sources if i in said]
        invented = r["kind"] == "assistant" and bool(sources) and all(
            writers.get(i) in (EMBEDDED, APP) for i in sources)
        if invented or is_app_text(str(r["text"])) or (
                r["kind"] == "assistant" and copies_user(str(r["text"]), lines)):
            out.add(int(r["id"]))
    return out


def relinks(rows: list[dict[str, Any]],
            doomed: set[int]) -> dict[int, tuple[float | None, int | None]]:
    """(valid_until, superseded_by) for each kept fact that a deleted one replaced: the
    deleted fact's own, followed past deleted facts (a deleted current fact: current again)."""
    by_id = {int(r["id"]): r for r in rows}

    def after(fid: int) -> tuple[float | None, int | None]:
        seen: set[int] = set()
        while fid in doomed and fid not in seen:
            seen.add(fid)
            nxt = by_id[fid]["superseded_by"]
            if nxt is None or int(nxt) not in by_id:
                return None, None
            if int(nxt) not in doomed:
                return by_id[fid]["valid_until"], int(nxt)
            fid = int(nxt)
        return None, None

    return {int(r["id"]): after(int(r["superseded_by"])) for r in rows
            if int(r["id"]) not in doomed and r["superseded_by"] is not None
            and int(r["superseded_by"]) in doomed}


def clean_app_text(store: BaseStore, embedder: Embedder) -> Cleaned | None:
    """Run the cleanup once per store (None when it ran already); a new store is only marked.
    One transaction: another process opening the store waits, then finds it done."""
    retrieval_text.upgrade(store, embedder)  # the page vectors' text, also once per store
    with store.transaction(lock="app-text-cleanup") as conn:
        if store_meta_db.cleanup_done(conn) == VERSION:
            return None
        changed = {} if every_table.is_new_store(conn) else clean_rows(store, embedder, conn)
        store_meta_db.mark_cleanup_done(conn, VERSION)
    return Cleaned(answers=sum(c["answers"] for c in changed.values()),
                   facts=sum(c["facts"] for c in changed.values()))


def clean_rows(store: BaseStore, embedder: Embedder, conn: Connection,
               user_id: str | None = None) -> dict[str, Cleaned]:
    """Clean one user's rows (or every user's) inside the caller's transaction; what changed
    per user, each said in their event log."""
    pages = [dict(p, new=without_evidence(p["assistant_text"]))
             for p in exchanges_db.pages_with_evidence(conn, user_id)]
    pages = [p for p in pages if p["new"] != p["assistant_text"]]
    facts = facts_db.all_facts(conn, user_id)
    source_ids = [i for r in facts for i in json.loads(r["sources"])]
    said = exchanges_db.user_texts(conn, source_ids)
    writers = exchanges_db.answer_writers(conn, source_ids)
    by_user: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in facts:
        by_user[str(r["user_id"])].append(r)
    changed: dict[str, Cleaned] = defaultdict(lambda: Cleaned(answers=0, facts=0))
    answered: set[int] = set()
    for page in pages:
        if exchanges_db.set_answer(conn, page["user_id"], int(page["id"]),
                                   page["assistant_text"], page["new"]):
            answered.add(int(page["id"]))
            changed[page["user_id"]]["answers"] += 1
    if answered:  # each page as admission embeds it, without the line; and the pages after
        retrieval_text.refresh(conn, store, embedder, user_id, answered)
    for owner, rows in by_user.items():
        doomed = doomed_facts(rows, said, writers)
        if not doomed:
            continue
        for fid, (until, successor) in relinks(rows, doomed).items():
            facts_db.relink_fact(conn, owner, fid, until, successor)
        facts_db.delete_facts(conn, owner, sorted(doomed))
        changed[owner]["facts"] += len(doomed)
    for owner, counts in changed.items():  # each user's event log says what changed
        store.log_event(conn, owner, "cleanup", dict(counts, reason="the app's own text"
                                                       " and the embedded model's"))
    return dict(changed)
