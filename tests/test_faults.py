"""The fault suite: its quick mode prints zeros where zeros belong; its checks can see faults."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed

from benchmarks import fault_kill  # noqa: E402
from benchmarks.fault_tools import (  # noqa: E402
    MARKER,
    FaultServer,
    error_texts_stored,
    invariants,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # the whole fault suite in child processes: a minute or more
def test_faults_quick_json_prints_zeros(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.faults", "--quick", "--json", "--out",
         str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=900,
        env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["ok"] is True and not any(result["must_be_zero"].values())
    kill = result["kill"]
    assert set(kill) == {"import", "consolidation", "analysis", "restore", "clear"}
    assert all(op["trials"] == 5 for op in kill.values())
    assert sum(op["killed_mid_operation"] for op in kill.values()) >= 10
    assert set(result["provider"]["modes"]) == {"timeout", "http500", "garbage",
                                                "truncated_json", "stream_cut"}
    assert result["fuzz"]["import_cases"] >= 100 and result["fuzz"]["route_cases"] >= 100
    load = result["load"]
    assert load["n"] == load["users"] * load["turns"] and 0 < load["p50_ms"] <= load["p95_ms"]
    assert (tmp_path / "faults.md").exists()


def test_fault_checks_see_a_broken_store(tmp_path):
    engine = fault_kill.open_engine(tmp_path, {})
    for k in range(4):
        engine.import_dialogue("u1", fault_kill.dialogue(k))
    assert not any(invariants(tmp_path).values()) and error_texts_stored(tmp_path) == 0
    conn = sqlite3.connect(tmp_path / "memory.sqlite3")
    with conn:
        page = conn.execute("SELECT id FROM exchanges WHERE tier = 'mid' AND next_id IS NOT NULL"
                            " LIMIT 1").fetchone()[0]
        conn.execute("DELETE FROM vectors WHERE kind = 'page' AND item_id = ?", (page,))
        conn.execute("UPDATE exchanges SET next_id = 999999 WHERE id = ?", (page,))
        conn.execute("UPDATE exchanges SET assistant_text = ? WHERE id = ?",
                     (f"HTTP 500 {MARKER}", page))
    conn.close()
    found = invariants(tmp_path)
    assert found["page_without_vector"] == 1 and found["broken_chain_link"] >= 1
    assert error_texts_stored(tmp_path) == 1


@pytest.mark.parametrize("mode, stream", [("stream_cut", True), ("truncated_json", True),
                                          ("garbage", False), ("truncated_json", False),
                                          ("http500", False)])
def test_openai_model_turns_provider_faults_into_model_errors(mode, stream):
    from memoryos_core import ModelError
    from memoryos_core.llm import OpenAIChatModel

    with FaultServer(answer="one two three four five six") as server:
        model = OpenAIChatModel("faulty", base_url=server.base_url, timeout=5, retries=0)
        messages = [{"role": "user", "content": "hi"}]
        assert "".join(model.stream(messages, max_tokens=10)) == "one two three four five six"
        server.mode = mode
        with pytest.raises(ModelError):
            if stream:
                "".join(model.stream(messages, max_tokens=10))
            else:
                model.complete(messages, max_tokens=10)
