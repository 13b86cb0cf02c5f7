"""The embedded chat model (SmolLM2-135M via llama.cpp) and `serve-model`, on small inputs.

Tests marked `slow` run the real model; the HTTP-shape tests use the scripted model and are fast.
What a test can demand of a 135M model is structure (valid JSON, every page filed, provenance),
not content.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.errors import ModelError
from memoryos_core.hosts.serve import RequestError, make_server, parse_request
from memoryos_core.llm.openai_chat import OpenAIChatModel
from memoryos_core.memory.persona import LEVELS
from memoryos_core.testing import ScriptedChatModel

TOPICS = [
    ("I started learning the violin last month. Any tips for practising?",
     "Practise slowly with a metronome for twenty minutes every day."),
    ("My teacher says my bow hold is too tight.", "Relax your thumb and let the arm weight do it."),
    ("I'm playing a Bach minuet at the recital in June.", "Lovely piece; mark the bowings early."),
    ("I also run three times a week before work.", "Great habit; vary your pace and distance."),
    ("My knee hurt after yesterday's 10 km run.", "Rest a few days and consider softer routes."),
    ("I signed up for a half marathon in Lisbon in October.",
     "Build your long run by about ten percent a week."),
    ("I work as a nurse on night shifts.", "Night shifts are hard; guard your sleep schedule."),
    ("Sleeping during the day is difficult for me.", "Blackout curtains and earplugs help."),
    ("My sister Maria is visiting next weekend.", "Have fun; any plans for her visit?"),
    ("We want to cook paella together.", "Use bomba rice and don't stir it once it simmers."),
]


def playground_dialogue(n: int) -> list[dict[str, object]]:
    """`n` exchanges in the reference Playground's import format, one hour apart."""
    start = 1_700_000_000
    return [{"user_input": TOPICS[i % len(TOPICS)][0], "agent_response": TOPICS[i % len(TOPICS)][1],
             "timestamp": start + 3600 * i} for i in range(n)]


@pytest.fixture(scope="module")
def local_model():  # type: ignore[no-untyped-def]
    """The embedded model, loaded once for this module (skipped where it is not installed)."""
    from memoryos_core.llm import runtime
    from memoryos_core.llm.local import LocalChatModel

    if not any(runtime.installed(kind) for kind in runtime.RUNTIMES):
        pytest.skip("no llama.cpp runtime installed (llama-cpp-cffi or llama-cpp-python)")

    try:
        model = LocalChatModel()
    except ImportError as exc:
        pytest.skip(str(exc))
    try:
        model.warm_up()
    except ModelError as exc:
        pytest.skip(str(exc))
    return model


@pytest.fixture
def server_for() -> Iterator:  # type: ignore[type-arg]
    """Start `serve-model` for a chat model on a free port; returns its base URL."""
    servers = []

    def start(model):  # type: ignore[no-untyped-def]
        server = make_server(0, model=model)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


# -- fast: the OpenAI-compatible HTTP surface over the scripted model ------------------------

def test_serve_parse_request_maps_response_formats() -> None:
    base = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    assert parse_request(base)["json_schema"] is None
    assert parse_request({**base, "response_format": {"type": "json_object"}})["json_schema"] \
        == {"type": "object"}
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    call = parse_request({**base, "max_tokens": 7, "response_format": {
        "type": "json_schema", "json_schema": {"name": "x", "schema": schema}}})
    assert call["json_schema"] == schema and call["max_tokens"] == 7
    assert call["messages"] == [{"role": "user", "content": "hi"}]
    with pytest.raises(RequestError):
        parse_request({"messages": []})
    with pytest.raises(RequestError):
        parse_request({**base, "response_format": {"type": "xml"}})


def test_serve_openai_client_chat_json_and_stream_scripted(server_for) -> None:  # type: ignore[no-untyped-def]
    scripted = ScriptedChatModel(["Hello there!", '{"ok": true}', "streamed reply"])
    url = server_for(scripted)
    client = OpenAIChatModel("anything", base_url=url, json_mode="schema", retries=0)
    assert client.complete([{"role": "user", "content": "hi"}], max_tokens=20).text \
        == "Hello there!"
    done = client.complete([{"role": "user", "content": "json"}], max_tokens=20,
                           json_schema={"type": "object"})
    assert json.loads(done.text) == {"ok": True}
    assert scripted.calls[1]["json_schema"] == {"type": "object"}
    assert "".join(client.stream([{"role": "user", "content": "s"}], max_tokens=20)) \
        == "streamed reply"


