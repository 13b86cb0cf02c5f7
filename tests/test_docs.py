"""The README documents every engine setting with its real default, and links docs/ that resolve."""

from __future__ import annotations

import re
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


DOCS = Path(__file__).resolve().parents[1] / "docs"
# a Markdown link or image: [text](target) / ![alt](target)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_anchor(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_the_readme_stays_a_guide_under_300_lines():
    assert len(README.splitlines()) < 300


def test_the_readme_links_every_docs_page():
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert len(pages) >= 8
    assert [p for p in pages if f"](docs/{p})" not in README] == []


def test_every_relative_link_and_image_of_the_readme_and_docs_resolves():
    pages = [DOCS.parent / "README.md", *sorted(DOCS.glob("*.md"))]
    broken = []
    checked = 0
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            checked += 1
            if not file.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert checked > 40  # the pages link each other and the images: losing the links fails too
    assert broken == []
    assert "](docs/memory.png)" in README and "](docs/trace.png)" in README
