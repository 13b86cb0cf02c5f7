"""The lab's miss reasons name a cause a reader can act on (issue 47)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from memoryos_core.evaluation import reasons
from memoryos_core.hosts import cli
from tests.conftest import locomo_document


def test_a_page_ranked_low_says_it_missed_the_keyword_list_and_what_ranked_above(tmp_path):
    # "ranked 63 (vector #2)" left the reader guessing why a near page ranked so low
    worded = [{"id": i, "fused": 1.0 - i / 100, "keyword_rank": i, "selected": i <= 3}
              for i in range(1, 63)]
    trace = {"pages": [*worded, {"id": 500, "fused": 0.01, "vector_rank": 2}],
             "query_keywords": ["kayak", "trip"], "keyword_search_terms": ["kayak", "trip"],
             "period": None, "facts": {"user": [], "assistant": []}}
    conv = SimpleNamespace(short=[], short_all=[], by_id={})
    why = reasons.product(trace, [500], conv, top_pages=10)[500]  # type: ignore[arg-type]
    assert why["code"] == "page_limit"
    assert why["reason"] == ("ranked 63 (vector #2; not in the keyword list (searched: kayak,"
                             " trip)), below the 10 pages the block considers; 62 pages holding"
                             " the searched words ranked above it")


def test_evidence_that_names_no_turn_or_a_skipped_turn_says_so(tmp_path, capsys, embedder):
    doc = locomo_document()[:1]
    turns = doc[0]["conversation"]["session_1"]
    skipped = next(t for t in turns if t["dia_id"] == "D1:3")
    skipped["speaker"] = "Narrator"  # neither speaker: the importer skips the turn
    doc[0]["qa"][0]["evidence"] = ["D1:1", "D1:3", "D1:99"]
    path = tmp_path / "locomo_bad_ids.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code = cli.main(["--data-dir", str(tmp_path / "data"), "--user", "u1", "eval", str(path),
                     "--json", "--strategies", "recent"], embedder=embedder)
    out = capsys.readouterr().out
    assert code == 0
    record = next(r for r in json.loads(out)["records"] if r["q"] == 0)
    gold = {g["dia_id"]: g for g in record["gold"]}
    assert gold["D1:99"]["reason"] == ("not in the file: the evidence id D1:99 names no turn in"
                                       " it (no session holds a turn with this dia_id)")
    assert gold["D1:3"]["reason"].startswith(
        "not imported: the importer skipped session_1[2] (speaker 'Narrator' is neither")
