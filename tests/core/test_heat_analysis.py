"""Heat arithmetic, eviction, and long-term analysis (profile and facts with provenance)."""

from __future__ import annotations

import json
import math

import pytest

from memoryos_core import EngineConfig
from memoryos_core.memory.heat import heat_terms

from .test_admission import TOPICS


def test_heat_is_weighted_sum_recomputed_at_read_time():
    cfg = EngineConfig(heat_alpha=2.0, heat_beta=0.5, heat_gamma=3.0, recency_tau_seconds=100)
    seg = {"n_visit": 3, "l_interaction": 4, "last_visit": 1000.0}
    now_terms = heat_terms(seg, cfg, 1000.0)
    assert now_terms["heat"] == pytest.approx(2 * 3 + 0.5 * 4 + 3 * 1.0)
    later = heat_terms(seg, cfg, 1100.0)
    assert later["recency"] == pytest.approx(math.exp(-1))
    assert later["heat"] == pytest.approx(6 + 2 + 3 * math.exp(-1))


def test_capacity_overflow_evicts_coldest_segment_and_logs_it(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive",
                         mid_term_capacity=2, consolidation_batch=1, short_term_capacity=1,
                         merge_threshold=5.0)  # theta above any score: every topic is new
    for i, (u, a) in enumerate(TOPICS[:5]):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    state = engine.state("u1")
    assert state["mid_term"]["count"] == 2
    evictions = [e for e in engine.events("u1") if e["kind"] == "eviction"]
    assert len(evictions) == 2
    assert evictions[-1]["detail"]["pages"][0]["user_text"] == TOPICS[0][0]


def test_retrieval_counts_visits_only_when_an_answer_used_the_segment(engine, chat_model):
    for i, (u, a) in enumerate(TOPICS * 2):
        engine.add_exchange("u1", f"{u} [{i}]", a, timestamp=1_700_000_000 + i * 60)
    engine.force_analysis("u1")
    visits = sum(s["n_visit"] for s in engine.state("u1")["mid_term"]["segments"])
    engine.retrieve("u1", "my puppy Rex")  # inspection only: no visit
    assert sum(s["n_visit"] for s in engine.state("u1")["mid_term"]["segments"]) == visits
    chat_model.enqueue("Rex is your puppy.")
    result = engine.chat("u1", "Tell me about my puppy Rex")
    used = result["trace"]["used_segments"]
    assert used
    after = {s["id"]: s["n_visit"] for s in engine.state("u1")["mid_term"]["segments"]}
    assert all(after[s] >= 1 for s in used)


def _llm_engine(make_engine, chat_model, **extra):
    return make_engine(consolidation="llm", analysis="llm", consolidation_batch=3, **extra)


def test_hot_segment_feeds_profile_and_facts_with_provenance(make_engine, chat_model):
    engine = _llm_engine(make_engine, chat_model, heat_threshold=1.5)
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60, maintain=False)
    page_ids = [p["id"] for p in engine.state("u1")["mid_term"]["pending_pages"]]

    def profile(messages, schema):
        if "user_facts" in json.dumps(schema):
            return json.dumps({"user_facts": [{"fact": "The user has a puppy named Rex.",
                                               "pages": page_ids[:2]}],
                               "assistant_facts": []})
        return json.dumps({"dimensions": [{"dimension": "Animal Concern", "level": "High",
                                           "reason": "Talks about the puppy Rex",
                                           "evidence": page_ids[:2]}]})

    chat_model.default = None
    chat_model.enqueue(json.dumps({"continues_previous": False, "overview": "Pets",
                                   "topics": [{"summary": "Puppy Rex", "keywords": ["rex"],
                                               "pages": [1, 2, 3]}]}), profile, profile)
    engine.maintain("u1")
    prof = engine.profile("u1")
    interests = next(f for f in prof["families"] if f["family"] == "content interests")
    dim = interests["dimensions"][0]
    assert (dim["dimension"], dim["level"]) == ("Animal Concern", "High")
    assert dim["evidence"] == page_ids[:2]
    facts = engine.state("u1")["long_term"]["user_facts"]
    assert facts[0]["text"] == "The user has a puppy named Rex." and facts[0]["sources"]
    seg = engine.state("u1")["mid_term"]["segments"][0]
    assert seg["unanalysed_pages"] == 0 and seg["n_visit"] == 0 and seg["l_interaction"] == 0


