"""Two app servers (two 'hosts') x 2 workers on one PostgreSQL: nothing lost, jobs survive kill -9."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed

from benchmarks import multihost  # noqa: E402


def test_two_hosts_share_one_database_and_take_over_a_killed_hosts_job(tmp_path, postgres_url,
                                                                      capsys):
    report = multihost.run(servers=2, workers=2, users=4, turns=3, import_size=30,
                           kill_size=300, workdir=tmp_path, url=postgres_url)
    with capsys.disabled():  # the counts, in the CI log even when the test passes
        print("\nmultihost:", json.dumps(report, default=str))
    load, kill = report["load"], report["kill"]
    assert load["errors"] == 0, load["error_examples"]
    assert load["lost"] == 0 and load["duplicated"] == 0
    # an import ran alongside, on whichever host's worker claimed it
    assert load["import_status"] == "done" and load["import_stored"] == 30
    # clear and restore alongside: the cleared memory was empty, the restored one complete
    assert load["versions_cleared"] == 0 and load["versions_restored"] == load["versions_before"]
    # the host running a long import was killed -9; the other host finished it, exactly once
    assert kill["killed"] is not None, kill
    assert kill["status"] == "done" and kill["attempts"] >= 2
    assert kill["stored"] == kill["expected"] == 300
