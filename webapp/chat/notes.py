"""The chat's "Memory updated" note: what a turn changed in memory, each item linked to its place."""

from __future__ import annotations

from typing import Any

from flask import url_for

from memoryos_core import MemoryEngine, MemoryOSError

from ..numbers import page_no

TITLE_WORDS = 8
MOST = 8  # items named in one note; the event log has the rest
TURN_EVENTS = ("admission", "replace")  # the events a chat turn logs
MAINTENANCE_EVENTS = ("consolidation", "analysis")


def _first_words(text: str) -> str:
    words = text.split()
    return " ".join(words[:TITLE_WORDS]) + (" …" if len(words) > TITLE_WORDS else "")


def _item(link: str, url: str, before: str = "", after: str = "",
          forget: int | None = None) -> dict[str, Any]:
    return {"before": before, "link": link, "url": url, "after": after, "forget": forget,
            "earlier": False}


def moved_items(engine: MemoryEngine, user_id: str, moved: list[int]) -> list[dict[str, Any]]:
    """The exchanges this turn moved into mid-term memory, each with its first words."""
    items = []
    for page_id in moved:
        try:
            page = engine.page(user_id, page_id)
        except MemoryOSError:  # forgotten in the meantime: nothing to link
            continue
        items.append(_item(f"“{_first_words(page['user'] or page['assistant'])}”",
                           url_for("memory.page_view", number=page_no(page_id)),
                           after=" moved to mid-term memory"))
    return items


def _maintenance_items(kind: str, detail: dict[str, Any]) -> list[dict[str, Any]]:
    """What one consolidation batch or analysis run (as the engine reports and logs it) changed."""
    if kind == "consolidation":
        return [_item(f"segment {s['id']}", url_for("memory.segment", segment_id=s["id"]),
                      before=f"{len(s.get('pages') or [])} page"
                             f"{'' if len(s.get('pages') or []) == 1 else 's'} filed into ")
                for s in detail.get("segments") or []]
    added = {int(f["id"]) for f in detail.get("facts_added") or []}
    superseded = detail.get("facts_superseded") or []
    named = {int(s["new"]) for s in superseded} | {int(s["old"]) for s in superseded}
    # a fact learned and replacing another in the same run is named once, as the replacement
    items = [_item(f"“{f['text']}”", url_for("memory.index", _anchor=f"fact-{f['id']}"),
                   before="learned ", forget=int(f["id"]))
             for f in detail.get("facts_added") or [] if int(f["id"]) not in named]
    items += [_item(f"“{s['new_text']}”", url_for("memory.index", _anchor=f"fact-{s['new']}"),
                    before=f"“{s['old_text']}” replaced by ",
                    forget=int(s["new"]) if int(s["new"]) in added else None)
              for s in superseded]
    items += [_item(f"profile: {c['dimension']}", url_for("profile.index"),
                    after=f" {c.get('from') or 'none'} → {c.get('to') or 'none'}")
              for c in detail.get("profile_changes") or []]
    return items


def since_previous_turn(engine: MemoryEngine, user_id: str,
                        exchange_id: int) -> list[tuple[str, dict[str, Any]]]:
    """Maintenance runs the event log shows between the previous turn and this one."""
    # background maintenance finishes after its own turn's answer: the next answer names it
    found: list[tuple[str, dict[str, Any]]] = []
    current = False
    for event in engine.events(user_id, 200):  # newest first
        if not current:
            current = (event["kind"] in TURN_EVENTS
                       and event["detail"].get("exchange") == exchange_id)
        elif event["kind"] in TURN_EVENTS:
            break
        elif event["kind"] in MAINTENANCE_EVENTS:
            found.append((event["kind"], event["detail"]))
    return found[::-1]


def turn_notes(engine: MemoryEngine, user_id: str, result: dict[str, Any],
               report: dict[str, Any] | None, background: bool) -> list[dict[str, Any]]:
    """The note's items for a stored turn: exchanges moved to mid-term, then maintenance's."""
    # maintenance's: this turn's own run when inline (`report`); in the background, the runs
    # that finished since the previous turn (this turn's own is named by the next answer)
    exchange_id = result.get("exchange_id")
    if exchange_id is None:
        return []
    items = moved_items(engine, user_id, list(result.get("moved_to_mid_term") or []))
    if report is not None:
        runs = [("consolidation", b) for b in report.get("consolidation") or []]
        runs += [("analysis", report["analysis"])] if report.get("analysis") else []
    else:
        runs = since_previous_turn(engine, user_id, int(exchange_id)) if background else []
    for kind, detail in runs:
        # what finished in the background since the previous turn may not come from this
        # exchange (another turn, an import, a forced analysis): the note says "since"
        items += [dict(i, earlier=report is None) for i in _maintenance_items(kind, dict(detail))]
    return _capped(items)


def _capped(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(items) <= MOST:
        return items
    more = len(items) - MOST
    return items[:MOST] + [dict(_item(f"{more} more in the event log", url_for("memory.events"),
                                      before="and "), earlier=items[-1]["earlier"])]


def history_notes(engine: MemoryEngine, user_id: str, exchange_ids: list[int],
                  background: bool, limit: int = 500) -> dict[int, list[dict[str, Any]]]:
    """The notes the shown exchanges had when answered, rebuilt from the event log (so they,
    and their Forget this, are still there after a reload): by the rules of `turn_notes`."""
    wanted = set(exchange_ids)
    runs: dict[int, list[tuple[str, dict[str, Any], bool]]] = {}
    moved: dict[int, list[int]] = {}
    deleted: set[int] = set()
    last: int | None = None  # the turn inline maintenance ran after
    between: list[tuple[str, dict[str, Any]]] = []  # maintenance since the previous turn
    for event in reversed(engine.events(user_id, limit)):  # oldest first
        kind, detail = event["kind"], dict(event["detail"])
        if kind in TURN_EVENTS and detail.get("exchange") is not None:
            last = int(detail["exchange"])
            # a Regenerate or Edit is the turn the bubble shows now: its notes replace
            moved[last] = [int(p) for p in detail.get("moved_to_mid_term") or []]
            runs[last] = [(k, d, True) for k, d in between] if background else []
            between = []
        elif kind in MAINTENANCE_EVENTS:
            if background:
                between.append((kind, detail))
            elif last is not None:
                runs[last].append((kind, detail, False))
        else:
            last = None  # an import, a forget, a restore: what follows is not a turn's
            if kind == "correction" and detail.get("action") == "deleted" and "fact" in detail:
                deleted.add(int(detail["fact"]))
    out: dict[int, list[dict[str, Any]]] = {}
    for exchange_id in wanted.intersection(runs):
        items = moved_items(engine, user_id, moved.get(exchange_id, []))
        for kind, detail, earlier in runs[exchange_id]:
            items += [dict(i, earlier=earlier, forget=None if i["forget"] in deleted
                           else i["forget"]) for i in _maintenance_items(kind, detail)]
        if items:
            out[exchange_id] = _capped(items)
    return out
