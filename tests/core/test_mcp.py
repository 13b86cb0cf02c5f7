"""The MCP server over stdio: a real `memoryos mcp` subprocess driven by the SDK's own client."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memoryos_core import EngineConfig, MemoryEngine

TOOLS = {"add_memory", "retrieve_memory", "get_user_profile", "chat", "memory_state",
         "force_analysis", "snapshot", "list_versions", "restore_version", "import_dialogue"}


def payload(result: Any) -> dict[str, Any]:
    """A tool result's JSON (structured content, else the text)."""
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


def error_text(result: Any) -> str:
    assert result.is_error, result
    return " ".join(c.text for c in result.content)


def stdio_params(data_dir: Any, user: str) -> StdioServerParameters:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "MEMORYOS_CONSOLIDATION": "extractive", "MEMORYOS_ANALYSIS": "extractive"}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryos_core", "--data-dir", str(data_dir), "--user", user, "-q", "mcp"],
        env=env)


@pytest.mark.real_model  # the `memoryos mcp` child embeds with the default model
def test_mcp_stdio_tools_add_retrieve_profile_and_errors(tmp_path, embedder):
    data = tmp_path / "data"

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(stdio_params(data, "alice")) as client:
            tools = await client.list_tools()
            seen["tools"] = {t.name for t in tools.tools}
            seen["add"] = payload(await client.call_tool("add_memory", {
                "user_input": "My cat is called Mochi and she loves tuna.",
                "agent_response": "Mochi sounds lovely!",
                "timestamp": "2024-05-01 10:30:00"}))
            await client.call_tool("add_memory", {"user_input": "I work as a nurse in Porto.",
                                                  "agent_response": "A demanding job!"})
            seen["retrieve"] = payload(await client.call_tool(
                "retrieve_memory", {"query": "What is my cat called?", "max_results": 3}))
            seen["profile"] = payload(await client.call_tool(
                "get_user_profile", {"include_assistant_knowledge": True}))
            seen["missing"] = error_text(await client.call_tool(
                "add_memory", {"user_input": "hello"}))
            seen["range"] = error_text(await client.call_tool(
                "retrieve_memory", {"query": "x", "max_results": 0}))
            seen["when"] = error_text(await client.call_tool(
                "add_memory", {"user_input": "a", "agent_response": "b",
                               "timestamp": "yesterday-ish"}))
            seen["version"] = payload(await client.call_tool("snapshot", {"label": "via mcp"}))
            seen["versions"] = payload(await client.call_tool("list_versions", {}))
        return seen

    seen = anyio.run(session)
    assert TOOLS <= seen["tools"]
    assert seen["add"]["status"] == "success"
    assert seen["add"]["timestamp"] == "2024-05-01 10:30:00"
    assert seen["add"]["details"] == {"user_input_length": 42, "agent_response_length": 20,
                                      "has_meta_data": False}
    got = seen["retrieve"]
    assert got["status"] == "success" and got["short_term_count"] == 2
    assert {"user_input", "agent_response", "timestamp"} <= set(got["short_term_memory"][0])
    assert got["short_term_memory"][0]["timestamp"] == "2024-05-01 10:30:00"
    for key in ("retrieved_pages", "retrieved_user_knowledge", "retrieved_assistant_knowledge",
                "total_pages_found", "user_profile", "query", "timestamp"):
        assert key in got
    prof = seen["profile"]
    assert prof["user_id"] == "alice" and prof["user_knowledge_count"] == 0
    assert prof["assistant_knowledge"] == [] and prof["user_profile"]
    assert "agent_response" in seen["missing"] and "required" in seen["missing"].lower()
    assert "max_results" in seen["range"]
    assert "yesterday-ish" in seen["when"] and "YYYY-MM-DD" in seen["when"]
    assert seen["version"]["label"] == "via mcp"
    assert [v["label"] for v in seen["versions"]["versions"]] == ["via mcp"]

    engine = MemoryEngine(data, embedder=embedder, config=EngineConfig().replace(
        consolidation="extractive", analysis="extractive"))
    alice = engine.state("alice")["short_term"]["exchanges"]
    assert [e["user"] for e in alice] == ["My cat is called Mochi and she loves tuna.",
                                          "I work as a nurse in Porto."]
    assert engine.state("bob")["short_term"]["count"] == 0  # nothing written for anyone else


@pytest.mark.real_model  # the `memoryos mcp` child embeds with the default model
def test_mcp_stdio_acts_only_as_its_user(tmp_path, embedder):
    data = tmp_path / "data"
    engine = MemoryEngine(data, embedder=embedder, config=EngineConfig().replace(
        consolidation="extractive", analysis="extractive"))
    engine.add_exchange("alice", "My secret word is pumpernickel.", "Noted.")

    async def as_bob() -> dict[str, Any]:
        async with Client(stdio_params(data, "bob")) as client:
            return payload(await client.call_tool("retrieve_memory",
                                                  {"query": "What is my secret word?"}))

    got = anyio.run(as_bob)
    assert got["short_term_memory"] == [] and got["retrieved_pages"] == []
    assert "pumpernickel" not in json.dumps(got)


@pytest.mark.parametrize("argv", [["--user", "", "mcp"]])
def test_mcp_stdio_refuses_an_empty_user(tmp_path, argv, capsys):
    from memoryos_core.hosts.cli import main

    assert main(["--data-dir", str(tmp_path / "d"), *argv]) == 1
    assert "user id must be a non-empty string" in capsys.readouterr().err
