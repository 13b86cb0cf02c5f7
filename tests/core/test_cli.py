"""The `memoryos` command: in-process through main(), plus real runs of the installed script."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from memoryos_core.errors import ModelError
from memoryos_core.hosts import cli
from memoryos_core.hosts.cli_output import ProgressBar
from memoryos_core.testing import ScriptedChatModel

from .test_admission import TOPICS
from .test_versions_import import _without_ids

EXTRACTIVE = ["--set", "consolidation=extractive", "--set", "analysis=extractive"]
PLAYGROUND = [{"user_input": u, "agent_response": a, "timestamp": 1_700_000_000 + i * 60}
              for i, (u, a) in enumerate(TOPICS * 2)]


@pytest.fixture
def memoryos(tmp_path, capsys, embedder):
    """Run `memoryos --data-dir TMP --set ... ARGS` in-process: (exit status, stdout, stderr)."""

    def run(*args, user="u1", model=None, settings=EXTRACTIVE):
        argv = ["--data-dir", str(tmp_path / "data"), "--user", user, *settings, *args]
        capsys.readouterr()
        code = cli.main([str(a) for a in argv], embedder=embedder, chat_model=model)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def state_of(memoryos, user="u1"):
    code, out, err = memoryos("inspect", "--json", user=user)
    assert code == 0, err
    return json.loads(out)


def counts(state):
    return (state["short_term"]["count"], state["mid_term"]["count"],
            state["mid_term"]["page_count"], len(state["long_term"]["user_facts"]),
            len(state["long_term"]["assistant_facts"]), len(state["long_term"]["profile"]))


def comparable(state):
    """A state without ids, links and times that differ between users (see _without_ids)."""
    data = _without_ids(state)
    for page in data["mid_term"]["pending_pages"]:
        for key in ("id", "segment_id", "prev_id", "next_id"):
            page.pop(key, None)
    return data


def without_heat(state):
    for seg in state["mid_term"]["segments"]:
        seg.pop("heat"), seg.pop("recency")
    return state


@pytest.fixture
def playground_file(tmp_path):
    path = tmp_path / "playground.json"
    path.write_text(json.dumps(PLAYGROUND))
    return path


def test_cli_locomo_import_inspect_export_clear_restore_diff(memoryos, tmp_path, locomo_file):
    code, out, err = memoryos("import", locomo_file)
    assert code == 0, err
    assert "format locomo" in out and "embedding" in err  # progress lines (stderr is no TTY)
    state = state_of(memoryos)
    short, mid, long = state["short_term"], state["mid_term"], state["long_term"]
    assert short["count"] == short["capacity"] == 7 and mid["capacity"] == 200
    assert mid["count"] > 0 and mid["page_count"] == 15
    for seg in mid["segments"]:
        assert {"id", "heat", "n_visit", "l_interaction", "recency", "summary", "keywords",
                "pages"} <= set(seg)
    pages = [p for s in mid["segments"] for p in s["pages"]] + mid["pending_pages"]
    for item in short["exchanges"] + pages:
        assert {"user", "assistant", "timestamp"} <= set(item)
    assert {"profile", "user_facts", "assistant_facts"} <= set(long)
    # the first conversation (Caroline is the user) with its session times
    assert min(p["timestamp"] for p in pages) == pytest.approx(1683554160.0)
    assert len(pages) + short["count"] == int(out.split("imported ")[1].split()[0])

    export = tmp_path / "u1.json"
    code, out, err = memoryos("export", "-o", export)
    assert code == 0 and out == "" and str(export) in err
    assert json.loads(export.read_text())["format"] == "memoryos-export"
    code, out, err = memoryos("import", export, user="u2")
    assert code == 0, err
    assert "saved as version 1" in out
    assert comparable(state_of(memoryos, "u2")) == comparable(state)

    # version 1 is the empty memory the first import was saved over (every import is undoable)
    code, out, err = memoryos("clear")
    assert code == 0 and "saved as version 2" in out
    assert counts(state_of(memoryos)) == (0, 0, 0, 0, 0, 0)
    code, out, _ = memoryos("versions", "--json")
    versions = json.loads(out)
    imported = int(state["mid_term"]["page_count"]) + short["count"]
    assert [(v["version"], v["label"]) for v in versions] == [
        (2, "before clear"), (1, f"before import (locomo, {imported} exchanges)")]
    assert versions[0]["counts"]["pages"] == mid["page_count"]
    assert versions[1]["counts"]["pages"] == 0

    code, out, err = memoryos("restore", "2")
    assert code == 0 and "restored version 2" in out and "saved as version 3" in out
    assert without_heat(state_of(memoryos)) == without_heat(state)

    code, out, _ = memoryos("diff", "3", "2", "--json")
    delta = json.loads(out)
    assert len(delta["exchanges"]["added"]) == short["count"] + mid["page_count"]
    assert delta["exchanges"]["removed"] == [] and delta["exchanges"]["changed"] == []
    assert len(delta["segments"]["added"]) == mid["count"]
    code, out, _ = memoryos("diff", "2", "0")
    assert code == 0 and out.startswith("from version 2 to current")
    assert "exchanges: +0 -0 ~0" in out
    code, out, _ = memoryos("versions")
    assert "before restore of version 2" in out and "before clear" in out


def test_cli_locomo_conversation_and_speaker(memoryos, locomo_file):
    code, out, err = memoryos("import", locomo_file, "--conversation", "demo-gina", "--speaker",
                              "Gina", "--no-maintain", "--dry-run")
    assert code == 0, err
    assert "would be imported" in out and counts(state_of(memoryos))[0] == 0
    code, out, err = memoryos("import", locomo_file, "--conversation", "demo-gina", "--speaker",
                              "Gina", "--no-maintain")
    assert code == 0, err
    state = state_of(memoryos)
    assert state["mid_term"]["count"] == 0 and state["mid_term"]["pending_pages"]
    code, _, err = memoryos("import", locomo_file, "--conversation", "conv-99")
    assert code == 1 and err.strip() == "memoryos: error: no conversation 'conv-99' in this file"


MALFORMED = {
    "truncated": '[{"user_input": "a", "agent_response": ',
    "wrong types": '[{"user_input": 5, "agent_response": "b"}]',
    "not a list": '{"user_input": "a"}',
    "huge file": '[{"user_input": "' + "x" * 60_000_000 + '", "agent_response": "b"}]',
    "unknown format": '{"something": 1}',
    "empty": "",
    "not utf-8": b"\xff\xfe\x00garbage",
    "bad export": '{"format": "memoryos-export", "version": 1, "exchanges": [{}]}',
    "deeply nested": "[" * 100_000 + "]" * 100_000,
    "locomo session not a list": json.dumps({"conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1": "oops",
        "session_1_date_time": "1:56 pm on 8 May, 2023"}}),
}


@pytest.mark.parametrize("name", [*MALFORMED, "missing file", "folder", "bad --format"])
def test_cli_malformed_input_is_one_line_and_writes_nothing(memoryos, tmp_path, name):
    path = tmp_path / "input.json"
    args = ["import", path]
    if name == "missing file":
        path = tmp_path / "nope.json"
        args = ["import", path]
    elif name == "folder":
        args = ["import", tmp_path]
    elif name == "bad --format":
        path.write_text(json.dumps(PLAYGROUND))
        args += ["--format", "yaml"]
    else:
        payload = MALFORMED[name]
        path.write_bytes(payload if isinstance(payload, bytes) else payload.encode())
    code, out, err = memoryos(*args)
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memoryos: error: "), err
    assert len(lines[0]) < 500 and "Traceback" not in err
    if name in ("missing file", "folder"):
        assert not (tmp_path / "data").exists()  # nothing written at all
    assert json.loads(memoryos("versions", "--json")[1]) == []
    assert counts(state_of(memoryos)) == (0, 0, 0, 0, 0, 0)


def test_cli_user_errors_are_one_line(memoryos):
    for args, settings, message in [
        (["restore", "7"], EXTRACTIVE, "version 7 does not exist"),
        (["diff", "1", "2"], EXTRACTIVE, "version 1 does not exist"),
        (["retrieve", "  "], EXTRACTIVE, "query must be a non-empty string"),
        (["settings"], ["--set", "top_pages"], "--set needs name=value"),
        (["settings"], ["--set", "colour=blue"], "unknown setting 'colour'"),
        (["settings"], ["--set", "top_pages=many"], "setting top_pages needs a int"),
        (["settings"], ["--set", "analysis=magic"], "setting analysis must be one of"),
        (["inspect"], ["--base-url", "http://127.0.0.1:9"], "--base-url needs --model"),
    ]:
        code, out, err = memoryos(*args, settings=settings)
        assert (code, out) == (1, ""), args
        assert err.startswith("memoryos: error: ") and message in err and err.count("\n") == 1


def test_cli_settings_from_env_then_set(memoryos, monkeypatch):
    monkeypatch.setenv("MEMORYOS_TOP_PAGES", "3")
    monkeypatch.setenv("MEMORYOS_HEAT_THRESHOLD", "9")
    code, out, _ = memoryos("settings", "--json", settings=["--set", "heat_threshold=2.5"])
    values = {row["name"]: row["value"] for row in json.loads(out)}
    assert code == 0 and values["top_pages"] == 3 and values["heat_threshold"] == 2.5
    assert values["consolidation"] == "auto"
    code, out, _ = memoryos("settings")
    assert "top_pages = 3 (default 20)" in out and "consolidation = extractive" in out


def test_cli_retrieve_snapshot_versions_diff(memoryos, playground_file):
    assert memoryos("import", playground_file)[0] == 0
    code, out, err = memoryos("analyze")
    assert code == 0 and "analysed" in out, err
    code, out, _ = memoryos("retrieve", "When is my marathon?")
    assert code == 0 and "query: When is my marathon?" in out
    assert "pages in the prompt:" in out and "marathon" in out
    assert "prompt parts (memory budget 1200 tokens):" in out and " tokens" in out
    code, out, _ = memoryos("retrieve", "When is my marathon?", "--json")
    trace = json.loads(out)
    assert trace["pages"] and any(p["selected"] for p in trace["pages"])
    assert {p["name"] for p in trace["prompt_parts"]} >= {"pages"}
    code, out, _ = memoryos("snapshot", "--label", "first")  # version 1: before the import
    assert code == 0 and out.strip() == "saved version 2 (first)"
    assert memoryos("import", playground_file)[1].startswith("imported 0 of 20")  # no duplicates
    code, out, _ = memoryos("inspect")
    assert code == 0 and "short-term: 7/7 exchanges" in out and "mid-term:" in out
    assert "long-term:" in out
    code, out, _ = memoryos("diff", "2", "0", "--json")
    assert json.loads(out)["to"] == 0


def test_cli_ask_and_chat_use_the_chat_model(memoryos, monkeypatch):
    model = ScriptedChatModel(["Hello Ana!", "You are Ana.", "Bye."])
    code, out, err = memoryos("ask", "Hi, I am Ana", model=model)
    assert (code, out) == (0, "Hello Ana!\n"), err
    monkeypatch.setattr(sys, "stdin", io.StringIO("Who am I?\n\n/quit\nnot read\n"))
    code, out, _ = memoryos("chat", model=model)
    assert (code, out) == (0, "You are Ana.\n")
    assert model.prompts == ["Hi, I am Ana", "Who am I?"]
    assert state_of(memoryos)["short_term"]["count"] == 2
    failing = ScriptedChatModel([ModelError("chat model 'x' failed: connection refused")])
    code, out, err = memoryos("ask", "Still there?", model=failing)
    assert (code, out) == (1, "")
    assert err == "memoryos: error: chat model 'x' failed: connection refused\n"
    assert state_of(memoryos)["short_term"]["count"] == 2  # a failed answer is never stored


def test_cli_serve_model_is_imported_lazily(memoryos, monkeypatch, tmp_path):
    calls = []
    fake = types.ModuleType("memoryos_core.hosts.serve")
    fake.serve_model = lambda port, host: calls.append((port, host))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memoryos_core.hosts.serve", fake)
    assert memoryos("serve-model", "--port", "8081")[0] == 0
    assert memoryos("serve-model", "--port", "9", "--host", "0.0.0.0")[0] == 0
    assert calls == [(8081, "127.0.0.1"), (9, "0.0.0.0")]
    assert not (tmp_path / "data").exists()  # no engine was built


def test_cli_progress_bar_redraws_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = ProgressBar(stream, width=10)
    for done in range(0, 5):
        bar(done, 4, "embedding")
    bar(1, 1, "analysis")
    bar.close()
    text = stream.getvalue()
    assert text.count("\r") == 6 and "[##########] 4/4 100%" in text
    assert text.endswith("analysis       [##########] 1/1 100%\n")
    plain = io.StringIO()
    bar = ProgressBar(plain)
    for done in range(101):
        bar(done, 100, "embedding")
    assert len(plain.getvalue().splitlines()) == 11


def _script() -> Path:
    return Path(sys.executable).with_name("memoryos")


@pytest.mark.real_model  # the installed script embeds with the default model (MiniLM)
@pytest.mark.skipif(not _script().exists(), reason="the memoryos script is not installed")
def test_cli_installed_script_imports_and_reports_errors(tmp_path, playground_file):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "MEMORYOS_DATA_DIR": str(tmp_path / "data"), "MEMORYOS_USER": "script-user"}
    bad = tmp_path / "bad.json"
    bad.write_text('[{"user_input": "a", "agent_response": ')
    run = subprocess.run([_script(), *EXTRACTIVE, "import", bad], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == ("memoryos: error: invalid JSON: the file ends early (line 1 column 40),"
                          " it looks cut off (truncated); nothing was imported\n")
    run = subprocess.run([_script(), *EXTRACTIVE, "import", playground_file], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("imported 20 of 20 exchanges (format playground)")
    assert "memory: short-term 7/7" in run.stdout
    run = subprocess.run([sys.executable, "-m", "memoryos_core", "versions", "--json"], env=env,
                         capture_output=True, text=True, timeout=120)
    # the empty memory the import was saved over (every import can be undone)
    assert run.returncode == 0 and [(v["version"], v["label"], v["counts"]["pages"])
                                    for v in json.loads(run.stdout)] == [
        (1, "before import (playground, 20 exchanges)", 0)]


def test_cli_longmemeval_import_selects_a_question_and_lists_cuts(memoryos, tmp_path,
                                                                 longmemeval_doc):
    longmemeval_doc[0]["haystack_sessions"][0][0]["content"] = "My lease: " + "clause " * 11000
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(longmemeval_doc))
    code, out, err = memoryos("import", path, "--format", "longmemeval", "--select", "lme-city",
                              "--dry-run")
    assert code == 0, err
    assert "format longmemeval: 2 of 2 exchanges would be imported" in out and "cut" not in out
    code, out, err = memoryos("import", path, "--select", "lme-car")
    assert code == 0, err
    assert "imported 6 of 7 exchanges (format longmemeval), 1 skipped" in out
    assert "1 text over 20,000 characters cut" in out
    assert "session 1 turn 1 (D1:1,D1:2) exchange" in out and "user text of 77,009" in out
    code, out, err = memoryos("import", path, "--select", "nope")
    assert code == 1 and "no question 'nope' in this file" in err
    # a 10-million-character turn (once a refused import) is stored cut, with the rest
    path.write_text(json.dumps([{"user_input": "x" * 10_000_000, "agent_response": "ok"}]))
    code, out, err = memoryos("import", path, user="u2")
    assert code == 0, err
    assert "imported 1 of 1" in out and "user text of 10,000,000 characters, 9,980,0" in out
