"""The answer pipeline's values are built once: Retrieval -> Prompt -> Trace, nothing edited after."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import pytest

from memoryos_core.answer import retrieval
from memoryos_core.answer.answering import COMPACT_PAGES, fit_prompt
from memoryos_core.answer.types import Prompt, Retrieval, Trace, read_trace
from memoryos_core.testing import ScriptedChatModel


def _small() -> ScriptedChatModel:
    model = ScriptedChatModel(default="A short reply.", name="small", context_window=4096)
    model.embedded = True  # type: ignore[attr-defined]
    return model


def _fill(engine, n: int = 24) -> None:
    for i in range(n):
        engine.add_exchange("u1", f"My cat Miso likes fish number {i}.", f"Noted, fish {i}.",
                            timestamp=1_700_000_000 + i * 3600, maintain=False)
    engine.maintain("u1", force=True)


def test_retrieval_is_frozen_and_its_dict_is_the_engines_json(engine):
    _fill(engine)
    found = retrieval.retrieve(engine.ctx, "u1", "What does my cat like?", record=False,
                               now=1_700_200_000)
    assert isinstance(found, Retrieval)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.memory_block = ""  # type: ignore[misc]
    as_json = found.to_dict()
    assert list(as_json) == [f.name for f in dataclasses.fields(Retrieval)]
    assert json.loads(json.dumps(as_json)) == engine.retrieve(
        "u1", "What does my cat like?", now=1_700_200_000) | {"timings_ms": as_json["timings_ms"]}


def test_fit_prompt_returns_a_prompt_and_leaves_the_retrieval_as_it_was(engine):
    _fill(engine)
    found = retrieval.retrieve(engine.ctx, "u1", "What does my cat like?", record=False,
                               budget_cap=450)
    before = copy.deepcopy(found.to_dict())
    assert sum(1 for p in found.pages if p.get("selected")) > COMPACT_PAGES  # some to leave out
    prompt = fit_prompt(engine.ctx, "u1", "What does my cat like?", found, _small())
    assert isinstance(prompt, Prompt) and prompt.layout == "compact"
    assert found.to_dict() == before  # the caller's value: not edited
    assert sum(1 for p in prompt.memory.pages if p.get("selected")) <= COMPACT_PAGES
    assert any(p.get("reason") == "beyond the compact prompt's pages" for p in prompt.memory.pages)


def test_the_trace_is_built_once_read_only_and_round_trips(engine, chat_model):
    chat_model.enqueue("Noted: a cat called Miso.")
    done = engine.chat("u1", "My cat is called Miso.", maintain=False)
    trace = done["trace"]
    assert isinstance(trace, Trace) and isinstance(trace, dict)
    for edit in (lambda t: t.__setitem__("model", "x"), lambda t: t.update(model="x"),
                 lambda t: t.pop("model"), lambda t: t.setdefault("new", 1),
                 lambda t: t.clear()):
        with pytest.raises(TypeError, match="built once"):
            edit(trace)
    assert trace["model"] == done["model"] and trace["version"] == 1
    stored = engine.trace("u1", done["exchange_id"])
    assert stored == trace and list(stored) == list(trace)  # the same keys in the same order
    assert Trace.from_json(trace.to_json()) == trace == read_trace(trace.to_json())
    assert json.loads(trace.to_json()) == dict(trace)
    copied = dict(trace)
    copied["model"] = "a plain copy is a dict of its own"
    assert trace["model"] == done["model"]
    assert copy.deepcopy(trace) == trace and pickle.loads(pickle.dumps(trace)) == trace
    assert type(copy.deepcopy(trace)) is Trace


def test_a_prompt_alone_has_no_answer_keys(engine):
    messages, trace = engine.prompt("u1", "Where do I live?")
    assert isinstance(trace, Trace) and trace["prompt"] == messages
    assert "model" not in trace and "version" not in trace
    assert trace["memory_parts"] == [] and trace["prompt_parts"][-1]["name"] == "message"


def test_flat_strategy_is_its_own_function(engine):
    _fill(engine)
    flat = retrieval.retrieve(engine.ctx, "u1", "cat fish", record=False, strategy="flat",
                              now=1_700_200_000)
    same = retrieval.retrieve_flat(engine.ctx, "u1", "cat fish", record=False,
                                   now=1_700_200_000)
    assert flat.strategy == same.strategy == "flat"
    assert flat.segments == [] and flat.keyword_search_terms == [] and flat.period is None
    assert flat.facts == {"user": [], "assistant": []}
    assert [p["id"] for p in flat.pages] == [p["id"] for p in same.pages]
    assert all("keyword_rank" not in p and "continues" not in p for p in flat.pages)


def test_the_export_is_json_ready_as_it_leaves_the_engine(engine, chat_model):
    _fill(engine, 12)
    chat_model.enqueue("Fish, mostly.")
    engine.chat("u1", "What does my cat like?", maintain=False)
    doc = engine.export("u1")
    assert json.loads(json.dumps(doc)) == doc  # no converter needed by a host
    assert all(isinstance(row["vector"], str) for row in doc["exchanges"])
    assert isinstance(doc["traces"][0]["trace"], str)  # the stored text, as it was stored
