"""Memory inspection (tiers, segments, pages, events), search, forgetting, correcting facts."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from memoryos_core import InvalidInput

from .. import numbers
from ..actions import done, twin
from ..extensions import engine, uid
from ..forms import EmptyForm, FactForm, ForgetForm, SearchForm, form_error, valid
from ..rendering import page, wants_json

bp = Blueprint("memory", __name__)


@twin(bp, "/memory")
def index() -> Any:
    state = engine().state(uid())
    state.pop("user_id", None)
    return page("memory.html", search_form=SearchForm(formdata=None), **state)


@twin(bp, "/memory/search")
def search() -> Any:
    """Pages, facts and profile dimensions by words and by meaning (?q=...)."""
    form = SearchForm(request.args)
    if not request.args.get("q", "").strip():
        if wants_json():
            raise InvalidInput("give a search with ?q=")
        return render_template("search.html", search_form=form, result=None)
    if not form.validate():
        raise InvalidInput(form_error(form))
    result = engine().search(uid(), form.q.data)
    return page("search.html", search_form=form, result=result)


@twin(bp, "/memory/segments/<int:segment_id>")
def segment(segment_id: int) -> Any:
    seg = engine().segment(uid(), segment_id)
    return page("segment.html", segment=seg, heat_threshold=engine().config.heat_threshold)


@twin(bp, "/memory/pages/<int:number>")
def page_view(number: int) -> Any:
    """One page, by the user's own number of it (numbers.py)."""
    item = engine().page(uid(), numbers.exchange_of(number))
    facts, profile = item.pop("facts"), item.pop("profile")
    return page("page.html", page=item, facts=facts, profile=profile,
                forget_form=ForgetForm(formdata=None))


@twin(bp, "/memory/pages/<int:number>/forget", methods=["POST"])
def forget(number: int) -> Any:
    """Take one exchange out of memory (a version first), or out of everything (everywhere)."""
    form = valid(ForgetForm())
    if form.everywhere.data and not form.understood.data and not wants_json():
        # the page's irreversible form: its box says the user knows no version brings it back
        raise InvalidInput("forgetting everywhere cannot be undone: tick the box to confirm")
    eng = engine()
    result = eng.forget(uid(), numbers.exchange_of(number), everywhere=bool(form.everywhere.data))
    if not result["everywhere"]:
        return done(f"Exchange {number} is forgotten. The memory before is saved as version"
                    f" {result['saved_as']}.", "memory.index", result=result)
    gone = f"Exchange {number} is forgotten everywhere: memory, every saved version"
    if result["files_scrubbed"]:
        return done(f"{gone} and the files on disk.", "memory.index", result=result)
    if eng.store.dialect != "sqlite":  # PostgreSQL's old row versions go at its own VACUUM
        return done(f"{gone}. PostgreSQL keeps old copies of the rows in its files until its"
                    " VACUUM reclaims them (see How the memory works, Forgetting).",
                    "memory.index", result=result)
    # a reader held the SQLite log: the file keeps the old pages until the job workers'
    # retried checkpoint, and the user must not be told the disk is clean
    return done(f"{gone}, but not yet from the database file: another reader kept it busy."
                " Its old bytes stay there until the clean-up, retried in the background,"
                " completes.", "memory.index", flash_as="error", result=result)


def _fact_done(what: str, result: dict[str, Any]) -> Any:
    # "Forget this" in the chat's Memory updated note goes back to the chat
    back = "chat.index" if request.form.get("next") == "chat" else "memory.index"
    return done(f"Fact {what}. The memory before is saved as version {result['saved_as']}.",
                back, result=result)


@twin(bp, "/memory/facts/<int:fact_id>/edit", methods=["POST"])
def edit_fact(fact_id: int) -> Any:
    """Correct a fact's text (kept as yours: analysis never overwrites it)."""
    form = valid(FactForm())
    return _fact_done("corrected", engine().edit_fact(uid(), fact_id, form.text.data or ""))


@twin(bp, "/memory/facts/<int:fact_id>/delete", methods=["POST"])
def delete_fact(fact_id: int) -> Any:
    valid(EmptyForm(), "the form's security token is missing")
    return _fact_done("deleted", engine().delete_fact(uid(), fact_id))


@twin(bp, "/memory/events")
def events() -> Any:
    return page("events.html", events=engine().events(uid()))
