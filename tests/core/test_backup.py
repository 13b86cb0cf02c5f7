"""`memoryos backup`: a consistent, verified copy of a live SQLite store, taken during an import."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.hosts import cli
from memoryos_core.testing import ScriptedChatModel, schema_filler

pytestmark = pytest.mark.sqlite_only

CHUNK = 10  # exchanges per import (one transaction each)
IMPORTS = 24


def chunk(n: int) -> list[dict]:
    """Ten exchanges no other chunk repeats (imports skip exchanges already stored)."""
    return [{"user_input": f"Chunk {n} note {i}: I repaired bicycle number {n * 100 + i}.",
             "agent_response": f"Noted: bicycle {n * 100 + i} is repaired (chunk {n}).",
             "timestamp": 1_700_000_000 + (n * CHUNK + i) * 60} for i in range(CHUNK)]


def exchanges(path) -> dict[int, tuple[str, str, str]]:
    """id -> (user text, assistant text, tier) of every exchange in a database file."""
    conn = sqlite3.connect(path)
    try:
        return {r[0]: (r[1], r[2], r[3]) for r in conn.execute(
            "SELECT id, user_text, assistant_text, tier FROM exchanges")}
    finally:
        conn.close()


def integrity(path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def run_cli(capsys):
    def run(*argv):
        capsys.readouterr()
        code = cli.main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def test_backup_during_an_import_holds_every_committed_exchange(tmp_path, embedder, run_cli):
    data = tmp_path / "data"
    engine = MemoryEngine(data, chat_model=ScriptedChatModel(default=schema_filler),
                          embedder=embedder, config=EngineConfig().replace(
                              consolidation="extractive", analysis="extractive"))
    imported = []
    failures = []

    def importer() -> None:
        try:
            for n in range(IMPORTS):
                engine.import_dialogue("u1", chunk(n), fmt="playground", maintain=n % 6 == 0)
                imported.append(n)
        except Exception as exc:  # noqa: BLE001 - reported by the test below
            failures.append(exc)

    worker = threading.Thread(target=importer)
    worker.start()
    deadline = time.monotonic() + 120
    while len(imported) < 3 and time.monotonic() < deadline and worker.is_alive():
        time.sleep(0.02)
    source = data / "memory.sqlite3"
    committed = exchanges(source)  # what a reader sees committed just before the backup
    code, out, err = run_cli("--data-dir", data, "backup", tmp_path / "backup")
    importing_after = worker.is_alive()
    worker.join(timeout=300)
    assert not failures and not worker.is_alive()
    assert code == 0, err
    assert "passed PRAGMA integrity_check" in out and "memory.sqlite3" in out
    assert importing_after, "the import ended before the backup: nothing was tested"

    copy = tmp_path / "backup" / "memory.sqlite3"
    assert integrity(copy) == "ok"
    copied, final = exchanges(copy), exchanges(source)
    assert len(committed) >= 3 * CHUNK
    assert set(committed) <= set(copied) <= set(final)  # every committed exchange, no torn one
    assert all(copied[i][:2] == final[i][:2] for i in copied)
    assert len(final) == IMPORTS * CHUNK > len(copied)
    assert f"exchanges {len(copied)}" in out
    assert not (tmp_path / "backup" / "memory.sqlite3-wal").exists()
    assert copy.stat().st_mode & 0o077 == 0  # owner-only, like the store

    # the copy opens as a store: FAISS indexes rebuilt from its vectors, retrieval finds pages
    restored = MemoryEngine(tmp_path / "backup", chat_model=ScriptedChatModel(default="ok"),
                            embedder=embedder, config=engine.config)
    trace = restored.retrieve("u1", "Which bicycle was repaired in chunk 1?")
    assert any("chunk 1)" in p["assistant"] for p in trace["pages"])
    assert restored.state("u1")["short_term"]["count"] > 0


def test_backup_refuses_what_it_cannot_copy_safely(tmp_path, embedder, run_cli):
    data = tmp_path / "data"
    MemoryEngine(data, chat_model=ScriptedChatModel(default="ok"), embedder=embedder)
    code, _, err = run_cli("--data-dir", tmp_path / "nothing", "backup", tmp_path / "b1")
    assert code == 1 and "no memory store" in err and not (tmp_path / "b1").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    code, _, err = run_cli("--data-dir", data, "backup", tmp_path / "full")
    assert code == 1 and "not an empty folder" in err
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    code, _, err = run_cli("--data-dir", data, "backup", data / "inside")
    assert code == 1 and "must be outside" in err and not (data / "inside").exists()
    code, _, err = run_cli("--database-url", "postgresql://u:p@db.invalid/memoryos",
                           "backup", tmp_path / "b2")
    assert code == 1 and "pg_dump" in err and not (tmp_path / "b2").exists()
    code, out, _ = run_cli("--data-dir", data, "backup", tmp_path / "b3", "--json")
    assert code == 0 and '"integrity": "ok"' in out
