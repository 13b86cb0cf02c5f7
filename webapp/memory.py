"""Memory inspection: tiers, gauges and heat chart, segments, pages with chain links, events;
the user's search, forgetting an exchange and correcting facts."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import login_required

from memoryos_core import InvalidInput

from .control_forms import FactForm, ForgetForm, SearchForm, form_error
from .forms import EmptyForm
from .rendering import engine, page, uid, wants_json

bp = Blueprint("memory", __name__)


@bp.get("/memory.json")
@bp.get("/memory")
@login_required
def index() -> Any:
    state = engine().state(uid())
    state.pop("user_id", None)
    return page("memory.html", search_form=SearchForm(formdata=None), **state)


@bp.get("/memory/search.json")
@bp.get("/memory/search")
@login_required
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


@bp.get("/memory/segments/<int:segment_id>.json")
@bp.get("/memory/segments/<int:segment_id>")
@login_required
def segment(segment_id: int) -> Any:
    seg = engine().segment(uid(), segment_id)
    return page("segment.html", segment=seg, heat_threshold=engine().config.heat_threshold)


@bp.get("/memory/pages/<int:page_id>.json")
@bp.get("/memory/pages/<int:page_id>")
@login_required
def page_view(page_id: int) -> Any:
    item = engine().page(uid(), page_id)
    facts, profile = item.pop("facts"), item.pop("profile")
    return page("page.html", page=item, facts=facts, profile=profile,
                forget_form=ForgetForm(formdata=None))


@bp.post("/memory/pages/<int:page_id>/forget.json")
@bp.post("/memory/pages/<int:page_id>/forget")
@login_required
def forget(page_id: int) -> Any:
    """Take one exchange out of memory (a version first), or out of everything (everywhere)."""
    form = ForgetForm()
    if not form.validate_on_submit():
        raise InvalidInput(form_error(form))
    if form.everywhere.data and not form.understood.data and not wants_json():
        # the page's irreversible form: its box says the user knows no version brings it back
        raise InvalidInput("forgetting everywhere cannot be undone: tick the box to confirm")
    result = engine().forget(uid(), page_id, everywhere=bool(form.everywhere.data))
    if wants_json():
        return page("page.html", result=result)
    if result["everywhere"]:
        flash(f"Exchange {page_id} is forgotten everywhere: memory, every saved version and"
              " the files on disk.", "info")
    else:
        flash(f"Exchange {page_id} is forgotten. The memory before is saved as version"
              f" {result['saved_as']}.", "info")
    return redirect(url_for("memory.index"))


def _fact_done(message: str, result: dict[str, Any]) -> Any:
    if wants_json():
        return page("memory.html", result=result)
    flash(message, "info")
    # "Forget this" in the chat's Memory updated note goes back to the chat
    back = "chat.index" if request.form.get("next") == "chat" else "memory.index"
    return redirect(url_for(back))


@bp.post("/memory/facts/<int:fact_id>/edit.json")
@bp.post("/memory/facts/<int:fact_id>/edit")
@login_required
def edit_fact(fact_id: int) -> Any:
    """Correct a fact's text (kept as yours: analysis never overwrites it)."""
    form = FactForm()
    if not form.validate_on_submit():
        raise InvalidInput(form_error(form))
    result = engine().edit_fact(uid(), fact_id, form.text.data or "")
    return _fact_done(f"Fact corrected. The memory before is saved as version"
                      f" {result['saved_as']}.", result)


@bp.post("/memory/facts/<int:fact_id>/delete.json")
@bp.post("/memory/facts/<int:fact_id>/delete")
@login_required
def delete_fact(fact_id: int) -> Any:
    if not EmptyForm().validate_on_submit():
        raise InvalidInput("the form's security token is missing")
    result = engine().delete_fact(uid(), fact_id)
    return _fact_done(f"Fact deleted. The memory before is saved as version"
                      f" {result['saved_as']}.", result)


@bp.get("/memory/events.json")
@bp.get("/memory/events")
@login_required
def events() -> Any:
    return page("events.html", events=engine().events(uid()))
