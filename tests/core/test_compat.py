"""The reference library API: its README usage example, run unchanged but for the import line."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# the reference API builds its own default embedder (MiniLM), in-process or in a child
pytestmark = pytest.mark.real_model

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "tests" / "fixtures" / "memoryos_reference"  # Apache-2.0 copies (NOTICE)
README = REFERENCE / "README_basic_usage.md"
DEMO = REFERENCE / "test.py"
FAKE = REPO / "tests" / "e2e" / "fake_openai.py"


def _fake() -> Any:
    spec = importlib.util.spec_from_file_location("fake_openai_for_compat", FAKE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.FakeOpenAI().start()


@pytest.fixture
def fake_openai():
    fake = _fake()
    yield fake
    fake.stop()


def readme_example() -> str:
    """The reference README's 'Basic Usage' block, with only the import line changed."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"### Basic Usage\s*```python\n(.*?)```", text, re.S)
    assert block, "the reference README's usage example was not found"
    code = block.group(1)
    assert code.count("from memoryos import Memoryos") == 1
    return code.replace("from memoryos import Memoryos", "from memoryos_core.hosts.compat import Memoryos")


def test_compat_runs_the_reference_readme_example(tmp_path, fake_openai):
    fake_openai.enqueue("You work as a data scientist in San Francisco, Tom.")
    script = tmp_path / "simple_demo.py"
    script.write_text(readme_example(), encoding="utf-8")
    env = {**os.environ, "OPENAI_BASE_URL": fake_openai.base_url, "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "MemoryOS initialized successfully!" in done.stdout, done.stdout + done.stderr
    assert "Error:" not in done.stdout
    assert "Assistant: You work as a data scientist in San Francisco, Tom." in done.stdout
    answer = fake_openai.completions()[-1]["body"]
    assert answer["model"] == "gpt-4o-mini"
    assert "data scientist" in str(answer["messages"])  # the added memory reached the prompt
    assert (tmp_path / "simple_demo_data" / "memory.sqlite3").exists()
    # The example asked for BAAI/bge-m3, which is not installed: MiniLM is used, and said so.
    assert "BAAI/bge-m3" in done.stderr and "all-MiniLM-L6-v2 instead" in done.stderr


def test_compat_runs_the_reference_demo_with_overflow(tmp_path, fake_openai):
    """test.py: ten memories through a 7-pair short-term queue, an empty storage path."""
    code = DEMO.read_text(encoding="utf-8")
    assert code.count("from memoryos import Memoryos") == 1
    (tmp_path / "demo.py").write_text(code.replace(
        "from memoryos import Memoryos", "from memoryos_core.hosts.compat import Memoryos"))
    fake_openai.enqueue("You are a data scientist in San Francisco.")
    env = {**os.environ, "OPENAI_BASE_URL": fake_openai.base_url, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "demo.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Error:" not in done.stdout, done.stdout + done.stderr
    assert "Assistant: You are a data scientist in San Francisco." in done.stdout
    from memoryos_core import MemoryEngine

    state = MemoryEngine(tmp_path).state("demo_user")
    assert state["short_term"]["count"] == 7
    assert state["mid_term"]["page_count"] == 4  # 10 memories + the answer, 7 kept short


def test_compat_methods_return_the_reference_types(tmp_path, fake_openai, monkeypatch):
    from memoryos_core.hosts.compat import Memoryos

    memo = Memoryos(user_id="u1", openai_api_key="sk-test", data_storage_path=str(tmp_path),
                    openai_base_url=fake_openai.base_url, short_term_capacity=2,
                    mid_term_heat_threshold=5, embedding_model_name="all-MiniLM-L6-v2")
    assert memo.add_memory("I have a golden retriever named Max.", "How old is he?") is None
    memo.add_memory("I usually start my day with black coffee.", "Hot or iced?",
                    timestamp="2024-01-02 08:00:00")
    memo.add_memory("My favourite movie genre is science fiction.", "Any favourite film?")
    fake_openai.enqueue("Your dog is Max.")
    assert memo.get_response("What is my dog called?") == "Your dog is Max."
    assert memo.get_user_profile_summary() == "None"
    assert memo.get_assistant_knowledge_summary() == []
    stats = memo.get_memory_stats()
    assert stats["user_id"] == "u1" and stats["short_term_count"] == 2
    assert set(stats) == {"user_id", "short_term_count", "mid_term_sessions_count",
                          "has_user_profile", "assistant_knowledge_count"}
    assert memo.force_mid_term_analysis() is None
    assert isinstance(memo.get_memory_stats()["mid_term_sessions_count"], int)
    assert repr(memo).startswith("<Memoryos user_id='u1'")
