"""Only what was said becomes memory: the embedded model's and the app's answers state no fact."""

from __future__ import annotations

import json

import pytest

from memoryos_core.memory import provenance
from memoryos_core.storage.tables.exchanges import Exchange
from memoryos_core.testing import ScriptedChatModel, schema_filler

INVENTED = [
    "I've been enjoying a relaxing morning of beach days with my family.",
    "I'm a software tester myself and I play the cello every weekend.",
    "I live in a lighthouse by the sea with my two parrots.",
    "My favourite food is grilled octopus, I cook it every Friday.",
    "I used to be a pilot before I became an assistant, I flew to Oslo often.",
    "I have three brothers and we go fishing on the lake every summer.",
]
ASKED = [  # small talk the embedded model answers (routing may build some answers instead)
    "How was your weekend?", "What did you do this morning?", "How are you today?",
    "What do you like to do for fun?", "How was your week?", "What are you up to?",
]


def _assistant_facts(engine, user: str) -> list[str]:
    return [f["text"] for f in engine.state(user)["long_term"]["assistant_facts"]]


@pytest.mark.parametrize("analysis", ["extractive", "llm"])
def test_provenance_embedded_answers_leave_no_assistant_fact(make_engine, chat_model, analysis):
    chat_model.embedded = True  # the embedded model at the boundary: it invents
    engine = make_engine(consolidation="extractive", analysis=analysis, short_term_capacity=2)
    for asked, invented in zip(ASKED, INVENTED, strict=True):
        chat_model.enqueue(invented)
        engine.chat("u1", asked, maintain=False)
    # the analysis model (llm mode) claims each invention as an assistant fact and a user one
    pages = engine.store.query("SELECT id, assistant_text, answered_by FROM exchanges"
                               " WHERE user_id = ? AND tier = 'mid'", ("u1",))
    claims = {"user_facts": [{"fact": p["assistant_text"], "pages": [p["id"]]} for p in pages],
              "assistant_facts": [{"fact": p["assistant_text"], "pages": [p["id"]]}
                                  for p in pages]}
    analyst = ScriptedChatModel(default=lambda messages, schema: json.dumps(claims)
                                if schema and "user_facts" in str(schema)
                                else schema_filler(messages, schema))  # a configured model
    engine.force_analysis("u1", model=analyst if analysis == "llm" else None)
    assert pages and _assistant_facts(engine, "u1") == []
    user_facts = [f["text"] for f in engine.state("u1")["long_term"]["user_facts"]]
    assert not set(user_facts) & set(INVENTED)
    # each page records its writer; the embedded model's inventions were stored as answers
    assert {p["answered_by"] for p in pages} <= {"embedded", "app"}
    assert any(p["assistant_text"] in INVENTED and p["answered_by"] == "embedded"
               for p in pages)


def test_provenance_imported_assistant_statement_becomes_a_fact(engine):
    transcript = "\n".join(
        line for n in range(10) for line in (  # seven stay short-term
            f"User: I work as a nurse at the city hospital, shift {n}.",
            f"Assistant: I am Claude, an assistant made by Anthropic, and I answer in {n + 2}"
            " languages."))
    engine.import_dialogue("u1", transcript.encode(), "transcript")
    engine.force_analysis("u1")
    assert any("Claude" in t for t in _assistant_facts(engine, "u1"))


def test_provenance_writer_of_each_kind_of_answer():
    assert provenance.answered_by("model", embedded=True) == "embedded"
    assert provenance.answered_by("retry", embedded=False) == "model"
    for built in ("memory", "no memory", "plain", "courtesy"):
        assert provenance.answered_by(built, embedded=False) == "app"
    assert provenance.assistant_speaks({"answered_by": ""})  # imported or given
    assert provenance.assistant_speaks({})
    assert not provenance.assistant_speaks({"answered_by": "unknown"})
    assert "answered_by" in Exchange.__dataclass_fields__
