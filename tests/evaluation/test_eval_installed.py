"""`memoryos eval` from an installed copy (no checkout on the path): the samples ship with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import memoryos_core
assert memoryos_core.__file__.startswith(sys.argv[1]), memoryos_core.__file__
from memoryos_core.hosts.cli import main
from memoryos_core.testing import HashEmbedder
sys.exit(main(["-q", "eval", "--sample", sys.argv[2], "--json"], embedder=HashEmbedder()))
"""


def test_eval_runs_from_an_installed_copy_on_its_built_in_samples(tmp_path):
    target = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--quiet",
         "--target", str(target), str(ROOT)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-3000:]
    assert (target / "memoryos_core" / "evaluation" / "samples" / "locomo_sample.json").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for sample, fmt in (("locomo", "locomo"), ("longmemeval", "longmemeval")):
        run = subprocess.run([sys.executable, "-c", SCRIPT, str(target), sample],
                             capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
        assert run.returncode == 0, run.stderr[-3000:]
        result = json.loads(run.stdout)
        assert result["format"] == fmt and result["records"]
        assert all(g["reason"] for r in result["records"] for g in r["gold"])
    assert not (tmp_path / "memoryos-data").exists()  # nothing written where it ran
