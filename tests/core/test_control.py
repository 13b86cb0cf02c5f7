"""The user's control over their memory: search, forget (and forget everywhere), corrections,
undoing an import, erasing a user."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryos_core import InvalidInput, NotFound

from .test_admission import TOPICS

SECRET = "zebraquokkaxylo"
SECRET_TEXT = f"My bank password is {SECRET}-77, please keep it safe."


@pytest.fixture
def small(make_engine):
    """Extractive upkeep, three short-term slots and batches of two: pages file quickly."""
    return make_engine(consolidation="extractive", analysis="extractive", short_term_capacity=3,
                       consolidation_batch=2)


def _fill(engine, user="u1", secret=True):
    """Topics with the secret exchange in the middle; every page filed and analysed."""
    items = TOPICS[:4] + ([(SECRET_TEXT, "I will not repeat it.")] if secret else []) + TOPICS[4:]
    for i, (u, a) in enumerate(items):
        engine.add_exchange(user, u, a, timestamp=1_700_000_000 + i * 60)
    engine.force_analysis(user)


def _secret_page(engine, user="u1"):
    state = engine.state(user)
    pages = [p for s in state["mid_term"]["segments"] for p in s["pages"]]
    pages += state["mid_term"]["pending_pages"] + state["short_term"]["exchanges"]
    return next(p for p in pages if SECRET in p["user"])


def _files_holding(folder: Path, needle: str) -> list[str]:
    """Files under a folder whose bytes hold the needle (any case)."""
    want = needle.lower().encode()
    return [str(p) for p in sorted(folder.rglob("*")) if p.is_file()
            and want in p.read_bytes().lower()]


@pytest.mark.real_model  # "my dog" finds the puppy by meaning, no word in common
def test_search_finds_pages_facts_and_profile_by_words_and_by_meaning(small):
    _fill(small, secret=False)
    small.add_exchange("u2", "I adopted a puppy named Rex too.", "Two dogs named Rex!")
    found = small.search("u1", "Valencia")
    assert found["pages"] and all(p["by_words"] for p in found["pages"][:1])
    assert "Valencia" in found["pages"][0]["user"] and found["pages"][0]["timestamp"] > 1.6e9
    dog = small.search("u1", "my dog")  # no page says "dog": found by meaning
    assert any("Rex" in p["user"] and p["by_meaning"] and not p["by_words"]
               for p in dog["pages"])
    tiers = {p["tier"] for p in small.search("u1", "Rex")["pages"]}
    assert tiers == {"mid", "short"} or tiers == {"mid"}
    assert all("Two dogs" not in p["assistant"] for p in small.search("u1", "Rex")["pages"])
    facts = small.search("u1", "marathon")["facts"]
    assert any("marathon" in f["text"] for f in facts) and all(f["updated_at"] for f in facts)
    with pytest.raises(InvalidInput):
        small.search("u1", "   ")


def test_forget_takes_the_exchange_out_of_every_tier_and_can_be_undone(small):
    _fill(small)
    secret = _secret_page(small)
    pid, prev_id, next_id = secret["id"], secret["prev_id"], secret["next_id"]
    assert any(SECRET in f["text"] for f in small.state("u1")["long_term"]["user_facts"])
    assert small.search("u1", SECRET)["pages"][0]["id"] == pid
    before_pages = small.state("u1")["mid_term"]["page_count"]

    result = small.forget("u1", pid)
    assert result["saved_as"] and result["facts_removed"]
    with pytest.raises(NotFound):
        small.page("u1", pid)
    state = small.state("u1")
    assert state["mid_term"]["page_count"] == before_pages - 1
    assert SECRET not in json.dumps(state)
    if prev_id:  # the chain links past it
        assert small.page("u1", prev_id)["next_id"] == next_id
    if next_id:
        assert small.page("u1", next_id)["prev_id"] == prev_id
    assert small.search("u1", SECRET)["pages"] == []
    assert small.retrieve("u1", "Where is my Spanish teacher from?")["pages"]
    assert SECRET not in json.dumps(small.events("u1"))
    assert small.versions("u1")[0]["label"] == f"before forgetting exchange {pid}"

    small.restore("u1", result["saved_as"])  # undone: it is back with its id
    assert SECRET in small.page("u1", pid)["user"]


def test_forget_unknown_or_other_users_exchange_is_not_found(small):
    _fill(small, secret=False)
    small.add_exchange("u2", SECRET_TEXT, "Noted.")
    other = small.search("u2", SECRET)["pages"][0]["id"]
    with pytest.raises(NotFound):
        small.forget("u1", other, everywhere=True)
    with pytest.raises(NotFound):
        small.forget("u1", 10**9)
    assert small.search("u2", SECRET)["pages"][0]["id"] == other


def test_forget_everywhere_rewrites_every_version(small):
    _fill(small)
    kept = small.snapshot("u1", "kept")["version"]
    pid = _secret_page(small)["id"]
    result = small.forget("u1", pid, everywhere=True)
    assert result["saved_as"] is None and kept in result["versions_rewritten"]
    from memoryos_core.transfer.versions import load_version

    for v in small.versions("u1"):
        doc = load_version(small.ctx, "u1", v["version"])
        assert SECRET not in json.dumps(doc, ensure_ascii=False).lower()
        assert len(doc["exchanges"]) == v["counts"]["short_term"] + v["counts"]["pages"]
    small.restore("u1", kept)  # the rewritten version still restores, without the secret
    assert SECRET not in json.dumps(small.state("u1"))
    assert small.state("u1")["mid_term"]["page_count"] > 0


@pytest.mark.sqlite_only
def test_forget_everywhere_leaves_no_byte_of_it_in_the_data_folder(small, chat_model, tmp_path):
    _fill(small)
    chat_model.enqueue("I keep what you told me safe.")
    small.chat("u1", "What did I tell you about my bank?")  # its trace quotes the secret
    small.snapshot("u1", "kept")
    folder = tmp_path / "data"
    assert _files_holding(folder, SECRET)  # the check can fail: the text is on disk now
    others = small.state("u1")["mid_term"]["page_count"] + small.short_term_fill("u1")["count"]

    small.forget("u1", _secret_page(small)["id"], everywhere=True)
    assert _files_holding(folder, SECRET) == []
    assert _files_holding(folder, "please keep it safe") == []
    state = small.state("u1")
    assert state["mid_term"]["page_count"] + state["short_term"]["count"] == others - 1
    trace = small.retrieve("u1", "What is my dog called?")
    assert any("Rex" in p["user"] for p in trace["pages"] if p["selected"])


@pytest.mark.real_model  # "which race" finds the triathlon by meaning
def test_corrected_fact_is_found_by_its_new_text_and_analysis_keeps_it(small):
    _fill(small, secret=False)
    fact = next(f for f in small.state("u1")["long_term"]["user_facts"] if "marathon" in f["text"])
    result = small.edit_fact("u1", fact["id"], "I am training for the Berlin triathlon in May.")
    assert small.versions("u1")[0]["version"] == result["saved_as"]
    facts = small.retrieve("u1", "Which race am I training for?")["facts"]["user"]
    assert facts and facts[0]["id"] == fact["id"] and "triathlon" in facts[0]["text"]
    # more pages on the subject, analysed again: the user's text stays
    for i, u in enumerate(["I am training for a marathon in October, again.",
                           "My marathon plan has four runs a week."] * 3):
        small.add_exchange("u1", u, "Keep going.", timestamp=1_700_100_000 + i * 60)
    small.force_analysis("u1")
    mine = [f for f in small.state("u1")["long_term"]["user_facts"] if f["id"] == fact["id"]]
    assert mine and "triathlon" in mine[0]["text"] and mine[0]["valid_until"] is None
    small.restore("u1", result["saved_as"])  # the correction is undone
    assert "marathon" in small.search("u1", "marathon")["facts"][0]["text"]
    with pytest.raises(InvalidInput):
        small.edit_fact("u1", fact["id"], "  ")


def test_profile_correction_and_deletion(small):
    _fill(small, secret=False)
    small.edit_profile("u1", "Sports Interest", "Low", "I only run for fun")
    for i in range(6):
        small.add_exchange("u1", f"I watched the football match and went running, day {i}.",
                           "Sports every day!", timestamp=1_700_200_000 + i * 60)
    small.force_analysis("u1")
    dims = {d["dimension"]: d for d in small.state("u1")["long_term"]["profile"]}
    assert dims["Sports Interest"]["level"] == "Low"
    assert dims["Sports Interest"]["reason"] == "I only run for fun"
    deleted = small.delete_profile("u1", "Sports Interest")
    assert "Sports Interest" not in {d["dimension"] for d in small.state("u1")["long_term"]["profile"]}
    small.restore("u1", deleted["saved_as"])
    assert "Sports Interest" in {d["dimension"] for d in small.state("u1")["long_term"]["profile"]}
    with pytest.raises(InvalidInput):
        small.edit_profile("u1", "Sports Interest", "Enormous")
    with pytest.raises(NotFound):
        small.edit_profile("u1", "Not a dimension", "High")


def test_a_version_is_saved_before_every_dialogue_import(small):
    _fill(small, secret=False)
    before = small.state("u1")
    transcript = "User: I moved to Lisbon last month.\nAssistant: Lisbon is lovely.\n"
    report = small.import_dialogue("u1", transcript.encode(), "transcript")
    assert report["imported"] == 1 and report["saved_as"]
    assert small.versions("u1")[0]["label"].startswith("before import")
    assert any("Lisbon" in p["user"] for p in small.search("u1", "Lisbon")["pages"])
    small.restore("u1", report["saved_as"])  # the import is undone
    assert all("Lisbon" not in p["user"] for p in small.search("u1", "Lisbon")["pages"])
    after = small.state("u1")
    assert after["mid_term"]["page_count"] == before["mid_term"]["page_count"]
    assert after["short_term"]["count"] == before["short_term"]["count"]


def test_erase_user_deletes_every_row_and_leaves_others_untouched(small, backend, tmp_path):
    from memoryos_core.storage import every_table

    _fill(small, user="u1")
    _fill(small, user="u2", secret=False)
    small.snapshot("u1", "kept")
    small.snapshot("u2", "kept")
    rows_u2 = every_table.user_row_count(small.store, "u2")
    trace_u2 = small.retrieve("u2", "When is my marathon?")
    assert every_table.user_row_count(small.store, "u1") > 0

    small.erase_user("u1")
    assert every_table.user_row_count(small.store, "u1") == 0
    assert small.versions("u1") == [] and small.state("u1")["short_term"]["count"] == 0
    assert every_table.user_row_count(small.store, "u2") == rows_u2
    again = small.retrieve("u2", "When is my marathon?")
    assert [p["id"] for p in again["pages"]] == [p["id"] for p in trace_u2["pages"]]
    if backend == "sqlite":
        assert _files_holding(tmp_path / "data", SECRET) == []