def test_serve_bad_request_is_openai_error(server_for) -> None:  # type: ignore[no-untyped-def]
    import openai

    url = server_for(ScriptedChatModel())
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="m", messages=[])
    assert client.models.list().data[0].id == "scripted"


# -- slow: the real embedded model ----------------------------------------------------------

@pytest.mark.slow
def test_local_model_answers_plainly(local_model) -> None:  # type: ignore[no-untyped-def]
    done = local_model.complete(
        [{"role": "system", "content": "You are a helpful assistant."},
         {"role": "user", "content": "What is the capital of France?"}], max_tokens=40)
    assert done.text.strip()
    assert done.prompt_tokens > 0 and 0 < done.completion_tokens <= 40
    assert done.model == local_model.name


@pytest.mark.slow
def test_local_model_json_schema_reply_parses(local_model) -> None:  # type: ignore[no-untyped-def]
    schema = {"type": "object", "properties": {
        "name": {"type": "string"}, "hobbies": {"type": "array", "items": {"type": "string"},
                                                "maxItems": 3}},
        "required": ["name", "hobbies"]}
    done = local_model.complete(
        [{"role": "user", "content": "Ana likes hiking and chess. Reply with JSON: her name and"
          " hobbies."}], max_tokens=80, json_schema=schema)
    value = json.loads(done.text)
    assert isinstance(value["name"], str) and isinstance(value["hobbies"], list)


@pytest.mark.slow
def test_local_model_streams_pieces(local_model) -> None:  # type: ignore[no-untyped-def]
    pieces = list(local_model.stream([{"role": "user", "content": "Say hello."}], max_tokens=20))
    assert len(pieces) >= 2 and "".join(pieces).strip()


@pytest.mark.slow
def test_local_model_fits_long_prompts_to_its_window(local_model) -> None:  # type: ignore[no-untyped-def]
    old = "An old remark about the weather. " * 400  # ~3,200 tokens
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": old}, {"role": "assistant", "content": old},
                {"role": "user", "content": "What is two plus two?"}]
    fitted, budget = local_model.fit(messages, 200)
    total = sum(local_model.count_tokens(m["content"]) + 16 for m in fitted)
    assert total + budget <= local_model.context_window
    assert fitted[-1]["content"].endswith("What is two plus two?")
    assert local_model.complete(messages, max_tokens=20).text.strip()


@pytest.mark.slow
def test_local_model_engine_consolidates_and_analyses(tmp_path, embedder, local_model) -> None:  # type: ignore[no-untyped-def]
    config = EngineConfig().replace(consolidation="llm", analysis="llm", consolidation_batch=7)
    engine = MemoryEngine(tmp_path / "data", chat_model=local_model, embedder=embedder,
                          config=config)
    doc = json.dumps(playground_dialogue(20)).encode()
    engine.import_dialogue("u1", doc, fmt="playground")
    engine.force_analysis("u1")

    pages = engine.store.query("SELECT id, segment_id FROM exchanges WHERE user_id = 'u1'"
                               " AND tier = 'mid'")
    assert len(pages) == 20 - config.short_term_capacity
    assert all(p["segment_id"] is not None for p in pages)  # a page is in exactly one segment
    segments = engine.store.query("SELECT id, summary FROM segments WHERE user_id = 'u1'")
    assert {p["segment_id"] for p in pages} <= {s["id"] for s in segments}
    assert all(s["summary"].strip() for s in segments)

    page_ids = {p["id"] for p in pages}
    profile = engine.store.query("SELECT level, evidence FROM profile WHERE user_id = 'u1'")
    facts = engine.store.query("SELECT text, sources FROM facts WHERE user_id = 'u1'")
    assert profile or facts
    for row in profile:
        assert row["level"] is None or row["level"] in LEVELS  # None: signals (a fallback)
        assert set(json.loads(row["evidence"])) and set(json.loads(row["evidence"])) <= page_ids
    for row in facts:
        assert row["text"].strip()
        assert set(json.loads(row["sources"])) and set(json.loads(row["sources"])) <= page_ids
    from memoryos_core.memory import grounding

    # whatever the small model wrote, what was stored is no echo of our prompts
    stored = [s["summary"] for s in segments] + [f["text"] for f in facts] + [
        r["reason"] for r in engine.store.query("SELECT reason FROM profile WHERE user_id = 'u1'")]
    assert [t for t in stored if grounding.echo(t)] == []
    usage = engine.usage("u1")
    assert usage["consolidation"]["calls"] >= 2
    print("\nlocal-model fallbacks:",
          {k: v.get("fallbacks", 0) for k, v in usage.items()})


