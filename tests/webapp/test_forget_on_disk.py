"""'Forget everywhere, permanently' leaves no byte of the exchange in any file of the data folder
(the database, its -wal and -shm, the accounts store, the vector cache): an imported page, a
short-term exchange, a page whose segment summary held the word; and when a reader keeps the
SQLite log busy, the user is told, and the clean-up completes once the reader is gone."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from memoryos_core.storage import erasure, vector_cache
from memoryos_core.storage import vectors as vectors_mod

from .conftest import chat, wait_job

pytestmark = pytest.mark.sqlite_only

WORD = "quillothrax"
FILLER = [("I adopted a puppy named Rex last week.", "Congratulations on Rex!"),
          ("I am training for a marathon in October.", "Build mileage slowly."),
          ("My Spanish teacher is from Valencia.", "Valencia is lovely."),
          ("I cooked paella for my family.", "Paella is a great choice."),
          ("I ran intervals at the track.", "Intervals build speed."),
          ("My sister plays chess on Sundays.", "Chess is a fine habit.")]


@pytest.fixture(autouse=True)
def small_vector_cache(monkeypatch):
    """Namespaces of a few vectors get FAISS cache files, so the grep covers them too."""
    monkeypatch.setattr(vectors_mod, "HNSW_THRESHOLD", 4)
    monkeypatch.setattr(vectors_mod, "BUILD_CHUNK", 4)
    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 4)


def _holding(folder: Path, needle: str) -> list[str]:
    """Every file under the folder (database, -wal, -shm, caches, keys) whose bytes hold it."""
    want = needle.lower().encode()
    return [str(p.relative_to(folder)) for p in sorted(folder.rglob("*"))
            if p.is_file() and want in p.read_bytes().lower()]


def _import(client, engine, user, talk) -> None:
    """Paste a transcript, preview it (the upload is kept), run the import job."""
    text = "\n".join(f"User: {u}\nAssistant: {a}" for u, a in talk)
    preview = client.post("/import/preview.json", data={"text": text, "format": "transcript"})
    token = preview.json["token"]
    started = client.post("/import/run.json", data={"token": token, "format": "transcript"})
    assert wait_job(engine, user, started.json["job"]["id"])["status"] == "done"


def _forget_everywhere(client, engine, user) -> str:
    """Save a version, then forget the page holding WORD from its page; the flashed message."""
    assert client.post("/versions/snapshot").status_code == 302
    pid = engine.search(user, WORD)["pages"][0]["id"]
    assert WORD in client.get(f"/memory/pages/{pid}").data.decode()
    done = client.post(f"/memory/pages/{pid}/forget",
                       data={"everywhere": "y", "understood": "y"}, follow_redirects=True)
    assert done.status_code == 200
    assert client.get(f"/memory/pages/{pid}").status_code == 404
    return done.data.decode()


def test_forget_everywhere_an_imported_page_leaves_no_byte(client, user, engine, tmp_path):
    _import(client, engine, user, FILLER[:2] + [(f"My locker code is {WORD}.", "Noted.")]
            + FILLER[2:])
    pid = engine.search(user, WORD)["pages"][0]["id"]
    assert engine.page(user, pid)["tier"] == "mid"  # moved to mid-term by the import
    engine.retrieve(user, "What is my locker code?")  # the vector index (and its files) built
    assert engine.ctx.index.join_builds(30)
    assert (tmp_path / "data" / "memory" / vector_cache.FOLDER).exists()
    shown = _forget_everywhere(client, engine, user)
    assert "and the files on disk" in shown
    assert _holding(tmp_path, WORD) == []
    assert "Valencia" in client.get("/memory.json").data.decode()  # the rest stays


def test_forget_everywhere_a_short_term_exchange_leaves_no_byte(client, user, engine,
                                                                tmp_path, chat_model):
    chat_model.enqueue("Noted, I will keep it safe.")
    assert chat(client, f"My bike lock code is {WORD}.").status_code == 200
    pid = engine.search(user, WORD)["pages"][0]["id"]
    assert engine.page(user, pid)["tier"] == "short"
    assert _holding(tmp_path, WORD)  # the premise: it was on disk
    assert "and the files on disk" in _forget_everywhere(client, engine, user)
    assert _holding(tmp_path, WORD) == []


def test_forget_everywhere_rebuilds_a_summary_that_held_the_word(client, user, engine,
                                                                 tmp_path):
    told = [(f"{WORD} {WORD} is the {WORD} name of my boat.", f"A boat called {WORD}!"),
            ("My boat sails on the lake.", "Sailing on a lake is calm.")]
    _import(client, engine, user, told + FILLER)
    seg_id = engine.page(user, engine.search(user, WORD)["pages"][0]["id"])["segment_id"]
    assert seg_id and WORD in engine.segment(user, seg_id)["summary"]
    shown = _forget_everywhere(client, engine, user)
    assert "and the files on disk" in shown
    assert _holding(tmp_path, WORD) == []
    summary = engine.segment(user, seg_id)["summary"]
    # rebuilt from the page left, not the old one with its words masked
    assert "…" not in summary and "boat" in summary.lower(), summary


def test_a_reader_holding_the_log_is_said_and_the_scrub_finishes_later(
        client, user, engine, tmp_path, monkeypatch):
    monkeypatch.setattr(erasure, "CHECKPOINT_WAIT_SECONDS", 0.5)
    _import(client, engine, user, [(f"My locker code is {WORD}.", "Noted.")] + FILLER)
    # another connection (a thread or process) in the middle of a read: the checkpoint that
    # would put VACUUM's clean pages into memory.sqlite3 cannot complete while it reads
    reader = sqlite3.connect(tmp_path / "data" / "memory" / "memory.sqlite3")
    rows = reader.execute("SELECT id FROM exchanges")
    rows.fetchone()
    started = time.monotonic()
    shown = _forget_everywhere(client, engine, user)
    assert time.monotonic() - started < 20  # not a minute per checkpoint attempt
    assert "not yet from the database file" in shown and "and the files on disk" not in shown
    rows.close()
    reader.close()
    deadline = time.monotonic() + 20  # an idle job worker completes the checkpoint
    while (erasure.pending() or _holding(tmp_path, WORD)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _holding(tmp_path, WORD) == []
    assert not erasure.pending()
