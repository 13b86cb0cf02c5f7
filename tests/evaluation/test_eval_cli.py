"""`memoryos eval`: a made-up LoCoMo file evaluated on a throwaway memory, with miss reasons."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from memoryos_core.hosts import cli


@pytest.fixture
def memoryos(tmp_path, capsys, embedder):
    """Run `memoryos --data-dir TMP/data ARGS` in-process: (exit status, stdout, stderr)."""

    def run(*args):
        capsys.readouterr()
        code = cli.main(["--data-dir", str(tmp_path / "data"), "--user", "u1",
                         *[str(a) for a in args]], embedder=embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def test_eval_prints_the_table_and_leaves_the_data_folder_alone(memoryos, locomo_file, tmp_path):
    code, out, err = memoryos("eval", locomo_file)
    assert code == 0, err
    head = out.splitlines()[0].split()
    assert head[:2] == ["strategy", "recall"] and "multi-hop" in head
    for strategy in ("memoryos", "flat-hybrid", "flat-hybrid-filtered", "flat", "recent", "full"):
        assert any(line.startswith(strategy + " ") for line in out.splitlines())
    assert "best baseline" in out and "questions at equal tokens" in out
    assert "questions of demo-ana" in err  # the progress bar on stderr
    assert not (tmp_path / "data").exists()  # the run's memory was a throwaway of its own


def test_eval_json_gives_records_with_a_reason_for_every_evidence_turn(memoryos, locomo_file):
    # a budget of a page or two: most evidence cannot fit, so there are misses to explain
    code, out, err = memoryos("eval", locomo_file, "--budget", "60", "--json",
                              "--strategies", "flat-hybrid,recent")
    assert code == 0, err
    result = json.loads(out)
    assert result["format"] == "locomo" and result["settings"]["token_budget"] == 60
    assert result["settings"]["strategies"] == ["memoryos", "flat-hybrid", "recent"]
    records = result["records"]
    assert len(records) == 3 * 20  # the 20 questions (categories 1-4), 3 strategies
    codes = set()
    for rec in records:
        assert rec["question"] and rec["category"] in (1, 2, 3, 4)
        assert rec["gold"] and all(g["dia_id"].startswith("D") and g["text"] for g in rec["gold"])
        assert rec["recall"] == sum(g["in_context"] for g in rec["gold"]) / len(rec["gold"])
        for g in rec["gold"]:
            assert g["reason"] and g["code"]
            codes.add((rec["strategy"], g["code"], g["in_context"]))
        lines = rec["context"]
        assert rec["tokens"] > 0 and lines
        # every exchange line names its page and tier; headers name none
        for line in lines:
            if re.match(r"User:|\[\d{4}-\d\d-\d\d ", line["text"]):
                assert isinstance(line["source"], int) and line["tier"] in ("mid", "short")
        held = {line["source"] for line in lines if isinstance(line["source"], int)}
        for g in rec["gold"]:
            if g["in_context"]:
                assert g["exchange"] in held
    missed = {c for s, c, found in codes if not found}
    assert missed & {"budget", "not_candidate", "filtered", "page_limit"}, codes
    assert ("recent", "not_recent", False) in codes
    assert ("memoryos", "short_term", True) in codes  # the last exchanges are in short-term
    ranked = [g for r in records if r["strategy"] == "memoryos" for g in r["gold"]
              if g["code"] == "budget"]
    assert all(g["ranks"] and "dropped by the token budget" in g["reason"] for g in ranked)


def test_eval_out_writes_json_csv_and_markdown(memoryos, locomo_file, tmp_path):
    code, _, err = memoryos("eval", locomo_file, "--budget", "60", "--strategies", "flat",
                            "--categories", "1,4", "--out", tmp_path / "lab")
    assert code == 0, err
    result = json.loads((tmp_path / "lab" / "records.json").read_text())
    rows = list(csv.DictReader(io.StringIO((tmp_path / "lab" / "records.csv").read_text())))
    assert len(rows) == len(result["records"]) and {r["category"] for r in rows} <= {"1", "4"}
    misses = [r for r in rows if r["missed"]]
    assert misses and all(r["reasons"].startswith(r["missed"].split()[0] + ":") for r in misses)
    assert "| memoryos |" in (tmp_path / "lab" / "summary.md").read_text()


def test_eval_runs_a_longmemeval_file_and_the_built_in_samples(memoryos, longmemeval_file):
    code, out, err = memoryos("eval", longmemeval_file, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["format"] == "longmemeval"
    assert set(result["by_type"]) == {"knowledge-update", "single-session-user"}
    assert {r["question_type"] for r in result["records"]} == set(result["by_type"])
    code, out, err = memoryos("eval", "--sample", "longmemeval", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert len({r["sample_id"] for r in result["records"]}) == 4
    abstain = [r for r in result["records"] if r["sample_id"].endswith("_abs")]
    assert abstain and all(r["recall"] is None and r["category"] == 5 for r in abstain)


@pytest.mark.parametrize("content, message", [
    (b"{not json", "is not valid JSON"),
    (b'{"hello": "world"}', "neither LoCoMo"),
    (b"[]", "holds no conversation"),
    (b"\xff\xfe\x00", "is not text"),
    (json.dumps([{"sample_id": "x", "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]},
        "qa": [{"question": "What?", "answer": "hi", "category": 4}]}]).encode(),
     "no question has evidence ids"),
])
def test_eval_bad_files_get_one_clear_line(memoryos, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    code, out, err = memoryos("eval", path)
    assert code == 1 and out == ""
    assert err.strip().startswith("memoryos: error:") and message in err
    assert len(err.strip().splitlines()) == 1


def test_eval_refuses_an_unknown_strategy_and_a_missing_file(memoryos, locomo_file, tmp_path):
    code, _, err = memoryos("eval", locomo_file, "--strategies", "magic")
    assert code == 1 and "unknown strategy magic" in err
    code, _, err = memoryos("eval", tmp_path / "nope.json")
    assert code == 1 and "memoryos: error:" in err
    code, _, err = memoryos("eval")
    assert code == 1 and "--sample" in err


def test_eval_answer_scores_the_official_f1_per_strategy(tmp_path, capsys, embedder,
                                                         locomo_file):
    from memoryos_core.testing import ScriptedChatModel

    def reply(messages, schema):  # a model that always says the first question's answer
        return "I signed up for a pottery class on Tuesdays."

    model = ScriptedChatModel(default=reply, name="pottery")
    capsys.readouterr()
    code = cli.main(["-q", "--data-dir", str(tmp_path / "d"), "eval", str(locomo_file),
                     "--strategies", "flat", "--answer", "--json"], embedder=embedder,
                    chat_model=model)
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    first = [r for r in result["records"] if r["q"] == 0 and r["sample_id"] == "demo-ana"]
    assert {r["strategy"] for r in first} == {"memoryos", "flat"}
    assert all(r["f1"] == 1.0 and r["prediction"].startswith("I signed up") for r in first)
    for s in result["summary"].values():
        assert 0 < s["f1"] < 1 and s["f1_by_category"] and s["answer_errors"] == 0
    assert len(model.calls) == len(result["records"])  # one call per question and strategy