def test_analysis_marks_pages_only_after_the_result_is_stored(make_engine, chat_model):
    engine = _llm_engine(make_engine, chat_model)
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    chat_model.enqueue('{"dimensions": []}', RuntimeError("disk on fire"))
    with pytest.raises(RuntimeError):
        engine.force_analysis("u1")
    assert engine.state("u1")["pending_work"]["unanalysed_pages"] == 3
    engine.force_analysis("u1")
    assert engine.state("u1")["pending_work"]["unanalysed_pages"] == 0


def test_duplicate_facts_are_merged(make_engine, chat_model):
    engine = _llm_engine(make_engine, chat_model)
    for i, (u, a) in enumerate(TOPICS):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    ids = sorted(p["id"] for s in engine.state("u1")["mid_term"]["segments"]
                 for p in s["pages"] if "Rex" in p["user"])
    facts = {"user_facts": [{"fact": "The user has a puppy named Rex.", "pages": ids[:1]},
                            {"fact": "the user has a puppy named Rex", "pages": ids[:2]}],
             "assistant_facts": []}
    chat_model.enqueue('{"dimensions": []}', json.dumps(facts))
    report = engine.force_analysis("u1")
    user_facts = engine.state("u1")["long_term"]["user_facts"]
    assert len(user_facts) == 1 and report["facts_merged"] == 1
    assert user_facts[0]["sources"] == sorted(ids[:2])


def test_forced_analysis_without_model_records_signals_not_levels(engine):
    for i, (u, a) in enumerate(TOPICS * 2):
        engine.add_exchange("u1", f"{u} [{i}]", a, timestamp=1_700_000_000 + i * 60)
    report = engine.force_analysis("u1")
    state = engine.state("u1")
    assert report["pages"] >= 1 and state["pending_work"]["unanalysed_pages"] == 0
    assert state["mid_term"]["page_count"] == 13 and not state["mid_term"]["pending_pages"]
    rows = {r["dimension"]: r for r in engine.state("u1")["long_term"]["profile"]}
    # without a model: the user's sentences as signals, their pages linked, no level invented
    # (with MiniLM only the user's own interests: "I adopted a puppy" is a plain fact, issue 48)
    assert "Sports Interest" in rows and "Travel Interest" in rows
    for row in rows.values():
        assert row["level"] is None and row["kind"] == "signals" and row["signals"]
        assert sorted({s["page"] for s in row["signals"]}) == row["evidence"]
        assert row["summary"].startswith(f"{len(row['signals'])} sentence")


def test_eviction_leaves_no_evidence_pointing_at_evicted_pages(make_engine):
    settings = {"consolidation": "extractive", "analysis": "extractive",
                "consolidation_batch": 1, "short_term_capacity": 1, "merge_threshold": 5.0}
    engine = make_engine(**settings)
    for i, (u, a) in enumerate(TOPICS[:6]):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    engine.force_analysis("u1")
    cited = {i for kind in ("user_facts", "assistant_facts")
             for f in engine.state("u1")["long_term"][kind] for i in f["sources"]}
    assert cited  # facts cite pages before the eviction
    small = make_engine(mid_term_capacity=2, **settings)
    small.add_exchange("u1", "I repainted the garden fence.", "Nice colour?",
                       timestamp=1_700_001_000)
    alive = {p["id"] for s in small.state("u1")["mid_term"]["segments"] for p in s["pages"]}
    long = small.state("u1")["long_term"]
    facts = long["user_facts"] + long["assistant_facts"]
    assert facts  # long-term memory outlives the evicted dialogue
    assert all(set(f["sources"]) <= alive for f in facts)
    assert all(set(row["evidence"]) <= alive for row in long["profile"])
    evictions = [e for e in small.events("u1") if e["kind"] == "eviction"]
    assert evictions and any(e["detail"]["evidence_dropped"] for e in evictions)
