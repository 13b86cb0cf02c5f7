"""One place chooses the chat model: a user's own, else the instance's, else the embedded one."""

from __future__ import annotations

import pytest

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.errors import ModelError
from memoryos_core.llm.resolver import ModelResolver
from memoryos_core.testing import ScriptedChatModel, schema_filler


def test_each_user_is_answered_and_maintained_by_the_model_the_resolver_gives(
        tmp_path, embedder, database_url):
    instance = ScriptedChatModel(default="From the instance model.", name="instance")
    own = ScriptedChatModel(default=schema_filler, name="alice-endpoint")
    asked: list[str] = []

    def per_user(user_id: str) -> ScriptedChatModel | None:
        asked.append(user_id)
        return own if user_id == "alice" else None

    engine = MemoryEngine(tmp_path / "d", embedder=embedder, database_url=database_url,
                          config=EngineConfig(consolidation="llm", consolidation_batch=2),
                          models=ModelResolver(instance, per_user=per_user))
    own.default = "From Alice's endpoint."
    assert engine.chat("alice", "Hello, I'm Alice.", maintain=False)["model"] == "alice-endpoint"
    result = engine.chat("bob", "Hello, I'm Bob.", maintain=False)
    assert result["model"] == "instance" and result["answer"] == "From the instance model."
    assert asked == ["alice", "bob"]
    # maintenance files Alice's pages with her model, never the instance's
    own.default = schema_filler
    for n in range(4):
        engine.add_exchange("alice", f"Alice line {n} about her garden.", "Nice.",
                            maintain=False)
    calls_before = len(instance.calls)
    engine.force_analysis("alice")
    assert len(instance.calls) == calls_before and own.calls
    # a model given for one call still wins over the user's own
    once = ScriptedChatModel(default="Just this once.", name="once")
    assert engine.chat("alice", "And now?", model=once, maintain=False)["model"] == "once"
    engine.store.close()


def test_a_failing_user_lookup_is_a_model_error_and_nothing_is_stored(tmp_path, embedder):
    def per_user(user_id: str) -> None:
        raise ModelError("this account's endpoint is not allowed")

    engine = MemoryEngine(tmp_path / "d", embedder=embedder,
                          models=ModelResolver(ScriptedChatModel(default="x"), per_user=per_user))
    with pytest.raises(ModelError, match="not allowed"):
        engine.chat("carol", "Hello?", maintain=False)
    assert engine.state("carol")["short_term"]["count"] == 0
    engine.store.close()
