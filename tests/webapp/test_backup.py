"""`memoryos backup --instance`: the web app's accounts, memory and key, restored into a new app."""

from __future__ import annotations

import sqlite3

import pytest

from memoryos_core.hosts import cli

from .conftest import chat

pytestmark = pytest.mark.sqlite_only


def test_backup_of_a_web_instance_restores_accounts_and_memory(make_app, tmp_path, chat_model,
                                                               capsys, backend):
    app = make_app()
    client = app.test_client()
    client.post("/register", data={"username": "alice", "password": "correct horse",
                                   "confirm": "correct horse"})
    chat_model.enqueue("Your marathon is in October.")
    assert chat(client, "My marathon is the Lisbon one in October.").status_code == 200
    (tmp_path / "data" / "secret_key").write_text("k" * 64)
    capsys.readouterr()
    # given the instance folder (holding data/), the command finds the data folder itself
    code = cli.main(["backup", str(tmp_path / "copy"), "--instance", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    copy = tmp_path / "copy"
    assert sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file()) == [
        "memory/memory.sqlite3", "secret_key", "users.sqlite3"]
    for name in ("memory/memory.sqlite3", "users.sqlite3"):
        conn = sqlite3.connect(copy / name)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
    assert "users 1" in out and "exchanges 1" in out
    assert (copy / "secret_key").stat().st_mode & 0o077 == 0

    restored = make_app(DATA_DIR=str(copy)).test_client()
    r = restored.post("/login", data={"username": "alice", "password": "correct horse"})
    assert r.status_code == 302
    assert "Lisbon one in October" in restored.get("/").get_data(as_text=True)


def test_backup_finds_the_key_scripts_start_keeps_and_says_when_there_is_none(
        make_app, tmp_path, capsys, backend):
    app = make_app()  # its data folder: tmp_path/data, the instance folder: tmp_path
    app.test_client().post("/register", data={"username": "alice", "password": "correct horse",
                                              "confirm": "correct horse"})
    capsys.readouterr()
    assert cli.main(["backup", str(tmp_path / "bare"), "--instance", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert not (tmp_path / "bare" / "secret_key").exists()
    assert "no secret_key file was found" in out and "MEMPLAY_SECRET_KEY" in out
    # scripts/start keeps the key in the instance folder and passes it in the environment
    (tmp_path / "secret_key").write_text("s" * 64)
    assert cli.main(["backup", str(tmp_path / "copy"), "--instance",
                     str(tmp_path / "data")]) == 0
    assert "secret_key: copied from" in capsys.readouterr().out
    assert (tmp_path / "copy" / "secret_key").read_text() == "s" * 64
