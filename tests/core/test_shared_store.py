"""The shared store: several engines (standing for processes and hosts) on one database.

Runs on both backends: SQLite (one file, one writer at a time) and PostgreSQL (per-user
advisory locks). Plus the CLI with MEMORYOS_DATABASE_URL, and the storage boundary.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.hosts import cli
from memoryos_core.transfer import versions

EXTRACTIVE = {"consolidation": "extractive", "analysis": "extractive"}
ROOT = Path(__file__).resolve().parents[2]


def engines(tmp_path, embedder, chat_model, database_url, n, **settings):
    config = EngineConfig().replace(**EXTRACTIVE, **settings)
    return [MemoryEngine(tmp_path / "data", chat_model=chat_model, embedder=embedder,
                         config=config, database_url=database_url) for _ in range(n)]


def test_engines_on_one_store_lose_and_duplicate_nothing(tmp_path, embedder, chat_model,
                                                         database_url):
    """Four engines admit turns of the same users at once; every turn is stored exactly once."""
    many = engines(tmp_path, embedder, chat_model, database_url, 4, short_term_capacity=3,
                   consolidation_batch=2)
    errors: list[BaseException] = []

    def talk(engine: MemoryEngine, worker: int) -> None:
        try:
            for turn in range(6):
                for user in ("ann", "bob"):
                    engine.add_exchange(user, f"{user} {worker}-{turn}: I walked trail {turn}",
                                        "Nice walk.", timestamp=1_700_000_000 + turn)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=talk, args=(e, n)) for n, e in enumerate(many)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for user in ("ann", "bob"):
        state = many[0].state(user)
        assert state["short_term"]["count"] == 3  # the capacity held under concurrency
        texts = [p["user_text"] for p in many[0].export(user)["exchanges"]]
        assert len(texts) == len(set(texts)) == 24


def test_clear_racing_admissions_loses_no_turn(tmp_path, embedder, chat_model, database_url):
    """Every turn admitted while another process clears is in the saved version or after it."""
    writer, clearer = engines(tmp_path, embedder, chat_model, database_url, 2)
    sent = [f"turn {i}: my sister plays cello piece {i}" for i in range(20)]
    done = threading.Event()

    def talk() -> None:
        for text in sent:
            writer.add_exchange("ann", text, "Lovely.")
        done.set()

    thread = threading.Thread(target=talk)
    thread.start()
    saved = []
    while (not done.is_set() or not saved) and len(saved) < 5:  # versions are kept, not pruned
        saved.append(clearer.clear("ann")["saved_as"])
        done.wait(0.3)
    thread.join(60)
    seen = {e["user_text"] for e in clearer.export("ann")["exchanges"]}
    for version in saved:
        doc = versions.load_version(clearer.ctx, "ann", version)
        seen |= {e["user_text"] for e in doc["exchanges"]}
    assert seen == set(sent)


def test_cli_with_a_database_url_keeps_everything_in_postgresql(tmp_path, embedder, postgres_url,
                                                                 monkeypatch, capsys):
    import psycopg

    url = postgres_url
    transcript = tmp_path / "talk.txt"
    transcript.write_text("\n".join(f"User: I planted tulip bed {i}\nAssistant: Nice, bed {i}."
                                    for i in range(12)))
    monkeypatch.setenv("MEMORYOS_DATABASE_URL", url)
    data = tmp_path / "data"
    argv = ["--data-dir", str(data), "--user", "gardener", "--set", "consolidation=extractive",
            "--set", "analysis=extractive"]
    assert cli.main([*argv, "import", str(transcript)], embedder=embedder) == 0
    capsys.readouterr()
    assert cli.main([*argv, "inspect", "--json"], embedder=embedder) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["short_term"]["count"] + state["mid_term"]["page_count"] == 12
    assert not list(data.glob("*.sqlite3*")) if data.exists() else True  # nothing on disk
    with psycopg.connect(url) as conn:
        count = conn.execute("SELECT count(*) FROM exchanges WHERE user_id = 'gardener'")
        assert count.fetchone()[0] == 12


def test_a_bad_database_url_is_a_clear_error(tmp_path, embedder, capsys):
    code = cli.main(["--data-dir", str(tmp_path), "--database-url", "mysql://x@y/z",
                     "inspect"], embedder=embedder)
    assert code != 0 and "postgresql://" in capsys.readouterr().err


SQL = re.compile(r"""["'](\s*)(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX)"""
                 r"""|ALTER TABLE|DROP TABLE)\b""")


@pytest.mark.parametrize("folder", ["memoryos_core", "webapp"])
def test_no_sql_outside_the_storage_layer(folder):
    """Engine and web modules hold memory logic only; every statement lives in storage/."""
    offenders = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if "storage" in path.relative_to(ROOT).parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if SQL.search(line) or "import sqlite3" in line or "import psycopg" in line:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
