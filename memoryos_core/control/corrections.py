"""The user's corrections: edit or delete a fact or a profile dimension.

Each is saved as the user's (`by_user`), which analysis never overwrites or deletes, after a
version of the memory before it (so a correction can be undone like any change).
"""

from __future__ import annotations

import time
from typing import Any, TypedDict

from ..context import Context
from ..errors import InvalidInput, NotFound
from ..memory.persona import DIMENSIONS, LEVELS
from ..storage.tables import facts as facts_db
from ..storage.tables import profile as profile_db
from ..text import normalise
from ..transfer import versions

MAX_FACT = 500
MAX_REASON = 500


class FactEdited(TypedDict):
    fact: int
    kind: str
    text: str
    saved_as: int  # the version saved before the correction


class FactDeleted(TypedDict):
    deleted_fact: int
    kind: str
    saved_as: int


class ProfileEdited(TypedDict):
    dimension: str
    family: str
    level: str
    reason: str
    saved_as: int


class ProfileDeleted(TypedDict):
    deleted_dimension: str
    saved_as: int


def _fact(ctx: Context, user_id: str, fact_id: int) -> dict[str, Any]:
    row = facts_db.facts_by_id(ctx.store, user_id, [fact_id]).get(fact_id)
    if row is None:
        raise NotFound(f"no fact {fact_id}")
    return row


def edit_fact(ctx: Context, user_id: str, fact_id: int, text: Any) -> FactEdited:
    """Replace a fact's text with the user's (embedded again, so retrieval finds the new text);
    the fact keeps its id, and its old text stays in its history as the value it replaced."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a fact needs some text (to remove it, delete it)")
    text = " ".join(text.split())
    if len(text) > MAX_FACT:
        raise InvalidInput(f"a fact is at most {MAX_FACT} characters")
    old = _fact(ctx, user_id, fact_id)
    vec, old_vec = ctx.embedder.embed([text, old["text"]])
    now = time.time()
    with ctx.store.transaction(user_id) as conn:
        saved = versions.snapshot(ctx, user_id, f"before correcting fact {fact_id}")
        if not facts_db.update_fact(conn, user_id, fact_id, text, normalise(text), now):
            raise NotFound(f"no fact {fact_id}")
        ctx.store.put_vector(conn, user_id, "fact", fact_id, vec)
        history = None
        if old["text"] != text:  # the old text stays in the fact's history, replaced now
            until = now if old["valid_until"] is None else float(old["valid_until"])
            history = facts_db.keep_as_history(conn, user_id, old, until)
            ctx.store.put_vector(conn, user_id, "fact", history, old_vec, new=True)
        ctx.store.log_event(conn, user_id, "correction", {
            "fact": fact_id, "kind": old["kind"], "action": "edited",
            "saved_as": saved["version"], "old_text_kept_as": history})
    return FactEdited(fact=fact_id, kind=old["kind"], text=text, saved_as=saved["version"])


def delete_fact(ctx: Context, user_id: str, fact_id: int) -> FactDeleted:
    """Delete one fact."""
    old = _fact(ctx, user_id, fact_id)
    with ctx.store.transaction(user_id) as conn:
        saved = versions.snapshot(ctx, user_id, f"before deleting fact {fact_id}")
        if not facts_db.delete_fact(conn, user_id, fact_id):
            raise NotFound(f"no fact {fact_id}")
        ctx.store.log_event(conn, user_id, "correction", {
            "fact": fact_id, "kind": old["kind"], "action": "deleted",
            "saved_as": saved["version"]})
    return FactDeleted(deleted_fact=fact_id, kind=old["kind"], saved_as=saved["version"])


def _family(ctx: Context, user_id: str, dimension: Any) -> tuple[str, str, bool]:
    """(dimension, family, stored) of a stored or known dimension name."""
    if not isinstance(dimension, str) or not dimension.strip():
        raise InvalidInput("name the profile dimension")
    dimension = dimension.strip()
    stored = {r["dimension"]: r for r in profile_db.profile_rows(ctx.store, user_id)}
    if dimension in stored:
        return dimension, str(stored[dimension]["family"]), True
    if dimension in DIMENSIONS:
        return dimension, DIMENSIONS[dimension], False
    raise NotFound(f"no profile dimension {dimension[:80]!r}")


def edit_profile(ctx: Context, user_id: str, dimension: Any, level: Any,
                 reason: Any = "") -> ProfileEdited:
    """Set a profile dimension's level (and reason) to the user's."""
    if level not in LEVELS:
        raise InvalidInput(f"level must be one of {', '.join(LEVELS)}")
    reason = " ".join(str(reason or "").split()) or "set by you"
    if len(reason) > MAX_REASON:
        raise InvalidInput(f"a reason is at most {MAX_REASON} characters")
    name, family, _ = _family(ctx, user_id, dimension)
    with ctx.store.transaction(user_id) as conn:
        saved = versions.snapshot(ctx, user_id, f"before correcting profile {name}")
        profile_db.save_profile(conn, user_id, name, family, level, reason, time.time())
        ctx.store.log_event(conn, user_id, "correction", {
            "dimension": name, "action": "edited", "level": level,
            "saved_as": saved["version"]})
    return ProfileEdited(dimension=name, family=family, level=level, reason=reason,
                         saved_as=saved["version"])


def delete_profile(ctx: Context, user_id: str, dimension: Any) -> ProfileDeleted:
    """Delete one stored profile dimension."""
    name, _, stored = _family(ctx, user_id, dimension)
    if not stored:
        raise NotFound(f"no profile dimension {name!r} is stored")
    with ctx.store.transaction(user_id) as conn:
        saved = versions.snapshot(ctx, user_id, f"before deleting profile {name}")
        profile_db.delete_profile(conn, user_id, name)
        ctx.store.log_event(conn, user_id, "correction", {
            "dimension": name, "action": "deleted", "saved_as": saved["version"]})
    return ProfileDeleted(deleted_dimension=name, saved_as=saved["version"])