@pytest.mark.slow
def test_serve_model_openai_client_with_local_model(server_for, local_model) -> None:  # type: ignore[no-untyped-def]
    url = server_for(local_model)
    client = OpenAIChatModel(local_model.name, base_url=url, json_mode="schema", retries=0,
                             timeout=120)
    assert client.complete([{"role": "user", "content": "Say hi."}], max_tokens=20).text.strip()
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"]}
    done = client.complete([{"role": "user", "content": "Name a city in Spain, as JSON."}],
                           max_tokens=30, json_schema=schema)
    assert isinstance(json.loads(done.text)["city"], str)
    import openai

    raw = openai.OpenAI(base_url=url, api_key="x", max_retries=0, timeout=120)
    reply = raw.chat.completions.create(
        model=local_model.name, max_tokens=80, response_format={"type": "json_object"},
        messages=[{"role": "user", "content": 'Reply with a JSON object with a key "ok".'}])
    text = reply.choices[0].message.content or ""
    assert text.lstrip().startswith("{")  # grammar-constrained from the first token
    if reply.choices[0].finish_reason == "stop":  # a reply cut at max_tokens cannot close
        assert isinstance(json.loads(text), dict)
    pieces = list(client.stream([{"role": "user", "content": "Count to three."}], max_tokens=20))
    assert len(pieces) >= 2 and "".join(pieces).strip()


@pytest.mark.slow
def test_local_model_stream_stops_within_a_token(local_model) -> None:  # type: ignore[no-untyped-def]
    story = [{"role": "user", "content": "Write a long story about a dragon."}]
    pieces = local_model.stream(story, max_tokens=200, temperature=0.7)
    first = [next(pieces) for _ in range(3)]
    pieces.close()  # the consumer went away: generation ends here
    stats = local_model.last_stats
    assert first and stats.cancelled and stats.completion_tokens == 3
    assert stats.first_token_s is not None and stats.prompt_tokens > 0

    stop = threading.Event()
    seen = 0
    for _ in local_model.stream(story, max_tokens=200, temperature=0.7, stop=stop):
        seen += 1
        if seen == 5:
            stop.set()  # as another thread would
    assert seen == 5 and local_model.last_stats.completion_tokens == 5
    assert local_model.last_stats.cancelled

    stop = threading.Event()
    stop.set()  # set before the prompt is read: no token at all, and no error
    assert list(local_model.stream(story, max_tokens=50, stop=stop)) == []
    assert local_model.complete([{"role": "user", "content": "Say hi."}], max_tokens=10).text


@pytest.mark.slow
def test_local_model_grammars_of_the_prompts_load(local_model) -> None:  # type: ignore[no-untyped-def]
    from memoryos_core.memory import prompts

    for schema in (prompts.consolidation_schema(12), prompts.profile_schema([3, 5, 8]),
                   prompts.facts_schema([3, 5], known=[7])):
        done = local_model.complete([{"role": "user", "content": "Reply with JSON."}],
                                    max_tokens=8, json_schema=schema)
        assert done.text.lstrip().startswith("{")


def test_the_embedded_model_leaves_a_core_to_the_rest_unless_told(monkeypatch):
    import os

    from memoryos_core.llm.local import default_threads

    monkeypatch.delenv("MEMORYOS_LLM_THREADS", raising=False)
    assert default_threads() == max(1, (os.cpu_count() or 2) // 2)
    monkeypatch.setenv("MEMORYOS_LLM_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("MEMORYOS_LLM_THREADS", "lots")  # not a number: the default, no crash
    assert default_threads() == max(1, (os.cpu_count() or 2) // 2)
