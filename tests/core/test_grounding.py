"""Memory stores only what the dialogue says: echoes and ungrounded model texts are rejected."""

from __future__ import annotations

import json

import pytest

from memoryos_core.llm.structured import parse_json
from memoryos_core.memory import grounding
from memoryos_core.memory.consolidation import validate_plan
from memoryos_core.memory.prompts import validate_facts, validate_profile

PAGES = ["I adopted a puppy named Rex last week. Congratulations on Rex!",
         "Rex chewed my running shoes today. Puppies love shoes; try chew toys.",
         "I am training for a marathon in October. Great goal, build mileage slowly."]

# Real outputs of the embedded SmolLM2-135M seen in stored memory (issue 10).
JUNK_SUMMARIES = ["Reply with JSON", "The next topic is [topic2]",
                  "The user and the assistant talk about various things"]


def plan(summary: str, pages: list[int] | None = None, overview: str = "Rex and marathon") -> dict:
    return {"continues_previous": False, "overview": overview,
            "topics": [{"summary": summary, "keywords": ["rex", "json", "puppy"],
                        "pages": pages or [1, 2, 3]}]}


@pytest.mark.parametrize("junk", JUNK_SUMMARIES)
def test_grounding_rejects_echoed_or_empty_summaries(junk):
    with pytest.raises(ValueError):
        validate_plan(plan(junk), 3, PAGES)


def test_grounding_keeps_a_true_summary_and_drops_foreign_keywords():
    result = validate_plan(plan("Rex the puppy chewed running shoes; marathon training"), 3, PAGES)
    assert result.topics[0].keywords == ["rex", "puppy"]
    assert result.overview == "Rex and marathon"
    echoed = validate_plan(plan("Rex the puppy", overview="Reply with JSON: overview"), 3, PAGES)
    assert echoed.overview == "" and any("overview" in n for n in echoed.notes)


def test_grounding_gives_unassigned_pages_to_the_nearest_topic():
    value = {"continues_previous": False, "overview": "x", "topics": [
        {"summary": "Rex adopted puppy", "keywords": [], "pages": [1]},
        {"summary": "marathon training October", "keywords": [], "pages": [3]}]}
    result = validate_plan(value, 4, [*PAGES, "My long run was 18 miles. Solid marathon work."])
    assert [t.pages for t in result.topics] == [[0, 1], [2, 3]]


def test_grounding_drops_facts_not_in_their_pages():
    ids = [10, 11, 12]
    texts = dict(zip(ids, PAGES, strict=True))
    value = {"user_facts": [{"fact": "who they are, what they did", "pages": [10]},
                            {"fact": "The user is training for a marathon in October.",
                             "pages": [12]},
                            {"fact": "The user works as a pilot in Paris.", "pages": [10]}],
             "assistant_facts": []}
    facts = validate_facts(value, ids, texts)
    assert [f["text"] for f in facts["user"]] == ["The user is training for a marathon in October."]
    with pytest.raises(ValueError, match="every fact"):
        validate_facts({"user_facts": value["user_facts"][:1], "assistant_facts": []}, ids, texts)


def test_grounding_drops_profile_reasons_that_name_nothing_of_the_evidence():
    ids = [10, 11, 12]
    texts = dict(zip(ids, PAGES, strict=True))
    bad = {"dimension": "Extraversion", "level": "Low",
           "reason": "Extraversion: Low - Energetic and energetic behaviors", "evidence": [12]}
    good = {"dimension": "Extraversion", "level": "High",
            "reason": "is training for a marathon in October", "evidence": [12]}
    assert validate_profile({"dimensions": [good]}, ids, texts)[0]["level"] == "High"
    with pytest.raises(ValueError, match="every reason"):
        validate_profile({"dimensions": [bad]}, ids, texts)


def test_grounding_parses_raw_control_characters_in_strings():
    assert parse_json('{"summary": "line one\nline two"}') == {"summary": "line one\nline two"}


def test_grounding_echoing_model_falls_back_to_extractive_and_stores_no_echo(make_engine,
                                                                            chat_model):
    engine = make_engine(consolidation="llm", analysis="extractive", consolidation_batch=3,
                         short_term_capacity=1)
    junk = json.dumps(plan("Reply with JSON. The next topic is [topic2]"))
    chat_model.enqueue(junk, junk, junk)  # the call and both retries echo the prompt
    texts = [p.split(". ", 1) for p in PAGES]
    for i, (u, a) in enumerate([*texts, ("Thanks.", "Bye.")]):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    segments = engine.state("u1")["mid_term"]["segments"]
    assert segments and all(grounding.echo(s["summary"]) is None for s in segments)
    assert engine.usage("u1")["consolidation"]["fallbacks"] == 1
    assert len(chat_model.calls) == 3


def test_grounding_two_topics_joining_one_segment_keep_both_summaries(make_engine, chat_model):
    engine = make_engine(consolidation="llm", analysis="extractive", consolidation_batch=3,
                         short_term_capacity=1, merge_threshold=0.0)
    first = plan("Rex the puppy chewed running shoes")
    chat_model.enqueue(json.dumps(first))
    rows = [("I adopted a puppy named Rex.", "Congratulations on Rex!"),
            ("Rex chewed my running shoes.", "Try chew toys."),
            ("Rex sleeps a lot.", "Puppies do."),
            ("I run a marathon in October.", "Build mileage slowly."),
            ("I ran intervals at the track.", "Intervals build speed."),
            ("My coach runs too.", "Nice."), ("Bye.", "Bye.")]
    two = {"continues_previous": False, "overview": "marathon running",
           "topics": [{"summary": "marathon in October", "keywords": ["marathon"], "pages": [1]},
                      {"summary": "intervals at the track", "keywords": ["intervals"],
                       "pages": [2, 3]}]}
    chat_model.enqueue(json.dumps(two))
    for i, (u, a) in enumerate(rows):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    segments = engine.state("u1")["mid_term"]["segments"]
    assert len(segments) == 1
    summary = segments[0]["summary"]
    assert "marathon in October" in summary and "intervals at the track" in summary
    pages = sorted(segments[0]["pages"], key=lambda p: p["id"])
    assert len(pages) == 6


@pytest.mark.parametrize("embedded, calls", [(True, 0), (False, 1)])
def test_grounding_auto_mode_files_extractively_with_the_embedded_model(make_engine, embedded,
                                                                       calls):
    from memoryos_core.testing import ScriptedChatModel, schema_filler

    model = ScriptedChatModel(default=schema_filler)
    model.embedded = embedded  # what the embedded local model says of itself
    engine = make_engine(model=model, consolidation_batch=3, short_term_capacity=1)
    assert engine.config.consolidation == "auto" and engine.config.analysis == "auto"
    for i, (u, a) in enumerate([p.split(". ", 1) for p in PAGES] + [("Bye.", "Bye.")]):
        engine.add_exchange("u1", u, a, timestamp=1_700_000_000 + i * 60)
    assert engine.state("u1")["mid_term"]["count"] >= 1
    assert engine.usage("u1").get("consolidation", {}).get("calls", 0) == calls


def test_grounding_full_segment_takes_no_more_pages(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive", consolidation_batch=4,
                         short_term_capacity=1, segment_max_pages=4, merge_threshold=0.0)
    for i in range(13):
        engine.add_exchange("u1", f"I walked my puppy Rex in the park, day {i}.",
                            "Rex loves the park.", timestamp=1_700_000_000 + i * 60)
    segments = engine.state("u1")["mid_term"]["segments"]
    assert len(segments) == 3 and all(s["page_count"] <= 4 for s in segments)
