"""Keyword search: the common-term filter counts only the asking user's pages."""

from __future__ import annotations

from memoryos_core import retrieval
from memoryos_core.storage import search


def _fill(engine, user, n, text, start=1_700_000_000):
    for i in range(n):
        engine.add_exchange(user, f"{text} number {i}", "Noted.", timestamp=start + i * 60,
                            maintain=False)


def test_keyword_filter_counts_only_the_users_pages(engine):
    # another user mentions the ukulele on 70 pages: store-wide it is a common word
    _fill(engine, "other", 77, "I practised the ukulele today")
    _fill(engine, "u1", 10, "My ukulele teacher is called Ines")
    trace = engine.retrieve("u1", "Who teaches my ukulele lessons?")
    assert "ukulele" in trace["keyword_search_terms"]  # 3 of u1's pages: distinctive for u1
    assert any(p.get("keyword_rank") for p in trace["pages"])
    other = engine.retrieve("other", "When did I play the ukulele?")
    assert "ukulele" not in other["keyword_search_terms"]  # 70 of 70 pages: common for them


def test_frequent_terms_agree_with_exact_counts(engine):
    _fill(engine, "other", 60, "Café crème with a croissant")
    _fill(engine, "u1", 67, "Café crème at the station")
    words = ["café", "crème", "croissant", "station", "nothing"]
    exact = {w: search.keyword_document_count(engine.store, "u1", w, 1000) for w in words}
    assert exact == {"café": 60, "crème": 60, "croissant": 0, "station": 60, "nothing": 0}
    assert search.frequent_terms(engine.store, "u1", words, 50, 60) == {"café", "crème",
                                                                         "station"}
    assert search.frequent_terms(engine.store, "u1", words, 59, 60) == {"café", "crème",
                                                                         "station"}
    assert search.frequent_terms(engine.store, "u1", words, 60, 60) == set()
    assert retrieval.distinctive_words(engine.ctx, "u1", words) == ["croissant", "nothing"]
