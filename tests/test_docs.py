"""The README documents every engine setting with its real default."""

from __future__ import annotations

from pathlib import Path

from memoryos_core.config import SETTINGS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_readme_lists_every_setting_with_its_default():
    for name, default, _ in SETTINGS:
        assert f"| `{name}` | `{default}` |" in README, name


def test_readme_names_the_setup_and_test_commands_that_ci_runs():
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    for command in ("scripts/setup --test", "scripts/test"):
        assert command in ci
    assert "scripts/start" in README and "scripts/test" in README
