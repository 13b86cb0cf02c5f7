"""benchmarks.chat_export_import at small sizes: generated exports import, numbers are sane."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed

from benchmarks import chat_export_import  # noqa: E402


def test_generated_claude_export_is_recognised_with_its_branches(tmp_path, engine):
    path = tmp_path / "claude.json"
    conversations = chat_export_import.generate(path, "claude", 0.2)
    preview = engine.preview_import("u1", path)
    assert preview["format"] == "claude" and preview["conversations"] == conversations
    assert preview["to_import"] == 20 * conversations
    assert preview["abandoned"] == 5 * conversations  # every fourth reply regenerated
    assert "[artifact: Notes 0.2]" in json.dumps(preview["sample"])


def test_benchmark_reports_rates_peaks_and_the_chatgpt_ratio(tmp_path):
    result = chat_export_import.run([0.6], baseline_mb=0.3, embedder="hash", out=tmp_path)
    assert [r["kind"] for r in result["runs"]] == ["chatgpt", "claude", "claude"]
    # each file is written a whole conversation at a time, up to (just past) its size
    assert all([r["file_mb"] >= mb for r, mb in zip(result["runs"], (0.3, 0.3, 0.6), strict=True)])
    for row in result["runs"]:
        assert row["exchanges"] > 0 and row["pages_per_s"] > 0 and row["peak_rss_mb"] > 0
    assert result["runs"][1]["abandoned"] > 0
    assert result["ratio_pages_per_s_vs_chatgpt"] > 0
    assert (tmp_path / "chat_export_import.md").exists()
